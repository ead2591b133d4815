import { ExitCode } from './exit.js';
import { NestingError } from './nesting.js';
import { BIDI, escapeCode } from './sanitize.js';

/**
 * Every failure the user can see is a CliError: it knows its one-line message, its exit code and
 * an optional hint (printed on its own line). main.ts is the only place that turns them into output.
 * `partial` and `lastAnswer` (what came of a response before a failure) are declared in model/answer.ts.
 */
export class CliError extends Error {
  readonly exitCode: ExitCode;
  readonly hint?: string;
  constructor(message: string, exitCode: ExitCode = ExitCode.ERROR, hint?: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'CliError';
    this.exitCode = exitCode;
    this.hint = hint;
  }
}

const BREAKS = new RegExp(`[\\x00-\\x08\\x0a-\\x1f\\x7f-\\x9f${BIDI}]`, 'g');

/**
 * A message kept on its one line: a value quoted from a file, an argument, a script or a response
 * may hold line breaks or other control characters, shown here as escapes (`\n`, `\r`, `\x1b`,
 * `\x9b`), and bidirectional controls that would reorder the line (`\u202e`), terminal or not
 * (sanitize.ts has the rule). Tabs stay.
 */
export function oneLine(text: string): string {
  BREAKS.lastIndex = 0;
  if (!BREAKS.test(text)) return text;
  return text.replace(BREAKS, (c) => (c === '\n' ? '\\n' : c === '\r' ? '\\r' : escapeCode(c.charCodeAt(0))));
}

/**
 * A limit of the JavaScript engine, as a sentence without a place, or undefined for any other error.
 * Not bugs to report: JavaScript's stack ran out (sling's readers and resolvers recurse once per
 * level of nesting: JSON, JSONPath, shell expansions, variables), or a value grew past the largest
 * string or array it can hold (a variable defined as itself twice over, thirty times:
 * `@a2 = {{a1}}{{a1}}`, `A=$A$A`).
 */
export function limitReached(e: unknown): string | undefined {
  if (!(e instanceof RangeError)) return undefined;
  if (e instanceof NestingError) return `nested too deeply to work through (${e.message})`;
  if (/call stack size/i.test(e.message)) return `nested too deeply to work through (${e.message})`;
  if (/invalid (string|array|typed array) length|array buffer allocation failed/i.test(e.message)) return `a value grows past the largest string Node.js can hold (${e.message})`;
  return undefined;
}

/** The stack ran out (limitReached): whether it was that. */
export function tooDeep(e: unknown): boolean {
  return e instanceof NestingError || (e instanceof RangeError && /call stack size/i.test(e.message));
}

/** Either limit (limitReached) as one sentence naming `where` (`api.http:12`), exit 1. */
export function beyondLimits(e: unknown, where: string): CliError | undefined {
  const limit = limitReached(e);
  return limit === undefined ? undefined : new CliError(`${where}: ${limit}`, ExitCode.ERROR, undefined, { cause: e });
}

/** Bad command line, malformed item, unreadable file: exit 1. */
export class UsageError extends CliError {
  constructor(message: string, hint?: string) {
    super(message, ExitCode.ERROR, hint);
    this.name = 'UsageError';
  }
}

/** Connection refused or reset, DNS, TLS, proxy, body cut short: exit 6. */
export class NetworkError extends CliError {
  constructor(message: string, hint?: string, options?: { cause?: unknown }) {
    super(message, ExitCode.NETWORK, hint, options);
    this.name = 'NetworkError';
  }
}

/** `--timeout` reached: exit 2. */
export class TimeoutError extends CliError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, ExitCode.TIMEOUT, undefined, options);
    this.name = 'TimeoutError';
  }
}

/** More hops than `--max-redirects`: exit 3. */
export class TooManyRedirectsError extends CliError {
  constructor(message: string, option = '--max-redirects') {
    super(message, ExitCode.TOO_MANY_REDIRECTS, `raise the limit with ${option} N`);
    this.name = 'TooManyRedirectsError';
  }
}

/**
 * The most of a response body `sling exec` holds whole, to give it to a response handler, an
 * assertion or a later request (a body only printed or saved is never held whole). SLING_HELD_BODY_MB
 * changes it.
 */
export function heldBodyLimit(env: NodeJS.ProcessEnv): number {
  const mb = Number(env.SLING_HELD_BODY_MB);
  return (Number.isFinite(mb) && mb > 0 ? mb : 256) * 1024 * 1024;
}

/** A body over heldBodyLimit(): exit 1, the reading stops. */
export function heldBodyTooLarge(limit: number): CliError {
  const mb = Math.round(limit / 1048576);
  return new CliError(
    `the response body is over ${mb} MiB, more than sling holds for a response handler, an assertion or a later request (a body only printed or saved with '>> file' or -o is not held; SLING_HELD_BODY_MB raises the limit)`,
  );
}

/** What a failed write(2) says, without Node's trailing ", write": "ENOSPC: no space left on device". */
export const writeFailure = (e: unknown) => String((e as Error).message).replace(/, write$/, '');

const FILE_PROBLEMS: Record<string, string> = {
  ENOENT: 'no such file or folder',
  EACCES: 'permission denied',
  EPERM: 'not permitted',
  ENOTDIR: 'a part of the path is a file, not a folder',
  EISDIR: 'it is a folder',
  ENAMETOOLONG: 'the name is too long',
  ENOSPC: 'no space left on the device',
  EROFS: 'the file system is read-only',
  EEXIST: 'it exists',
  ENOTREG: 'it is not a regular file (a pipe, a socket)',
  ESYMLINK: 'it is a symbolic link, which sling neither writes through nor replaces',
  // files.ts replaceFile on Windows: EPERM/EBUSY/EACCES on every try for about 1 s.
  EHELD: 'another program holds the file open (an antivirus scanner, OneDrive, an editor?); still so after trying for 1 s, close it and run again',
};

/** A failed file operation in words ("permission denied"), without Node's `ENOENT: ..., mkdir '/x'` detail. */
export function fileProblem(e: unknown): string {
  const code = (e as NodeJS.ErrnoException).code;
  return (code && FILE_PROBLEMS[code]) ?? writeFailure(e);
}
