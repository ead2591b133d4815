import { closeSync, fstatSync, mkdtempSync, openSync, readSync, rmSync, statSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UsageError } from '../errors.js';
import { onExit } from '../interrupt.js';
import type { BodyPiece, FileBody } from './spec.js';

/**
 * Uploads that are not read into memory. A file of STREAM_THRESHOLD bytes or more that makes a
 * body, or a part of one, becomes a FileBody: its size is taken when the request is built (so
 * Content-Length goes out as it does for any body) and it is opened and read piece by piece as the
 * request is written, anew for each send (redirects that keep the body, retries, a digest round
 * trip). Smaller files are read whole, as before: the per-request path of `sling exec` stays as it
 * was. A file that is gone, or no longer the size it had, fails with one line and the request is
 * cut off on the wire: a shorter body is never sent as complete.
 */
export const STREAM_THRESHOLD = 1024 * 1024;

/** How much of a file is read at a time while it is sent. */
const READ_SIZE = 256 * 1024;

/** A prepared body with large files in it (prepare.ts): its pieces, in order, and its length on the wire. */
export class StreamedBody {
  readonly kind = 'streamed';
  constructor(
    readonly pieces: BodyPiece[],
    readonly length: number,
  ) {}
}

export type WireBody = Buffer | StreamedBody;

export function isStreamed(body: WireBody): body is StreamedBody {
  return !Buffer.isBuffer(body);
}

export function pieceLength(p: BodyPiece): number {
  return p.length;
}

function why(e: unknown): string {
  const code = (e as NodeJS.ErrnoException).code;
  return code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a directory' : code === 'EACCES' ? 'permission denied' : (e as Error).message;
}

/**
 * A FileBody for a regular file of STREAM_THRESHOLD bytes or more at `path` (absolute), else
 * undefined (the caller reads it as before; a missing file fails there, with its own message).
 */
export function largeFile(path: string, shown: string, textLines = false): FileBody | undefined {
  let size: number;
  try {
    const st = statSync(path);
    if (st.isFIFO() || st.isSocket()) return spoolPipe(path, shown, textLines);
    if (!st.isFile()) return undefined;
    size = st.size;
  } catch (e) {
    if (e instanceof UsageError) throw e;
    return undefined;
  }
  if (size < STREAM_THRESHOLD) return undefined;
  return { kind: 'file', path, shown, fileSize: size, length: textLines ? countTextLines(path, shown, size) : size, textLines: textLines || undefined };
}

/**
 * A named pipe (`mkfifo`, `<(command)`, `/dev/stdin` when it is a pipe) or a socket as a body: it
 * can be read only once and its size is known only at its end, so it is read to its end now into
 * a temporary file (Spool, mode 0600, removed when sling exits), which is then sent as any large
 * file, with a Content-Length, as often as a redirect, a retry or a digest round trip needs. A
 * gigabyte written into a FIFO costs a gigabyte of the temporary folder's disk, never of memory.
 */
function spoolPipe(path: string, shown: string, textLines: boolean): FileBody {
  const spool = new Spool(shown);
  const buf = Buffer.allocUnsafe(READ_SIZE);
  let fd: number | undefined;
  try {
    // Opening a FIFO waits for its writer, as curl's does.
    fd = openSync(path, 'r');
    spool.spill();
    for (;;) {
      const n = readSync(fd, buf, 0, buf.length, null);
      if (n === 0) break;
      spool.add(buf.subarray(0, n));
    }
  } catch (e) {
    throw new UsageError(`cannot read '${shown}': ${why(e)}`);
  } finally {
    if (fd !== undefined) closeSync(fd);
    spool.close();
  }
  const body = spool.result() as FileBody;
  return textLines ? { ...body, length: countTextLines(body.path, shown, body.fileSize), textLines: true } : body;
}

/**
 * curl's reading of a -d @file (curl/body.ts textLines), a piece at a time: lines of at most 255
 * bytes that end after a newline, each cut at its first CR, LF or NUL.
 */
export class TextLines {
  private count = 0;
  private cut = false;
  /** The bytes of `chunk` that are kept, written into `out` (at least chunk.length long); returns how many. */
  run(chunk: Buffer, out: Buffer | undefined): number {
    let n = 0;
    let count = this.count;
    let cut = this.cut;
    for (let i = 0; i < chunk.length; i++) {
      const b = chunk[i]!;
      count++;
      if (!cut && (b === 13 || b === 10 || b === 0)) cut = true;
      if (!cut) {
        if (out) out[n] = b;
        n++;
      }
      if (b === 10 || count === 255) {
        count = 0;
        cut = false;
      }
    }
    this.count = count;
    this.cut = cut;
    return n;
  }
}

/** The length of a file read as curl's -d @file reads it: one pass over it, a piece at a time. */
function countTextLines(path: string, shown: string, size: number): number {
  const lines = new TextLines();
  const buf = Buffer.allocUnsafe(READ_SIZE);
  let fd: number | undefined;
  let total = 0;
  try {
    fd = openSync(path, 'r');
    for (let read = 0; read < size; ) {
      const n = readSync(fd, buf, 0, Math.min(buf.length, size - read), read);
      if (n === 0) break;
      read += n;
      total += lines.run(buf.subarray(0, n), undefined);
    }
  } catch (e) {
    throw new UsageError(`cannot read '${shown}': ${why(e)}`);
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
  return total;
}

/**
 * The bytes of a body, read now: for what needs them whole (--compress, exporters, a script's
 * request.body). A file that cannot be read is a one-line error.
 */
export function wholeBody(body: WireBody): Buffer {
  if (!isStreamed(body)) return body;
  const out = Buffer.allocUnsafe(body.length);
  let at = 0;
  for (const p of body.pieces) {
    if (Buffer.isBuffer(p)) {
      p.copy(out, at);
      at += p.length;
      continue;
    }
    const chunk = Buffer.allocUnsafe(Math.min(READ_SIZE, p.fileSize || 1));
    const lines = p.textLines ? new TextLines() : undefined;
    let fd: number | undefined;
    try {
      fd = openSync(p.path, 'r');
      let read = 0;
      for (;;) {
        const n = readSync(fd, chunk, 0, chunk.length, read);
        if (n === 0) break;
        read += n;
        if (read > p.fileSize) throw changed(p, fstatSync(fd).size);
        if (lines) at += lines.run(chunk.subarray(0, n), out.subarray(at));
        else at += chunk.copy(out, at, 0, n);
      }
      if (read !== p.fileSize) throw changed(p, fstatSync(fd).size);
    } catch (e) {
      if (e instanceof UsageError) throw e;
      throw new UsageError(`cannot read '${p.shown}': ${why(e)}`);
    } finally {
      if (fd !== undefined) closeSync(fd);
    }
  }
  // curl's -d @file reading of a file whose bytes changed (not its size): another length.
  if (at !== out.length) throw new UsageError(`a file of the body changed since the request was made (${out.length} bytes then, ${at} now)`);
  return out;
}

function changed(p: FileBody, now: number): UsageError {
  return new UsageError(`'${p.shown}' changed while it was being sent (${p.fileSize} bytes when the request was made, ${now} now): the request was cut off`);
}

/**
 * Read buffers handed back once the sink has written them (writeStreamed): a gigabyte goes out
 * through the same few buffers instead of four thousand new ones left to the garbage collector
 * (measured: 30-40 MB less at the peak).
 */
class BufferPool {
  private free: Buffer[] = [];
  private mine = new Map<ArrayBufferLike, Buffer>();
  take(): Buffer {
    let b = this.free.pop();
    if (!b) {
      b = Buffer.allocUnsafeSlow(READ_SIZE);
      this.mine.set(b.buffer, b);
    }
    return b;
  }
  /** The pool's buffer that `chunk` lies in, if it is one of them. */
  owner(chunk: Buffer): Buffer | undefined {
    return this.mine.get(chunk.buffer);
  }
  give(b: Buffer) {
    if (this.free.length < 8) this.free.push(b);
    else this.mine.delete(b.buffer);
  }
}

/**
 * The body's bytes as they are to be written, a piece at a time; a file that changed is a
 * UsageError. With `pool`, file bytes come in its buffers (the caller gives each back when done).
 */
export async function* bodyChunks(body: StreamedBody, pool?: BufferPool): AsyncGenerator<Buffer> {
  const { open } = await import('node:fs/promises');
  for (const p of body.pieces) {
    if (Buffer.isBuffer(p)) {
      if (p.length) yield p;
      continue;
    }
    let fh: import('node:fs/promises').FileHandle;
    try {
      fh = await open(p.path, 'r');
    } catch (e) {
      throw new UsageError(`cannot read '${p.shown}' to send it: ${why(e)}`);
    }
    try {
      const size = (await fh.stat()).size;
      if (size !== p.fileSize) throw changed(p, size);
      const lines = p.textLines ? new TextLines() : undefined;
      let read = 0;
      let sent = 0;
      while (read < p.fileSize) {
        const buf = pool ? pool.take() : Buffer.allocUnsafe(READ_SIZE);
        const { bytesRead } = await fh.read(buf, 0, Math.min(buf.length, p.fileSize - read), read);
        if (bytesRead === 0) throw changed(p, (await fh.stat()).size);
        read += bytesRead;
        // Before the last bytes go: a file that grew is not sent as if it were what was measured.
        if (read === p.fileSize && (await fh.read(Buffer.alloc(1), 0, 1, read)).bytesRead > 0) throw changed(p, (await fh.stat()).size);
        let chunk = buf.subarray(0, bytesRead);
        if (lines) chunk = chunk.subarray(0, lines.run(chunk, chunk));
        sent += chunk.length;
        if (chunk.length) yield chunk;
      }
      if (sent !== p.length) throw new UsageError(`'${p.shown}' changed while it was being sent (its lines are not what they were when the request was made): the request was cut off`);
    } catch (e) {
      if (e instanceof UsageError) throw e;
      throw new UsageError(`cannot read '${p.shown}' to send it: ${why(e)}`);
    } finally {
      await fh.close();
    }
  }
}

/** Where a streamed body is written: a socket, a node:http request, an HTTP/2 stream. */
export interface BodySink {
  write(chunk: Buffer, done?: (err?: Error | null) => void): boolean;
  once(event: 'drain' | 'close', listener: () => void): unknown;
  off(event: 'drain' | 'close', listener: () => void): unknown;
  readonly destroyed: boolean;
}

/**
 * Writes a streamed body to `sink`, waiting for it to drain: at most a piece or two of it is held
 * at a time. `chunked`: framed as Transfer-Encoding: chunked (the lanes that write HTTP/1.1
 * themselves), the last chunk included. Stops quietly when the sink is gone (the lane reports what
 * happened to the connection); a file that cannot be read throws.
 */
export async function writeStreamed(body: StreamedBody, sink: BodySink, chunked = false): Promise<void> {
  const pool = new BufferPool();
  for await (const chunk of bodyChunks(body, pool)) {
    if (sink.destroyed) return;
    // A file's bytes are in a pool buffer: it goes back once written (a Buffer piece of the body is not the pool's).
    const pooled = pool.owner(chunk);
    // Chunked: the size line, the bytes and CRLF as three writes (no copy of the bytes).
    if (chunked) sink.write(Buffer.from(`${chunk.length.toString(16)}\r\n`, 'latin1'));
    let ok = sink.write(chunk, pooled && (() => pool.give(pooled)));
    if (chunked) ok = sink.write(CRLF);
    if (!ok) {
      await new Promise<void>((resolve) => {
        const done = () => {
          sink.off('drain', done);
          sink.off('close', done);
          resolve();
        };
        sink.once('drain', done);
        sink.once('close', done);
      });
    }
  }
  if (chunked && !sink.destroyed) sink.write(LAST_CHUNK);
}

const CRLF = Buffer.from('\r\n', 'latin1');
const LAST_CHUNK = Buffer.from('0\r\n\r\n', 'latin1');

let spoolDir: string | undefined;

/**
 * Standard input as a body: kept in memory up to STREAM_THRESHOLD, and past it in a temporary
 * file (mode 0600, removed when sling exits) that is then sent as a FileBody. Its Content-Length
 * is known, as HTTPie and curl -d @- send it, without holding the body in memory.
 */
export class Spool {
  private chunks: Buffer[] = [];
  private size = 0;
  private fd: number | undefined;
  private path: string | undefined;

  /** Whether the bytes now go to the file (add() then writes a buffer at once, keeping nothing). */
  get spilled(): boolean {
    return this.fd !== undefined;
  }

  constructor(private readonly shown = 'standard input') {}

  /** Takes `b` (kept as it is until the threshold: the caller gives up the buffer). */
  add(b: Buffer) {
    this.size += b.length;
    if (this.fd !== undefined) return writeAll(this.fd, b);
    this.chunks.push(b);
    if (this.size >= STREAM_THRESHOLD) this.spill();
  }

  /** From now on the bytes go to the temporary file (result() is then a FileBody, even an empty one). */
  spill() {
    if (this.fd !== undefined) return;
    if (!spoolDir) {
      spoolDir = mkdtempSync(join(tmpdir(), 'sling-'));
      const dir = spoolDir;
      // However sling ends (bin.ts runs the exit hooks from the process's 'exit' event).
      onExit(() => rmSync(dir, { recursive: true, force: true }));
    }
    // The folder is this process's own (mkdtemp): a count is name enough.
    this.path = join(spoolDir, `stdin-${++spools}`);
    this.fd = openSync(this.path, 'wx', 0o600);
    for (const k of this.chunks) writeAll(this.fd, k);
    this.chunks = [];
  }

  close() {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }

  result(): Buffer | FileBody {
    if (this.path === undefined) return Buffer.concat(this.chunks, this.size);
    return { kind: 'file', path: this.path, shown: this.shown, fileSize: this.size, length: this.size };
  }
}

let spools = 0;

function writeAll(fd: number, b: Buffer) {
  for (let at = 0; at < b.length; ) at += writeSync(fd, b, at, b.length - at);
}
