import vm from 'node:vm';

/**
 * The script process's side of httpyac's JavaScript (httpyac-js.ts asks, sandbox.ts passes the
 * message on): `{{ ... }}` script blocks and `{{ expression }}` placeholders, run the way httpyac
 * runs them, with the names it documents, in a node:vm context of their own (apart from the
 * JetBrains one) with nothing of this process in it:
 * - every variable the code names is a global of the code (httpyac puts all variables on the
 *   script's scope with `with`): values come in as JSON;
 * - `exports.x = ...` makes a variable for later requests (a promise is waited for);
 *   `$global.x = ...` a value kept for the whole run; both go back as JSON;
 * - `response` (statusCode, headers, body, parsedBody, ...) and `request`, as data;
 * - `test(name, fn)` runs fn at once and records the outcome; `console.*` are the script's log lines.
 * `sleep(ms)` waits (the process blocks; the time limit counts it). No `require`, `process`, timers,
 * file system or network; `httpFile` is its name only.
 */
const BOOTSTRAP = String.raw`(function (bridge) {
  'use strict';
  let state;
  const json = (v) => { try { return JSON.stringify(v); } catch (e) { return undefined; } };
  const text = (v) => (typeof v === 'string' ? v : v === undefined ? 'undefined' : (typeof v === 'object' && v !== null ? (json(v) ?? String(v)) : String(v)));
  const message = (e) => {
    if (e && typeof e === 'object' && typeof e.message === 'string') return e.message;
    try { return String(e); } catch (x) { return 'error'; }
  };
  const log = (...args) => { state.logs.push(args.map(text).join(' ')); };
  // httpyac's sleep(ms): this process waits (the sandbox has no timers), within the scripts' time limit.
  const sleep = (ms) => { bridge.wait(Number(ms)); return Promise.resolve(); };
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
  const where = (e) => {
    const stack = e && typeof e === 'object' && typeof e.stack === 'string' ? e.stack : '';
    const m = /sling-script:(.*?):(\d+):\d+/.exec(stack);
    return m ? ' (at ' + m[1] + ':' + m[2] + ')' : '';
  };
  return {
    begin(payload) {
      const p = JSON.parse(payload);
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
      let t = message(e);
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

interface Yac {
  begin(payload: string): unknown;
  result(): unknown;
}

let context: vm.Context | undefined;
let yac: Yac | undefined;

export interface YacOutcome {
  logs: string[];
  tests: [string, string | null][];
  /** name → the value as JSON. */
  exports: Record<string, string>;
  /** $global as JSON. */
  global: string;
  error?: string;
}

/** Runs one script (`mode` 'script') or expression ('expr': its value is the export `$result`). */
export function runHttpyac(code: string, mode: string, filename: string, line: number, payload: string): YacOutcome {
  if (!context) {
    context = vm.createContext(Object.create(null), { codeGeneration: { strings: false, wasm: false }, microtaskMode: 'afterEvaluate' });
    // The bridge stays in the bootstrap's closure: scripts see only the sandbox's own sleep().
    const bridge = { wait: (ms: unknown) => wait(typeof ms === 'number' ? ms : 0) };
    yac = (new vm.Script(BOOTSTRAP, { filename: 'sling-httpyac' }).runInContext(context) as (b: typeof bridge) => Yac)(bridge);
    context.__yac = yac;
  }
  const body = mode === 'expr' ? `exports.$result = (${code}\n);` : code;
  const failed = (error: string): YacOutcome => ({ logs: [], tests: [], exports: {}, global: '', error });
  try {
    context.__yac_in = payload;
  } catch {
    return failed('the script failed');
  }
  let script: vm.Script;
  try {
    // Sloppy code, as httpyac's: `with` gives the variables as globals of the code.
    script = new vm.Script(
      `(() => { const __y = __yac; const [__e, __s] = __y.begin(__yac_in); __yac_in = undefined;\n` +
        `(async function (exports, __scope) { with (__scope) {\n${body}\n} }).call(undefined, __e, __s)` +
        `.then(async () => { for (const k of Object.keys(__e)) if (__y.isPromise(__e[k])) __e[k] = await __e[k]; __y.done(); }, (e) => __y.fail(e)); })();`,
      // The code's first line is `line` of the file (two lines of the wrapper come before it).
      { filename: `sling-script:${filename}`, lineOffset: line - 3 },
    );
  } catch (e) {
    const at = /sling-script:(.*?):(\d+)/.exec(String((e as Error).stack));
    return failed(`syntax error: ${(e as Error).message}${at ? ` (at ${at[1]}:${at[2]})` : ''}`);
  }
  try {
    script.runInContext(context);
  } catch {
    return failed('the script failed');
  }
  let out: unknown;
  try {
    out = yac!.result();
  } catch {
    out = undefined;
  }
  return checked(out);
}

const sleeper = new Int32Array(new SharedArrayBuffer(4));
/** Blocks this process for `ms` (sling ends it when a script passes its time limit). */
function wait(ms: number) {
  if (ms > 0 && Number.isFinite(ms)) Atomics.wait(sleeper, 0, 0, Math.min(ms, 60_000));
}

function checked(out: unknown): YacOutcome {
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
