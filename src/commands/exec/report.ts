import { writeFileSync } from 'node:fs';
import { makeDirs } from '../../files.js';
import { dirname } from 'node:path';
import type { AfterResult, ExecEntry } from '../../model/exec.js';
import { now } from '../../clock.js';

/**
 * `sling exec --report junit --report-file FILE`: a JUnit XML report for CI. One <testsuite> for
 * the file; one <testcase> per request (named by its title line as written), failing when a test or
 * assertion of its scripts failed or --check-status rejected the status, in error when it could
 * not be built or sent; and one <testcase> per script test (`client.test`), so a CI page lists
 * tests by name.
 */
export interface ReportCase {
  name: string;
  classname: string;
  timeMs: number;
  failures: string[];
  error?: string;
  skipped?: string;
  output: string[];
}

const clean = (s: string) => s.replace(/[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]/g, '');
const attr = (s: string) => clean(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/\n/g, '&#10;');
const text = (s: string) => clean(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** A request's title line without its `### `: `name: METHOD URL  (file line N)` (what its JUnit case is named too). */
export function titleLine(entry: ExecEntry, request: string): string {
  const name = entry.name ?? entry.shownName;
  return `${name ? name + ': ' : ''}${request}  (${entry.file ? entry.file + ' ' : ''}line ${entry.line})`;
}

export class JUnitReport {
  private readonly cases: ReportCase[] = [];
  private readonly started = now();

  constructor(private readonly suite: string) {}

  /** A request about to run; `title` is what the title line shows. */
  begin(entry: ExecEntry, title: string): ReportCase {
    const c: ReportCase = { name: title, classname: this.suite, timeMs: now(), failures: [], output: [] };
    void entry;
    this.cases.push(c);
    return c;
  }

  end(c: ReportCase) {
    c.timeMs = now() - c.timeMs;
  }

  /** What the entry's after-hook reported: failures on the request, each script test as its own case. */
  after(c: ReportCase, result: AfterResult) {
    c.output.push(...(result.log ?? []));
    const tests = result.tests ?? [];
    const testFailures = new Set(tests.filter((t) => t.failure !== undefined).map((t) => `${t.name}: ${t.failure}`));
    for (const f of result.failures) if (!testFailures.has(f)) c.failures.push(f);
    // The entry's own errors (a response that could not be saved): the case is in error, not failed.
    if (result.errors?.length) c.error = result.errors.join('\n');
    for (const t of tests) {
      this.cases.push({ name: `${c.name} › ${t.name}`, classname: this.suite, timeMs: 0, failures: t.failure === undefined ? [] : [t.failure], output: [] });
    }
  }

  /** A request the run did not get to (--fail-fast stopped it): a skipped case, so the report lists every request. */
  notRun(entry: ExecEntry, why: string) {
    this.cases.push({ name: titleLine(entry, entry.label), classname: this.suite, timeMs: 0, failures: [], skipped: why, output: [] });
  }

  /** An entry that could not be built (unknown variable, unreadable file, ...). */
  error(entry: ExecEntry, message: string) {
    this.cases.push({ name: titleLine(entry, entry.label), classname: this.suite, timeMs: 0, failures: [], error: message, output: [] });
  }

  xml(): string {
    const failures = this.cases.filter((c) => c.failures.length && !c.error).length;
    const errors = this.cases.filter((c) => c.error !== undefined).length;
    const skipped = this.cases.filter((c) => c.skipped !== undefined).length;
    const secs = (ms: number) => (ms / 1000).toFixed(3);
    const total = secs(now() - this.started);
    const lines = [
      '<?xml version="1.0" encoding="UTF-8"?>',
      `<testsuites name="sling exec" tests="${this.cases.length}" failures="${failures}" errors="${errors}" skipped="${skipped}" time="${total}">`,
      `  <testsuite name="${attr(this.suite)}" tests="${this.cases.length}" failures="${failures}" errors="${errors}" skipped="${skipped}" time="${total}" timestamp="${new Date().toISOString()}">`,
    ];
    for (const c of this.cases) {
      const open = `    <testcase name="${attr(c.name)}" classname="${attr(c.classname)}" time="${secs(c.timeMs)}"`;
      const inner: string[] = [];
      if (c.error !== undefined) inner.push(`      <error message="${attr(c.error)}">${text(c.error)}</error>`);
      else if (c.failures.length) inner.push(`      <failure message="${attr(c.failures[0]!)}">${text(c.failures.join('\n'))}</failure>`);
      if (c.skipped !== undefined) inner.push(`      <skipped message="${attr(c.skipped)}"/>`);
      if (c.output.length) inner.push(`      <system-out>${text(c.output.join('\n'))}</system-out>`);
      lines.push(inner.length ? `${open}>\n${inner.join('\n')}\n    </testcase>` : `${open}/>`);
    }
    lines.push('  </testsuite>', '</testsuites>', '');
    return lines.join('\n');
  }

  write(path: string) {
    makeDirs(dirname(path));
    writeFileSync(path, this.xml());
  }
}
