/**
 * The scripting of a .http request: the script process (QuickJS, loaded on the first script), a
 * JetBrains script run with its `client` and `request`, the steps after a response (handlers,
 * httpyac assertions and blocks) and how their tests are recorded. It does not build requests
 * (entry-build.ts) nor write `>> file` outputs (entry-save.ts).
 */
import { FileTooLargeError, readLimited, SETTINGS_FILE_LIMIT } from '../../files.js';
import { resolve as resolvePath } from 'node:path';
import { UsageError } from '../../errors.js';
import type { AfterResult, Completed } from '../../model/exec.js';
import { formatUrl } from '../../model/url.js';
import { headerIn } from '../../model/headers.js';
import type { AssertNode, RequestNode, ScriptNode } from './ast.js';
import type { BuiltRequest } from './request.js';
import { mayNeedJs, prepareJs, runYacScript, yacRequest } from './httpyac-js.js';
import type { ScriptHooks, ScriptHost, ScriptResponse, ScriptResult } from './script.js';
import { rawText } from './template.js';
import type { Resolution, FileCtx, Runtime } from './vars.js';
import { isStreamed } from '../../model/upload.js';

/** What a script of one pass of a request sees: its variables, the request as built, which iteration. */
export interface ScriptPass {
  res: Resolution;
  built?: BuiltRequest;
  iteration: number;
}

let hostPromise: Promise<ScriptHost> | undefined;
/** node:vm and the sandbox load on the first script, never on the path of a plain run. */
export function scriptHost(): Promise<ScriptHost> {
  return (hostPromise ??= import('./script.js').then((m) => new m.ScriptHost()));
}

/** The script process boots while the request of the first script goes out (or while sling gets its first pre-request script ready). */
export function warmScripts(node: RequestNode, offline: boolean, yac = false) {
  if (hostPromise) return;
  const expressions = !offline && node.asserts.some((s) => s.a.field === 'js' || s.a.field === 'xpath' || (s.a.field === 'body' && s.a.value !== ''));
  if (yac || node.pre.some((s) => !s.lua) || (!offline && node.handlers.some((s) => !s.lua)) || expressions)
    scriptHost().then(
      (h) => h.warm(),
      () => undefined,
    );
}

let assertsModule: Promise<typeof import('./assert-run.js')> | undefined;
/** The assertion checker (and node:vm, node:crypto) load with the first request that has one. */
function assertRunner() {
  return (assertsModule ??= import('./assert-run.js'));
}

/** A JavaScript pre-request script or response handler (JetBrains' API) run in the script process, with what it sees of the request and the response. */
export async function runScript(rt: Runtime, file: FileCtx, node: RequestNode, s: ScriptNode, p: ScriptPass, done?: Completed, probe = false): Promise<ScriptResult> {
  let code = s.code;
  let filename = `${file.path}`;
  let line = s.line;
  if (s.path) {
    const path = p.res.resolve(s.path);
    const full = resolvePath(file.dir, path);
    try {
      code = readLimited(full, SETTINGS_FILE_LIMIT, path, 'a script file').toString('utf8');
    } catch (e) {
      if (e instanceof FileTooLargeError) return { tests: [], logs: [], exit: false, error: e.message };
      return { tests: [], logs: [], exit: false, error: `cannot read the script '${path}': ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (e as Error).message}` };
    }
    filename = path;
    line = 1;
  }
  const host = await scriptHost();
  if (!probe) for (const u of host.unsupported(code!, line)) rt.warnOnce(`${filename}:${u.line}:${u.what}`, `${filename}:${u.line}: ${u.what} is not supported: the script fails where it calls it`);
  const hooks: ScriptHooks = {
    setGlobal: (n, t) => rt.globals.set(n, t),
    getGlobal: (n) => rt.globals.get(n),
    clearGlobal: (n) => rt.globals.delete(n),
    clearAll: () => rt.globals.clear(),
    globalsEmpty: () => rt.globals.size === 0,
    env: (n) => (rt.envTemplate(n) !== undefined ? p.res.lookup(n) : undefined),
    fileVar: (n) => p.res.fileValue(n),
    lookup: (n) => p.res.lookup(n),
    setRequestVar: (n, t, j) => p.res.requestVars.set(n, { text: t, json: j }),
    requestVarJson: (n) => (p.res.hasRequestVars() ? p.res.requestVars.get(n)?.json : undefined),
    setGlobalHeader: (n, v) => rt.globalHeaders.set(n.toLowerCase(), [n, v]),
    clearGlobalHeader: (n) => rt.globalHeaders.delete(n.toLowerCase()),
  };
  // A stream's handler run ahead, to see whether it unsubscribes by now: it reads, it changes nothing.
  if (probe) {
    hooks.setGlobal = hooks.clearGlobal = hooks.setRequestVar = hooks.setGlobalHeader = hooks.clearGlobalHeader = () => undefined;
    hooks.clearAll = () => undefined;
  }
  const spec = p.built?.spec;
  const request = {
    method: spec?.method ?? node.method,
    url: spec ? formatUrl(spec.url) : rawText(node.url),
    urlRaw: rawText(node.url),
    // Before sending (a pre-request script): the file's headers, not the defaults sling adds.
    headers: done ? done.request.headers : (spec?.headers ?? []).filter(([n]) => node.headers.some((h) => (h.lower ?? rawText(h.name).toLowerCase()) === n.toLowerCase())),
    headersRaw: node.headers.map((h): [string, string] => [typeof h.name === 'string' ? h.name : rawText(h.name), typeof h.value === 'string' ? h.value : rawText(h.value)]),
    body: done ? (isStreamed(done.request.body) ? '' : done.request.body.toString('utf8')) : spec && spec.body.kind === 'bytes' ? spec.body.data.toString('utf8') : '',
    bodyRaw: p.built?.bodyText ?? '',
    iteration: p.iteration,
  };
  const refused = done ? host.refuseBody(done.body.length) : undefined;
  if (refused) return { tests: [], logs: [], exit: false, error: refused };
  const contentType = done ? (headerIn(done.response.rawHeaders, 'content-type') ?? '') : '';
  const response: ScriptResponse | undefined = done
    ? {
        status: done.response.status,
        headers: pairs(done.response.rawHeaders),
        body: decodeText(done.body, contentType),
        contentType,
      }
    : undefined;
  // A stream's messages from the server: response.body.onEachMessage and the array (engine/jetbrains.ts).
  if (response && done?.messages) {
    response.messages = done.messages.filter((m) => m.direction === 'received' && m.binary === undefined).map((m) => ({ text: m.text, event: m.event, id: m.id }));
    response.json = done.spec.stream?.kind === 'grpc';
  }
  return host.run(code!, filename, line, hooks, request, response);
}

/**
 * A stream's JetBrains handlers that go through its messages (`onEachMessage`), run on the messages
 * so far as a probe (nothing they change is kept, nothing they log is shown): whether one calls
 * `unsubscribe()` by now, which ends the stream (JetBrains closes it then). The handlers run for real
 * once it has ended.
 */
export async function unsubscribes(rt: Runtime, file: FileCtx, node: RequestNode, p: ScriptPass, done: Completed): Promise<boolean> {
  for (const s of node.handlers) {
    if (s.yac || s.lua || !(s.path !== undefined || /\bonEachMessage\b/.test(s.code ?? ''))) continue;
    const r = await runScript(rt, file, node, s, p, done, true);
    if (r.unsubscribed) return true;
  }
  return false;
}

/**
 * What runs after a response, in the order the file gives it: response handlers, httpyac
 * assertions (`?? status == 200`) and blocks, then httpyac's blocks for every response. Their log
 * lines, tests and failures go into `result`.
 */
export async function runAfterSteps(rt: Runtime, file: FileCtx, node: RequestNode, p: ScriptPass, done: Completed, result: AfterResult): Promise<void> {
  // Handlers and httpyac assertions run in the order the file gives them.
  let steps: (ScriptNode | AssertNode)[] = node.asserts.length ? [...node.handlers, ...node.asserts].sort((x, y) => x.line - y.line) : node.handlers;
  // httpyac blocks that run after every response of the file.
  if (file.parsed.yacGlobalAfter) steps = [...steps, ...file.parsed.yacGlobalAfter];
  for (const s of steps) {
    if ('a' in s) {
      const { checkAssert, expressionOf, evaluationInput } = await assertRunner();
      // `?? body id == {{ n * 2 }}`: httpyac's JavaScript, worked out now (the response is in).
      if (typeof s.expected !== 'string' && mayNeedJs([s.expected], { file, line: node.line })) await prepareJs(scriptHost, [s.expected], p.res, yacRequest(node));
      let test: { name: string; failure: string | null };
      try {
        const expected = p.res.resolve(s.expected).trim();
        // `js EXPR`, `body PATH`: JavaScript, run in the script process (its memory and time limits).
        const code = expressionOf(s.a, s.a.field === 'xpath' ? xpathNamespaces(file, s.line, p.res) : undefined);
        let evaluated: { json?: string; error?: string } | undefined;
        if (code !== undefined) {
          let input: string | undefined;
          try {
            input = evaluationInput(done);
          } catch (e) {
            // A body nested too deep for sling (nesting.ts), as before: the assertion fails.
            evaluated = { error: (e as Error).message };
          }
          if (input !== undefined) evaluated = await (await scriptHost()).evaluate(code, input);
        }
        test = checkAssert(s.a, expected, done, evaluated);
      } catch (e) {
        if (!(e instanceof UsageError)) throw e;
        test = { name: `${s.a.value || s.a.field} ${s.a.spelled} ${rawText(s.expected)}`.trim(), failure: e.message };
      }
      record(result, test.name, test.failure);
      continue;
    }
    if (s.lua) {
      rt.warnOnce(`${file.path}:${s.line}`, `${file.path}:${s.line}: Lua scripts (rest.nvim, kulala) are not run`);
      continue;
    }
    if (s.yac) {
      const sent = { method: done.request.method, url: formatUrl(done.url), headers: done.request.headers, body: done.request.body.toString('utf8') };
      const r = await runYacScript(await scriptHost(), s, p.res, node, yacRequest(node, sent), done);
      result.log!.push(...r.logs);
      for (const [name, failure] of r.tests) record(result, name, failure);
      if (r.error) result.failures.push(`${file.path}:${s.line}: the response script failed: ${r.error}`);
      continue;
    }
    const r = await runScript(rt, file, node, s, p, done);
    result.log!.push(...r.logs);
    for (const [name, failure] of r.tests) record(result, name, failure);
    if (r.error) result.failures.push(`${file.path}:${s.line}: the response handler failed: ${r.error}`);
    // client.exit() ended that handler only; the next ones and the rest of the run go on (JetBrains).
  }
}

/** A test's outcome: a line under the response, a case for --report, a failure for the exit code. */
function record(result: AfterResult, name: string, failure: string | null) {
  result.log!.push(failure === null ? `✓ ${name}` : `✗ ${name}: ${failure}`);
  (result.tests ??= []).push(failure === null ? { name } : { name, failure });
  if (failure !== null) result.failures.push(`${name}: ${failure}`);
}

const NO_SCRIPTS: ScriptNode[] = [];
/** httpyac's global blocks a request of `file` runs first: its `# @import`ed files' (in order), then its own. */
export function yacGlobals(file: FileCtx): ScriptNode[] {
  const own = file.parsed.yacGlobal;
  if (!file.imported?.some((f) => f.parsed.yacGlobal)) return own ?? NO_SCRIPTS;
  return [...file.imported.flatMap((f) => f.parsed.yacGlobal ?? []), ...(own ?? [])];
}

/** A body as text in the charset its Content-Type names (UTF-8 when it names none or one Node does not know). */
function decodeText(body: Buffer, contentType: string): string {
  const m = /charset\s*=\s*"?([^";\s]+)/i.exec(contentType);
  const charset = m ? m[1]!.toLowerCase() : 'utf-8';
  if (charset === 'utf-8' || charset === 'utf8') return body.toString('utf8');
  try {
    return new TextDecoder(charset).decode(body);
  } catch {
    return body.toString('utf8');
  }
}

function pairs(raw: string[]): [string, string][] {
  const out: [string, string][] = [];
  for (let i = 0; i < raw.length; i += 2) out.push([raw[i]!, raw[i + 1]!]);
  return out;
}

/** httpyac's `@xpath_ns prefix=uri` lines above an assertion's line (a later one for a prefix wins), their URIs resolved. */
function xpathNamespaces(file: FileCtx, line: number, res: Resolution): Record<string, string> | undefined {
  const defs = file.parsed.xpathNs;
  if (!defs) return undefined;
  const out: Record<string, string> = {};
  for (const d of defs) if (d.line < line) out[d.prefix] = res.resolve(d.uri).trim();
  return out;
}
