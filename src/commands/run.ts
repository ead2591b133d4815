import type { Invocation } from '../cli/invocation.js';
import { ExitCode, exitCodeForStatus } from '../exit.js';
import { UsageError } from '../errors.js';
import { stdoutIsStderr, stdoutSink, type Io, type Reporter, type Sink } from '../io.js';
import { makePlan } from '../output/plan.js';
import { Printer } from '../output/printer.js';
import { buildRequest, type BuildContext } from '../request/build.js';
import { deliver, loadTransport, wouldSend } from './deliver.js';
import { askPassword, readStdinBody } from '../sources/stdin.js';
import { now } from '../clock.js';
import { onInterrupt } from '../interrupt.js';

/** The main command: build the request, print or send it, print the exchange, pick the exit code. */
export async function runRequest(inv: Invocation, io: Io, reporter: Reporter): Promise<number> {
  const ctx: BuildContext = {
    cwd: io.cwd,
    env: io.env,
    pid: io.pid,
    readStdin: () => readStdinBody(io, reporter),
    askPassword: (user, where) => askPassword(io, user, where),
    note: (m) => reporter.note(m),
    warn: (m) => reporter.warn(m),
  };
  const spec = await buildRequest(inv, ctx);
  // A download prints on stderr (stdout may be the file, with -o -), so stderr decides on colours.
  const downloading = inv.download && !inv.offline;
  const plan = makePlan(inv, spec.method, { isTTY: Boolean(downloading ? io.stderr.isTTY : io.stdout.isTTY), env: io.env });
  // process.stdout is made on first use: a download to a file never makes it.
  let out: Sink | undefined;
  const printer = new Printer(plan, { write: (c) => (out ??= stdoutSink(io.stdout)).write(c) });
  // A message after a body that did not end its line starts a line of its own.
  // Only where stdout and stderr are one file (`> out 2>&1`): a stderr of its own gets no blank line.
  // (`-o -` writes stdout itself: download.ts extends this with its own last byte.)
  reporter.openLine = () => printer.takeOpenLine() && stdoutIsStderr();
  // Ctrl-C's message too (bin.ts writes it after the hooks); on a terminal bin.ts ends the line itself.
  onInterrupt(() => {
    if (!io.stderr.isTTY && reporter.openLine?.()) io.stderr.write('\n');
  });

  if (inv.curl) {
    // --curl: the curl command line that sends this request (src/output/to-curl.ts); nothing is sent.
    const { curlCommand, ShellQuoteError } = await import('../output/to-curl.js');
    let text: string;
    try {
      const save = inv.download ? { output: inv.output, resume: inv.resume } : undefined;
      text = curlCommand(spec, await wouldSend(spec, ctx.session?.jar), inv.curlShell, save);
    } catch (e) {
      if (e instanceof ShellQuoteError) throw new UsageError(`--curl=${inv.curlShell}: ${e.message}`, 'use --curl=posix (bash), or --curl=powershell');
      throw e;
    }
    await stdoutSink(io.stdout).write(text + '\n');
    return ExitCode.OK;
  }
  if (!inv.offline && spec.settings.tls.verify === false && spec.url.scheme === 'https') {
    reporter.warn('--verify=no: the server certificate is not checked');
  }
  try {
    if (downloading) {
      const { runDownload } = await import('./download.js');
      const code = await runDownload(inv, spec, plan, io, reporter, ctx.session?.jar);
      ctx.session?.save();
      return code;
    }
    const { hop } = await deliver(spec, {
      printer,
      offline: inv.offline,
      exchange: { env: io.env, jar: ctx.session?.jar, debug: (m) => reporter.debug(m), warn: (m) => reporter.warn(m) },
      // Redirects followed or a digest answer: the request printed is the one that got the final answer.
      final: spec.settings.follow || spec.settings.digest !== undefined,
      body: { print: { strict: true } },
    });
    // A response arrived (or --offline printed the request): the session takes the cookies it set.
    ctx.session?.save();
    await printer.finish();
    if (!hop) return ExitCode.OK;
    const t = hop.info.timings;
    const phase = (x?: number) => (x === undefined ? '-' : `${(x - t.start).toFixed(1)}ms`);
    reporter.debug(`timings: dns ${phase(t.dns)}, connect ${phase(t.connect)}, tls ${phase(t.tls)}, first byte ${phase(t.firstByte)}, total ${phase(t.end ?? now())}`);

    const status = hop.response.status;
    if (inv.checkStatus) {
      const code = exitCodeForStatus(status);
      if (code !== ExitCode.OK) {
        if (!io.stdout.isTTY) reporter.warn(`HTTP ${status} ${hop.response.reason}`.trimEnd());
        return code;
      }
    }
    return ExitCode.OK;
  } finally {
    // Nothing was opened offline (the transport is not even loaded).
    if (!inv.offline) await (await loadTransport()).closeConnections();
  }
}
