import { createHash, createHmac, randomBytes } from 'node:crypto';
import { jsonPath } from './jsonpath.js';
import { LIB_SOURCE } from './sandbox-lib.js';
import { XML_SOURCE } from './sandbox-xml.js';

/**
 * What runs inside the script engine for JetBrains HTTP Client scripts (quickjs.ts is the engine,
 * script.ts drives it): the JetBrains API (`client`, `request`, `response`, `crypto`, `jsonPath`,
 * `xpath`), built by sling's own JavaScript inside the engine, and the host side of the few
 * operations that need Node (hashes, JSONPath, random bytes). Every value that crosses is a
 * string (JSON for structures): `host(op, ...strings)` is the engine's only way out (script.ts
 * answers it), and the script's result comes back as JSON text made inside, read here as data.
 */
const BOOTSTRAP = String.raw`(function (bridge, xml) {
  'use strict';
  const store = Object.create(null);
  const EXIT = { exit: true };
  // The script's first line is line 1 of what the engine compiles: this many lines of the file come before it.
  let offset = 0;
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
      offset = typeof p.offset === 'number' ? p.offset : 0;
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
      const m = /sling-script:(.*?):(\d+):(\d+)/.exec(stack);
      if (m) {
        where = ' (at ' + m[1] + ':' + (Number(m[2]) + offset) + ')';
        // Where in the program: sling names the callee of QuickJS's bare "not a function" from its text.
        state.at = [Number(m[2]), Number(m[3])];
      }
      // QuickJS quotes the name: 'x' is not defined.
      let text = message(e).replace(/^'([\w$]+)' is not defined$/, '$1 is not defined');
      // What a Node.js script would use: name the sandbox rather than leave a bare ReferenceError.
      if (/^(require|process|module|fetch|XMLHttpRequest|Buffer|__dirname|__filename) is not defined$/.test(text)) {
        text += ': scripts run in a sandbox with the JetBrains API (client, request, response), without modules, files or network';
      }
      state.error = (e instanceof AssertionFailed ? 'assertion failed outside client.test: ' : '') + text + where;
    },
    result() { return JSON.stringify(state); },
  };
})`;

/**
 * The program that makes a realm for JetBrains scripts (script.ts runs it once per realm): the
 * library every realm has (sandbox-lib.ts), the XML reader, the API, and three entry points that
 * a script cannot replace: `__sling_begin(payload)` (the request and response of the script about
 * to run, as JSON), `__sling_run(fn)` (the script, as a function: its errors and its tests) and
 * `__sling_result()` (`[changes, result]` as JSON text: the changes to sling's state the script
 * made since the last question it asked, in order, and its result).
 */
export const JETBRAINS_SETUP = `(function (host) {
  const flush = (function (host) {${LIB_SOURCE}})(host);
  // Changes (a global set, a header) wait here and go out with the result, or before the next
  // question, so that sling sees them in order: a trip out of the engine costs more than a small
  // handler's own work.
  const stringify = JSON.stringify;
  let changes = [];
  const tell = (...op) => { changes.push(op.map((a) => (typeof a === 'string' ? a : null))); };
  const ask = (...op) => {
    if (changes.length) { const c = changes; changes = []; host('apply', stringify(c)); }
    return host(...op);
  };
  const bridge = {
    setGlobal: (n, t) => tell('setGlobal', n, t),
    getGlobal: (n) => ask('getGlobal', n),
    globalsEmpty: () => ask('globalsEmpty') === 'true',
    clearGlobal: (n) => tell('clearGlobal', n),
    clearAll: () => tell('clearAll'),
    env: (n) => ask('env', n),
    fileVar: (n) => ask('fileVar', n),
    lookup: (n) => ask('lookup', n),
    setRequestVar: (n, t, j) => tell('setRequestVar', n, t, j),
    requestVarJson: (n) => ask('requestVarJson', n),
    setGlobalHeader: (n, v) => tell('setGlobalHeader', n, v),
    clearGlobalHeader: (n) => tell('clearGlobalHeader', n),
    digest: (alg, secret, pieces, name) => host('digest', alg, secret, pieces, name),
    jsonPath: (doc, path) => host('jsonPath', doc, path),
  };
  const xml = (${XML_SOURCE})();
  const sling = (${BOOTSTRAP})(bridge, xml);
  const fixed = (name, value) => Object.defineProperty(globalThis, name, { value, writable: false, configurable: false, enumerable: false });
  fixed('__sling_begin', (payload) => { sling.begin(payload); });
  fixed('__sling_run', (f) => { try { f(); } catch (e) { sling.fail(e); } sling.runTests(); });
  // The changes not yet told and the result, as [changes, result JSON].
  fixed('__sling_result', () => { flush(); const c = changes; changes = []; return stringify([c, sling.result()]); });
  // After a script ran out of time: the changes it made before, which sling keeps.
  fixed('__sling_changes', () => { const c = changes; changes = []; return stringify([c, '']); });
})(globalThis.__sling_host);
delete globalThis.__sling_host;`;

/** A host operation of the JetBrains realm that needs Node: a digest of the crypto API, or JSONPath. */
export function jetbrainsHelper(op: string, a: (string | undefined)[]): string | undefined {
  if (op === 'digest') return JSON.stringify(digest(a[0] ?? '', a[1] ?? 'null', a[2] ?? '[]', a[3] ?? 'crypto'));
  if (op === 'jsonPath') {
    try {
      return JSON.stringify(jsonPath(JSON.parse(a[0] ?? 'null'), a[1] ?? ''));
    } catch {
      return undefined;
    }
  }
  return undefined;
}

/** The library's host operations (sandbox-lib.ts): a hash or HMAC of hex bytes, random bytes. Hex text both ways. */
export function libraryHelper(op: string, a: (string | undefined)[]): string | undefined {
  if (op === 'hash') {
    const [alg = '', key, data = ''] = a;
    if (!['md5', 'sha1', 'sha224', 'sha256', 'sha384', 'sha512'].includes(alg) || !/^(?:[0-9a-f]{2})*$/.test(data)) return undefined;
    if (key !== undefined && !/^(?:[0-9a-f]{2})*$/.test(key)) return undefined;
    const h = key === undefined ? createHash(alg) : createHmac(alg, Buffer.from(key, 'hex'));
    return h.update(Buffer.from(data, 'hex')).digest('hex');
  }
  if (op === 'random') {
    const n = Number(a[0]);
    return Number.isInteger(n) && n >= 0 && n <= 65536 ? randomBytes(n).toString('hex') : undefined;
  }
  return undefined;
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
export function checked(out: unknown): unknown {
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
  const at = (r as { at?: unknown }).at;
  return {
    tests,
    logs,
    exit: r.exit === true,
    ...(typeof r.error === 'string' ? { error: r.error } : {}),
    ...(Array.isArray(at) && at.length === 2 && at.every((n) => Number.isInteger(n) && n > 0) ? { at: at as [number, number] } : {}),
  };
}
