/**
 * The results side of a run (run.ts's Run extends it): an after-hook's result recorded (lines to
 * print, stderr notes and errors, failed tests), --check-status, the run's exit code (the first
 * failure's) and the --report junit cases. It does not send or read anything, and writes through
 * the output side (output.ts).
 */
import type { Invocation } from '../../cli/invocation.js';
import { oneLine } from '../../errors.js';
import { ExitCode, exitCodeForStatus } from '../../exit.js';
import type { Reporter, Io } from '../../io.js';
import type { OutputPlan } from '../../output/plan.js';
import { neutralise } from '../../sanitize.js';
import { shownText } from '../../output/printer.js';
import type { RequestSpec } from '../../model/spec.js';
import { JUnitReport, type ReportCase } from './report.js';
import type { AfterResult, ExecEntry } from '../../model/exec.js';
import type { ResponseHead } from '../../model/exchange.js';
import { RunOutput } from './output.js';
import { at } from './print.js';

/**
 * What a run makes of each answer: the lines an entry's after-hook asks to print, its messages on
 * stderr, failed tests, --check-status, the exit code (the first failure's) and the JUnit report.
 */
export class RunResults extends RunOutput {
  readonly report?: JUnitReport;
  firstFailure: number = ExitCode.OK;

  constructor(inv: Invocation, io: Io, reporter: Reporter, display: string) {
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
}
