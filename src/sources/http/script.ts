import vm from 'node:vm';
import { oneLine } from '../../errors.js';

/**
 * JetBrains HTTP Client scripts (`< {% %}` pre-request scripts, `> {% %}` response handlers),
 * run in one node:vm context per run with only the JetBrains API: `client`, `request`, `response`,
 * `jsonPath()` (and `console.log` as `client.log`). No `require`, `process`, timers, file system
 * or network. Loaded only when a file has scripts.
 *
 * Nothing of the host realm is handed to scripts: the API objects are built inside the context by
 * a bootstrap whose only link to the host is a bridge object kept in a closure, and every value
 * that crosses is a string (JSON for structures), so host functions (and their constructors)
 * are out of reach. Each script runs with a time limit.
 */
export interface ScriptHooks {
  setGlobal(name: string, text: string): void;
  getGlobal(name: string): string | undefined;
  clearGlobal(name: string): void;
  clearAll(): void;
  globalsEmpty(): boolean;
  /** request.environment.get */
  env(name: string): string | undefined;
  /** client.variables.file.get */
  fileVar(name: string): string | undefined;
  /** request.variables.get for names no script set: any variable the request sees. */
  lookup(name: string): string | undefined;
  setRequestVar(name: string, text: string, json: string | undefined): void;
  /** A request variable a script set to a value other than a string, as JSON (it keeps its type in the handler). */
  requestVarJson(name: string): string | undefined;
  /** client.global.headers.set: a header for this request (from a pre-request script) and every later one. */
  setGlobalHeader(name: string, value: string): void;
}

export interface ScriptRequest {
  method: string;
  url: string;
  urlRaw: string;
  headers: [string, string][];
  /** The headers the file gives, as written (getRawValue()). */
  headersRaw: [string, string][];
  body: string;
  bodyRaw: string;
  iteration: number;
}

export interface ScriptResponse {
  status: number;
  headers: [string, string][];
  body: string;
  contentType: string;
}

export interface ScriptResult {
  /** [test name, failure message or null]. */
  tests: [string, string | null][];
  logs: string[];
  exit: boolean;
  /** An uncaught error (or a failed assertion outside client.test). */
  error?: string;
}

const TIMEOUT_MS = 10_000;

const BOOTSTRAP = String.raw`(function (bridge) {
  'use strict';
  const store = Object.create(null);
  const EXIT = { exit: true };
  let state;
  let requestVars;
  // client.test bodies, run after the script (JetBrains: "All tests are executed after the response handler script").
  let tests = [];
  const json = (v) => { try { return JSON.stringify(v); } catch (e) { return undefined; } };
  const text = (v) => (typeof v === 'string' ? v : v === undefined || v === null ? String(v) : (typeof v === 'object' ? (json(v) ?? String(v)) : String(v)));
  const message = (e) => {
    if (e && typeof e === 'object' && typeof e.message === 'string') return e.message;
    try { return String(e); } catch (x) { return 'error'; }
  };
  class AssertionFailed extends Error {}
  function assert(condition, msg) {
    if (!condition) throw new AssertionFailed(msg === undefined ? 'assertion failed' : String(msg));
  }
  const client = {
    global: {
      set(name, value) { store[String(name)] = value; bridge.setGlobal(String(name), text(value)); },
      get(name) {
        const n = String(name);
        if (n in store) return store[n];
        const v = bridge.getGlobal(n);
        return v === undefined ? null : v;
      },
      isEmpty() { return Object.keys(store).length === 0 && bridge.globalsEmpty(); },
      clear(name) { delete store[String(name)]; bridge.clearGlobal(String(name)); },
      clearAll() { for (const k of Object.keys(store)) delete store[k]; bridge.clearAll(); },
      headers: {
        set(name, value) { bridge.setGlobalHeader(String(name), text(value)); },
      },
    },
    test(name, fn) { tests.push([String(name), fn]); },
    assert,
    log(...args) { state.logs.push(args.map((a) => (typeof a === 'string' ? a : text(a))).join(' ')); },
    // Ends the script that calls it (its tests still run); the run goes on.
    exit() { state.exit = true; throw EXIT; },
  };
  function runTests() {
    const list = tests;
    tests = [];
    for (const [name, fn] of list) {
      const test = [name, null];
      state.tests.push(test);
      try {
        const r = typeof fn === 'function' ? fn() : undefined;
        // An async test (a promise): its outcome is its settling. The sandbox has no timers or I/O, so
        // it settles while the script's microtasks run (before the host reads the results), or never.
        if (r && typeof r.then === 'function') {
          test[1] = 'the async test never finished (its promise did not settle)';
          Promise.resolve(r).then(() => { test[1] = null; }, (e) => { test[1] = e === EXIT ? null : message(e); });
        }
      } catch (e) {
        // client.exit() inside a test ends that test, which passed as far as it went.
        if (e !== EXIT) test[1] = message(e);
      }
    }
  }
  function headersOf(list, rawList) {
    // A request header's raw value is the file's text (placeholders as written), when the file gives it.
    const raw = (h) => {
      if (!rawList) return h[1];
      const n = h[0].toLowerCase();
      const r = rawList.find((x) => x[0].toLowerCase() === n);
      return r ? r[1] : h[1];
    };
    // value() in response handlers (JetBrains), usable as text too.
    const header = (h) => {
      const value = () => h[1];
      value.toString = value;
      value.valueOf = value;
      return { name: h[0], value, getRawValue: () => raw(h), tryGetSubstitutedValue: () => h[1] };
    };
    return {
      valueOf(name) { const n = String(name).toLowerCase(); const h = list.find((x) => x[0].toLowerCase() === n); return h ? h[1] : null; },
      valuesOf(name) { const n = String(name).toLowerCase(); return list.filter((x) => x[0].toLowerCase() === n).map((x) => x[1]); },
      all() { return list.map(header); },
      findByName(name) { const n = String(name).toLowerCase(); const h = list.find((x) => x[0].toLowerCase() === n); return h ? header(h) : null; },
    };
  }
  // JetBrains' single entry point to every scope (2024+): client.variables.global/file/request/environment.
  client.variables = {
    global: client.global,
    file: { get(name) { const v = bridge.fileVar(String(name)); return v === undefined ? null : v; } },
    get request() { return globalThis.request ? globalThis.request.variables : null; },
    get environment() { return globalThis.request ? globalThis.request.environment : null; },
  };
  globalThis.jsonPath = function (doc, path) {
    const out = bridge.jsonPath(json(doc) ?? 'null', String(path));
    if (out === undefined) return null;
    const list = JSON.parse(out);
    return list.length === 0 ? null : list[0];
  };
  globalThis.console = { log: client.log, info: client.log, warn: client.log, error: client.log, debug: client.log };
  globalThis.client = client;
  globalThis.assert = assert;
  return {
    begin(payload) {
      const p = JSON.parse(payload);
      state = { tests: [], logs: [], exit: false };
      requestVars = Object.create(null);
      const rq = p.request;
      // request.url() and request.body() in response handlers; .getRaw() / .tryGetSubstituted() before the request.
      const callable = (now, raw) => {
        const f = () => now;
        f.getRaw = () => raw;
        f.tryGetSubstituted = () => now;
        f.toString = () => now;
        f.valueOf = () => now;
        return f;
      };
      tests = [];
      globalThis.request = {
        method: rq.method,
        url: callable(rq.url, rq.urlRaw),
        body: callable(rq.body, rq.bodyRaw),
        headers: headersOf(rq.headers, rq.headersRaw),
        environment: { get(name) { const v = bridge.env(String(name)); return v === undefined ? null : v; } },
        variables: {
          set(name, value) { requestVars[String(name)] = value; bridge.setRequestVar(String(name), text(value), json(value)); },
          get(name) {
            const n = String(name);
            if (n in requestVars) return requestVars[n];
            const j = bridge.requestVarJson(n);
            if (j !== undefined) { try { return JSON.parse(j); } catch (e) { /* as text */ } }
            const v = bridge.lookup(n);
            return v === undefined ? null : v;
          },
        },
        iteration() { return rq.iteration; },
      };
      if (p.response) {
        const r = p.response;
        let body = r.body;
        const mime = String(r.contentType).split(';')[0].trim().toLowerCase();
        if (/[/+]json$/.test(mime) || (mime === '' && /^\s*[[{]/.test(body))) { try { body = JSON.parse(r.body); } catch (e) { body = r.body; } }
        const charset = /charset\s*=\s*"?([^;"]+)/i.exec(r.contentType);
        globalThis.response = {
          status: r.status,
          body,
          headers: headersOf(r.headers),
          contentType: { mimeType: mime, charset: charset ? charset[1].trim() : 'utf-8' },
        };
      } else {
        delete globalThis.response;
      }
    },
    runTests,
    fail(e) {
      if (e === EXIT) return;
      let where = '';
      const stack = e && typeof e === 'object' && typeof e.stack === 'string' ? e.stack : '';
      // Where it was thrown: the .http file's line for an inline script, the script file's own for \`> ./h.js\`.
      const m = /sling-script:(.*?):(\d+):\d+/.exec(stack);
      if (m) where = ' (at ' + m[1] + ':' + m[2] + ')';
      let text = message(e);
      // What a Node.js script would use: name the sandbox rather than leave a bare ReferenceError.
      if (/^(require|process|module|fetch|XMLHttpRequest|Buffer|__dirname|__filename) is not defined$/.test(text)) {
        text += ': scripts run in a sandbox with the JetBrains API (client, request, response), without modules, files or network';
      }
      state.error = (e instanceof AssertionFailed ? 'assertion failed outside client.test: ' : '') + text + where;
    },
    result() { return JSON.stringify(state); },
  };
})`;

interface Bootstrapped {
  begin(payload: string): void;
}

export class ScriptHost {
  private readonly context: vm.Context;
  private hooks?: ScriptHooks;

  constructor(jsonPathImpl: (doc: unknown, path: string) => unknown[]) {
    // The context's own promise jobs run right after each script, inside its time limit: an endless
    // `await` loop is stopped like an endless `for` loop (with Node's shared queue it ran forever).
    this.context = vm.createContext(Object.create(null), { codeGeneration: { strings: false, wasm: false }, microtaskMode: 'afterEvaluate' });
    // A promise a script rejects and leaves alone (`Promise.reject(1)`) would end the process the
    // way Node ends one on an unhandled rejection: it is a script error, said as a warning.
    process.on('unhandledRejection', (reason) => {
      // An Error made inside the sandbox is not the host's Error: read its message as a plain property.
      const message = reason !== null && typeof reason === 'object' ? (reason as { message?: unknown }).message : undefined;
      const text = typeof message === 'string' ? message : String(reason);
      process.stderr.write(`sling: warning: a script left a rejected promise that nothing handled: ${oneLine(text)}\n`);
    });
    const bridge = {
      setGlobal: (n: string, t: string) => this.hooks?.setGlobal(n, t),
      getGlobal: (n: string) => this.hooks?.getGlobal(n),
      globalsEmpty: () => this.hooks?.globalsEmpty() ?? true,
      clearGlobal: (n: string) => this.hooks?.clearGlobal(n),
      clearAll: () => this.hooks?.clearAll(),
      env: (n: string) => this.hooks?.env(n),
      fileVar: (n: string) => {
        try {
          return this.hooks?.fileVar(n);
        } catch {
          return undefined;
        }
      },
      lookup: (n: string) => {
        try {
          return this.hooks?.lookup(n);
        } catch {
          return undefined;
        }
      },
      setRequestVar: (n: string, t: string, j: string | undefined) => this.hooks?.setRequestVar(n, t, j),
      requestVarJson: (n: string) => this.hooks?.requestVarJson(n),
      setGlobalHeader: (n: string, v: string) => this.hooks?.setGlobalHeader(n, v),
      jsonPath: (doc: string, path: string) => {
        try {
          return JSON.stringify(jsonPathImpl(JSON.parse(doc), path));
        } catch {
          return undefined;
        }
      },
    };
    const boot = new vm.Script(BOOTSTRAP, { filename: 'sling-bootstrap' }).runInContext(this.context) as (b: typeof bridge) => Bootstrapped;
    this.context.__sling = boot(bridge);
    new vm.Script('globalThis.__sling_run = (f) => { try { f(); } catch (e) { __sling.fail(e); } __sling.runTests(); };').runInContext(this.context);
  }

  run(code: string, filename: string, line: number, hooks: ScriptHooks, request: ScriptRequest, response?: ScriptResponse): ScriptResult {
    this.hooks = hooks;
    try {
      (this.context.__sling as Bootstrapped).begin(JSON.stringify({ request, response }));
      let script: vm.Script;
      try {
        script = new vm.Script(`__sling_run(function () {${code}\n});`, { filename: `sling-script:${filename}`, lineOffset: line - 1 });
      } catch (e) {
        // Where: the script file's line (`> ./h.js`), the .http file's for an inline script.
        const at = /sling-script:(.*?):(\d+)/.exec(String((e as Error).stack));
        return { tests: [], logs: [], exit: false, error: `syntax error: ${(e as Error).message}${at ? ` (at ${at[1]}:${at[2]})` : ''}` };
      }
      try {
        script.runInContext(this.context, { timeout: TIMEOUT_MS });
      } catch (e) {
        // Only the time limit (or a stack overflow) gets here: everything else is caught inside.
        const msg = (e as { code?: string }).code === 'ERR_SCRIPT_EXECUTION_TIMEOUT' ? `the script ran longer than ${TIMEOUT_MS / 1000} s` : 'the script failed';
        return { tests: [], logs: [], exit: false, error: msg };
      }
      const out = vm.runInContext('__sling.result()', this.context, { timeout: TIMEOUT_MS }) as string;
      return JSON.parse(out) as ScriptResult;
    } finally {
      this.hooks = undefined;
    }
  }
}
