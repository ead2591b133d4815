/**
 * The setup program of the realm of JetBrains HTTP Client scripts (runs inside the script engine:
 * see README.md of this folder). It installs the library every realm has (lib.ts), the JetBrains
 * API (`client`, `request`, `response`, `crypto`, `jsonPath`, `xpath`, `console`, `assert`) and
 * four entry points that a script cannot replace, which script.ts calls:
 *
 * - `__sling_begin(payload)`: the request and response of the script about to run, as JSON;
 * - `__sling_run(fn)`: the script, as a function: its errors and its tests;
 * - `__sling_result()`: `[changes, result]` as JSON text: the changes to sling's state the script
 *   made since the last question it asked, in order, and its result;
 * - `__sling_changes()`: after a script ran out of time, the changes it made before, which sling keeps.
 *
 * Every value that crosses is a string (JSON for structures): `host(op, ...strings)` is the only
 * way out (script.ts answers it). What needs Node (hashes, JSONPath) is done there
 * (sandbox.ts: jetbrainsHelper).
 */
import { installLibrary } from './lib.js';
import { json, message } from './values.js';
import * as xml from './xml.js';

/** A script's request, as script.ts sends it (ScriptRequest there). */
interface RequestData {
  method: string;
  url: string;
  urlRaw: string;
  headers: [string, string][];
  headersRaw: [string, string][];
  body: string;
  bodyRaw: string;
  iteration: number;
}
/** A response handler's response, as script.ts sends it (ScriptResponse there). */
interface ResponseData {
  status: number;
  headers: [string, string][];
  body: string;
  contentType: string;
  /** A stream's messages from the server (WebSocket, server-sent events, gRPC), in order. */
  messages?: { text: string; event?: string; id?: string }[];
  /** gRPC: the messages are JSON (handed to handlers parsed). */
  json?: boolean;
}
interface Payload {
  request: RequestData;
  response?: ResponseData;
  offset?: number;
}
/** What a script did: read back by sandbox.ts's `checked` (ScriptResult). */
interface State {
  tests: [string, string | null][];
  logs: string[];
  exit: boolean;
  error?: string;
  /** Where the error was thrown: [line, column] of the program (script.ts names the callee of "not a function"). */
  at?: [number, number];
  /** A stream's onEachMessage subscriber called unsubscribe(). */
  unsubscribed?: boolean;
}

const host = globalThis.__sling_host!;
delete globalThis.__sling_host;
const flush = installLibrary(host);

// ---- the way out. Changes (a global set, a header) wait here and go out with the result, or
// before the next question, so that sling sees them in order: a trip out of the engine costs more
// than a small handler's own work.
const stringify = JSON.stringify;
let changes: (string | null)[][] = [];
const tell = (...op: unknown[]) => {
  changes.push(op.map((a) => (typeof a === 'string' ? a : null)));
};
const ask = (op: string, ...args: (string | undefined)[]) => {
  if (changes.length) {
    const c = changes;
    changes = [];
    host('apply', stringify(c));
  }
  return host(op, ...args);
};
const bridge = {
  setGlobal: (n: string, t: string) => tell('setGlobal', n, t),
  getGlobal: (n: string) => ask('getGlobal', n),
  globalsEmpty: () => ask('globalsEmpty') === 'true',
  clearGlobal: (n: string) => tell('clearGlobal', n),
  clearAll: () => tell('clearAll'),
  env: (n: string) => ask('env', n),
  fileVar: (n: string) => ask('fileVar', n),
  lookup: (n: string) => ask('lookup', n),
  setRequestVar: (n: string, t: string, j: string | undefined) => tell('setRequestVar', n, t, j),
  requestVarJson: (n: string) => ask('requestVarJson', n),
  setGlobalHeader: (n: string, v: string) => tell('setGlobalHeader', n, v),
  clearGlobalHeader: (n: string) => tell('clearGlobalHeader', n),
  digest: (alg: string, secret: string, pieces: string, name: string) => host('digest', alg, secret, pieces, name),
  jsonPath: (doc: string, path: string) => host('jsonPath', doc, path),
};

// ---- the API
const store: Record<string, unknown> = Object.create(null);
const EXIT = { exit: true };
// The script's first line is line 1 of what the engine compiles: this many lines of the file come before it.
let offset = 0;
let state: State;
let requestVars: Record<string, unknown>;
type Test = [name: string, fn: unknown];
// client.test bodies, run after the script (JetBrains: "All tests are executed after the response handler script").
let tests: Test[] = [];
const text = (v: unknown) => (typeof v === 'string' ? v : v === undefined || v === null ? String(v) : typeof v === 'object' ? (json(v) ?? String(v)) : String(v));
class AssertionFailed extends Error {}
function assert(condition: unknown, msg?: unknown) {
  if (!condition) throw new AssertionFailed(msg === undefined ? 'assertion failed' : String(msg));
}
const client: Record<string, unknown> & { global: Record<string, unknown>; log: (...args: unknown[]) => void } = {
  global: {
    set(name: unknown, value: unknown) {
      store[String(name)] = value;
      bridge.setGlobal(String(name), text(value));
    },
    get(name: unknown) {
      const n = String(name);
      if (n in store) return store[n];
      const v = bridge.getGlobal(n);
      return v === undefined ? null : v;
    },
    isEmpty() {
      return Object.keys(store).length === 0 && bridge.globalsEmpty();
    },
    clear(name: unknown) {
      delete store[String(name)];
      bridge.clearGlobal(String(name));
    },
    clearAll() {
      for (const k of Object.keys(store)) delete store[k];
      bridge.clearAll();
    },
    headers: {
      set(name: unknown, value: unknown) {
        bridge.setGlobalHeader(String(name), text(value));
      },
      clear(name: unknown) {
        bridge.clearGlobalHeader(String(name));
      },
    },
  },
  test(name: unknown, fn: unknown) {
    tests.push([String(name), fn]);
  },
  assert,
  log(...args: unknown[]) {
    state.logs.push(args.map((a) => (typeof a === 'string' ? a : text(a))).join(' '));
  },
  // Ends the script that calls it (its tests still run); the run goes on.
  exit() {
    state.exit = true;
    throw EXIT;
  },
};
function runTests() {
  const list = tests;
  tests = [];
  for (const [name, fn] of list) {
    const test: [string, string | null] = [name, null];
    state.tests.push(test);
    try {
      const r = typeof fn === 'function' ? fn() : undefined;
      // An async test (a promise): its outcome is its settling. The sandbox has no timers or I/O, so
      // it settles while the script's microtasks run (before the host reads the results), or never.
      if (r && typeof r.then === 'function') {
        test[1] = 'the async test never finished (its promise did not settle)';
        Promise.resolve(r).then(
          () => {
            test[1] = null;
          },
          (e) => {
            test[1] = e === EXIT ? null : message(e);
          },
        );
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
function streamBody(whole: string, jsonLines: boolean) {
  const body = new String(whole) as string & Record<string, unknown>;
  body.onEachLine = (subscriber: unknown, onFinish: unknown) => {
    if (typeof subscriber !== 'function') throw new TypeError('response.body.onEachLine(subscriber, onFinish): the subscriber is not a function');
    let stopped = false;
    const unsubscribe = () => {
      stopped = true;
    };
    for (const line of whole.split(/\r\n|\r|\n/)) {
      if (stopped) break;
      if (line === '') continue;
      let value: unknown = line;
      if (jsonLines) {
        try {
          value = JSON.parse(line);
        } catch {
          value = line;
        }
      }
      subscriber(value, unsubscribe);
    }
    if (typeof onFinish === 'function') onFinish();
  };
  body.onEachMessage = body.onEachLine;
  return body;
}
// A stream's messages (WebSocket, server-sent events, gRPC): JetBrains' response.body.onEachMessage
// and the messages as an array. sling has every message when the handler runs (the stream has
// ended): onEachMessage goes through them there and then, in order, until unsubscribe() is called.
function messageBody(list: { text: string }[], json: boolean) {
  const values = list.map((m) => {
    if (!json) return m.text;
    try {
      return JSON.parse(m.text) as unknown;
    } catch {
      return m.text;
    }
  });
  const body = values.slice() as unknown[] & Record<string, unknown>;
  body.onEachMessage = (subscriber: unknown, onFinish: unknown) => {
    if (typeof subscriber !== 'function') throw new TypeError('response.body.onEachMessage(subscriber, onFinish): the subscriber is not a function');
    let stopped = false;
    const unsubscribe = () => {
      stopped = true;
      state.unsubscribed = true;
    };
    const output = (...args: unknown[]) => {
      state.logs.push(args.map((a) => (typeof a === 'string' ? a : text(a))).join(' '));
    };
    for (const v of values) {
      if (stopped) break;
      subscriber(v, unsubscribe, output);
    }
    if (typeof onFinish === 'function') onFinish();
  };
  body.onEachLine = body.onEachMessage;
  return body;
}
function headersOf(list: [string, string][], rawList?: [string, string][]) {
  // A request header's raw value is the file's text (placeholders as written), when the file gives it.
  const raw = (h: [string, string]) => {
    if (!rawList) return h[1];
    const n = h[0].toLowerCase();
    const r = rawList.find((x) => x[0].toLowerCase() === n);
    return r ? r[1] : h[1];
  };
  // value() in response handlers (JetBrains), usable as text too.
  const header = (h: [string, string]) => {
    const value = () => h[1];
    value.toString = value;
    value.valueOf = value;
    return { name: h[0], value, getRawValue: () => raw(h), tryGetSubstitutedValue: () => h[1] };
  };
  return {
    valueOf(name: unknown) {
      const n = String(name).toLowerCase();
      const h = list.find((x) => x[0].toLowerCase() === n);
      return h ? h[1] : null;
    },
    valuesOf(name: unknown) {
      const n = String(name).toLowerCase();
      return list.filter((x) => x[0].toLowerCase() === n).map((x) => x[1]);
    },
    all() {
      return list.map(header);
    },
    findByName(name: unknown) {
      const n = String(name).toLowerCase();
      const h = list.find((x) => x[0].toLowerCase() === n);
      return h ? header(h) : null;
    },
  };
}
// JetBrains' single entry point to every scope (2024+): client.variables.global/file/request/environment.
client.variables = {
  global: client.global,
  file: {
    get(name: unknown) {
      const v = bridge.fileVar(String(name));
      return v === undefined ? null : v;
    },
  },
  get request() {
    return globalThis.request ? globalThis.request.variables : null;
  },
  get environment() {
    return globalThis.request ? globalThis.request.environment : null;
  },
};
// JetBrains' crypto API: crypto.sha256().updateWithText(t).digest().toHex(), crypto.hmac.sha256().withTextSecret(k)...
// The input is kept here as a list of pieces and hashed by the process (node:crypto) when digest() is called.
type Piece = string[];
const encodingOf = (encoding: unknown) => (encoding === undefined || encoding === null ? 'UTF-8' : String(encoding));
const hasher = (alg: string, hmac: boolean) => {
  const pieces: Piece[] = [];
  let secret: Piece | null = null;
  const name = 'crypto.' + (hmac ? 'hmac.' : '') + alg + '()';
  const h: Record<string, unknown> = {
    updateWithText(input: unknown, encoding: unknown) {
      pieces.push(['text', String(input), encodingOf(encoding)]);
      return h;
    },
    updateWithHex(input: unknown) {
      pieces.push(['hex', String(input)]);
      return h;
    },
    updateWithBase64(input: unknown, urlSafe: unknown) {
      pieces.push(['base64', String(input), urlSafe ? 'url' : '']);
      return h;
    },
    digest() {
      const out = bridge.digest(alg, json(secret) ?? 'null', json(pieces) ?? '[]', name);
      if (out === undefined) throw new Error(name + ': the digest could not be made');
      const r = JSON.parse(out) as { error?: string; hex: string; base64: string; base64url: string };
      if (r.error) throw new Error(r.error);
      return {
        toHex() {
          return r.hex;
        },
        toBase64(urlSafe: unknown) {
          return urlSafe ? r.base64url : r.base64;
        },
      };
    },
  };
  if (hmac) {
    h.withTextSecret = (input: unknown, encoding: unknown) => {
      secret = ['text', String(input), encodingOf(encoding)];
      return h;
    };
    h.withHexSecret = (input: unknown) => {
      secret = ['hex', String(input)];
      return h;
    };
    h.withBase64Secret = (input: unknown, urlSafe: unknown) => {
      secret = ['base64', String(input), urlSafe ? 'url' : ''];
      return h;
    };
  }
  return h;
};
const ALGORITHMS = ['md5', 'sha1', 'sha256', 'sha384', 'sha512'];
const cryptoApi: Record<string, unknown> & { hmac: Record<string, unknown> } = { hmac: {} };
for (const a of ALGORITHMS) {
  cryptoApi[a] = () => hasher(a, false);
  cryptoApi.hmac[a] = () => hasher(a, true);
}
globalThis.crypto = cryptoApi;
// XML bodies (xml.ts): the body is still a String object (its text), with the document's
// members, read when first used.
const docs = new WeakMap<object, () => xml.XNode>();
function xmlBody(whole: string) {
  const body = new String(whole) as string & Record<string, unknown>;
  let doc: xml.XNode | undefined;
  const read = () => {
    doc ??= xml.parse(whole);
    return doc;
  };
  docs.set(body, read);
  Object.defineProperties(body, {
    nodeType: { value: 9 },
    nodeName: { value: '#document' },
    documentElement: { get: () => read().documentElement },
    childNodes: { get: () => read().childNodes },
  });
  body.getElementsByTagName = (name: unknown) => (read() as xml.XNode & { getElementsByTagName(name: unknown): xml.XNode[] }).getElementsByTagName(name);
  return body;
}
globalThis.xpath = (doc: unknown, expression: unknown) => {
  let d: xml.XNode;
  const read = doc !== null && typeof doc === 'object' ? docs.get(doc) : undefined;
  if (read) d = read();
  else if (typeof doc === 'string') d = xml.parse(doc);
  else if (xml.isNode(doc)) d = doc;
  else throw new TypeError('xpath(doc, expression): doc is not an XML document, node or text');
  return xml.xpath(d, expression);
};
globalThis.jsonPath = (doc: unknown, path: unknown) => {
  const out = bridge.jsonPath(json(doc) ?? 'null', String(path));
  if (out === undefined) return null;
  const list = JSON.parse(out) as unknown[];
  return list.length === 0 ? null : list[0];
};
globalThis.console = { log: client.log, info: client.log, warn: client.log, error: client.log, debug: client.log };
globalThis.client = client;
globalThis.assert = assert;

/** `__sling_begin`: the request (and response) of the script about to run. */
function begin(payload: string) {
  const p = JSON.parse(payload) as Payload;
  state = { tests: [], logs: [], exit: false };
  offset = typeof p.offset === 'number' ? p.offset : 0;
  requestVars = Object.create(null);
  const rq = p.request;
  // request.url() and request.body() in response handlers; .getRaw() / .tryGetSubstituted() before the request.
  const callable = (now: string, raw: string) => {
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
    environment: {
      get(name: unknown) {
        const v = bridge.env(String(name));
        return v === undefined ? null : v;
      },
    },
    variables: {
      set(name: unknown, value: unknown) {
        requestVars[String(name)] = value;
        bridge.setRequestVar(String(name), text(value), json(value));
      },
      get(name: unknown) {
        const n = String(name);
        if (n in requestVars) return requestVars[n];
        const j = bridge.requestVarJson(n);
        if (j !== undefined) {
          try {
            return JSON.parse(j);
          } catch {
            /* as text */
          }
        }
        const v = bridge.lookup(n);
        return v === undefined ? null : v;
      },
    },
    iteration() {
      return rq.iteration;
    },
  } as typeof globalThis.request;
  if (p.response) {
    const r = p.response;
    let body: unknown = r.body;
    const mime = String(r.contentType).split(';')[0]!.trim().toLowerCase();
    if (r.messages) body = messageBody(r.messages, r.json === true);
    else if (/[/+]json$/.test(mime) || (mime === '' && /^\s*[[{]/.test(r.body))) {
      try {
        body = JSON.parse(r.body);
      } catch {
        body = r.body;
      }
    } else if (STREAMS.test(mime)) body = streamBody(r.body, mime !== 'text/event-stream');
    else if (/[/+]xml$/.test(mime) || (mime === '' && /^\s*<\?xml/.test(r.body))) body = xmlBody(r.body);
    const charset = /charset\s*=\s*"?([^;"]+)/i.exec(r.contentType);
    globalThis.response = {
      status: r.status,
      body,
      headers: headersOf(r.headers),
      contentType: { mimeType: mime, charset: charset ? charset[1]!.trim() : 'utf-8' },
    };
  } else {
    delete globalThis.response;
  }
}

/** What the script threw: its text and where (the file's line), in `state.error`. */
function fail(e: unknown) {
  if (e === EXIT) return;
  let where = '';
  const stack = e && typeof e === 'object' && typeof (e as { stack?: unknown }).stack === 'string' ? (e as { stack: string }).stack : '';
  // Where it was thrown: the .http file's line for an inline script, the script file's own for `> ./h.js`.
  const m = /sling-script:(.*?):(\d+):(\d+)/.exec(stack);
  if (m) {
    where = ' (at ' + m[1] + ':' + (Number(m[2]) + offset) + ')';
    // Where in the program: sling names the callee of QuickJS's bare "not a function" from its text.
    state.at = [Number(m[2]), Number(m[3])];
  }
  // QuickJS quotes the name: 'x' is not defined.
  let said = message(e).replace(/^'([\w$]+)' is not defined$/, '$1 is not defined');
  // What a Node.js script would use: name the sandbox rather than leave a bare ReferenceError.
  if (/^(require|process|module|fetch|XMLHttpRequest|Buffer|__dirname|__filename) is not defined$/.test(said)) {
    said += ': scripts run in a sandbox with the JetBrains API (client, request, response), without modules, files or network';
  }
  state.error = (e instanceof AssertionFailed ? 'assertion failed outside client.test: ' : '') + said + where;
}

// ---- the entry points script.ts calls, which a script cannot replace
const fixed = (name: string, value: unknown) => Object.defineProperty(globalThis, name, { value, writable: false, configurable: false, enumerable: false });
fixed('__sling_begin', (payload: string) => {
  begin(payload);
});
fixed('__sling_run', (f: () => void) => {
  try {
    f();
  } catch (e) {
    fail(e);
  }
  runTests();
});
// The changes not yet told and the result, as [changes, result JSON].
fixed('__sling_result', () => {
  flush();
  const c = changes;
  changes = [];
  return stringify([c, JSON.stringify(state)]);
});
// After a script ran out of time: the changes it made before, which sling keeps.
fixed('__sling_changes', () => {
  const c = changes;
  changes = [];
  return stringify([c, '']);
});
