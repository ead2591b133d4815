import { LIB_SOURCE } from './sandbox-lib.js';

/**
 * The engine's side of httpyac's JavaScript (httpyac-js.ts asks, script.ts runs it):
 * `{{ ... }}` script blocks and `{{ expression }}` placeholders, run the way httpyac runs them,
 * with the names it documents, in a realm of their own (apart from the JetBrains one):
 * - every variable the code names is a global of the code (httpyac puts all variables on the
 *   script's scope with `with`): values come in as JSON;
 * - `exports.x = ...` makes a variable for later requests (a promise is waited for);
 *   `$global.x = ...` a value kept for the whole run; both go back as JSON;
 * - `response` (statusCode, headers, body, parsedBody, ...) and `request`, as data;
 * - `test(name, fn)` runs fn at once and records the outcome, and httpyac's helpers `test.status(200)`,
 *   `test.header(name, value)`, `test.headerContains`, `test.responseBody`, `test.hasResponseBody`,
 *   `test.hasNoResponseBody`, `test.totalTime(ms)` record one test each; `console.*` are the script's log lines.
 * `sleep(ms)` waits (sling waits, within the scripts' time limit). No `process`, timers, file
 * system or network; `require` only for the pure modules of sandbox-lib.ts; `httpFile` is its name only.
 */
const BOOTSTRAP = String.raw`(function (bridge) {
  'use strict';
  let state;
  // The code's first line is line 3 of what the engine compiles (after the wrapper's two): the file's line is that plus offset.
  let offset = 0;
  const json = (v) => { try { return JSON.stringify(v); } catch (e) { return undefined; } };
  const text = (v) => (typeof v === 'string' ? v : v === undefined ? 'undefined' : (typeof v === 'object' && v !== null ? (json(v) ?? String(v)) : String(v)));
  const message = (e) => {
    if (e && typeof e === 'object' && typeof e.message === 'string') return e.message;
    try { return String(e); } catch (x) { return 'error'; }
  };
  const log = (...args) => { state.logs.push(args.map(text).join(' ')); };
  // httpyac's sleep(ms): this process waits (the sandbox has no timers), within the scripts' time limit.
  const sleep = (ms) => { bridge.wait(String(Number(ms))); return Promise.resolve(); };
  const isPromise = (v) => v !== null && (typeof v === 'object' || typeof v === 'function') && typeof v.then === 'function';
  function test(name, fn) {
    const t = [String(name), null];
    state.tests.push(t);
    try {
      const r = typeof fn === 'function' ? fn() : undefined;
      if (isPromise(r)) {
        t[1] = 'the async test never finished (its promise did not settle)';
        Promise.resolve(r).then(() => { t[1] = null; }, (e) => { t[1] = message(e); });
      }
    } catch (e) {
      t[1] = message(e);
    }
  }
  // httpyac's helpers on test: each records one test over the response (none when there is no response).
  const check = (ok, why) => { if (!ok) throw new Error(why); };
  const headerOf = (key) => {
    const hs = state.scope.response && state.scope.response.headers;
    if (!hs || typeof hs !== 'object') return undefined;
    const k = String(key).toLowerCase();
    for (const n of Object.keys(hs)) if (n.toLowerCase() === k) return hs[n];
    return undefined;
  };
  const helper = (name, fn) => { if (state.scope.response) test(name, fn); };
  test.status = (status) => helper('response status equals to ' + status, () => { const s = state.scope.response.statusCode; check(s === status, 'response status is ' + s + ' (expected: ' + status + ')'); });
  test.totalTime = (max) => helper('total time exceeded ' + max, () => { const t = state.scope.response.timings && state.scope.response.timings.total; check(!t || t < max, 'total time is ' + t + ' (expected max ' + max + ')'); });
  test.header = (key, val) => helper('response header ' + key + ' equals ' + val, () => { const h = headerOf(key); check(Array.isArray(val) ? json(h) === json(val) : h === val, 'response header ' + key + ' is ' + h + ' (expected: ' + val + ')'); });
  test.headerContains = (key, val) => helper('response header ' + key + ' contains ' + val, () => { const h = headerOf(key); check((typeof h === 'string' || Array.isArray(h)) && h.includes(val), 'response header ' + key + ' is ' + h + ' (expected to contain: ' + val + ')'); });
  test.responseBody = (val) => helper('response body equals ' + val, () => check(state.scope.response.body === val, 'response body equals ' + val));
  test.hasResponseBody = () => helper('response body exists', () => check(!!state.scope.response.body, 'response body exists'));
  test.hasNoResponseBody = () => helper('response body does not exists', () => check(!state.scope.response.body, 'response body does not exists'));
  const where = (e) => {
    const stack = e && typeof e === 'object' && typeof e.stack === 'string' ? e.stack : '';
    const m = /sling-script:(.*?):(\d+):\d+/.exec(stack);
    return m ? ' (at ' + m[1] + ':' + (Number(m[2]) + offset) + ')' : '';
  };
  return {
    prepare(payload, at) { state = { pending: payload }; offset = Number(at) || 0; },
    begin() {
      const p = JSON.parse(state.pending);
      state = { logs: [], tests: [], exports: {}, done: false };
      const scope = Object.create(null);
      for (const k of Object.keys(p.names)) scope[k] = p.names[k];
      scope.$global = p.global && typeof p.global === 'object' ? p.global : {};
      if (p.response) scope.response = p.response;
      if (p.request) scope.request = p.request;
      scope.httpFile = p.httpFile;
      scope.test = test;
      scope.sleep = sleep;
      scope.console = { log, info: log, warn: log, error: log, debug: log, trace: log };
      state.scope = scope;
      return [state.exports, scope];
    },
    done() { state.done = true; },
    fail(e) {
      state.done = true;
      let t = message(e).replace(/^'([\w$]+)' is not defined$/, '$1 is not defined');
      if (/^(require|process|module|fetch|Buffer|setTimeout|__dirname|__filename|httpRegion|\$httpyac|\$context|\$requestClient) is not defined$/.test(t)) {
        t += ': httpyac scripts run in a sandbox (variables, exports, $global, request, response, test, console), without modules, timers, files or network';
      }
      state.error = t + where(e);
    },
    isPromise,
    result() {
      const out = { logs: state.logs, tests: state.tests, exports: {}, global: json(state.scope.$global) ?? '{}' };
      if (!state.done && state.error === undefined) out.error = 'the script did not finish (it waits for something that never comes: the sandbox has no timers or I/O)';
      else if (state.error !== undefined) out.error = state.error;
      for (const k of Object.keys(state.exports)) {
        const v = state.exports[k];
        if (v === undefined || typeof v === 'function' || typeof v === 'symbol') continue;
        const j = json(v);
        if (j !== undefined) out.exports[k] = j;
      }
      return JSON.stringify(out);
    },
  };
})`;

/** The program that makes the httpyac realm: the library, the API, and `__yac` (prepare, begin, result, ...), which a script cannot replace. */
export const HTTPYAC_SETUP = `(function (host) {
  const flush = (function (host) {${LIB_SOURCE}})(host);
  const yac = (${BOOTSTRAP})({ wait: (ms) => { host('wait', ms); } });
  const result = yac.result;
  yac.result = () => { flush(); return result(); };
  const fixed = (name, value) => Object.defineProperty(globalThis, name, { value, writable: false, configurable: false, enumerable: false });
  fixed('__yac', Object.freeze(yac));
  fixed('__yac_prepare', (payload, at) => { yac.prepare(payload, at); });
  fixed('__yac_result', () => yac.result());
})(globalThis.__sling_host);
delete globalThis.__sling_host;`;

/** The program that runs one script (`mode` 'script') or expression ('expr': its value is the export `$result`); the code starts on its line 3. */
export function httpyacProgram(code: string, mode: string): string {
  const body = mode === 'expr' ? `exports.$result = (${code}\n);` : code;
  // Sloppy code, as httpyac's: `with` gives the variables as globals of the code.
  return (
    `(() => { const __y = __yac; const [__e, __s] = __y.begin();\n` +
    `(async function (exports, __scope) { with (__scope) {\n${body}\n} }).call(undefined, __e, __s)` +
    `.then(async () => { for (const k of Object.keys(__e)) if (__y.isPromise(__e[k])) __e[k] = await __e[k]; __y.done(); }, (e) => __y.fail(e)); })();`
  );
}

export interface YacOutcome {
  logs: string[];
  tests: [string, string | null][];
  /** name → the value as JSON. */
  exports: Record<string, string>;
  /** $global as JSON. */
  global: string;
  error?: string;
}

export function checked(out: unknown): YacOutcome {
  const broken: YacOutcome = { logs: [], tests: [], exports: {}, global: '', error: 'the script broke the sandbox (its result is not readable)' };
  if (typeof out !== 'string') return broken;
  let r: Partial<Record<keyof YacOutcome, unknown>>;
  try {
    r = JSON.parse(out) as typeof r;
  } catch {
    return broken;
  }
  if (r === null || typeof r !== 'object' || !Array.isArray(r.tests) || !Array.isArray(r.logs) || typeof r.exports !== 'object' || r.exports === null) return broken;
  const exports: Record<string, string> = {};
  for (const [k, v] of Object.entries(r.exports as Record<string, unknown>)) if (typeof v === 'string') exports[k] = v;
  return {
    logs: r.logs.filter((l): l is string => typeof l === 'string'),
    tests: r.tests.filter((t): t is [string, string | null] => Array.isArray(t) && typeof t[0] === 'string' && (t[1] === null || typeof t[1] === 'string')),
    exports,
    global: typeof r.global === 'string' ? r.global : '',
    ...(typeof r.error === 'string' ? { error: r.error } : {}),
  };
}
