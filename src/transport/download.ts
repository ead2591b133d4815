import { closeSync, existsSync, fstatSync, ftruncateSync, openSync, statSync, writeSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { Readable } from 'node:stream';
import type { Invocation } from '../cli/invocation.js';
import { CliError, UsageError, writeFailure } from '../errors.js';
import { isDirectory } from '../files.js';
import { readerGone } from '../fd-writer.js';
import { ExitCode, exitCodeForStatus } from '../exit.js';
import { onInterrupt } from '../interrupt.js';
import type { Io, Reporter } from '../main.js';
import { exactBytes, formatBytes, formatDuration, Progress } from '../output/progress.js';
import { Printer, printingHops } from '../output/printer.js';
import type { OutputPlan } from '../output/plan.js';
import type { RequestSpec } from '../request/spec.js';
import { bodyError, decodedBody, headerValue } from './body.js';
import { exchange } from './exchange.js';
import { chooseFileName, openUnique } from './filename.js';
import type { Hop } from './send.js';

/**
 * `--download`, `--output`, `--continue` (DECISIONS.md): the body goes to a file, everything else to
 * stderr. A file on disk is either complete or a prefix of the resource that `-C` can resume: a
 * cut-off transfer keeps what arrived and prints the command that resumes it.
 */
const q = (s: string) => (/^[A-Za-z0-9_./:=@%+-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);

/** Atomics.wait on this sleeps the thread (a full non-blocking pipe, written synchronously). */
const PAUSE = new Int32Array(new SharedArrayBuffer(4));

/** The command line that resumes this download: the user's own, plus --continue and --output if missing. */
export function resumeCommand(argv: string[], file: string): string {
  const args = [...argv];
  const has = (...names: string[]) => args.some((a) => names.includes(a) || names.some((n) => n.startsWith('--') && a.startsWith(n + '=')) || (/^-[a-zA-Z]+$/.test(a) && names.some((n) => /^-[a-zA-Z]$/.test(n) && a.includes(n[1]!))));
  if (!has('-o', '--output')) args.push('--output', file);
  if (!has('-C', '-c', '--continue')) args.push('--continue');
  return ['sling', ...args].map(q).join(' ');
}

interface ContentRange {
  start?: number;
  end?: number;
  total?: number;
}

function parseContentRange(value: string | undefined): ContentRange | null {
  if (!value) return null;
  const m = /^\s*bytes\s+(?:(\d+)-(\d+)|\*)\/(\d+|\*)\s*$/i.exec(value);
  if (!m) return null;
  return {
    start: m[1] === undefined ? undefined : Number(m[1]),
    end: m[2] === undefined ? undefined : Number(m[2]),
    total: m[3] === '*' ? undefined : Number(m[3]),
  };
}

/** Keep the bytes encoded when the encoding belongs to the file itself (a .gz served as gzip). */
function keepEncoded(encoding: string | undefined, contentType: string | undefined, name: string): boolean {
  if (!encoding) return true;
  const type = contentType?.split(';')[0]?.trim().toLowerCase() ?? '';
  return /gzip|x-gzip|x-tar|octet-stream-gz/.test(type) || /\.(gz|tgz)$/i.test(name);
}

export async function runDownload(inv: Invocation, spec: RequestSpec, plan: OutputPlan, io: Io, reporter: Reporter): Promise<number> {
  const toStdout = inv.output === '-';
  const cwd = io.cwd;
  if (inv.resume && (inv.output === undefined || toStdout)) {
    throw new UsageError('--continue needs --output FILE: the file to resume', 'sling -d -C -o FILE URL');
  }
  let offset = 0;
  const explicitPath = inv.output !== undefined && !toStdout ? resolve(cwd, inv.output) : undefined;
  if (explicitPath && !existsSync(dirname(explicitPath))) {
    throw new UsageError(`cannot write '${inv.output}': the folder '${dirname(inv.output!)}' does not exist`);
  }
  // Found before anything is sent (a directory's size is no offset to resume from).
  if (explicitPath && isDirectory(explicitPath)) {
    throw new UsageError(`cannot write '${inv.output}': it is a directory`, 'name a file: --output DIR/NAME');
  }
  if (inv.resume && explicitPath && existsSync(explicitPath)) {
    offset = statSync(explicitPath).size;
    if (offset > 0) spec = { ...spec, headers: [...spec.headers.filter(([n]) => n.toLowerCase() !== 'range'), ['Range', `bytes=${offset}-`]] };
  }

  const printer = new Printer(plan, { write: (c) => void io.stderr.write(c) });
  const hop: Hop = await exchange(spec, {
    env: io.env,
    fastLane: true,
    debug: (m) => reporter.debug(m),
    warn: (m) => reporter.warn(m),
    ...printingHops(printer),
  });
  await printer.responseHead(hop.response);
  await printer.finish();
  const { status } = hop.response;
  const header = (name: string) => headerValue(hop.response.rawHeaders, name);

  if (status >= 300 && status !== 416) {
    hop.body.resume();
    const code = status >= 400 ? exitCodeForStatus(status) : ExitCode.TOO_MANY_REDIRECTS;
    throw new CliError(`HTTP ${status} ${hop.response.reason}`.trimEnd() + ': nothing was saved', code);
  }

  let append = false;
  if (offset > 0) {
    const range = parseContentRange(header('content-range'));
    if (status === 416) {
      hop.body.resume();
      if (range?.total === undefined || range.total === offset) {
        if (inv.quiet === 0) io.stderr.write(`sling: '${inv.output}' is already complete (${formatBytes(offset)})\n`);
        return ExitCode.OK;
      }
      throw new CliError(`the server cannot resume '${inv.output}': it has ${range.total} bytes, the file has ${offset}; the file was left as it is`);
    }
    if (status === 206) {
      if (!range || range.start !== offset) {
        hop.body.resume();
        throw new CliError(
          `the server answered the resume of '${inv.output}' with Content-Range '${header('content-range') ?? '(none)'}', which does not start at byte ${offset} where the file ends; the file was left as it is`,
        );
      }
      if (header('content-encoding') && !keepEncoded(header('content-encoding'), header('content-type'), inv.output!)) {
        hop.body.resume();
        throw new CliError(
          `cannot resume '${inv.output}': the server compresses the transfer (Content-Encoding: ${header('content-encoding')}), so its byte ranges do not match the file; the file was left as it is`,
          ExitCode.ERROR,
          'download it again without --continue',
        );
      }
      append = true;
    } else {
      reporter.warn(`the server ignored the Range request (HTTP ${status}); downloading '${inv.output}' again from the start`);
    }
  } else if (status === 416) {
    hop.body.resume();
    throw new CliError(`HTTP 416 ${hop.response.reason}: nothing was saved`, ExitCode.CLIENT_ERROR);
  }

  // Where the bytes go.
  let name: string;
  let fd: number;
  if (toStdout) {
    name = '-';
    fd = 1;
  } else if (explicitPath) {
    name = inv.output!;
    try {
      fd = openSync(explicitPath, append ? 'a' : 'w');
    } catch (e) {
      throw new UsageError(`cannot write '${inv.output}': ${(e as Error).message}`);
    }
  } else {
    name = chooseFileName(header('content-disposition'), hop.request.target, header('content-type'));
    try {
      ({ name, fd } = openUnique(cwd, name));
    } catch (e) {
      throw new UsageError(`cannot write '${(e as { fileName?: string }).fileName ?? name}': ${(e as Error).message}`);
    }
  }
  if (!append && fd !== 1 && fstatSync(fd).size > 0) ftruncateSync(fd, 0);
  // Only a regular file keeps bytes to resume from (not stdout, a device, a pipe).
  const regular = fd !== 1 && fstatSync(fd).isFile();
  let open = fd !== 1;
  const close = () => {
    if (open) closeSync(fd);
    open = false;
  };

  const encoding = header('content-encoding');
  const decode = encoding !== undefined && !keepEncoded(encoding, header('content-type'), name);
  const lengthText = header('content-length');
  const expected = lengthText !== undefined && /^\d+$/.test(lengthText) && !decode ? Number(lengthText) : undefined;
  const showBar = Boolean(io.stderr.isTTY) && inv.quiet === 0;
  const progress = new Progress(showBar ? (s) => void io.stderr.write(s) : null, expected, append ? offset : 0, (io.stderr as { columns?: number }).columns || 80);

  /** Bytes of this transfer on disk: each write counts what it wrote (a full disk takes part of one). */
  let written = 0;
  const resumeHint = () => (regular ? `resume with: ${resumeCommand(io.argv, name)}` : undefined);
  /** After a failure or Ctrl-C: what the file keeps, exactly as the disk has it. Closes the file. */
  const leave = (): string | undefined => {
    let size = (append ? offset : 0) + written;
    try {
      if (open) size = fstatSync(fd).size;
    } catch {
      // the count stands
    }
    close();
    return regular ? `'${name}' keeps ${exactBytes(size)}` : undefined;
  };
  const removeHook = onInterrupt(() => {
    progress.finish();
    const kept = leave();
    if (!kept) return false;
    io.stderr.write(`sling: interrupted; ${kept}\n  hint: ${resumeHint()}\n`);
    return true;
  });

  const sink = (buf: Buffer) => {
    let at = 0;
    while (at < buf.length) {
      try {
        const n = writeSync(fd, buf, at, buf.length - at);
        at += n;
        written += n;
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code;
        // A pipe another program left non-blocking is full: wait for its reader.
        if (code === 'EAGAIN') Atomics.wait(PAUSE, 0, 0, 1);
        // The reader of `-o -` went away (`| head`): stop quietly, as the main output does.
        else if (fd === 1 && readerGone(e)) throw new CliError('', ExitCode.OK);
        else {
          throw new CliError(fd === 1 ? `writing to standard output failed: ${writeFailure(e)}` : `cannot write '${name}': ${writeFailure(e)}`, ExitCode.ERROR);
        }
      }
    }
    // The bytes so far, for a --timeout that fires next (decodedBody counts them itself).
    if (!decode) hop.info.bodyBytes = written;
    // `-o -`: whether stdout's last line is open (a message after it, or Ctrl-C's, starts a line of its own).
    if (fd === 1 && buf.length && 'lineOpen' in io.stdout) (io.stdout as { lineOpen: boolean }).lineOpen = buf[buf.length - 1] !== 10;
    progress.update(buf.length);
  };
  try {
    try {
      if (hop.attach && !decode) await hop.attach(sink);
      else {
        const stream: Readable = decode ? await decodedBody(hop) : hop.body;
        for await (const chunk of stream) sink(chunk as Buffer);
      }
    } catch (e) {
      throw e instanceof CliError ? e : bodyError(hop, e, written);
    }
    if (hop.info.timedOut) throw bodyError(hop, new Error('timeout'), written);
    if (expected !== undefined && written < expected) {
      throw bodyError(hop, Object.assign(new Error('aborted'), { code: 'ECONNRESET' }), written);
    }
  } catch (e) {
    progress.finish();
    const kept = leave();
    removeHook();
    const err = e as CliError;
    if (err.exitCode === ExitCode.OK) return ExitCode.OK;
    throw new CliError(`${err.message}${kept ? `; ${kept}` : ''}`, err.exitCode ?? ExitCode.NETWORK, resumeHint());
  }
  removeHook();
  close();
  const done = progress.finish();
  if (inv.quiet === 0) {
    const where = fd === 1 ? 'stdout' : `'${name}'`;
    io.stderr.write(
      `Saved ${formatBytes(written)} to ${where}${append ? ` (resumed at ${formatBytes(offset)})` : ''} in ${formatDuration(done.seconds)} (${formatBytes(done.rate)}/s)\n`,
    );
  }
  return ExitCode.OK;
}
