import { createHash, createHmac } from 'node:crypto';
import { readSync, writeSync } from 'node:fs';
import vm from 'node:vm';
import { jsonPath } from './jsonpath.js';
import { XML_SOURCE } from './sandbox-xml.js';
import { runHttpyac } from './sandbox-httpyac.js';

/**
 * The script process's side of JetBrains HTTP Client scripts (script.ts starts the process and
 * answers it). This module is bundled on its own (scripts/build.mjs) into a string that
 * script.ts hands to a child Node.js process; it runs there and nowhere else.
 *
 * The process is synchronous: it reads one message at a time from its standard input (blocking),
 * runs the script it names in a node:vm context with only the JetBrains API, and writes the result
 * on its standard output. Messages are lines of JSON, both ways:
 * - in: `["run", code, filename, line, payload]`, `["yac", code, filename, line, payload, mode]` (httpyac JavaScript, sandbox-httpyac.ts) or `["eval", expression, input]` (an httpyac
 *   assertion's expression), then `[value]` / `[]` (an answer to a call);
 * - out: `["c", op, args]` a question the script needs answered now (client.global.get, a variable):
 *   the process blocks until the answer line comes; `["d", op, args]` a change (client.global.set,
 *   a header) that needs no answer (sling applies it before reading the next line, so a later
 *   question sees it); `["w", text]` a warning; `["r", result]` the script's result.
 * End of input ends the process.
 *
 * The sandbox: the API objects are built inside the context by a bootstrap whose only link to this
 * process is a bridge object kept in a closure, and every value that crosses is a string (JSON for
 * structures), so this process's functions (and their constructors) are out of reach.
 *
 * The time limit is sling's: it ends this process when a script has not answered in 10 s (an
 * endless loop, an endless chain of promise jobs). node:vm's own `timeout` would keep the process,
 * but it starts a watchdog thread for each call, which cost 0.4 ms a script (measured: 1,000
 * scripts in 0.72 s with it, 0.2 s without).
 */
const BOOTSTRAP = String.raw`(function (bridge, xml) {
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
        clear(name) { bridge.clearGlobalHeader(String(name)); },
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
  // A streamed response (Server-Sent Events, JSON lines): JetBrains' TextStreamResponse. sling has the
  // whole body when the handler runs: onEachLine goes through its lines there and then (blank lines
  // left out; each line of a JSON-lines stream parsed when it is JSON), then calls onFinish. The body
  // is also a String object, so that scripts that read it as text keep working.
  const STREAMS = /^(text\/event-stream|application\/(x-)?ndjson|application\/jsonl|application\/x-jsonlines|application\/stream\+json)$/;
  function streamBody(whole, jsonLines) {
    const body = new String(whole);
    body.onEachLine = function (subscriber, onFinish) {
      if (typeof subscriber !== 'function') throw new TypeError('response.body.onEachLine(subscriber, onFinish): the subscriber is not a function');
      let stopped = false;
      const unsubscribe = () => { stopped = true; };
      for (const line of whole.split(/\r\n|\r|\n/)) {
        if (stopped) break;
        if (line === '') continue;
        let value = line;
        if (jsonLines) { try { value = JSON.parse(line); } catch (e) { value = line; } }
        subscriber(value, unsubscribe);
      }
      if (typeof onFinish === 'function') onFinish();
    };
    body.onEachMessage = function () {
      throw new Error('response.body.onEachMessage is for WebSocket and gRPC streams, which sling does not run');
    };
    return body;
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
  // JetBrains' crypto API: crypto.sha256().updateWithText(t).digest().toHex(), crypto.hmac.sha256().withTextSecret(k)...
  // The input is kept here as a list of pieces and hashed by the process (node:crypto) when digest() is called.
  const hasher = (alg, hmac) => {
    const pieces = [];
    let secret = null;
    const name = 'crypto.' + (hmac ? 'hmac.' : '') + alg + '()';
    const h = {
      updateWithText(input, encoding) { pieces.push(['text', String(input), encoding === undefined || encoding === null ? 'UTF-8' : String(encoding)]); return h; },
      updateWithHex(input) { pieces.push(['hex', String(input)]); return h; },
      updateWithBase64(input, urlSafe) { pieces.push(['base64', String(input), urlSafe ? 'url' : '']); return h; },
      digest() {
        const out = bridge.digest(alg, json(secret) ?? 'null', json(pieces) ?? '[]', name);
        if (out === undefined) throw new Error(name + ': the digest could not be made');
        const r = JSON.parse(out);
        if (r.error) throw new Error(r.error);
        return {
          toHex() { return r.hex; },
          toBase64(urlSafe) { return urlSafe ? r.base64url : r.base64; },
        };
      },
    };
    if (hmac) {
      h.withTextSecret = (input, encoding) => { secret = ['text', String(input), encoding === undefined || encoding === null ? 'UTF-8' : String(encoding)]; return h; };
      h.withHexSecret = (input) => { secret = ['hex', String(input)]; return h; };
      h.withBase64Secret = (input, urlSafe) => { secret = ['base64', String(input), urlSafe ? 'url' : '']; return h; };
    }
    return h;
  };
  const ALGORITHMS = ['md5', 'sha1', 'sha256', 'sha384', 'sha512'];
  const cryptoApi = { hmac: {} };
  for (const a of ALGORITHMS) {
    cryptoApi[a] = () => hasher(a, false);
    cryptoApi.hmac[a] = () => hasher(a, true);
  }
  globalThis.crypto = cryptoApi;
  // XML bodies (sandbox-xml.ts): the body is still a String object (its text), with the document's
  // members, read when first used.
  const docs = new WeakMap();
  function xmlBody(whole) {
    const body = new String(whole);
    let doc;
    const read = () => (doc ??= xml.parse(whole));
    docs.set(body, read);
    Object.defineProperties(body, {
      nodeType: { value: 9 },
      nodeName: { value: '#document' },
      documentElement: { get: () => read().documentElement },
      childNodes: { get: () => read().childNodes },
    });
    body.getElementsByTagName = (name) => read().getElementsByTagName(name);
    return body;
  }
  globalThis.xpath = function (doc, expression) {
    let d;
    if (docs.has(doc)) d = docs.get(doc)();
    else if (typeof doc === 'string') d = xml.parse(doc);
    else if (xml.isNode(doc)) d = doc;
    else throw new TypeError('xpath(doc, expression): doc is not an XML document, node or text');
    return xml.xpath(d, expression);
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
        else if (STREAMS.test(mime)) body = streamBody(r.body, mime !== 'text/event-stream');
        else if (/[/+]xml$/.test(mime) || (mime === '' && /^\s*<\?xml/.test(body))) body = xmlBody(r.body);
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
  result(): unknown;
}

type Message = [string, ...unknown[]];

/** Lines from a file descriptor, read as they are needed, blocking. */
class LineReader {
  private rest: Buffer;
  private readonly chunk = Buffer.allocUnsafe(1 << 16);

  constructor(
    private readonly fd: number,
    rest: Buffer,
  ) {
    this.rest = rest;
  }

  /** The next line, or undefined at the end of the input. */
  next(): string | undefined {
    const at = this.rest.indexOf(10);
    if (at !== -1) {
      const line = this.rest.subarray(0, at).toString('utf8');
      this.rest = this.rest.subarray(at + 1);
      return line;
    }
    const parts = [this.rest];
    for (;;) {
      let n: number;
      try {
        n = readSync(this.fd, this.chunk, 0, this.chunk.length, null);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'EAGAIN') {
          pause();
          continue;
        }
        if ((e as NodeJS.ErrnoException).code === 'EOF') return undefined;
        throw e;
      }
      if (n === 0) return undefined;
      const end = this.chunk.subarray(0, n).indexOf(10);
      if (end === -1) {
        parts.push(Buffer.from(this.chunk.subarray(0, n)));
        continue;
      }
      parts.push(this.chunk.subarray(0, end));
      this.rest = Buffer.from(this.chunk.subarray(end + 1, n));
      return Buffer.concat(parts).toString('utf8');
    }
  }
}

const sleeper = new Int32Array(new SharedArrayBuffer(4));
/** A millisecond's wait, for a descriptor that says "try again". */
function pause() {
  Atomics.wait(sleeper, 0, 0, 1);
}

function writeAll(fd: number, text: string) {
  const data = Buffer.from(text, 'utf8');
  let off = 0;
  while (off < data.length) {
    try {
      off += writeSync(fd, data, off, data.length - off);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EAGAIN') throw e;
      pause();
    }
  }
}

/** Only strings cross from the sandbox: anything else (an object of the sandbox's realm) is dropped. */
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/**
 * Serves scripts until the input ends. `rest`: what the loader read past its own line.
 */
export function serve(rest: Buffer): void {
  const input = new LineReader(0, rest);
  const send = (m: Message) => writeAll(1, JSON.stringify(m) + '\n');
  const call = (op: string, ...args: unknown[]): string | undefined => {
    send(['c', op, args]);
    const line = input.next();
    if (line === undefined) process.exit(0);
    const answer = JSON.parse(line) as [string?];
    return typeof answer[0] === 'string' ? answer[0] : undefined;
  };
  const tell = (op: string, ...args: unknown[]) => send(['d', op, args]);

  // The context's own promise jobs run right after each script, before its result is read: an
  // endless `await` loop is stopped like an endless `for` loop (with Node's shared queue, sling's
  // own work would have gone on under it).
  const context = vm.createContext(Object.create(null), { codeGeneration: { strings: false, wasm: false }, microtaskMode: 'afterEvaluate' });
  // A promise a script rejects and leaves alone (`Promise.reject(1)`) would end the process the way
  // Node ends one on an unhandled rejection: it is a script error, said as a warning (before the
  // script's result: the result is sent once Node has looked for such promises).
  process.on('unhandledRejection', (reason) => {
    // An Error made inside the sandbox is not this realm's Error: read its message as a plain property.
    let text: string;
    try {
      const message = reason !== null && typeof reason === 'object' ? (reason as { message?: unknown }).message : undefined;
      text = typeof message === 'string' ? message : String(reason);
    } catch {
      text = 'a value that cannot be shown';
    }
    send(['w', `a script left a rejected promise that nothing handled: ${text}`]);
  });
  const bridge = {
    setGlobal: (n: unknown, t: unknown) => tell('setGlobal', str(n), str(t)),
    getGlobal: (n: unknown) => call('getGlobal', str(n)),
    globalsEmpty: () => call('globalsEmpty') === 'true',
    clearGlobal: (n: unknown) => tell('clearGlobal', str(n)),
    clearAll: () => tell('clearAll'),
    env: (n: unknown) => call('env', str(n)),
    fileVar: (n: unknown) => call('fileVar', str(n)),
    lookup: (n: unknown) => call('lookup', str(n)),
    setRequestVar: (n: unknown, t: unknown, j: unknown) => tell('setRequestVar', str(n), str(t), str(j)),
    requestVarJson: (n: unknown) => call('requestVarJson', str(n)),
    setGlobalHeader: (n: unknown, v: unknown) => tell('setGlobalHeader', str(n), str(v)),
    clearGlobalHeader: (n: unknown) => tell('clearGlobalHeader', str(n)),
    digest: (alg: unknown, secret: unknown, pieces: unknown, name: unknown) => JSON.stringify(digest(str(alg) ?? '', str(secret) ?? 'null', str(pieces) ?? '[]', str(name) ?? 'crypto')),
    jsonPath: (doc: unknown, path: unknown) => {
      try {
        return JSON.stringify(jsonPath(JSON.parse(str(doc) ?? 'null'), str(path) ?? ''));
      } catch {
        return undefined;
      }
    },
  };
  const xml = (new vm.Script(XML_SOURCE, { filename: 'sling-xml' }).runInContext(context) as () => unknown)();
  const boot = new vm.Script(BOOTSTRAP, { filename: 'sling-bootstrap' }).runInContext(context) as (b: typeof bridge, x: unknown) => Bootstrapped;
  const sling = boot(bridge, xml);
  context.__sling = sling;
  new vm.Script('globalThis.__sling_run = (f) => { try { f(); } catch (e) { __sling.fail(e); } __sling.runTests(); };').runInContext(context);

  const run = (code: string, filename: string, line: number, payload: string): unknown => {
    sling.begin(payload);
    let script: vm.Script;
    try {
      script = new vm.Script(`__sling_run(function () {${code}\n});`, { filename: `sling-script:${filename}`, lineOffset: line - 1 });
    } catch (e) {
      // Where: the script file's line (`> ./h.js`), the .http file's for an inline script.
      const at = /sling-script:(.*?):(\d+)/.exec(String((e as Error).stack));
      return { tests: [], logs: [], exit: false, error: `syntax error: ${(e as Error).message}${at ? ` (at ${at[1]}:${at[2]})` : ''}` };
    }
    try {
      script.runInContext(context);
    } catch {
      // Only a stack overflow gets here: everything else is caught inside.
      return { tests: [], logs: [], exit: false, error: 'the script failed' };
    }
    const out = sling.result();
    return checked(out);
  };

  const next = () => {
    const line = input.next();
    if (line === undefined) process.exit(0);
    const message = JSON.parse(line) as [string, ...unknown[]];
    let result: unknown;
    if (message[0] === 'eval') {
      result = evaluate(String(message[1]), String(message[2]));
    } else if (message[0] === 'yac') {
      // httpyac's JavaScript (sandbox-httpyac.ts): ['yac', code, filename, line, payload, mode].
      const [, code, filename, at, payload, mode] = message as [string, string, string, number, string, string?];
      try {
        result = runHttpyac(code, mode ?? 'script', filename, at, payload);
      } catch {
        result = { logs: [], tests: [], exports: {}, global: '', error: 'the script failed' };
      }
    } else {
      const [, code, filename, at, payload] = message as [string, string, string, number, string];
      try {
        result = run(code, filename, at, payload);
      } catch {
        result = { tests: [], logs: [], exit: false, error: 'the script failed' };
      }
    }
    // The result goes out on the next turn, once Node has reported the promises left rejected.
    setImmediate(() => {
      send(['r', result]);
      setImmediate(next);
    });
  };
  setImmediate(next);
}

const EXPRESSION_MS = 1000;

/**
 * An httpyac assertion's expression (`?? js response.parsedBody.id`): in a fresh context of its own
 * (no prototype to climb out of, no code from strings) holding `response`, a JSON copy; 1 s at most.
 * Its value comes back as JSON.
 */
function evaluate(expression: string, input: string): { json?: string; error?: string } {
  const context = vm.createContext(Object.create(null), { codeGeneration: { strings: false, wasm: false } });
  context.__in = input;
  const code = `(() => { const response = JSON.parse(__in); delete globalThis.__in; const v = (${expression}\n); return v === undefined ? undefined : JSON.stringify(v); })()`;
  try {
    const out = vm.runInContext(code, context, { timeout: EXPRESSION_MS, filename: 'assertion' }) as unknown;
    return typeof out === 'string' ? { json: out } : {};
  } catch (e) {
    if ((e as { code?: string }).code === 'ERR_SCRIPT_EXECUTION_TIMEOUT') return { error: `the expression ran longer than ${EXPRESSION_MS} ms` };
    let why: string;
    try {
      const m = e !== null && typeof e === 'object' ? (e as { message?: unknown }).message : undefined;
      why = typeof m === 'string' ? m : String(e);
    } catch {
      why = 'an error that cannot be shown';
    }
    return { error: `the expression failed: ${why}` };
  }
}

type Piece = [kind: string, data: string, how?: string];

/** Bytes of an input or a secret of the crypto API (`updateWithText(t, encoding)`, `withHexSecret(h)`, ...). */
function bytesOf(p: Piece, name: string): Buffer {
  const [kind, data, how] = p;
  if (kind === 'hex') {
    if (!/^(?:[0-9a-fA-F]{2})*$/.test(data)) throw new Error(`${name}: '${short(data)}' is not hexadecimal (an even number of 0-9, a-f)`);
    return Buffer.from(data, 'hex');
  }
  if (kind === 'base64') {
    const ok = how === 'url' ? /^[A-Za-z0-9_-]*={0,2}$/ : /^[A-Za-z0-9+/]*={0,2}$/;
    if (!ok.test(data)) throw new Error(`${name}: '${short(data)}' is not ${how === 'url' ? 'URL-safe ' : ''}Base64`);
    return Buffer.from(data, how === 'url' ? 'base64url' : 'base64');
  }
  const enc = (how ?? 'UTF-8').toLowerCase().replace(/_/g, '-');
  if (enc === 'utf-8' || enc === 'utf8') return Buffer.from(data, 'utf8');
  if (enc === 'iso-8859-1' || enc === 'latin1' || enc === 'iso8859-1') return Buffer.from(data, 'latin1');
  if (enc === 'us-ascii' || enc === 'ascii') return Buffer.from(data.replace(/[^\x00-\x7f]/g, '?'), 'latin1');
  if (enc === 'utf-16le') return Buffer.from(data, 'utf16le');
  if (enc === 'utf-16be' || enc === 'utf-16') return Buffer.from(data, 'utf16le').swap16();
  throw new Error(`${name}: unknown encoding '${short(how ?? '')}' (UTF-8, ISO-8859-1, US-ASCII, UTF-16LE, UTF-16BE)`);
}

const short = (s: string) => (s.length > 40 ? s.slice(0, 40) + '...' : s);

/** crypto.<alg>() and crypto.hmac.<alg>(): the digest of the pieces, in hex and Base64, or what is wrong. */
function digest(alg: string, secretJson: string, piecesJson: string, name: string): { hex: string; base64: string; base64url: string } | { error: string } {
  try {
    if (!['md5', 'sha1', 'sha256', 'sha384', 'sha512'].includes(alg)) throw new Error(`${name}: unknown hash`);
    const secret = JSON.parse(secretJson) as Piece | null;
    const pieces = JSON.parse(piecesJson) as Piece[];
    const hmac = name.startsWith('crypto.hmac.');
    if (hmac && !secret) throw new Error(`${name}: no secret (withTextSecret, withHexSecret or withBase64Secret comes first)`);
    const h = hmac ? createHmac(alg, bytesOf(secret!, name)) : createHash(alg);
    for (const p of pieces) h.update(bytesOf(p, name));
    const out = h.digest();
    return { hex: out.toString('hex'), base64: out.toString('base64'), base64url: out.toString('base64url') };
  } catch (e) {
    return { error: (e as Error).message };
  }
}

/** The sandbox's result (JSON made inside it, where a script may have replaced JSON.stringify), read back as data. */
function checked(out: unknown): unknown {
  const broken = { tests: [], logs: [], exit: false, error: 'the script broke the sandbox (its result is not readable)' };
  if (typeof out !== 'string') return broken;
  let r: { tests?: unknown; logs?: unknown; exit?: unknown; error?: unknown };
  try {
    r = JSON.parse(out) as typeof r;
  } catch {
    return broken;
  }
  if (r === null || typeof r !== 'object' || !Array.isArray(r.tests) || !Array.isArray(r.logs)) return broken;
  const tests = r.tests.filter((t): t is [string, string | null] => Array.isArray(t) && typeof t[0] === 'string' && (t[1] === null || typeof t[1] === 'string'));
  const logs = r.logs.filter((l): l is string => typeof l === 'string');
  return { tests, logs, exit: r.exit === true, ...(typeof r.error === 'string' ? { error: r.error } : {}) };
}
