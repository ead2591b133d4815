import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { Invocation } from '../cli/invocation.js';
import { CliError, UsageError } from '../errors.js';
import { ExitCode, exitCodeForStatus } from '../exit.js';
import { Reporter, stdoutSink, type Io } from '../main.js';
import { makePlan, printParts, type OutputPlan } from '../output/plan.js';
import { Printer, printingHops } from '../output/printer.js';
import { prepareRequest } from '../request/prepare.js';
import { withJarCookies } from '../transport/cookies.js';
import type { RequestSpec } from '../request/spec.js';
import { detectType } from './detect.js';
import { JUnitReport } from './report.js';
import { HeldWriter, RequestSink } from './sink.js';
import type { ExecContext, ExecEntry, Script, SourceParser } from './types.js';

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
    for await (const c of io.stdin) chunks.push(c as Buffer);
    text = Buffer.concat(chunks).toString('utf8');
  } else {
    try {
      text = readFileSync(resolve(io.cwd, file), 'utf8');
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      throw new UsageError(`cannot read '${file}': ${code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a directory' : (e as Error).message}`);
    }
  }
  const type = detectType(file, text, ex.type);
  reporter.debug(`exec: ${file} as ${type}`);
  const parser: SourceParser = type === 'curl' ? (await import('../sources/curl/index.js')).parseCurlFile : (await import('../sources/http/index.js')).parseHttpFile;
  const script: Script = await parser(text, {
    file,
    dir: file === '-' ? io.cwd : dirname(resolve(io.cwd, file)),
    env: io.env,
    envName: ex.envName,
    envFile: ex.envFile,
    warn: (m) => reporter.warn(m),
    debug: (m) => reporter.debug(m),
  });

  const entries = select(script.entries, ex.names, ex.lines);
  const ctx: ExecContext = { offline: inv.offline, cwd: io.cwd, warn: (m) => reporter.warn(m), debug: (m) => reporter.debug(m) };
  if (ex.to) {
    // --to curl|http: write the file's requests in the other format instead of sending them.
    const out = stdoutSink(io.stdout);
    await (await import('./convert.js')).convertEntries(entries, ex.to, ctx, (text) => out.write(text), (s) => applyFlags(s, inv));
    return ExitCode.OK;
  }
  // Output is gathered per request and written at once when stdout is a pipe or a file (one write
  // per request). There, a response is also printed while the next request is on the wire: the
  // printing of request N waits until request N+1 has been written (it never waits for N+1's
  // answer), and anything for stderr in the meantime is held back so both streams keep their order.
  // The environment is snapshotted: it is read for every request (proxies, colours) and each read
  // of process.env is a system call.
  const out = stdoutSink(io.stdout);
  const buffered = !io.stdout.isTTY;
  const stderr = new HeldWriter(io.stderr);
  const rep = new Reporter({ ...io, stderr: stderr as unknown as Io['stderr'] }, reporter.quiet, reporter.debugOn);
  const say = { warn: (m: string) => rep.warn(m), debug: (m: string) => rep.debug(m) };
  ctx.warn = say.warn;
  ctx.debug = say.debug;
  const env: NodeJS.ProcessEnv = { ...io.env };
  const report = ex.report === 'junit' ? new JUnitReport(file === '-' ? '<stdin>' : file) : undefined;
  let firstFailure: number = ExitCode.OK;
  const fail = (code: number) => {
    if (firstFailure === ExitCode.OK && code !== ExitCode.OK) firstFailure = code;
  };
  let printedAny = false;
  const { exchange } = inv.offline ? { exchange: undefined } : await import('../transport/exchange.js');
  const { readBody } = inv.offline ? { readBody: undefined } : await import('../transport/body.js');
  const { closeConnections } = await import('../transport/send.js');
  // One output plan per method and per-entry print codes (the flags do not change during a run).
  const plans = new Map<string, OutputPlan>();
  const planFor = (method: string, print: string | undefined): OutputPlan => {
    const key = print === undefined ? method : `${method} ${print}`;
    let plan = plans.get(key);
    if (!plan) {
      plan = makePlan(inv, method, { isTTY: Boolean(io.stdout.isTTY), env });
      if (print !== undefined) plan = { ...plan, ...printParts(print) };
      plans.set(key, plan);
    }
    return plan;
  };
  /** The previous response's printing, when it waits for the next request to be written. */
  let deferred: (() => Promise<void>) | undefined;
  const settle = async () => {
    const work = deferred;
    deferred = undefined;
    if (work) await work();
    stderr.release();
  };
  const hopOptions = {
    env,
    keepAliveLane: true,
    debug: rep.debugOn ? say.debug : undefined,
    warn: say.warn,
  };

  // --session: one store for the run; each request uses (and updates) the session of its host.
  const sessions = inv.session !== undefined ? new (await import('../transport/session.js')).SessionStore(inv.session, io.env, io.cwd, inv.sessionReadOnly) : undefined;
  try {
    for (const entry of entries) {
      let specs: RequestSpec[];
      try {
        const built = await entry.build(ctx);
        if (built === null) continue;
        specs = (Array.isArray(built) ? built : [built]).map((s) => applyFlags(s, inv));
        if (sessions) {
          specs = specs.map((s) => {
            const explicit = new Set(s.headers.map(([n]) => n.toLowerCase()).filter((n) => !DEFAULT_HEADERS.has(n)));
            const applied = sessions.apply(s, explicit, explicit.has('authorization') || s.settings.digest !== undefined);
            const auth = applied.auth;
            if (!auth) return applied.spec;
            if (auth.type === 'digest') return { ...applied.spec, settings: { ...applied.spec.settings, digest: { user: auth.user, password: auth.password ?? '' } } };
            const value = auth.type === 'bearer' ? `Bearer ${auth.user}` : 'Basic ' + Buffer.from(`${auth.user}:${auth.password ?? ''}`, 'utf8').toString('base64');
            return { ...applied.spec, headers: [...applied.spec.headers, ['Authorization', value] as [string, string]] };
          });
        }
      } catch (e) {
        if (!(e instanceof CliError)) throw e;
        await settle();
        rep.error(e);
        report?.error(entry, e.message);
        fail(e.exitCode);
        if (ex.failFast) break;
        continue;
      }
      let stop = false;
      for (const spec of specs) {
        const plan = planFor(spec.method, entry.output?.print);
        const sink = new RequestSink(out, buffered);
        const printer = new Printer(plan, sink);
        const rc = report?.begin(entry, title(entry, spec, false).replace(/^### /, ''));
        // A printed request goes out as it is sent: the previous response must be out first.
        if (deferred && (plan.requestHeaders || plan.requestBody)) await settle();
        if (inv.quiet === 0) {
          if (printedAny) await sink.write('\n');
          await sink.write(title(entry, spec, plan.colors) + '\n');
          printedAny = true;
        }
        if (inv.offline) {
          const jar = spec.settings.cookieJar;
          await printer.request(await prepareRequest(jar ? withJarCookies(spec, jar) : spec));
          await printer.finish();
          await sink.flush();
          if (rc) rc.skipped = '--offline: not sent';
          continue;
        }
        let print: (() => Promise<void>) | undefined;
        try {
          let written!: () => void;
          const onWire = deferred ? new Promise<void>((r) => (written = r)) : undefined;
          const pending = exchange!(spec, { ...hopOptions, onSent: onWire && written, ...printingHops(printer) });
          if (onWire) {
            await Promise.race([onWire, pending.then(noop, noop)]);
            await settle();
          }
          const hop = await pending;
          const body = await readBody!(hop);
          const lines: string[] = [];
          if (inv.checkStatus) {
            const code = exitCodeForStatus(hop.response.status);
            if (code !== ExitCode.OK) {
              if (!io.stdout.isTTY) rep.warn(`${entry.name ?? entry.label}: HTTP ${hop.response.status} ${hop.response.reason}`.trimEnd());
              rc?.failures.push(`HTTP ${hop.response.status} ${hop.response.reason}`.trimEnd());
              fail(code);
            }
          }
          if (entry.after) {
            const result = await entry.after({ spec, request: hop.request, url: hop.url, response: hop.response, body, info: hop.info }, ctx);
            if (rc) report!.after(rc, result);
            if (inv.quiet === 0) {
              const log = result.log ?? [];
              // A body that does not end its line would run into the log (on a terminal the printer ends it).
              if (log.length && plan.responseBody && !plan.terminal && body.length && body[body.length - 1] !== 10) lines.push('');
              lines.push(...log);
            }
            for (const f of result.failures) stderr.write(`sling: test failed: ${entry.name ?? entry.label}: ${f}\n`);
            if (result.failures.length) fail(ExitCode.ERROR);
            if (result.exitCode) fail(result.exitCode);
            if (result.stop) stop = true;
          }
          print = async () => {
            await printer.responseHead(hop.response);
            await printer.responseBody(hop.response, body);
            await printer.meta(hop.response, hop.info, body.length, hop.request);
            await printer.finish();
            if (lines.length) await sink.write(lines.join('\n') + '\n');
            await sink.flush();
          };
        } catch (e) {
          if (!(e instanceof CliError)) throw e;
          await settle();
          await sink.flush();
          rep.error(e);
          if (rc) rc.error = e.message;
          fail(e.exitCode);
          if (ex.failFast) stop = true;
        }
        if (rc) report!.end(rc);
        if (print) {
          // Held back for the next request only when there is one to send.
          if (buffered && !stop && !(ex.failFast && firstFailure !== ExitCode.OK)) {
            deferred = print;
            stderr.hold();
          } else await print();
        }
        if (stop) break;
      }
      if (stop || (ex.failFast && firstFailure !== ExitCode.OK)) break;
    }
    await settle();
  } finally {
    closeConnections();
    stderr.release();
  }
  sessions?.save();
  if (report) {
    const out = resolve(io.cwd, ex.reportFile ?? 'report.xml');
    try {
      report.write(out);
    } catch (e) {
      throw new UsageError(`--report-file: cannot write '${ex.reportFile ?? 'report.xml'}': ${(e as Error).message}`);
    }
    reporter.debug(`JUnit report written to ${out}`);
  }
  return firstFailure;
}

const noop = () => {};

const DEFAULT_HEADERS = new Set(['user-agent', 'accept-encoding', 'accept', 'connection']);

/** The main command's network flags apply to every request of the file (when given). */
function applyFlags(spec: RequestSpec, inv: Invocation): RequestSpec {
  const s = { ...spec.settings, tls: { ...spec.settings.tls } };
  if (inv.timeoutMs !== undefined) s.timeoutMs = inv.timeoutMs;
  if (inv.verify !== true) s.tls.verify = inv.verify;
  if (inv.cert) s.tls.cert = inv.cert;
  if (inv.certKey) s.tls.certKey = inv.certKey;
  if (Object.keys(inv.proxies).length) s.proxies = { ...s.proxies, ...inv.proxies };
  if (inv.follow) s.follow = true;
  if (inv.maxRedirects !== 30) s.maxRedirects = inv.maxRedirects;
  return { ...spec, settings: s };
}

function title(entry: ExecEntry, spec: RequestSpec, colors: boolean): string {
  const where = `${spec.url.scheme}://${spec.url.hostHeader}${spec.url.path}${spec.url.query ? '?' + spec.url.query : ''}`;
  const text = `### ${entry.name ? entry.name + ': ' : ''}${spec.method} ${where}  (line ${entry.line})`;
  return colors ? `\x1b[1;33m${text}\x1b[0m` : text;
}

/** --name / --line: the chosen entries and, before them, the named entries they depend on. */
function select(entries: ExecEntry[], names: string[], lines: number[]): ExecEntry[] {
  if (!names.length && !lines.length) return entries;
  const chosen = new Set<ExecEntry>();
  for (const name of names) {
    const e = entries.find((x) => x.name === name);
    if (!e) throw new UsageError(`--name: no request is named '${name}'`, `names in this file: ${entries.filter((x) => x.name).map((x) => x.name).join(', ') || '(none)'}`);
    chosen.add(e);
  }
  for (const line of lines) {
    const e = [...entries].reverse().find((x) => x.line <= line);
    if (!e) throw new UsageError(`--line: no request starts at or before line ${line}`);
    chosen.add(e);
  }
  const byName = new Map(entries.filter((e) => e.name).map((e) => [e.name!, e]));
  const need = new Set<ExecEntry>();
  const visit = (e: ExecEntry) => {
    if (need.has(e)) return;
    need.add(e);
    for (const dep of e.dependsOn ?? []) {
      const d = byName.get(dep);
      if (d) visit(d);
    }
  };
  for (const e of chosen) visit(e);
  return entries.filter((e) => need.has(e));
}
