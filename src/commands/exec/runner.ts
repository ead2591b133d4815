/**
 * `sling exec`, from the command line to the exit code: reads the file (or stdin), picks its front end
 * (.http or curl), parses it whole, applies --name/--line (select.ts), then either converts it (--to,
 * convert.ts) or hands its entries to a Run (run.ts) and writes the --report file. It does not send,
 * print or save anything itself: run.ts runs the entries, print.ts words titles, save.ts writes files.
 */
import { FileTooLargeError, readLimited, TEXT_FILE_LIMIT, utf8Text } from '../../files.js';
import { dirname, join, resolve } from 'node:path';
import { isDirectory } from '../../files.js';
import type { Invocation } from '../../cli/invocation.js';
import { UsageError, beyondLimits, fileProblem } from '../../errors.js';
import { ExitCode } from '../../exit.js';
import { type Reporter, stdoutSink, type Io } from '../../io.js';
import { neutralise } from '../../sanitize.js';
import { loadTransport } from '../deliver.js';
import { detectType } from './detect.js';
import type { ExecContext, ExecEntry, Script } from '../../model/exec.js';
import { Run } from './run.js';
import { lineCount, select } from './select.js';
import { applyFlags, sendOwn } from './requests.js';

/**
 * `sling exec`: parse the whole file first (a malformed file sends nothing), then run its entries in
 * order over shared connections and one cookie jar, print each under a title line, keep going after
 * a failure (unless --fail-fast), and exit with the first failure's code.
 */
export async function runExec(inv: Invocation, io: Io, reporter: Reporter): Promise<number> {
  const ex = inv.exec!;
  const file = ex.file ?? '-';
  let text: string;
  if (file === '-') {
    if (io.stdin.isTTY) throw new UsageError('sling exec needs a file (or one on standard input)', 'sling exec requests.http');
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const c of io.stdin) {
      size += (c as Buffer).length;
      if (size > TEXT_FILE_LIMIT) throw new FileTooLargeError('standard input', TEXT_FILE_LIMIT, 'a request file');
      chunks.push(c as Buffer);
    }
    text = utf8Text(Buffer.concat(chunks), '<stdin>', 'the request file');
  } else {
    let data: Buffer;
    try {
      data = readLimited(resolve(io.cwd, file), TEXT_FILE_LIMIT, file, 'a request file');
    } catch (e) {
      if (e instanceof FileTooLargeError) throw e;
      const code = (e as NodeJS.ErrnoException).code;
      throw new UsageError(`cannot read '${file}': ${code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a directory' : (e as Error).message}`);
    }
    text = utf8Text(data, file, 'the request file');
  }
  const type = detectType(file, text, ex.type);
  reporter.debug(`exec: ${file} as ${type}`);
  const parser = type === 'curl' ? (await import('../../sources/curl/index.js')).parseCurlFile : (await import('../../sources/http/index.js')).parseHttpFile;
  // What a curl command asks to be written (-o, -D, -w, -c, `> file`) is written here, in commands/: the front end only reads the options.
  const { curlOutput } = await import('./curl-output.js');
  // The parser's messages: straight to stderr while the file is read; once the run has started
  // (a variable resolved when its request is built), through the run, which shows them under the
  // request's title and in order with what stdout holds.
  let run: Run | undefined;
  const script: Script = await parser(text, {
    file,
    dir: file === '-' ? io.cwd : dirname(resolve(io.cwd, file)),
    cwd: io.cwd,
    pid: io.pid,
    env: io.env,
    envName: ex.envName,
    envFile: ex.envFile,
    warn: (m) => (run ? run.warn(m) : reporter.warn(m)),
    debug: (m) => (run ? run.debug(m) : reporter.debug(m)),
    curlOutput,
  }).catch((e: unknown) => {
    throw beyondLimits(e, file === '-' ? '<stdin>' : file) ?? e;
  });

  const entries = select(script.entries, ex.names, ex.lines, lineCount(text));
  const ctx: ExecContext = { offline: inv.offline, cwd: io.cwd, warn: (m) => reporter.warn(m), debug: (m) => reporter.debug(m), network: (s) => applyFlags(s, inv), send: sendOwn };
  if (ex.to) {
    // --to curl|http: write the file's requests in the other format instead of sending them.
    const out = stdoutSink(io.stdout);
    let code: number = ExitCode.OK;
    const shown = file === '-' ? '<stdin>' : file;
    await (await import('./convert.js')).convertEntries(
      entries,
      ex.to,
      ex.shell,
      ctx,
      // On a terminal, control characters shown as the rest of sling shows them (sanitize.ts); piped, the text as written.
      (text) => out.write(io.stdout.isTTY ? neutralise(text) : text),
      (s) => applyFlags(s, inv),
      (e, entry) => {
        const where = entry.file ?? shown;
        if (!e.message.startsWith(`${where}:`)) e.message = `${where}:${entry.line}: ${e.message}`;
        reporter.error(e);
        if (code === ExitCode.OK) code = e.exitCode;
      },
    );
    return code;
  }
  run = new Run(inv, io, reporter, ctx, file === '-' ? '<stdin>' : file, type);
  await run.start();
  try {
    await runAll(run, entries);
    await run.settle();
  } finally {
    await (await loadTransport()).closeConnections();
    await run.close();
  }
  run.sessions?.save();
  const report = run.report;
  if (report) {
    // A folder (`reports/`, or one that exists) gets report.xml in it, as ijhttp's --report does.
    const given = ex.reportFile ?? 'report.xml';
    let out = resolve(io.cwd, given);
    if (/[/\\]$/.test(given) || isDirectory(out)) out = join(out, 'report.xml');
    try {
      report.write(out);
    } catch (e) {
      throw new UsageError(`--report: cannot write the report to '${out}': ${fileProblem(e)}`);
    }
    reporter.debug(`JUnit report written to ${out}`);
  }
  return run.firstFailure;
}

/**
 * The run's loop, in a function of its own: V8 optimises a long-running loop where it stands
 * (on-stack replacement), and compiling this small function takes a fraction of what compiling
 * runExec around it took (23 ms of compiler time on Node 20, measured with --trace-opt).
 */
async function runAll(run: Run, entries: ExecEntry[]) {
  for (let i = 0; i < entries.length; i++) {
    if (await run.entry(entries[i]!)) continue;
    // --fail-fast stopped the run: the requests not run are still in the report, skipped.
    for (const rest of entries.slice(i + 1)) run.report?.notRun(rest, 'not run: the run stopped at an earlier failure (--fail-fast)');
    break;
  }
}
