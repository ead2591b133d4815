import type { Completed } from '../../model/exec.js';
import { responseData } from './assert-run.js';
import type { RequestNode, ScriptNode } from './ast.js';
import type { HttpyacOutcome, ScriptHost } from './script.js';
import { expressions, type Expr, type Template } from './template.js';
import { pickDef, storedJson, type Resolution } from './vars.js';

/**
 * httpyac's JavaScript in .http files, as httpyac runs it:
 * - `{{` ... `}}` blocks (a line each): before the request line they run before the request, after
 *   it once the response is in, and in a region without a request before every request of the file;
 * - `exports.name = value` makes a variable (`{{name}}`, and a name later code can use);
 *   `$global.name = value` a value kept for the run (`{{$global.name}}`);
 * - a placeholder that is not a plain variable (`{{ Date.now() }}`, `{{response.parsedBody.id}}`,
 *   `{{list.length}}`) is a JavaScript expression, worked out when its request is built.
 * The code runs in the script engine's httpyac realm (engine/httpyac.ts), never in sling: what it can
 * see is sent with it as JSON (the variables its text names, `response`, `request`, `$global`),
 * and what it changes comes back as JSON.
 */

/** Names the code may use that are not variables (JavaScript's own words and globals). */
const NOT_VARIABLES = new Set(
  (
    'await break case catch class const continue debugger default delete do else enum export extends false finally for function if ' +
    'implements import in instanceof interface let new null package private protected public return super switch static this throw try ' +
    'true typeof var void while with yield async of undefined NaN Infinity globalThis Object Array String Number Boolean Symbol BigInt ' +
    'Math JSON Date RegExp Error TypeError RangeError Promise Map Set WeakMap WeakSet parseInt parseFloat isNaN isFinite encodeURIComponent ' +
    'decodeURIComponent encodeURI decodeURI exports console test response request httpFile $global'
  ).split(' '),
);

/** Identifiers of the code that are not property names (`a.b` names a, not b). */
function identifiers(code: string): string[] {
  const out = new Set<string>();
  for (const m of code.matchAll(/(?<![\w$.]|\.\s+)[A-Za-z_$][\w$]*/g)) if (!NOT_VARIABLES.has(m[0])) out.add(m[0]);
  return [...out];
}

/** The value of a variable as the code sees it (JSON), or undefined when nothing has that name. */
function valueOf(res: Resolution, name: string): string | undefined {
  const looped = res.loopVars?.get(name);
  if (looped !== undefined) return looped;
  const exported = res.rt.yacVars.get(name);
  if (exported !== undefined) return exported;
  let text: string | undefined;
  try {
    text = res.lookup(name);
  } catch {
    text = undefined;
  }
  if (text !== undefined) return JSON.stringify(text);
  // httpyac: `NAMEList`, the responses of a named `# @loop` request's passes (as `response` is given).
  if (name.endsWith('List')) {
    const list = res.rt.loopResponses.get(name.slice(0, -4));
    if (list) return `[${list.map((d) => JSON.stringify(responseData(d))).join(',')}]`;
  }
  // httpyac: a `# @name`d request's name is its response body (parsed when it is JSON).
  const stored = res.rt.atNames.has(name) ? res.rt.responses.get(name) : undefined;
  if (stored) {
    let doc: unknown;
    try {
      doc = storedJson(stored);
    } catch {
      doc = undefined;
    }
    return doc !== undefined ? JSON.stringify(doc) : JSON.stringify(stored.response.body.toString('utf8'));
  }
  return undefined;
}

export interface YacRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
}

function payload(res: Resolution, code: string, request: YacRequest | undefined, response: Completed | undefined): string {
  const names: string[] = [];
  for (const id of identifiers(code)) {
    const v = valueOf(res, id);
    if (v !== undefined) names.push(`${JSON.stringify(id)}:${v}`);
  }
  const last = response ?? res.rt.lastResponse;
  let resp = '';
  // The response goes along when the code names it, or calls a helper of test's that reads it (test.status(200)).
  if (last && /\bresponse\b|\btest\s*\.\s*[a-zA-Z]/.test(code)) {
    try {
      const data = responseData(last);
      // httpyac's contentType also carries the header's value.
      const type = data.headers['content-type'];
      const contentType = typeof type === 'string' ? { ...data.contentType, contentType: type } : data.contentType;
      resp = `,"response":${JSON.stringify({ ...data, contentType })}`;
    } catch {
      resp = '';
    }
  }
  const req = request && /\brequest\b/.test(code) ? `,"request":${JSON.stringify(request)}` : '';
  const file = `,"httpFile":${JSON.stringify({ fileName: res.file.path })}`;
  return `{"names":{${names.join(',')}},"global":${res.rt.yacGlobal}${resp}${req}${file}}`;
}

/**
 * Which block set each exported variable last (per run). httpyac keeps a region's exports with the
 * region and clears them when the region runs again: a block that runs before every request does
 * not see what it exported the time before (`exports.k = (typeof k === 'number' ? k : 0) + 1`
 * stays 1), but it does see what a later block set.
 */
const owners = new WeakMap<object, Map<string, object>>();

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

function ownersOf(res: Resolution): Map<string, object> {
  let m = owners.get(res.rt);
  if (!m) owners.set(res.rt, (m = new Map()));
  return m;
}

/** What a script left: its exports become variables, its $global is kept. */
function apply(res: Resolution, out: HttpyacOutcome, by?: object) {
  const owner = by && ownersOf(res);
  for (const [k, v] of Object.entries(out.exports ?? {})) {
    // httpyac's own words are not variables (`exports.request` is refused there too).
    if (k === '$cancel' || k === 'request' || k === 'test' || k === 'httpFile') continue;
    // JSON made in the sandbox (where a script may replace JSON.stringify): kept only when it reads back.
    if (!isJson(v)) continue;
    res.rt.yacVars.set(k, v);
    owner?.set(k, by!);
  }
  if (out.global && out.global.charCodeAt(0) === 123 /* { */ && isJson(out.global)) res.rt.yacGlobal = out.global;
}

export interface YacScriptResult {
  logs: string[];
  tests: [string, string | null][];
  error?: string;
  /** The script exported a true `$cancel`: the request is not sent (httpyac). */
  cancel?: boolean;
}

/**
 * A region runs again: what it exported before is gone (`region`: a block of a region without a
 * request, or the request whose blocks, and `{{+` blocks run for it, exported).
 */
export function clearExports(res: Resolution, region: object) {
  const owner = owners.get(res.rt);
  if (!owner) return;
  for (const [name, by] of owner) {
    if (by !== region) continue;
    res.rt.yacVars.delete(name);
    owner.delete(name);
  }
}

/** Runs one `{{ }}` block (its exports kept as `region`'s); `done` after the response. */
export async function runYacScript(
  host: ScriptHost,
  s: ScriptNode,
  res: Resolution,
  region: object,
  request: YacRequest | undefined,
  done?: Completed,
  /** The block's file when it is not the request's (an `# @import`ed file's global block). */
  filename = res.file.path,
): Promise<YacScriptResult> {
  const code = s.code ?? '';
  const out = await host.runHttpyac(code, 'script', filename, s.line + 1, payload(res, code, request, done));
  apply(res, out, region);
  const cancel = out.exports?.$cancel;
  return { logs: out.logs ?? [], tests: out.tests ?? [], error: out.error, cancel: cancel !== undefined && !FALSY.has(cancel) };
}

/**
 * httpyac's `{{@streaming}}` block of a WebSocket or gRPC request, run ahead of the stream: what
 * it does over time (`await sleep(ms)`, `$requestClient.send(data)`) is written down as it runs
 * (its sleeps resolve at once), and the stream plays that timeline once it is open.
 */
export async function streamingTimeline(
  host: ScriptHost,
  s: ScriptNode,
  res: Resolution,
  region: object,
  request: YacRequest | undefined,
): Promise<{ timeline: ({ wait: number } | { send: string })[]; logs: string[]; error?: string }> {
  const code = s.code ?? '';
  const out = await host.runHttpyac(code, 'script', res.file.path, s.line + 1, `{"streaming":true,${payload(res, code, request, undefined).slice(1)}`);
  apply(res, out, region);
  return { timeline: out.timeline ?? [], logs: out.logs ?? [], error: out.error };
}

/** JSON of the values JavaScript takes as false. */
const FALSY = new Set(['false', 'null', '0', '""', '-0']);

/** httpyac's names that a dotted placeholder may start with (`{{response.parsedBody.id}}`). */
const JS_HEADS = new Set(['response', 'request', 'httpFile', '$global']);

/** Whether a placeholder is httpyac JavaScript rather than a variable sling resolves by itself. */
function isJs(e: Expr, res: Resolution): boolean {
  if (e.kind === 'js') return true;
  if (e.kind !== 'var') return false;
  const dot = e.name.indexOf('.');
  if (dot === -1) return false;
  const head = e.name.slice(0, dot);
  if (!JS_HEADS.has(head) && !res.rt.yacVars.has(head) && !res.loopVars?.has(head)) return false;
  try {
    return res.lookup(e.name) === undefined;
  } catch {
    return true;
  }
}

/** Whether the request may need JavaScript worked out: a placeholder (its own, or a file variable's it uses) that is not a plain name. */
export function mayNeedJs(templates: Template[], res: Pick<Resolution, 'file' | 'line'> & { rt?: Pick<Resolution['rt'], 'envTemplate'> }, requestNames?: Set<string>): boolean {
  const seen = new Set<string>();
  const visit = (t: Template): boolean => {
    for (const e of expressions(t)) {
      if (e.kind === 'js') return true;
      if (e.kind !== 'var') continue;
      const head = e.name.includes('.') ? e.name.slice(0, e.name.indexOf('.')) : e.name;
      if (e.name.includes('.') && JS_HEADS.has(head)) return true;
      if (seen.has(e.name)) continue;
      seen.add(e.name);
      // A dotted name may be an exported object's property: known only when the request is built
      // (`{{login.id}}`, a named response's field, and `{{process.env.X}}` are not).
      if (e.name.includes('.') && head !== 'process' && !requestNames?.has(head)) return true;
      const defs = res.file.parsed.vars.get(e.name);
      if (defs && visit(pickDef(defs, res.line).value)) return true;
      const env = res.rt?.envTemplate(e.name);
      if (env !== undefined && visit(env)) return true;
    }
    return false;
  };
  return templates.some(visit);
}

/**
 * Works out the JavaScript placeholders of a request's templates (and of the file variables
 * they use, those first) into res.jsValues, so that building the request (synchronous) finds them.
 */
export async function prepareJs(host: () => Promise<ScriptHost>, templates: Template[], res: Resolution, request: YacRequest): Promise<void> {
  const order: Expr[] = [];
  const seen = new Set<string>();
  const visitName = (name: string) => {
    if (seen.has(name)) return;
    seen.add(name);
    const defs = res.file.parsed.vars.get(name);
    if (defs) visit(pickDef(defs, res.line).value);
    // An environment's value (`"t": "{{ 20 + 1 }}"` in http-client.env.json), as httpyac works it out.
    const env = res.rt.envTemplate(name);
    if (env !== undefined) visit(env);
  };
  const visit = (t: Template) => {
    for (const e of expressions(t)) {
      if (e.kind === 'var' && !e.name.includes('.')) visitName(e.name);
      else if (e.kind === 'js' || e.kind === 'var') {
        for (const id of identifiers(e.text)) visitName(id);
        order.push(e);
      }
    }
  };
  for (const t of templates) visit(t);
  if (!order.length) return;
  const values = (res.jsValues ??= new Map());
  for (const e of order) {
    if (values.has(e) || !isJs(e, res)) continue;
    const code = e.text.startsWith('%') ? e.text.slice(1) : e.text;
    const out = await evalJs(await host(), code, e.line, res, request);
    if (out.error !== undefined) {
      values.set(e, { why: `${e.raw}: ${out.error}` });
      continue;
    }
    const json = out.json;
    if (json === undefined) {
      // httpyac sends the placeholder as written then (sling says so).
      res.rt.warnOnce(`${res.file.path}\0undefined\0${e.raw}`, `${res.file.path}:${e.line}:${e.col}: ${e.raw} is undefined: ${res.lenient ? 'shown' : 'sent'} as written, as httpyac does`);
      values.set(e, { v: e.raw });
    } else {
      let v: unknown;
      try {
        v = JSON.parse(json);
      } catch {
        v = json;
      }
      values.set(e, { v: typeof v === 'string' ? v : json });
    }
  }
}

/** One JavaScript expression's value as JSON (undefined when it gives undefined), or why there is none. */
export async function evalJs(host: ScriptHost, code: string, line: number, res: Resolution, request?: YacRequest): Promise<{ json?: string; error?: string }> {
  const out = await host.runHttpyac(code, 'expr', res.file.path, line, payload(res, code, request, undefined));
  if (out.error !== undefined) return { error: out.error };
  return { json: out.exports?.$result };
}

/** Whether a value (as JSON) is one JavaScript takes as true. */
export const truthy = (json: string | undefined) => json !== undefined && !FALSY.has(json);

/** The request as httpyac's code sees it before it is sent. */
export function yacRequest(node: RequestNode, built?: { method: string; url: string; headers: [string, string][]; body?: string }): YacRequest {
  if (built) return { method: built.method, url: built.url, headers: Object.fromEntries(built.headers), ...(built.body !== undefined ? { body: built.body } : {}) };
  return { method: node.method, url: typeof node.url === 'string' ? node.url : node.url.map((p) => (typeof p === 'string' ? p : p.raw)).join(''), headers: {} };
}
