/**
 * The setup program of the realm of httpyac's JavaScript (runs inside the script engine: see
 * README.md of this folder; httpyac-js.ts asks, script.ts runs it): `{{ ... }}` script blocks and
 * `{{ expression }}` placeholders, run the way httpyac runs them, with the names it documents, in
 * a realm of their own (apart from the JetBrains one):
 * - every variable the code names is a global of the code (httpyac puts all variables on the
 *   script's scope with `with`): values come in as JSON;
 * - `exports.x = ...` makes a variable for later requests (a promise is waited for);
 *   `$global.x = ...` a value kept for the whole run; both go back as JSON;
 * - `response` (statusCode, headers, body, parsedBody, ...) and `request`, as data;
 * - `test(name, fn)` runs fn at once and records the outcome, and httpyac's helpers `test.status(200)`,
 *   `test.header(name, value)`, `test.headerContains`, `test.responseBody`, `test.hasResponseBody`,
 *   `test.hasNoResponseBody`, `test.totalTime(ms)` record one test each; `console.*` are the script's log lines.
 * `sleep(ms)` waits (sling waits, within the scripts' time limit). No `process`, timers, file
 * system or network; `require` only for the pure modules of lib.ts; `httpFile` is its name only.
 *
 * The entry points, which a script cannot replace: `__yac` (begin, done, fail, isPromise: what
 * the program of sandbox-httpyac.ts's httpyacProgram calls around the code), `__yac_prepare(payload,
 * offset)` and `__yac_result()` (script.ts).
 */
import { installLibrary } from './lib.js';
import { json, message } from './values.js';

/** What script.ts hands a script (httpyac-js.ts makes it). */
interface Payload {
  /** An `{{@streaming}}` block: sleep() and $requestClient.send() are recorded into the timeline, not done. */
  streaming?: boolean;
  names: Record<string, unknown>;
  global?: unknown;
  response?: unknown;
  request?: unknown;
  httpFile?: unknown;
}
interface HttpyacResponse {
  statusCode?: unknown;
  headers?: unknown;
  body?: unknown;
  timings?: { total?: number };
}
interface State {
  pending?: string;
  logs: string[];
  tests: [string, string | null][];
  exports: Record<string, unknown>;
  done: boolean;
  error?: string;
  /** What an `{{@streaming}}` block asked for, in order: waits (ms) and messages to send. */
  timeline?: ({ wait: number } | { send: string })[];
  scope: Record<string, unknown> & { $global: unknown; response?: HttpyacResponse };
}

const host = globalThis.__sling_host!;
delete globalThis.__sling_host;
const flush = installLibrary(host);

let state: State;
// The code's first line is line 3 of what the engine compiles (after the wrapper's two): the file's line is that plus offset.
let offset = 0;
const text = (v: unknown) => (typeof v === 'string' ? v : v === undefined ? 'undefined' : typeof v === 'object' && v !== null ? (json(v) ?? String(v)) : String(v));
const log = (...args: unknown[]) => {
  state.logs.push(args.map(text).join(' '));
};
// httpyac's sleep(ms): this process waits (the sandbox has no timers), within the scripts' time limit.
const sleep = (ms: unknown) => {
  host('wait', String(Number(ms)));
  return Promise.resolve();
};
const isPromise = (v: unknown): v is PromiseLike<unknown> => v !== null && (typeof v === 'object' || typeof v === 'function') && typeof (v as { then?: unknown }).then === 'function';
function test(name: unknown, fn: unknown) {
  const t: [string, string | null] = [String(name), null];
  state.tests.push(t);
  try {
    const r: unknown = typeof fn === 'function' ? fn() : undefined;
    if (isPromise(r)) {
      t[1] = 'the async test never finished (its promise did not settle)';
      Promise.resolve(r).then(
        () => {
          t[1] = null;
        },
        (e) => {
          t[1] = message(e);
        },
      );
    }
  } catch (e) {
    t[1] = message(e);
  }
}
// httpyac's helpers on test: each records one test over the response (none when there is no response).
const check = (ok: boolean, why: string) => {
  if (!ok) throw new Error(why);
};
const headerOf = (key: unknown) => {
  const hs = state.scope.response && state.scope.response.headers;
  if (!hs || typeof hs !== 'object') return undefined;
  const k = String(key).toLowerCase();
  for (const n of Object.keys(hs)) if (n.toLowerCase() === k) return (hs as Record<string, unknown>)[n];
  return undefined;
};
/** The response, for a helper's test: helper() runs it only when there is one. */
const response = () => state.scope.response!;
const helper = (name: string, fn: () => void) => {
  if (state.scope.response) test(name, fn);
};
test.status = (status: unknown) =>
  helper('response status equals to ' + status, () => {
    const s = response().statusCode;
    check(s === status, 'response status is ' + s + ' (expected: ' + status + ')');
  });
test.totalTime = (max: number) =>
  helper('total time exceeded ' + max, () => {
    const t = response().timings && response().timings!.total;
    check(!t || t < max, 'total time is ' + t + ' (expected max ' + max + ')');
  });
test.header = (key: unknown, val: unknown) =>
  helper('response header ' + key + ' equals ' + val, () => {
    const h = headerOf(key);
    check(Array.isArray(val) ? json(h) === json(val) : h === val, 'response header ' + key + ' is ' + h + ' (expected: ' + val + ')');
  });
test.headerContains = (key: unknown, val: unknown) =>
  helper('response header ' + key + ' contains ' + val, () => {
    const h = headerOf(key);
    check((typeof h === 'string' || Array.isArray(h)) && h.includes(val as string), 'response header ' + key + ' is ' + h + ' (expected to contain: ' + val + ')');
  });
test.responseBody = (val: unknown) => helper('response body equals ' + val, () => check(response().body === val, 'response body equals ' + val));
test.hasResponseBody = () => helper('response body exists', () => check(!!response().body, 'response body exists'));
test.hasNoResponseBody = () => helper('response body does not exists', () => check(!response().body, 'response body does not exists'));
const where = (e: unknown) => {
  const stack = e && typeof e === 'object' && typeof (e as { stack?: unknown }).stack === 'string' ? (e as { stack: string }).stack : '';
  const m = /sling-script:(.*?):(\d+):\d+/.exec(stack);
  return m ? ' (at ' + m[1] + ':' + (Number(m[2]) + offset) + ')' : '';
};
const yac = {
  prepare(payload: string, at: unknown) {
    state = { pending: payload } as State;
    offset = Number(at) || 0;
  },
  begin(): [Record<string, unknown>, Record<string, unknown>] {
    const p = JSON.parse(state.pending!) as Payload;
    state = { logs: [], tests: [], exports: {}, done: false } as unknown as State;
    const scope = Object.create(null) as State['scope'];
    for (const k of Object.keys(p.names)) scope[k] = p.names[k];
    scope.$global = p.global && typeof p.global === 'object' ? p.global : {};
    if (p.response) scope.response = p.response as HttpyacResponse;
    if (p.request) scope.request = p.request;
    scope.httpFile = p.httpFile;
    scope.test = test;
    scope.sleep = sleep;
    if (p.streaming) {
      // httpyac's `{{@streaming}}`: what the block does over time is written down as it runs (a
      // sleep resolves at once), and sling plays it against the open stream afterwards.
      const timeline: ({ wait: number } | { send: string })[] = [];
      state.timeline = timeline;
      scope.sleep = (ms: unknown) => {
        const n = Number(ms);
        if (n > 0) timeline.push({ wait: n });
        return Promise.resolve();
      };
      scope.$requestClient = {
        send(data: unknown) {
          timeline.push({ send: text(data) });
        },
      };
    }
    scope.console = { log, info: log, warn: log, error: log, debug: log, trace: log };
    state.scope = scope;
    return [state.exports, scope];
  },
  done() {
    state.done = true;
  },
  fail(e: unknown) {
    state.done = true;
    let t = message(e).replace(/^'([\w$]+)' is not defined$/, '$1 is not defined');
    if (/^(require|process|module|fetch|Buffer|setTimeout|__dirname|__filename|httpRegion|\$httpyac|\$context|\$requestClient) is not defined$/.test(t)) {
      t += ': httpyac scripts run in a sandbox (variables, exports, $global, request, response, test, console), without modules, timers, files or network';
    }
    state.error = t + where(e);
  },
  isPromise,
  result() {
    flush();
    const out: { logs: string[]; tests: [string, string | null][]; exports: Record<string, string>; global: string; error?: string; timeline?: unknown } = {
      timeline: state.timeline,
      logs: state.logs,
      tests: state.tests,
      exports: {},
      global: json(state.scope.$global) ?? '{}',
    };
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

const fixed = (name: string, value: unknown) => Object.defineProperty(globalThis, name, { value, writable: false, configurable: false, enumerable: false });
fixed('__yac', Object.freeze(yac));
fixed('__yac_prepare', (payload: string, at: unknown) => {
  yac.prepare(payload, at);
});
fixed('__yac_result', () => yac.result());
