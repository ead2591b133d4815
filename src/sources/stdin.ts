import { fstatSync, readSync } from 'node:fs';
import { UsageError } from '../errors.js';
import type { FileBody } from '../model/spec.js';
import { Spool } from '../model/upload.js';
import type { Io, Reporter } from '../io.js';

/**
 * Standard input is a body only when it is a pipe, a socket or a regular file: never a terminal
 * or a character device such as /dev/null (docs/decisions.md, Request body and standard input). When nothing arrives for 2 seconds a
 * hint names --ignore-stdin, so a script never hangs without a word.
 */
export function stdinIsBodySource(_io: Io): boolean {
  // fstat, not io.stdin.isTTY: a terminal is a character device, and looking at the descriptor does
  // not create the stdin stream.
  try {
    return isBodyMode(fstatSync(0).mode);
  } catch {
    return false;
  }
}

const S_IFMT = 0o170000;
const S_IFIFO = 0o010000;
const S_IFSOCK = 0o140000;
const S_IFREG = 0o100000;

/**
 * A pipe, a socket or a regular file, from the file type bits of fstat's mode. Not with
 * Stats.isFIFO() and isSocket(): Node answers false to both on Windows whatever the descriptor
 * is, while libuv does report a pipe there (`type body.json | sling PUT URL` in cmd.exe,
 * `Get-Content body.json | sling ...` in PowerShell) with the same S_IFIFO bits as POSIX.
 */
export function isBodyMode(mode: number): boolean {
  const type = mode & S_IFMT;
  return type === S_IFIFO || type === S_IFSOCK || type === S_IFREG;
}

/**
 * The body on standard input: its bytes, or past STREAM_THRESHOLD a temporary file that is sent
 * as it is read (upload.ts Spool), so a large body is never held in memory.
 */
export async function readStdinBody(io: Io, reporter: Reporter): Promise<Buffer | FileBody | null> {
  if (!stdinIsBodySource(io)) return null;
  let got = false;
  const timer = setTimeout(() => {
    if (!got) reporter.warn('waiting for the request body on standard input; use --ignore-stdin (-I) if there is none');
  }, 2000);
  try {
    return await spoolFd0(io, () => (got = true));
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Reads descriptor 0 into one reused buffer (on libuv's thread pool, the event loop free for the
 * hint above), into a Spool: a gigabyte piped in is not four thousand new buffers for the garbage
 * collector (Node's stdin stream: 82 MB at the peak for 1 GiB; this: about 57). A descriptor left
 * non-blocking answers EAGAIN: the rest then comes through the stream.
 */
async function spoolFd0(io: Io, onData: () => void): Promise<Buffer | FileBody> {
  const { read } = await import('node:fs');
  const spool = new Spool();
  const buf = Buffer.allocUnsafe(64 * 1024);
  const next = () => new Promise<number>((resolve, reject) => read(0, buf, 0, buf.length, null, (e, n) => (e ? reject(e) : resolve(n))));
  try {
    for (;;) {
      let n: number;
      try {
        n = await next();
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code;
        if (code === 'EOF') break;
        if (code !== 'EAGAIN') throw e;
        for await (const c of io.stdin as AsyncIterable<Buffer | string>) {
          onData();
          spool.add(typeof c === 'string' ? Buffer.from(c) : c);
        }
        break;
      }
      if (n === 0) break;
      onData();
      // Kept buffers are copies (buf is read into again); a spool already in its file writes buf itself.
      spool.add(spool.spilled ? buf.subarray(0, n) : Buffer.from(buf.subarray(0, n)));
    }
  } finally {
    spool.close();
  }
  return spool.result();
}

/**
 * All of standard input, read synchronously (a curl file's `-d @-`, `-T -`, `-K -`): a descriptor
 * left non-blocking (by Node's own stdin stream, or by whoever shares the pipe) answers EAGAIN
 * while the writer is behind; that is waited out, 5 ms at a time, never taken for the end.
 */
export function readStdinSync(): Buffer {
  const got = spoolStdinSync(false);
  return got as Buffer;
}

/**
 * All of standard input, read synchronously (readStdinSync); `spool`: past STREAM_THRESHOLD it is
 * kept in a temporary file (upload.ts Spool) and comes back as a FileBody, sent as it is read.
 */
export function spoolStdinSync(spool = true): Buffer | FileBody {
  const chunks: Buffer[] = [];
  let size = 0;
  const into = spool ? new Spool() : undefined;
  const buf = Buffer.allocUnsafe(64 * 1024);
  let pause: Int32Array | undefined;
  try {
    for (;;) {
      let n: number;
      try {
        n = readSync(0, buf, 0, buf.length, null);
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code;
        if (code === 'EAGAIN') {
          pause ??= new Int32Array(new SharedArrayBuffer(4));
          Atomics.wait(pause, 0, 0, 5);
          continue;
        }
        if (code === 'EOF') break;
        throw e;
      }
      if (n === 0) break;
      // Kept buffers are copies (buf is read into again); a spool already in its file writes buf itself.
      if (into) into.add(into.spilled ? buf.subarray(0, n) : Buffer.from(buf.subarray(0, n)));
      else {
        chunks.push(Buffer.from(buf.subarray(0, n)));
        size += n;
      }
    }
  } finally {
    into?.close();
  }
  return into ? into.result() : Buffer.concat(chunks, size);
}

/** Asks for a password on the terminal without echoing it. */
export async function askPassword(io: Io, user: string, where: string): Promise<string> {
  const stdin = io.stdin as Io['stdin'] & { setRawMode?: (on: boolean) => void };
  if (!stdin.isTTY || !stdin.setRawMode || !io.stderr.isTTY) {
    throw new UsageError(`no password given for user '${user}' and no terminal to ask for it`, `pass it as -a ${user}:PASSWORD (or use ~/.netrc)`);
  }
  // Echo goes off before the prompt appears, so nothing typed early is ever shown.
  stdin.setRawMode(true);
  io.stderr.write(`sling: password for ${user}@${where}: `);
  stdin.resume();
  return await new Promise<string>((resolve, reject) => {
    let password = '';
    const onData = (data: Buffer) => {
      for (const ch of data.toString('utf8')) {
        if (ch === '\r' || ch === '\n') {
          done();
          resolve(password);
          return;
        }
        if (ch === '\u0003') {
          done();
          reject(new UsageError('password prompt cancelled'));
          return;
        }
        if (ch === '\u007f' || ch === '\b') password = password.slice(0, -1);
        else password += ch;
      }
    };
    const done = () => {
      stdin.off('data', onData);
      stdin.setRawMode!(false);
      stdin.pause();
      io.stderr.write('\n');
    };
    stdin.on('data', onData);
  });
}
