import { closeSync, existsSync, fchmodSync, fstatSync, fsyncSync, ftruncateSync, openSync, realpathSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { platform } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import type { Invocation } from '../cli/invocation.js';
import { CliError, fileProblem, UsageError, writeFailure } from '../errors.js';
import { isDirectory, replaceFile } from '../files.js';
import { ExitCode, exitCodeForStatus } from '../exit.js';
import { onInterrupt } from '../interrupt.js';
import { stdoutIsStderr, type Io, type Reporter } from '../io.js';
import { exactBytes, formatBytes, formatDuration, Progress } from '../output/progress.js';
import { Printer } from '../output/printer.js';
import type { OutputPlan } from '../output/plan.js';
import type { CookieJar } from '../model/cookies.js';
import type { RequestSpec } from '../model/spec.js';
import { bodyError } from '../transport/body.js';
import { headerIn } from '../model/headers.js';
import { chooseFileName, openUnique } from '../transport/filename.js';
import type { Hop } from '../transport/hop.js';
import { deliver, pumpBody } from './deliver.js';
import { quoteWord } from '../output/to-curl.js';
import { platformShell, type Shell } from '../output/shells.js';

/**
 * `--download`, `--output`, `--continue` (docs/decisions.md, Downloads): the body goes to a file, everything else to
 * stderr. A file on disk is either complete or a prefix of the resource that `-C` can resume: a
 * cut-off transfer keeps what arrived and prints the command that resumes it.
 */

/**
 * The command line that resumes this download: the user's own, plus --continue and --output if the
 * run (its parsed line, config.json's defaults with it) has none, quoted for `shell`.
 */
export function resumeCommand(argv: readonly string[], file: string, run: { output: boolean; resume: boolean }, shell: Shell = 'posix'): string {
  const args = [...argv];
  if (!run.output) args.push('--output', file);
  if (!run.resume) args.push('--continue');
  try {
    return ['sling', ...args].map((w) => quoteWord(w, shell)).join(' ');
  } catch {
    // A word cmd.exe cannot hold (a line break): the POSIX form, which says it exactly.
    return ['sling', ...args].map((w) => quoteWord(w, 'posix')).join(' ');
  }
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

export async function runDownload(inv: Invocation, spec: RequestSpec, plan: OutputPlan, io: Io, reporter: Reporter, jar?: CookieJar): Promise<number> {
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

  // The exchange goes to stderr (stdout may be the file, with -o -); the body to the file.
  const printer = new Printer(plan, { write: (c) => void io.stderr.write(c) });
  const to: Destination = { inv, io, reporter, offset, explicitPath, toStdout };
  const { result } = await deliver(spec, {
    printer,
    exchange: { env: io.env, jar, debug: (m) => reporter.debug(m), warn: (m) => reporter.warn(m) },
    final: true,
    body: { save: (hop) => saveBody(hop, to) },
  });
  return result;
}

/** Where a download's body goes: the file named (or -o - for stdout, or a name from the response), resumed at `offset`. */
interface Destination {
  inv: Invocation;
  io: Io;
  reporter: Reporter;
  /** The size of the file being resumed (0: not a resume). */
  offset: number;
  explicitPath: string | undefined;
  toStdout: boolean;
}

/** The body, its head printed, into its file; the exit code. */
async function saveBody(hop: Hop, { inv, io, reporter, offset, explicitPath, toStdout }: Destination): Promise<number> {
  const cwd = io.cwd;
  const { status } = hop.response;
  const header = (name: string) => headerIn(hop.response.rawHeaders, name);

  if (status >= 300 && status !== 416) {
    hop.body.resume();
    const code = status >= 400 ? exitCodeForStatus(status) : ExitCode.TOO_MANY_REDIRECTS;
    throw new CliError(`HTTP ${status} ${hop.response.reason}`.trimEnd() + ': nothing was saved', code);
  }

  let append = false;
  // A 200 to a resume is the whole resource again: written beside the partial file, which it
  // replaces only once complete. Until then, and if it fails, the partial file stays as it was.
  let restart = false;
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
      reporter.warn(`the server ignored the Range request (HTTP ${status}); downloading '${inv.output}' again from the start (the file is replaced once the new copy is complete)`);
      restart = true;
    }
  } else if (status === 416) {
    hop.body.resume();
    throw new CliError(`HTTP 416 ${hop.response.reason}: nothing was saved`, ExitCode.CLIENT_ERROR);
  }

  // Where the bytes go.
  let name: string;
  let fd: number;
  /** A restart: the new copy's temporary file, and the file it replaces once complete. */
  let beside: { tmp: string; target: string } | undefined;
  if (toStdout) {
    name = '-';
    fd = 1;
  } else if (explicitPath) {
    name = inv.output!;
    try {
      if (restart) ({ fd, beside } = openBeside(explicitPath, io.pid));
      else fd = openSync(explicitPath, append ? 'a' : 'w');
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
  // Transfer-Encoding frames the body when it comes with a Content-Length (RFC 9112 §6.3): no length to expect then.
  const lengthText = header('transfer-encoding') === undefined ? header('content-length') : undefined;
  const expected = lengthText !== undefined && /^\d+$/.test(lengthText) && !decode ? Number(lengthText) : undefined;
  const showBar = Boolean(io.stderr.isTTY) && inv.quiet === 0;
  const progress = new Progress(showBar ? (s) => void io.stderr.write(s) : null, expected, append ? offset : 0, (io.stderr as { columns?: number }).columns || 80);

  /** Bytes of this transfer on disk: each write counts what it wrote (a full disk takes part of one). */
  let written = 0;
  const resumeHint = () =>
    regular ? `${beside ? 'try again' : 'resume'} with: ${resumeCommand(io.argv, name, { output: inv.output !== undefined, resume: inv.resume }, platformShell(io.env, platform()))}` : undefined;
  /**
   * After a failure or Ctrl-C: what the file keeps, exactly as the disk has it, or (a restart) that
   * it was left as it was, the new copy removed. Closes the file.
   */
  const leave = (): string | undefined => {
    let size = (append ? offset : 0) + written;
    try {
      if (open) size = fstatSync(fd).size;
    } catch {
      // the count stands
    }
    close();
    if (!regular) return undefined;
    if (!beside) return `'${name}' keeps ${exactBytes(size)}`;
    try {
      unlinkSync(beside.tmp);
    } catch {
      // gone already
    }
    let kept = offset;
    try {
      kept = statSync(beside.target).size;
    } catch {
      // as it was found
    }
    return `'${name}' was left as it was, ${exactBytes(kept)}; the new copy begun beside it (${exactBytes(size)}) was discarded`;
  };
  const removeHook = onInterrupt(() => {
    progress.finish();
    const kept = leave();
    if (!kept) return false;
    io.stderr.write(`sling: interrupted; ${kept}\n  hint: ${resumeHint()}\n`);
    return true;
  });

  // `-o -`: through process.stdout like all output (a full pipe holds the transfer until it drains;
  // a reader that goes away ends the run quietly, bin.ts). Whether its last line is open: a message
  // after it, or Ctrl-C's, starts a line of its own where stdout and stderr are one file.
  let lineOpen = false;
  if (fd === 1) {
    const before = reporter.openLine;
    reporter.openLine = () => {
      if (!lineOpen) return before?.() ?? false;
      lineOpen = false;
      return stdoutIsStderr();
    };
  }
  /** The write that filled stdout's buffer, until it drains. */
  let draining: Promise<void> | undefined;
  const intoStdout = (buf: Buffer): Promise<void> | undefined => {
    if (buf.length === 0) return undefined;
    written += buf.length;
    lineOpen = buf[buf.length - 1] !== 10;
    progress.update(buf.length);
    // No copy: the chunk stays valid until the transfer reads on, and what stdout could not hand
    // to the system at once (a full pipe) is waited for, the socket paused, before it does. A file,
    // or a pipe that took it all, is written on at once (write() answers false for any piece over
    // 16 kB even then).
    let flushed!: () => void;
    const handed = new Promise<void>((resolve) => (flushed = resolve));
    io.stdout.write(buf, () => flushed());
    draining = io.stdout.writableLength === 0 ? undefined : handed;
    return draining;
  };
  const intoFile = (buf: Buffer) => {
    let at = 0;
    while (at < buf.length) {
      try {
        const n = writeSync(fd, buf, at, buf.length - at);
        at += n;
        written += n;
      } catch (e) {
        throw new CliError(`cannot write '${name}': ${writeFailure(e)}`, ExitCode.ERROR);
      }
    }
    progress.update(buf.length);
  };
  try {
    await pumpBody(hop, { keepEncoding: !decode, write: fd === 1 ? intoStdout : intoFile });
    // What stdout still holds goes out before the run says it was saved.
    if (draining) await draining;
    if (hop.info.timedOut) throw bodyError(hop, new Error('timeout'), written);
    if (expected !== undefined && written < expected) {
      throw bodyError(hop, Object.assign(new Error('aborted'), { code: 'ECONNRESET' }), written);
    }
    if (beside) {
      // Complete: on disk first, then in the partial file's place.
      fsyncSync(fd);
      close();
      replaceFile(beside.tmp, beside.target);
    }
  } catch (e) {
    progress.finish();
    const kept = leave();
    removeHook();
    const err = e as CliError;
    const message = err instanceof CliError ? err.message : `cannot replace '${name}' with its new copy: ${fileProblem(e)}`;
    throw new CliError(`${message}${kept ? `; ${kept}` : ''}`, err.exitCode ?? ExitCode.ERROR, resumeHint());
  }
  removeHook();
  close();
  const done = progress.finish();
  if (inv.quiet === 0) {
    const where = fd === 1 ? 'stdout' : `'${name}'`;
    io.stderr.write(`Saved ${formatBytes(written)} to ${where}${append ? ` (resumed at ${formatBytes(offset)})` : ''} in ${formatDuration(done.seconds)} (${formatBytes(done.rate)}/s)\n`);
  }
  return ExitCode.OK;
}

/**
 * A restart's new copy: a temporary file beside the file it will replace (the same folder, so the
 * rename is atomic), with that file's mode. Through a link, the file it points to is replaced, as
 * writing into the link would have done.
 */
function openBeside(path: string, pid: number): { fd: number; beside: { tmp: string; target: string } } {
  const target = realpathSync(path);
  const mode = statSync(target).mode & 0o7777;
  // `.NAME.sling-PID-RANDOM.part`, NAME cut so that a long one still makes a name the system takes.
  const tmp = join(dirname(target), `.${[...basename(target)].slice(0, 40).join('')}.sling-${pid}-${Math.random().toString(36).slice(2, 8)}.part`);
  const fd = openSync(tmp, 'wx', mode);
  // The umask may have taken bits from the mode given to open.
  fchmodSync(fd, mode);
  return { fd, beside: { tmp, target } };
}
