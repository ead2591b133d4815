// What the program gets from the process (argv, env, cwd, pid, the three streams), the messages it writes
// to stderr (Reporter) and the sink that writes to stdout. bin.ts makes the Io from `process`.
import { fstatSync } from 'node:fs';
import type { Readable, Writable } from 'node:stream';
import { CliError, limitReached, oneLine, tooDeep } from './errors.js';

/** What sling writes its output to: process.stdout in the CLI. */
export interface OutStream {
  /** `done`: called once the chunk has been handed to the system (or failed). */
  write(chunk: string | Uint8Array, done?: (err?: Error | null) => void): boolean;
  once(event: 'drain', listener: () => void): unknown;
  isTTY?: boolean;
  /** Bytes written and not yet taken by the system (a full pipe). */
  readonly writableLength?: number;
}

/** Where output goes: stdout in the CLI, a buffer in tests of the printer. */
export interface Sink {
  write(chunk: string | Buffer): void | Promise<void>;
}

/** Everything main needs from the process; bin.ts makes it from `process`. */
export interface Io {
  argv: string[];
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** The process id (in temporary files' names: a download's and exec's `.part` files, a session's; a curl file's `$$`). */
  pid: number;
  stdin: Readable & { isTTY?: boolean; fd?: number };
  stdout: OutStream;
  stderr: Writable & { isTTY?: boolean };
  /** The scheme of URLs without one: http for sling, https for slings. */
  defaultScheme?: string;
}

export class Reporter {
  /**
   * The main command's output ends in the middle of a line (a body without a final newline): the
   * next message starts on a line of its own, so that `> out 2>&1` keeps `sling: error:` at the
   * start of a line, as `sling exec` does. Says so once.
   */
  openLine?: () => boolean;

  constructor(
    private readonly io: Io,
    public quiet = 0,
    public debugOn = false,
  ) {}
  private get nl(): string {
    return this.openLine?.() ? '\n' : '';
  }
  warn(message: string) {
    if (this.quiet < 2) this.io.stderr.write(`${this.nl}sling: warning: ${oneLine(message)}\n`);
  }
  /** Something the user should know once that is neither a warning nor an error (silent with -q). */
  note(message: string) {
    if (this.quiet < 1) this.io.stderr.write(`${this.nl}sling: note: ${oneLine(message)}\n`);
  }
  debug(message: string) {
    if (this.debugOn) this.io.stderr.write(`${this.nl}sling: debug: ${oneLine(message)}\n`);
  }
  error(err: unknown) {
    const nl = this.nl;
    if (err instanceof CliError) {
      this.io.stderr.write(`${nl}sling: error: ${oneLine(err.message)}\n`);
      if (err.hint) this.io.stderr.write(`  hint: ${oneLine(err.hint)}\n`);
    } else if (limitReached(err) !== undefined) {
      // Not a bug: an input nested thousands of levels deep, or grown too large (the places that know which input say so).
      this.io.stderr.write(`${nl}sling: error: ${tooDeep(err) ? 'the input is ' : ''}${limitReached(err)}\n`);
    } else {
      this.io.stderr.write(`${nl}sling: error: unexpected failure: ${oneLine((err as Error)?.message ?? String(err))}\n`);
      this.io.stderr.write('  hint: run again with --debug and report the stack trace\n');
    }
    if (this.debugOn && err instanceof Error && err.stack) this.io.stderr.write(err.stack + '\n');
  }
}

export function stdoutSink(out: Io['stdout']): Sink {
  return {
    write(chunk) {
      if (out.write(chunk)) return;
      return new Promise<void>((resolve) => out.once('drain', resolve));
    },
  };
}

/**
 * A write to standard output failed because its reader went away: EPIPE for a pipe (`| head`), and
 * ECONNRESET for a socket (what Node's child_process gives a child as its stdout) that its reader
 * closed with bytes still unread. Either way sling stops quietly, exit 0, as other tools do.
 */
export function readerGone(e: unknown): boolean {
  const code = (e as NodeJS.ErrnoException | undefined)?.code;
  return code === 'EPIPE' || code === 'ECONNRESET';
}

let oneTarget: boolean | undefined;
/**
 * Standard output and standard error are the same file or pipe (`> out 2>&1`): a message after a
 * body without its last line break then needs a line of its own. True when it cannot be told.
 */
export function stdoutIsStderr(): boolean {
  if (oneTarget === undefined) {
    try {
      const a = fstatSync(1);
      const b = fstatSync(2);
      oneTarget = a.dev === b.dev && a.ino === b.ino;
    } catch {
      oneTarget = true;
    }
  }
  return oneTarget;
}
