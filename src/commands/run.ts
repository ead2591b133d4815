import type { Invocation } from '../cli/invocation.js';
import { CliError } from '../errors.js';
import { ExitCode, exitCodeForStatus } from '../exit.js';
import { stdoutSink, type Io, type Reporter } from '../io.js';
import { makePlan } from '../output/plan.js';
import { Printer, printingHops } from '../output/printer.js';
import { buildRequest, type BuildContext } from '../request/build.js';
import { printOffline, wouldSend } from './deliver.js';
import { askPassword, readStdinBody } from '../sources/stdin.js';
import { now } from '../clock.js';
import { stdoutIsStderr } from '../fd-writer.js';

/** The main command: build the request, print or send it, print the exchange, pick the exit code. */
export async function runRequest(inv: Invocation, io: Io, reporter: Reporter): Promise<number> {
  const ctx: BuildContext = {
    cwd: io.cwd,
    env: io.env,
    readStdin: () => readStdinBody(io, reporter),
    askPassword: (user, where) => askPassword(io, user, where),
    note: (m) => reporter.note(m),
  };
  const spec = await buildRequest(inv, ctx);
  // A download prints on stderr (stdout may be the file, with -o -), so stderr decides on colours.
  const downloading = inv.download && !inv.offline;
  const plan = makePlan(inv, spec.method, { isTTY: Boolean(downloading ? io.stderr.isTTY : io.stdout.isTTY), env: io.env });
  const printer = new Printer(plan, stdoutSink(io.stdout));
  // A message after a body that did not end its line starts a line of its own.
  // Only where stdout and stderr are one file (`> out 2>&1`): a stderr of its own gets no blank line.
  reporter.openLine = () => {
    if (printer.takeOpenLine()) return stdoutIsStderr();
    // `-o -` writes stdout itself (download.ts), and says whether its last line is open.
    const out = io.stdout as { lineOpen?: boolean };
    if (!downloading || !out.lineOpen) return false;
    out.lineOpen = false;
    return stdoutIsStderr();
  };

  if (inv.curl) {
    // --curl: the curl command line that sends this request (src/output/to-curl.ts); nothing is sent.
    const { curlCommand } = await import('../output/to-curl.js');
    await stdoutSink(io.stdout).write(curlCommand(spec, await wouldSend(spec)) + '\n');
    return ExitCode.OK;
  }
  if (inv.offline) {
    await printOffline(spec, printer);
    ctx.session?.save();
    return ExitCode.OK;
  }
  if (spec.settings.tls.verify === false && spec.url.scheme === 'https') {
    reporter.warn('--verify=no: the server certificate is not checked');
  }

  if (downloading) {
    const { runDownload } = await import('./download.js');
    const { closeConnections } = await import('../transport/exchange.js');
    try {
      const code = await runDownload(inv, spec, plan, io, reporter);
      ctx.session?.save();
      return code;
    } finally {
      await closeConnections();
    }
  }

  const { exchange } = await import('../transport/exchange.js');
  const { decodedBody } = await import('../transport/body.js');
  const { bodyError } = await import('../transport/body.js');
  const { closeConnections } = await import('../transport/exchange.js');
  try {
    // Redirects followed or a digest answer: the request printed is the one that got the final answer.
    const hops = printingHops(printer, spec.settings.follow || spec.settings.digest !== undefined);
    const hop = await exchange(spec, {
      env: io.env,
      debug: (m) => reporter.debug(m),
      warn: (m) => reporter.warn(m),
      ...hops,
    }).catch(async (e: unknown) => {
      // The request that failed (a refused hop) is shown before the error.
      await printer.heldRequest();
      throw e;
    });
    await printer.responseHead(hop.response);
    let size = 0;
    const body = await decodedBody(hop);
    body.on('data', (c: Buffer) => (size += c.length));
    let streamFailed = false;
    body.once('error', () => (streamFailed = true));
    try {
      await printer.responseBody(hop.response, body);
    } catch (e) {
      if (e instanceof CliError) throw e;
      // The body arrived whole but the formatter gave up on it (a document nested too deep or
      // too large to lay out): not a network failure.
      if (!streamFailed && !hop.info.timedOut && e instanceof RangeError) {
        throw new CliError(`the response body (${size} bytes) could not be formatted: ${e.message}`, ExitCode.ERROR, 'print it as it came with --pretty=none');
      }
      throw bodyError(hop, e, size);
    }
    if (hop.info.timedOut) throw bodyError(hop, new Error('timeout'), size);
    await printer.meta(hop.response, hop.info, size, hop.request);
    // A response arrived: the session takes the cookies it set.
    ctx.session?.save();
    await printer.finish();
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
    await closeConnections();
  }
}
