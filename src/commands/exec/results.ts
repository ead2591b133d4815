/**
 * The results side of a run (run.ts's Run extends it): an after-hook's result recorded (lines to
 * print, stderr notes and errors, failed tests), --check-status, a request that failed without an
 * answer (what arrived printed, the entry's failed() hook, the error), the run's exit code (the
 * first failure's) and the --report junit cases. It does not send or read anything, and writes
 * through the output side (output.ts).
 */
import type { Invocation } from '../../cli/invocation.js';
import { CliError, beyondLimits, oneLine } from '../../errors.js';
import { ExitCode, exitCodeForStatus } from '../../exit.js';
import type { Reporter, Io } from '../../io.js';
import type { OutputPlan } from '../../output/plan.js';
import { neutralise } from '../../sanitize.js';
import { type Printer, shownText } from '../../output/printer.js';
import type { RequestSpec } from '../../model/spec.js';
import { JUnitReport, type ReportCase } from './report.js';
import type { RequestSink } from './sink.js';
import type { AfterResult, Completed, ExecContext, ExecEntry, SavedFile } from '../../model/exec.js';
import type { Hop } from '../../transport/hop.js';
import type { ResponseHead } from '../../model/exchange.js';
import { headerIn } from '../../model/headers.js';
import { RunOutput } from './output.js';
import { at } from './print.js';

const EMPTY = Buffer.alloc(0);

/**
 * What a run makes of each answer: the lines an entry's after-hook asks to print, its messages on
 * stderr, failed tests, --check-status, the exit code (the first failure's) and the JUnit report.
 */
export class RunResults extends RunOutput {
  readonly report?: JUnitReport;
  firstFailure: number = ExitCode.OK;

  constructor(
    inv: Invocation,
    io: Io,
    reporter: Reporter,
    /** The file as shown in messages (`<stdin>` for standard input). */
    protected readonly display: string,
    protected readonly ctx: ExecContext,
  ) {
    super(inv, io, reporter);
    if (inv.exec!.report === 'junit') this.report = new JUnitReport(display);
  }

  fail(code: number, entry?: ExecEntry) {
    // `curl -f URL || true`: the file handles that failure itself (reported, not the run's exit code).
    if (entry?.failureHandled) return;
    if (this.firstFailure === ExitCode.OK && code !== ExitCode.OK) this.firstFailure = code;
  }

  protected get failFast() {
    return this.inv.exec!.failFast && this.firstFailure !== ExitCode.OK;
  }

  protected checkStatus(entry: ExecEntry, spec: RequestSpec, response: ResponseHead, rc: ReportCase | undefined) {
    const code = exitCodeForStatus(response.status);
    if (code === ExitCode.OK) return;
    const what = `HTTP ${response.status} ${response.reason}`.trimEnd();
    if (!this.io.stdout.isTTY) this.rep.warn(`${at(entry, spec)}: ${what}`);
    rc?.failures.push(what);
    this.fail(code, entry);
  }

  /** Records an after-hook's result; returns the lines to print after the response. */
  protected afterResult(entry: ExecEntry, spec: RequestSpec, result: AfterResult, plan: OutputPlan, body: Buffer, rc: ReportCase | undefined): string[] | undefined {
    if (rc) this.report!.after(rc, result);
    let lines: string[] | undefined;
    const log = result.log ?? [];
    if (this.inv.quiet === 0 && log.length) {
      // What scripts log and test results quote comes from outside: neutralised as a body is.
      lines = plan.terminal ? log.map((l) => shownText(plan, l)) : log;
      // A body that does not end its line would run into the log (on a terminal the printer ends it).
      if (plan.responseBody && !plan.terminal && body.length && body[body.length - 1] !== 10) lines = ['', ...log];
    }
    // curl's -w after %{stderr}: a terminal gets it neutralised too (it quotes headers, URLs).
    if (result.stderrText) this.stderr.write(this.io.stderr.isTTY ? neutralise(result.stderrText) : result.stderrText);
    if (result.notes?.length && this.inv.quiet === 0) for (const n of result.notes) this.stderr.write(`sling: ${oneLine(n)}\n`);
    if (result.failures.length) for (const f of result.failures) this.stderr.write(`sling: test failed: ${at(entry, spec)}: ${oneLine(f)}\n`);
    if (result.errors?.length) for (const e of result.errors) this.stderr.write(`sling: error: ${oneLine(e)}\n`);
    if (result.failures.length) this.fail(ExitCode.ERROR, entry);
    if (result.exitCode) this.fail(result.exitCode, entry);
    return lines;
  }

  /**
   * A request that failed without an answer read whole (no connection, a body cut short, a file
   * that could not be written): the response before it printed first, what arrived of this one,
   * what the entry still writes (curl's -w), then the error; true when the run stops here.
   */
  protected async requestFailed(
    caught: unknown,
    entry: ExecEntry,
    spec: RequestSpec,
    printer: Printer,
    sink: RequestSink,
    rc: ReportCase | undefined,
    hop: Hop | undefined,
    bodyRead: boolean,
    saving: { files?: SavedFile[] },
  ): Promise<boolean> {
    const e = caught instanceof CliError ? caught : beyondLimits(caught, spec.source ? `${spec.source.file}:${spec.source.line}` : `${entry.file ?? this.display}:${entry.line}`);
    if (!e) throw caught;
    await this.settle();
    // A body cut short: what arrived of the response (head, and the bytes the lane kept) is
    // printed before the error, as the main command prints it.
    const partial = e.partial;
    if (partial?.encoded) {
      // gzip/deflate/br bytes that came before the cut: decoded as far as they go (as curl writes them).
      const { decodeCut } = await import('../../transport/body.js');
      partial.body = await decodeCut(partial.body, headerIn(partial.response.rawHeaders, 'content-encoding'));
      partial.encoded = false;
    }
    const head = partial?.response ?? (bodyRead ? undefined : hop?.response);
    if (head && this.inv.quiet === 0) {
      const waiting = printer.response(head, partial?.body ?? EMPTY, partial?.info ?? hop!.info, hop?.request);
      if (waiting) await waiting;
    }
    await sink.flush();
    // What the entry still writes about the failure (curl's -w: 000, curl's exit code, the message as it is).
    // The answer that was coming when the body failed, if a head came (curl's -w then reports its status and size).
    const answered: Completed | undefined = hop
      ? { spec, request: hop.request, url: hop.url, response: hop.response, body: saving.files ? EMPTY : (partial?.body ?? EMPTY), info: hop.info, saved: saving.files }
      : partial?.request && partial.url
        ? { spec, request: partial.request, url: partial.url, response: partial.response, body: partial.body, info: partial.info }
        : e.lastAnswer?.request && e.lastAnswer.url
          ? { spec, request: e.lastAnswer.request, url: e.lastAnswer.url, response: e.lastAnswer.response, body: e.lastAnswer.body, info: e.lastAnswer.info }
          : undefined;
    const after = entry.failed?.(spec, e, this.ctx, answered);
    // Which request failed, also in a log of stderr alone: `api.http:12: connection reset by ...`.
    const src = spec.source;
    if (src && !e.message.startsWith(`${src.file}:`)) e.message = `${src.file}:${src.line}: ${e.message}`;
    this.rep.error(e);
    if (rc) rc.error = e.message;
    this.fail(e.exitCode, entry);
    if (after) {
      const lines = this.afterResult(entry, spec, after, printer.plan, EMPTY, undefined);
      if (lines) sink.write(lines.join('\n') + '\n');
      await sink.flush();
      this.stderr.release();
    }
    return this.inv.exec!.failFast;
  }
}
