import type { Creation } from '../../files.js';
import type { AfterResult, Completed } from '../../model/exec.js';
import type { Transfer } from './plan.js';
import type { CurlUrl } from './url.js';

/**
 * What a curl command asks to be done with its answers (-o/-O/-J files, -D, -w, --etag-save, the
 * shell's `> file`, the -c cookie jar) and the exit codes curl gives: the command that runs the file
 * does it (commands/exec/curl-output.ts), through this interface. The curl front end only reads
 * the options and says which transfer an answer belongs to; it writes no file itself.
 */
export interface CurlOutput {
  /** Where a transfer's body goes, decided from the head alone (so that a large one is written as it comes). */
  planBody(t: Transfer, url: CurlUrl, answer: Omit<Completed, 'body'>, cwd: string): BodyPlan;
  /** Everything written after a transfer that got its answer (files, -D, -w), and its exit code. */
  afterTransfer(t: Transfer, url: CurlUrl, c: Completed, ctx: OutputContext, plan?: BodyPlan): AfterResult;
  /** What curl still writes after a transfer that failed (-w, what came of a body cut short). */
  afterFailedTransfer(t: Transfer, url: CurlUrl, failed: FailedTransfer, ctx: OutputContext, plan?: BodyPlan): AfterResult;
  /** curl's exit code for a failure sling reports in its own words (-w's %{exitcode}). */
  exitCode(e: Error): number;
  /** The shell's `> file` (`>> file`), opened before the command runs as bash does; throws when it cannot be. */
  openStdout(path: string, append: boolean): void;
  /** Writes a whole file (the -c cookie jar, or `-c -` into the command's `> file`); throws when it cannot. */
  writeFile(path: string, data: Buffer, how: Creation): void;
}

export interface OutputContext {
  cwd: string;
  /** The command's stdout went to a file (`> file`, `>> file`). */
  stdout?: { kind: 'file'; path: string; append: boolean } | { kind: 'discard' };
  /** First write to the stdout file truncates it (unless >>), later ones append. */
  stdoutStarted: { value: boolean };
  warn(message: string): void;
}

export interface BodyPlan {
  /** The file as named (undefined: the body goes to the command's standard output). */
  outFile?: string;
  /** The file to write, when the body is written to one. */
  path?: string;
  /**
   * How the file is opened, never through a link (files.ts openToWrite): `append` for -C with a 206,
   * `new` for a -J name or one --no-clobber chose (nothing there is written over), else `replace`.
   */
  how: Creation;
  /** -i's heads, before the body. */
  prefix: Buffer;
  /** -f on an HTTP error: only -i's heads are written. */
  headOnly: boolean;
  writeBody: boolean;
  /** What went wrong before anything was written: [message, curl's exit code]. */
  problems: [string, number][];
}

export interface FailedTransfer {
  method: string;
  /** curl's exit code for the failure (CurlOutput.exitCode). */
  exitCode: number;
  message: string;
  /** When the command started (clock.ts `now()`), for %{time_total}. */
  started: number;
  /** The head that came before the body failed (cut short, stalled): -w reports its status, headers and the bytes that came. */
  answered?: Completed;
}

/** `#1`, `#2`... in -o names: the text the URL's globs matched. */
export function globName(name: string, matches: string[]): string {
  return name.replace(/#(\d)/g, (m, d: string) => matches[Number(d) - 1] ?? m);
}

/** `-o -`, and the names of the standard output itself (`-o /dev/stdout`): the command's output (a `> file`, or under the response). */
export function isStdout(name: string): boolean {
  return name === '-' || name === '/dev/stdout' || name === '/dev/fd/1' || name === '/proc/self/fd/1';
}
