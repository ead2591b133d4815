/**
 * What scripts may use on purpose in every realm, beyond the JetBrains and httpyac APIs, all of it
 * pure (runs inside the script engine: see README.md of this folder):
 *
 * - `require(name)` for a fixed list of modules that touch no file, process or network:
 *   `assert` / `node:assert`, `assert/strict` / `node:assert/strict` (sling's own, with Node's
 *   names: ok, equal, notEqual, strictEqual, notStrictEqual, deepEqual, deepStrictEqual,
 *   notDeepEqual, notDeepStrictEqual, throws, doesNotThrow, match, doesNotMatch, fail,
 *   AssertionError) and `crypto` / `node:crypto` (createHash, createHmac, randomBytes, randomUUID,
 *   randomInt, getRandomValues: the hashes and random bytes are made by the host, the only values
 *   crossing being hex text). Any other name throws one sentence that names it.
 * - `atob`, `btoa` (also as `Window.atob`/`Window.btoa`, as JetBrains documents them).
 * - Code from strings is refused (`eval`, `Function`, and the constructors of async and generator
 *   functions), as it was in the node:vm sandbox before: there is nothing to reach with it, but a
 *   file that relies on it would not run in the tools it was written for either.
 * - Promises rejected with nothing to handle them (`Promise.reject(e)`, `new Promise` whose
 *   executor rejects, never given a `.then`/`.catch` or awaited) are reported to the host as a
 *   warning after the script (`host('warn', text)`): QuickJS's own rejection tracker is not
 *   reachable through the package, so this follows the promises made through the global
 *   `Promise` (not those of async functions that throw).
 */

type Fn = (...args: unknown[]) => unknown;

/**
 * Installs the library in the realm (each setup program calls it first). Returns `flush`, which
 * reports the rejections left after a script's promise jobs ran.
 */
export function installLibrary(host: SlingHost): () => void {
  lockDown();
  const flush = trackRejections(host);
  globalThis.btoa = function btoa(text: unknown): string {
    const s = String(text);
    const bytes: number[] = [];
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      if (c > 255) throw new Error('btoa: the text has a character outside Latin-1 (encode it as UTF-8 first)');
      bytes.push(c);
    }
    return toBase64(bytes);
  };
  globalThis.atob = function atob(text: unknown): string {
    return fromBase64(text, 'atob')
      .map((b) => String.fromCharCode(b))
      .join('');
  };
  if (globalThis.Window === undefined) globalThis.Window = { atob: globalThis.atob, btoa: globalThis.btoa };
  const modules = makeModules(host);
  const require = function require(name: unknown): unknown {
    const n = String(name);
    if (Object.hasOwn(modules, n)) return modules[n];
    throw new Error(
      "require('" +
        n +
        "') is not available in .http scripts: they run in a sandbox without files, processes or network; the modules there are assert, assert/strict and crypto (hashes, HMAC, random bytes)",
    );
  };
  globalThis.require = named(require, 'require');
  return flush;
}

/**
 * `f` with the name scripts see (`require.name`): the bundler may rename a function whose name is
 * also a name at the top of another file of the bundle (scripts/build.mjs).
 */
function named<T>(f: T, name: string): T {
  Object.defineProperty(f, 'name', { value: name });
  return f;
}

/** `eval`, `Function` and the constructors of async and generator functions refuse code from strings. */
function lockDown() {
  const refuse = (): never => {
    throw new EvalError('Code generation from strings disallowed for this context');
  };
  const protos: object[] = [Function.prototype, Object.getPrototypeOf(async () => {}), Object.getPrototypeOf(function* () {}), Object.getPrototypeOf(async function* () {})];
  for (const proto of protos) {
    // A function, not an arrow: it has a prototype, and it is the constructor of those functions.
    // biome-ignore lint/complexity/useArrowFunction: it needs its own prototype property
    const F = function () {
      return refuse();
    };
    F.prototype = proto;
    Object.defineProperty(proto, 'constructor', { value: F, writable: false, configurable: false });
  }
  Object.defineProperty(globalThis, 'Function', { value: Function.prototype.constructor, writable: true, configurable: true });
  Object.defineProperty(globalThis, 'eval', { value: () => refuse(), writable: true, configurable: true });
}

/** Follows promises rejected and left alone; returns `flush`, which tells the host of each and forgets them. */
function trackRejections(host: SlingHost): () => void {
  const NativePromise = Promise;
  const unhandled = new Map<object, unknown>();
  const nativeThen = NativePromise.prototype.then;
  const watch = (p: object, reason: unknown) => {
    unhandled.set(p, reason);
    // await reads 'constructor' of a promise it is given (PromiseResolve): that is a handler too.
    Object.defineProperty(p, 'constructor', {
      get() {
        unhandled.delete(p);
        return NativePromise;
      },
      configurable: true,
    });
  };
  Object.defineProperty(NativePromise.prototype, 'then', {
    value: function then(this: Promise<unknown>, a: Fn | undefined, b: Fn | undefined) {
      unhandled.delete(this);
      return nativeThen.call(this, a, b);
    },
    writable: true,
    configurable: true,
  });
  const nativeReject = NativePromise.reject;
  NativePromise.reject = function reject(this: unknown, reason: unknown) {
    const p = nativeReject.call(this, reason);
    if (this === NativePromise) watch(p, reason);
    return p;
  } as typeof NativePromise.reject;
  const Tracked = new Proxy(NativePromise, {
    construct(target, args: unknown[], newTarget) {
      const executor = args[0];
      if (typeof executor !== 'function') return Reflect.construct(target, args, newTarget);
      let made: object | undefined;
      let early: [unknown] | undefined;
      const p: object = Reflect.construct(
        target,
        [
          (resolve: Fn, reject: Fn) =>
            executor(resolve, (reason: unknown) => {
              if (made) {
                if (!unhandled.has(made)) watch(made, reason);
              } else early = [reason];
              return reject(reason);
            }),
        ],
        newTarget,
      );
      made = p;
      if (early) watch(p, early[0]);
      return p;
    },
  });
  Object.defineProperty(globalThis, 'Promise', { value: Tracked, writable: true, configurable: true });
  const reasonText = (r: unknown) => {
    try {
      return r !== null && typeof r === 'object' && typeof (r as { message?: unknown }).message === 'string' ? (r as { message: string }).message : String(r);
    } catch {
      return 'a value that cannot be shown';
    }
  };
  return () => {
    for (const reason of unhandled.values()) host('warn', 'a script left a rejected promise that nothing handled: ' + reasonText(reason));
    unhandled.clear();
  };
}

// ---- bytes and text

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

function toBase64(bytes: ArrayLike<number>): string {
  let out = '';
  for (let i = 0; i < bytes.length; i += 3) {
    const n = (bytes[i]! << 16) | ((bytes[i + 1] ?? 0) << 8) | (bytes[i + 2] ?? 0);
    out += B64[(n >> 18) & 63]! + B64[(n >> 12) & 63]! + (i + 1 < bytes.length ? B64[(n >> 6) & 63] : '=') + (i + 2 < bytes.length ? B64[n & 63] : '=');
  }
  return out;
}

function fromBase64(text: unknown, what: string): number[] {
  const s = String(text)
    .replace(/[\t\n\f\r ]/g, '')
    .replace(/-/g, '+')
    .replace(/_/g, '/');
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(s) || s.replace(/=+$/, '').length % 4 === 1) throw new Error(what + ': the text is not Base64');
  const clean = s.replace(/=+$/, '');
  const at = (i: number) => B64.indexOf(clean[i]!);
  const out: number[] = [];
  for (let i = 0; i < clean.length; i += 4) {
    const n = (at(i) << 18) | (at(i + 1) << 12) | ((i + 2 < clean.length ? at(i + 2) : 0) << 6) | (i + 3 < clean.length ? at(i + 3) : 0);
    out.push((n >> 16) & 255);
    if (i + 2 < clean.length) out.push((n >> 8) & 255);
    if (i + 3 < clean.length) out.push(n & 255);
  }
  return out;
}

function utf8(text: unknown): number[] {
  const out: number[] = [];
  const s = String(text);
  for (let i = 0; i < s.length; i++) {
    let c = s.codePointAt(i)!;
    if (c > 0xffff) i++;
    if (c >= 0xd800 && c <= 0xdfff) c = 0xfffd;
    if (c < 0x80) out.push(c);
    else if (c < 0x800) out.push(0xc0 | (c >> 6), 0x80 | (c & 63));
    else if (c < 0x10000) out.push(0xe0 | (c >> 12), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
    else out.push(0xf0 | (c >> 18), 0x80 | ((c >> 12) & 63), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
  }
  return out;
}

function fromUtf8(bytes: ArrayLike<number>): string {
  let out = '';
  for (let i = 0; i < bytes.length; ) {
    const b = bytes[i]!;
    const need = b < 0x80 ? 0 : b >= 0xf0 && b < 0xf8 ? 3 : b >= 0xe0 ? 2 : b >= 0xc0 ? 1 : -1;
    let c = need === 0 ? b : need === 1 ? b & 31 : need === 2 ? b & 15 : b & 7;
    let ok = need >= 0 && i + need < bytes.length + (need ? 0 : 1);
    for (let k = 1; ok && k <= need; k++) {
      const x = bytes[i + k]!;
      if ((x & 0xc0) !== 0x80) ok = false;
      else c = (c << 6) | (x & 63);
    }
    if (!ok) {
      out += '\ufffd';
      i++;
      continue;
    }
    out += String.fromCodePoint(c);
    i += need + 1;
  }
  return out;
}

function hexOf(bytes: Iterable<number>): string {
  let h = '';
  for (const b of bytes) h += (b < 16 ? '0' : '') + b.toString(16);
  return h;
}

function fromHex(text: unknown, what: string): number[] {
  const s = String(text);
  if (!/^(?:[0-9a-fA-F]{2})*$/.test(s)) throw new Error(what + ': the text is not hexadecimal');
  const out: number[] = [];
  for (let i = 0; i < s.length; i += 2) out.push(parseInt(s.slice(i, i + 2), 16));
  return out;
}

/** What `crypto` gives back: bytes that read as hex, Base64 or text (Node's Buffer, in part). */
class Bytes extends Uint8Array {
  override toString(encoding?: unknown): string {
    const e = encoding === undefined ? 'utf8' : String(encoding).toLowerCase();
    if (e === 'hex') return hexOf(this);
    if (e === 'base64') return toBase64(this);
    if (e === 'base64url') return toBase64(this).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
    if (e === 'latin1' || e === 'binary' || e === 'ascii') {
      let s = '';
      for (const b of this) s += String.fromCharCode(e === 'ascii' ? b & 127 : b);
      return s;
    }
    if (e === 'utf8' || e === 'utf-8') return fromUtf8(this);
    throw new Error('unknown encoding: ' + encoding);
  }
  toJSON() {
    return { type: 'Buffer', data: Array.from(this) };
  }
}

function bytesOf(data: unknown, encoding: unknown, what: string): number[] {
  if (data instanceof Uint8Array) return Array.from(data);
  if (data instanceof ArrayBuffer) return Array.from(new Uint8Array(data));
  const e = encoding === undefined || encoding === null ? 'utf8' : String(encoding).toLowerCase();
  if (e === 'hex') return fromHex(data, what);
  if (e === 'base64' || e === 'base64url') return fromBase64(data, what);
  if (e === 'latin1' || e === 'binary') return Array.from(String(data), (c) => c.charCodeAt(0) & 255);
  return utf8(data);
}

// ---- require('assert'): Node's names, sling's own code

interface AssertionOptions {
  message?: unknown;
  actual?: unknown;
  expected?: unknown;
  operator?: unknown;
}

class AssertionError extends Error {
  // Set in the constructor, in Node's order (name first): `declare` makes no field of its own.
  declare actual: unknown;
  declare expected: unknown;
  declare operator: unknown;
  declare code: string;
  constructor(options: unknown) {
    const o: AssertionOptions = options && typeof options === 'object' ? (options as AssertionOptions) : { message: String(options) };
    super(o.message as string);
    this.name = 'AssertionError';
    this.actual = o.actual;
    this.expected = o.expected;
    this.operator = o.operator;
    this.code = 'ERR_ASSERTION';
  }
}

const show = (v: unknown) => {
  try {
    const j = JSON.stringify(v);
    return j === undefined ? String(v) : j;
  } catch {
    return String(v);
  }
};

function failWith(message: unknown, actual: unknown, expected: unknown, operator: string, fallback: string): never {
  if (message instanceof Error) throw message;
  throw new AssertionError({ message: message === undefined ? fallback : String(message), actual, expected, operator });
}

const isObject = (v: unknown): v is Record<PropertyKey, unknown> => v !== null && typeof v === 'object';

/** JavaScript's `==` (Node's loose assertions), or both NaN. */
// biome-ignore lint/suspicious/noDoubleEquals: the loose assertions compare as == does, on purpose
const loose = (a: unknown, b: unknown) => a == b || (Number.isNaN(a) && Number.isNaN(b));

function deep(a: unknown, b: unknown, strict: boolean, seen: [unknown, unknown][]): boolean {
  if (strict ? Object.is(a, b) : loose(a, b)) return true;
  if (!isObject(a) || !isObject(b)) return false;
  if (strict && Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return false;
  if (seen.some((p) => p[0] === a && p[1] === b)) return true;
  seen.push([a, b]);
  if (a instanceof Date && b instanceof Date) return a.getTime() === b.getTime();
  if (a instanceof RegExp && b instanceof RegExp) return String(a) === String(b);
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (a instanceof Map && b instanceof Map) {
    if (a.size !== b.size) return false;
    for (const [k, v] of a) if (!b.has(k) || !deep(v, b.get(k), strict, seen)) return false;
    return true;
  }
  if (a instanceof Set && b instanceof Set) {
    if (a.size !== b.size) return false;
    for (const v of a) if (!b.has(v)) return false;
    return true;
  }
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  for (const k of ka) if (!Object.hasOwn(b, k) || !deep(a[k], b[k], strict, seen)) return false;
  return true;
}

function matches(error: unknown, expected: unknown): boolean {
  if (expected === undefined) return true;
  const e = error as Record<string, unknown>;
  if (typeof expected === 'function') {
    if (expected.prototype !== undefined && error instanceof expected) return true;
    if (Object.prototype.isPrototypeOf.call(Error, expected) || expected === Error) return false;
    return expected(error) === true;
  }
  if (expected instanceof RegExp) return expected.test(String(e && e.message !== undefined ? e.message : error)) || expected.test(String(error));
  if (isObject(expected)) {
    return Object.keys(expected).every((k) => {
      const want = expected[k];
      return want instanceof RegExp ? want.test(String(e[k])) : deep(e[k], want, true, []);
    });
  }
  return false;
}

type Assert = ((value: unknown, message?: unknown) => void) & Record<string, unknown>;

function makeAssert(strict: boolean): Assert {
  const ok = function assert(value: unknown, message?: unknown) {
    if (!value) failWith(message, value, true, '==', 'The expression evaluated to a falsy value: ' + show(value));
  };
  const assert = named(ok, 'assert') as Assert;
  assert.ok = (value: unknown, message: unknown) => assert(value, message);
  assert.equal = strict
    ? (a: unknown, b: unknown, m: unknown) => {
        if (!Object.is(a, b)) failWith(m, a, b, 'strictEqual', 'Expected values to be strictly equal: ' + show(a) + ' !== ' + show(b));
      }
    : (a: unknown, b: unknown, m: unknown) => {
        if (!loose(a, b)) failWith(m, a, b, '==', show(a) + ' == ' + show(b));
      };
  assert.notEqual = strict
    ? (a: unknown, b: unknown, m: unknown) => {
        if (Object.is(a, b)) failWith(m, a, b, 'notStrictEqual', 'Expected "actual" to be strictly unequal to: ' + show(b));
      }
    : (a: unknown, b: unknown, m: unknown) => {
        // biome-ignore lint/suspicious/noDoubleEquals: Node's notEqual is !=, on purpose
        if (a == b) failWith(m, a, b, '!=', show(a) + ' != ' + show(b));
      };
  assert.strictEqual = (a: unknown, b: unknown, m: unknown) => {
    if (!Object.is(a, b)) failWith(m, a, b, 'strictEqual', 'Expected values to be strictly equal: ' + show(a) + ' !== ' + show(b));
  };
  assert.notStrictEqual = (a: unknown, b: unknown, m: unknown) => {
    if (Object.is(a, b)) failWith(m, a, b, 'notStrictEqual', 'Expected "actual" to be strictly unequal to: ' + show(b));
  };
  assert.deepStrictEqual = (a: unknown, b: unknown, m: unknown) => {
    if (!deep(a, b, true, [])) failWith(m, a, b, 'deepStrictEqual', 'Expected values to be strictly deep-equal: ' + show(a) + ' !== ' + show(b));
  };
  assert.notDeepStrictEqual = (a: unknown, b: unknown, m: unknown) => {
    if (deep(a, b, true, [])) failWith(m, a, b, 'notDeepStrictEqual', 'Expected "actual" not to be strictly deep-equal to: ' + show(b));
  };
  assert.deepEqual = strict
    ? assert.deepStrictEqual
    : (a: unknown, b: unknown, m: unknown) => {
        if (!deep(a, b, false, [])) failWith(m, a, b, 'deepEqual', 'Expected values to be loosely deep-equal: ' + show(a) + ' != ' + show(b));
      };
  assert.notDeepEqual = strict
    ? assert.notDeepStrictEqual
    : (a: unknown, b: unknown, m: unknown) => {
        if (deep(a, b, false, [])) failWith(m, a, b, 'notDeepEqual', 'Expected "actual" not to be loosely deep-equal to: ' + show(b));
      };
  assert.throws = (fn: Fn, expected: unknown, m: unknown) => {
    if (typeof expected === 'string') {
      m = expected;
      expected = undefined;
    }
    try {
      fn();
    } catch (e) {
      if (!matches(e, expected)) throw e;
      return;
    }
    failWith(m, undefined, expected, 'throws', 'Missing expected exception.');
  };
  assert.doesNotThrow = (fn: Fn, m: unknown) => {
    try {
      fn();
    } catch (e) {
      failWith(typeof m === 'string' ? m : undefined, e, undefined, 'doesNotThrow', 'Got unwanted exception: ' + (e && (e as { message?: unknown }).message));
    }
  };
  assert.rejects = async (p: unknown, expected: unknown, m: unknown) => {
    if (typeof expected === 'string') {
      m = expected;
      expected = undefined;
    }
    try {
      await (typeof p === 'function' ? p() : p);
    } catch (e) {
      if (!matches(e, expected)) throw e;
      return;
    }
    failWith(m, undefined, expected, 'rejects', 'Missing expected rejection.');
  };
  assert.doesNotReject = async (p: unknown, m: unknown) => {
    try {
      await (typeof p === 'function' ? p() : p);
    } catch (e) {
      failWith(typeof m === 'string' ? m : undefined, e, undefined, 'doesNotReject', 'Got unwanted rejection: ' + (e && (e as { message?: unknown }).message));
    }
  };
  assert.match = (s: unknown, re: unknown, m: unknown) => {
    if (!(re instanceof RegExp) || !re.test(s as string)) failWith(m, s, re, 'match', 'The input did not match the regular expression ' + String(re) + '. Input: ' + show(s));
  };
  assert.doesNotMatch = (s: unknown, re: unknown, m: unknown) => {
    if (re instanceof RegExp && re.test(s as string)) failWith(m, s, re, 'doesNotMatch', 'The input was expected to not match the regular expression ' + String(re) + '. Input: ' + show(s));
  };
  assert.fail = (m: unknown) => failWith(m, undefined, undefined, 'fail', 'Failed');
  assert.ifError = (v: unknown) => {
    if (v !== null && v !== undefined) throw v;
  };
  assert.AssertionError = AssertionError;
  return assert;
}

// ---- require('crypto'): hashes and random bytes made by the host, hex text both ways

const HASHES = ['md5', 'sha1', 'sha224', 'sha256', 'sha384', 'sha512'];

function makeCrypto(host: SlingHost) {
  const hasher = (alg: unknown, key: number[] | undefined) => {
    const name = String(alg).toLowerCase().replace(/-/g, '');
    if (!HASHES.includes(name)) throw new Error('crypto: digest method not supported: ' + alg + ' (' + HASHES.join(', ') + ')');
    let data: number[] = [];
    let done = false;
    const h = {
      update(input: unknown, encoding?: unknown) {
        if (done) throw new Error('crypto: digest already called');
        data = data.concat(bytesOf(input, encoding, 'crypto'));
        return h;
      },
      digest(encoding?: unknown) {
        if (done) throw new Error('crypto: digest already called');
        done = true;
        const hex = host('hash', name, key === undefined ? undefined : hexOf(key), hexOf(data));
        if (hex === undefined) throw new Error('crypto: the digest could not be made');
        const out = Bytes.from(fromHex(hex, 'crypto')) as Bytes;
        return encoding === undefined ? out : out.toString(encoding);
      },
    };
    return h;
  };
  const random = (n: unknown) => {
    const count = Number(n);
    if (!Number.isInteger(count) || count < 0 || count > 65536) throw new RangeError('crypto: the number of random bytes must be a whole number from 0 to 65536');
    return Bytes.from(fromHex(host('random', String(count)) ?? '', 'crypto'));
  };
  return {
    createHash: (alg: unknown) => hasher(alg, undefined),
    createHmac: (alg: unknown, key: unknown) => hasher(alg, bytesOf(key, undefined, 'crypto')),
    randomBytes: random,
    getRandomValues: (array: unknown) => {
      if (!ArrayBuffer.isView(array)) throw new TypeError('crypto.getRandomValues: the argument is not a typed array');
      const bytes = random(array.byteLength);
      new Uint8Array(array.buffer, array.byteOffset, array.byteLength).set(bytes);
      return array;
    },
    randomUUID: () => {
      const b = random(16);
      b[6] = (b[6]! & 0x0f) | 0x40;
      b[8] = (b[8]! & 0x3f) | 0x80;
      const h = hexOf(b);
      return h.slice(0, 8) + '-' + h.slice(8, 12) + '-' + h.slice(12, 16) + '-' + h.slice(16, 20) + '-' + h.slice(20);
    },
    randomInt: (min: unknown, max: unknown) => {
      if (max === undefined) {
        max = min;
        min = 0;
      }
      if (!Number.isSafeInteger(min) || !Number.isSafeInteger(max) || (max as number) <= (min as number)) throw new RangeError('crypto.randomInt: min and max must be whole numbers, min < max');
      const b = random(6);
      const n = b.reduce((acc, x) => acc * 256 + x, 0);
      return (min as number) + (n % ((max as number) - (min as number)));
    },
  };
}

/** The modules `require` gives, by name. */
function makeModules(host: SlingHost): Record<string, unknown> {
  const assertModule = makeAssert(false);
  const strictModule = makeAssert(true);
  assertModule.strict = strictModule;
  strictModule.strict = strictModule;
  const cryptoModule = makeCrypto(host);
  return {
    assert: assertModule,
    'node:assert': assertModule,
    'assert/strict': strictModule,
    'node:assert/strict': strictModule,
    crypto: cryptoModule,
    'node:crypto': cryptoModule,
  };
}
