import { fstatSync, statSync, writeSync } from 'node:fs';

/** What sling writes its output to: process.stdout, or an FdWriter for it. */
export interface OutStream {
  write(chunk: string | Uint8Array): boolean;
  once(event: 'drain', listener: () => void): unknown;
  isTTY?: boolean;
}

/**
 * Standard output written with plain write(2) calls, for when it is a file, a pipe, a socket or
 * /dev/null. Node's process.stdout is a stream object whose creation loads the stream machinery
 * (and for a pipe node:net): measured 3 ms for a file, 9 ms for a pipe, on a start-up of ~55 ms.
 * On Linux and macOS process.stdout writes files and pipes synchronously anyway, so output order
 * and timing are the same.
 *
 * A pipe that another program left non-blocking answers EAGAIN when full: from then on the rest
 * goes through the real stream (`fallback`), which waits for the reader. Any other failure (a
 * reader that went away: EPIPE; a full disk) goes to `onError`, as the stream's 'error' event would.
 */
export class FdWriter implements OutStream {
  readonly isTTY = false;
  private stream: OutStream | undefined;
  /** The last byte written was not a line feed (a body without its last newline). */
  lineOpen = false;

  constructor(
    private readonly fd: number,
    private readonly fallback: () => OutStream,
    private readonly onError: (e: NodeJS.ErrnoException) => void,
  ) {}

  write(chunk: string | Uint8Array): boolean {
    if (chunk.length) this.lineOpen = (typeof chunk === 'string' ? chunk.charCodeAt(chunk.length - 1) : chunk[chunk.length - 1]) !== 10;
    if (this.stream) return this.stream.write(chunk);
    let buf: Uint8Array | undefined;
    let at = 0;
    try {
      if (typeof chunk === 'string') {
        if (chunk.length === 0) return true;
        // Most writes go whole: the string is written without a copy into a Buffer first.
        at = writeSync(this.fd, chunk);
        if (at === Buffer.byteLength(chunk)) return true;
        buf = Buffer.from(chunk);
      } else buf = chunk;
      while (at < buf.length) at += writeSync(this.fd, buf, at, buf.length - at);
      return true;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EAGAIN') {
        this.onError(e as NodeJS.ErrnoException);
        return true;
      }
      this.stream = this.fallback();
      const rest = buf ? buf.subarray(at) : chunk;
      return this.stream.write(rest);
    }
  }

  once(event: 'drain', listener: () => void): unknown {
    // write() only returns false once the stream has taken over.
    if (this.stream) return this.stream.once(event, listener);
    queueMicrotask(listener);
    return this;
  }
}

/**
 * An FdWriter for `fd` when it is a regular file, a pipe, a socket or /dev/null; undefined otherwise
 * (a terminal, a closed descriptor): then process.stdout it is. Not for Windows, whose pipes and
 * consoles Node's own streams handle (bin.ts does not ask there).
 */
export function fdWriterFor(fd: number, fallback: () => OutStream, onError: (e: NodeJS.ErrnoException) => void): FdWriter | undefined {
  try {
    const st = fstatSync(fd);
    if (st.isFile() || st.isFIFO() || st.isSocket() || (st.isCharacterDevice() && st.rdev === statSync('/dev/null').rdev)) return new FdWriter(fd, fallback, onError);
  } catch {
    // closed, or no /dev/null: let Node decide
  }
  return undefined;
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
