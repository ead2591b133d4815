import { ExitCode } from './exit.js';

/**
 * Every failure the user can see is a CliError: it knows its one-line message, its exit code and
 * an optional hint (printed on its own line). main.ts is the only place that turns them into output.
 */
export class CliError extends Error {
  readonly exitCode: ExitCode;
  readonly hint?: string;
  /** What arrived of a response that then failed (cut short, timed out): sling exec prints it before the error, as the main command does. */
  partial?: { response: import('./transport/send.js').ResponseHead; body: Buffer; info: import('./transport/send.js').HopInfo; request?: import('./request/prepare.js').PreparedRequest; url?: import('./request/url.js').ParsedUrl };
  /** The last answer before a failure that is not about it (too many redirects): curl's -w reports it; nothing prints it. */
  lastAnswer?: CliError['partial'];
  constructor(message: string, exitCode: ExitCode = ExitCode.ERROR, hint?: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'CliError';
    this.exitCode = exitCode;
    this.hint = hint;
  }
}

// eslint-disable-next-line no-control-regex
const BREAKS = /[\x00-\x08\x0a-\x1f\x7f]/g;

/**
 * A message kept on its one line: a value quoted from a file, an argument or a script may hold
 * line breaks or other control characters, shown here as escapes (`\n`, `\r`, `\x1b`). Tabs stay.
 */
export function oneLine(text: string): string {
  BREAKS.lastIndex = 0;
  if (!BREAKS.test(text)) return text;
  return text.replace(BREAKS, (c) => (c === '\n' ? '\\n' : c === '\r' ? '\\r' : `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`));
}

/**
 * JavaScript's stack ran out: sling's readers and resolvers recurse once per level of nesting (JSON,
 * JSONPath, shell expansions, variables), and a file or a response nested some thousands of levels
 * deep ends them. Not a bug to report: `where` says which input (`api.http:12`), exit 1.
 */
export function tooDeep(e: unknown, where: string): CliError | undefined {
  if (!(e instanceof RangeError) || !/call stack size/i.test(e.message)) return undefined;
  return new CliError(`${where}: nested too deeply to work through (${e.message})`, ExitCode.ERROR, undefined, { cause: e });
}

/**
 * A value grew past the largest string or array JavaScript can hold: a variable defined as itself
 * twice over, thirty times (`@a2 = {{a1}}{{a1}}`, `A=$A$A`), doubles to gigabytes. Also not a bug to
 * report: one sentence naming the input, exit 1.
 */
export function tooLarge(e: unknown, where: string): CliError | undefined {
  if (!(e instanceof RangeError) || !/invalid (string|array|typed array) length|array buffer allocation failed/i.test(e.message)) return undefined;
  return new CliError(`${where}: a value grows past the largest string Node.js can hold (${e.message})`, ExitCode.ERROR, undefined, { cause: e });
}

/** Either limit of the JavaScript engine (tooDeep, tooLarge), as one sentence naming `where`. */
export function beyondLimits(e: unknown, where: string): CliError | undefined {
  return tooDeep(e, where) ?? tooLarge(e, where);
}

/** beyondLimits' sentence without a place (for readers that add FILE:LINE:COL themselves). */
export function limitReached(e: unknown): string | undefined {
  return beyondLimits(e, '')?.message.slice(2);
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
  constructor(message: string) {
    super(message, ExitCode.TOO_MANY_REDIRECTS, 'raise the limit with --max-redirects N');
    this.name = 'TooManyRedirectsError';
  }
}

/** What a failed write(2) says, without Node's trailing ", write": "ENOSPC: no space left on device". */
export const writeFailure = (e: unknown) => String((e as Error).message).replace(/, write$/, '');
