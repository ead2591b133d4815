// Fuzzing (fast-check): every parser a stranger's bytes reach gets arbitrary input, unicode of every
// kind and "nasty" pieces (control characters, NUL, CR/LF, quotes, backslashes, `{{`, `%`, runs of
// tens of thousands of one character, brackets nested thousands deep, each parser's own syntax cut
// up, and files and command lines in their usual shape with those pieces inside), and must
//   - return, or throw one of sling's own errors (CliError and its kin, or the module's documented
//     error: JsonSyntaxError, NestingError, CurlUrlError, ShellSyntaxError, HttpParseError,
//     NotFormatted, JsonPathError, NetworkError): never a TypeError, a RangeError, anything else;
//   - when SLING_FUZZ_CASE_MS is set (a long run on demand, never `npm test`: a busy machine must
//     not fail a test), take less than that many milliseconds per case (a slow case is timed a
//     second time); the inputs once found slow are timed by bench/inputs.mjs instead;
//   - give an output no larger than a fixed multiple of its input plus a constant;
// and, where it is cheap and true, keep a round trip (formatted JSON reads back as the same value,
// parseJson agrees with JSON.parse, a curl URL printed back parses to itself, a safe download name
// stays what it is).
//
// `npm test` runs it seeded and quick: seed 26, 500 runs per property (250 for the slower ones),
// about 5 s. Longer, or with another seed, on demand:
//
//   SLING_FUZZ_RUNS=20000 SLING_FUZZ_SEED=123 npm test -- fuzz
//
// A failure reports the seed, the path, the (shrunk) counterexample and what went wrong; to replay
// just that case: SLING_FUZZ_SEED=<seed> SLING_FUZZ_PATH=<path> npm test -- fuzz. Shrinking stops
// after 300 tries per input or 20 s, whichever comes first. A case that never returns (an endless
// loop in synchronous code) cannot be timed out from here: the run stops at it instead of failing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import fc from 'fast-check';
import { CliError } from '../../src/errors.js';
import { NestingError } from '../../src/nesting.js';
import { resolveInvocation } from '../../src/cli/invocation.js';
import { parseItem, tryParseItem } from '../../src/cli/items.js';
import { buildRequest } from '../../src/request/build.js';
import { prepareRequest } from '../../src/model/prepare.js';
import { JsonSyntaxError, parseJson, stringifyJson } from '../../src/model/json.js';
import { parsePath } from '../../src/request/nested-json.js';
import { LiteralError, readModuleObject, stripJsonc } from '../../src/sources/http/literal.js';
import { checkUrl, expandUrl, formatUrl, parseUrl, type ParsedUrl } from '../../src/model/url.js';
import { CurlUrlError, expandGlob, formatCurlUrl, parseCurlUrl, resolveLocation, type CurlUrl } from '../../src/sources/curl/url.js';
import { parseShell, ShellSyntaxError } from '../../src/sources/curl/shell.js';
import { parseCurlFile } from '../../src/sources/curl/index.js';
import { HttpParseError, parseHttp } from '../../src/sources/http/parse.js';
import { parseHttpFile } from '../../src/sources/http/index.js';
import { JsonPathError, jsonPath, jsonPathProblem } from '../../src/sources/http/jsonpath.js';
import { formatJsonBytes, NotFormatted } from '../../src/output/json-format.js';
import { MONO, paletteFor } from '../../src/output/palette.js';
import { BIDI } from '../../src/sanitize.js';
import { contentLength, parseResponseHead } from '../../src/transport/head.js';
import { CookieJar, domainMatches, isPublicSuffix, loadPublicSuffixes } from '../../src/model/cookies.js';
import { chooseFileName, nameFromContentDisposition, sanitizeFileName } from '../../src/transport/filename.js';
import type { SourceOptions } from '../../src/model/exec.js';
import { curlOutput } from '../../src/commands/exec/curl-output.js';

// ---- settings ----------------------------------------------------------------------------------

function intEnv(name: string, fallback: number): number {
  const v = process.env[name];
  if (v === undefined || v === '') return fallback;
  if (!/^-?\d+$/.test(v)) throw new Error(`${name} must be an integer, got '${v}'`);
  return Number(v);
}
const SEED = intEnv('SLING_FUZZ_SEED', 26);
const RUNS = intEnv('SLING_FUZZ_RUNS', 500);
/** A time limit per case only when asked for: a normal run checks what each case gives, never how fast. */
const CASE_MS = process.env.SLING_FUZZ_CASE_MS ? intEnv('SLING_FUZZ_CASE_MS', 0) : Number.POSITIVE_INFINITY;
const PATH = process.env.SLING_FUZZ_PATH || undefined;
/** Shrinking a failure stops after this many tries of each input, or this long after the failure: each try may be slow on long text. */
const SHRINKS = 300;
const SHRINK_MS = 20_000;

/** When the property being checked first failed (shrinking has begun). */
let failedAt: number | undefined;

/** A predicate that marks its first failure, and after SHRINK_MS of shrinking passes every try unrun (fast-check then reports the smallest failure so far). */
function guard<A extends unknown[], R>(predicate: (...args: A) => R): (...args: A) => R {
  const failed = (e: unknown): never => {
    failedAt ??= performance.now();
    throw e;
  };
  return (...args: A): R => {
    fc.pre(failedAt === undefined || performance.now() - failedAt < SHRINK_MS);
    try {
      const r = predicate(...args);
      return (r instanceof Promise ? r.catch(failed) : r) as R;
    } catch (e) {
      return failed(e);
    }
  };
}

/** fc.assert with the seed and runs above; `share`: the part of SLING_FUZZ_RUNS this property runs (the slower ones run fewer). */
function check<Ts>(property: fc.IAsyncProperty<Ts>, share?: number): Promise<void>;
function check<Ts>(property: fc.IProperty<Ts>, share?: number): void;
function check<Ts>(property: fc.IRawProperty<Ts>, share = 1): void | Promise<void> {
  failedAt = undefined;
  const numRuns = Math.max(1, Math.ceil(RUNS * share));
  // includeErrorInReport: what failed (the assertion, or the foreign error and where it came from)
  // goes into the message with the seed and the counterexample, so every reporter shows it.
  return fc.assert(property, { seed: SEED, numRuns, path: PATH, endOnFailure: PATH !== undefined, includeErrorInReport: true });
}

// ---- outcomes ----------------------------------------------------------------------------------

type ErrorClass = abstract new (...args: never[]) => Error;
type Outcome<T> = { ok: true; value: T } | { ok: false; error: unknown };

/** What a call gave or threw, and how long it took. */
function once<T>(f: () => T): [Outcome<T>, number] {
  const t0 = performance.now();
  try {
    const value = f();
    return [{ ok: true, value }, performance.now() - t0];
  } catch (error) {
    return [{ ok: false, error }, performance.now() - t0];
  }
}
async function onceAsync<T>(f: () => Promise<T>): Promise<[Outcome<T>, number]> {
  const t0 = performance.now();
  try {
    const value = await f();
    return [{ ok: true, value }, performance.now() - t0];
  } catch (error) {
    return [{ ok: false, error }, performance.now() - t0];
  }
}

/** The value, or undefined for one of the allowed errors; any other error is thrown on (the property fails with it). */
function settle<T>([outcome, ms]: [Outcome<T>, number], allowed: readonly ErrorClass[]): T | undefined {
  if (ms > CASE_MS) throw new Error(`took ${Math.round(ms)} ms (twice), more than SLING_FUZZ_CASE_MS=${CASE_MS}`);
  if (outcome.ok) return outcome.value;
  const e = outcome.error;
  if (allowed.some((c) => e instanceof c)) return undefined;
  throw e instanceof Error ? e : new Error(`threw a non-error: ${String(e)}`);
}

/** `f()` within the time limit (timed again when slow): its value, or undefined when it threw one of `allowed`. */
function run<T>(f: () => T, allowed: readonly ErrorClass[] = []): T | undefined {
  let r = once(f);
  if (r[1] > CASE_MS) r = once(f);
  return settle(r, allowed);
}
async function runAsync<T>(f: () => Promise<T>, allowed: readonly ErrorClass[] = []): Promise<T | undefined> {
  let r = await onceAsync(f);
  if (r[1] > CASE_MS) r = await onceAsync(f);
  return settle(r, allowed);
}

/** Output size within `factor` times the input plus `constant`. */
function bounded(what: string, out: number, input: number, factor: number, constant: number) {
  assert.ok(out <= input * factor + constant, `${what}: ${out} from an input of ${input} (more than ${factor}x + ${constant})`);
}

// ---- input -------------------------------------------------------------------------------------

/** Characters and pieces that trip parsers up. */
// biome-ignore format: a word list reads better on a few long lines
const NASTY = [
  '\0', '\x01', '\x07', '\b', '\t', '\n', '\r', '\r\n', '\n\n', '\v', '\f', '\x1b', '\x1b[31m', '\x7f', '\x80', '\x85', '\x9b', '\xa0', '\xff',
  '\u2028', '\u2029', '\u202e', '\u200f', '\u2066', '\ufeff', '\ufffd', '\ud800', '\udc00', '\udbff\udfff', '\u{1f600}', 'é', 'e\u0301', 'ß', 'İ', '\u3000', '\uff0e',
  ' ', '  ', '"', "'", '`', '\\', '\\\\', '\\"', "\\'", '\\n', '\\u', '\\x', '{{', '}}', '{', '}', '[', ']', '(', ')', '<', '>',
  '%', '%%', '%0', '%zz', '%41', '%00', '%0a', '%2e', '%2F', '%5c', '%C3%BC', '%E2%80%AE', '%ff', '$', '$$', '${', '$(', '$((', '@', '#', '?', '&', '*', '|', ';', ':', '=', '==', ':=', ',', '/', '//', '..', '.', '-', '--', '~', '!', '^', '+',
  '0', '-0', '01', '1e400', '99999999999999999999', '9007199254740993', 'NaN', 'null', 'true', '__proto__', 'constructor', 'a', 'Z', '_',
];
const CLOSERS: Record<string, string> = { '[': ']', '{': '}', '(': ')', '{{': '}}', '${': '}', '$(': ')', '"': '"', "'": "'", '`': '`', '{"a":': '}', '[[': ']]', '<': '>', '${A:-': '}', '$((': '))' };

/** One character or piece repeated into a run of 100 to 30,000 characters. */
const longRun = fc.tuple(fc.constantFrom(...NASTY, 'ab', 'a.', '-a', 'x '), fc.integer({ min: 100, max: 30_000 })).map(([s, n]) => s.repeat(Math.ceil(n / s.length)));
/** Brackets (or quotes, expansions) opened 10 to 20,000 deep, closed or not. */
const deepNest = fc
  .tuple(fc.constantFrom(...Object.keys(CLOSERS)), fc.integer({ min: 10, max: 20_000 }), fc.constantFrom('', 'x', '1', ' ', '"a"'), fc.boolean())
  .map(([open, n, mid, closed]) => open.repeat(n) + mid + (closed ? CLOSERS[open]!.repeat(n) : ''));

/**
 * Text made of pieces: arbitrary unicode (lone surrogates included), nasty pieces, the parser's
 * own `words`, and in about one case of four a long run or a deep nesting somewhere.
 */
function nasty(words: readonly string[] = [], maxParts = 30): fc.Arbitrary<string> {
  const parts: fc.WeightedArbitrary<string>[] = [
    { weight: 3, arbitrary: fc.string({ unit: 'binary', maxLength: 8 }) },
    { weight: 1, arbitrary: fc.string({ unit: fc.constantFrom('\0', '\r', '\n', '\\', '"', "'", '%', '{', '}', '[', ']', ' ', '\t'), maxLength: 8 }) },
    { weight: 3, arbitrary: fc.constantFrom(...NASTY) },
  ];
  if (words.length) parts.push({ weight: 6, arbitrary: fc.constantFrom(...words) });
  const big = fc.oneof({ weight: 3, arbitrary: fc.constant('') }, { weight: 1, arbitrary: fc.oneof(longRun, deepNest) });
  const text = fc.tuple(fc.array(fc.oneof(...parts), { maxLength: maxParts, size: 'max' }), big, fc.nat()).map(([ps, b, at]) => {
    if (b) ps.splice(at % (ps.length + 1), 0, b);
    return ps.join('');
  });
  return fc.limitShrink(text, SHRINKS);
}

/** A text as the byte string (latin1, one char per byte) of its UTF-8: what curl files and response heads are read as. */
const bytes = (s: string) => Buffer.from(s, 'utf8').toString('latin1');

/** Pieces of URLs (for the URL parsers, and inside items, globs and download names). */
// biome-ignore format: a word list reads better on a few long lines
const URL_WORDS = [
  'http://', 'https://', 'HTTP://', '://', 'ftp://', 'http:/', 'http:///', ':', ':8080', ':0', ':65535', ':65536', ':99999', ':-1', '/', '//', '@', 'user:pa:ss@', 'a@b@', '[', ']', '[::1]', '[::1', '[fe80::1%25eth0]',
  '?', '??', '#', '#?', '&', '=', '%', '%2e', '%2E%2e', '%2f', '%41', '%zz', '%%', '..', '.', '/../', '/./', 'localhost', 'example.org', 'EXAMPLE.ORG', 'xn--', 'xn--nxasmq6b', 'münchen.de', 'a\u3002b', 'ß', '\uff0e',
  '{', '}', '[1-3]', '{a,b}', '[a-z:2]', '[01-10]', '[0-99999999]', '{a,b,c,d,e,f,g,h,i,j}', '\\[', '\\{', ' ', '\t',
];

// ---- request items -----------------------------------------------------------------------------

// biome-ignore format: a word list reads better on a few long lines
const ITEM_WORDS = [
  '=', '==', ':', ':=', '==@', ':@', '=@', ':=@', '@', ';', '\\=', '\\:', '\\@', '\\;', '\\[', '\\]', '\\\\', '\\1', '[', ']', '[]', '[0]', '[3]', '[-1]', '[1_0]', '[ 2 ]', '[999999]', '[1000001]',
  'a', 'b', 'name', 'X-Api', 'Accept', 'Content-Type', '{"a":', '[1,', '{"a": [1, {"b": null}]}', '"s"', '1.50', '1e3', '-0.0', '1E400', '12345678901234567890', 'true', 'false', 'null', '\\u00e9', '\\ud800',
];
/** The items of a command line that read no file (`@`, `=@`, `:=@`, ... are left out: they would read the disk). */
const itemArgs = fc.array(nasty(ITEM_WORDS, 12), { maxLength: 6 }).map((args) => args.filter((a) => !a.startsWith('-') && !/file/.test(tryParseItem(a)?.kind ?? 'file')));

test('fuzz: request items are parsed or refused with a UsageError; key, separator and value come from the argument', () => {
  check(
    fc.property(
      nasty(ITEM_WORDS),
      guard((arg) => {
        const item = run(() => parseItem(arg), [CliError]);
        if (!item) return;
        assert.equal(item.orig, arg);
        bounded('key + separator + value', item.key.length + item.sep.length + item.value.length, arg.length, 1, 0);
        // Without backslashes nothing is unescaped: the three parts are the argument.
        if (!arg.includes('\\')) assert.equal(item.key + item.sep + item.value, arg);
      }),
    ),
  );
});

test('fuzz: nested JSON paths are read or refused with a UsageError, at most a step per character', () => {
  check(
    fc.property(
      nasty(ITEM_WORDS),
      guard((key) => {
        const steps = run(() => parsePath(key, key), [CliError]);
        if (steps) bounded('steps', steps.length, key.length, 1, 1);
      }),
    ),
  );
});

/** Array indexes in the items (`a[500]=x` sends 500 nulls first): each may add up to a million slots of `null, `. */
function indexAllowance(args: string[]): number {
  let n = 0;
  for (const a of args) for (const m of a.matchAll(/\d[\d_]*/g)) n += Math.min(Number(m[0].replace(/_/g, '')), 1_000_001) * 6;
  return n;
}

const dir = mkdtempSync(join(tmpdir(), 'sling-fuzz-'));

test('fuzz: a command line of items builds a request or fails with a CliError; the wire form stays proportionate', async () => {
  const flags = fc.constantFrom([], ['--form'], ['--multipart', '--boundary', 'B'], ['--json'], ['-A', 'bearer', '-a', 'tok'], ['--path-as-is']);
  await check(
    fc.asyncProperty(
      flags,
      itemArgs,
      nasty(URL_WORDS, 8),
      guard(async (flag, items, url) => {
        const argv = ['--ignore-stdin', '--ignore-netrc', ...flag, '--', `http://example.org/${url}`, ...items];
        const req = await runAsync(async () => {
          const spec = await buildRequest(resolveInvocation(argv), {
            cwd: dir,
            env: {},
            pid: process.pid,
            readStdin: async () => null,
            askPassword: async () => {
              throw new CliError('no terminal');
            },
          });
          return prepareRequest(spec);
        }, [CliError]);
        if (!req) return;
        const input = argv.join(' ').length;
        bounded('body', req.body.length, input, 12, 1024 + indexAllowance(items));
        bounded(
          'headers',
          req.headers.reduce((n, [k, v]) => n + k.length + v.length, 0),
          input,
          4,
          1024,
        );
      }),
    ),
    0.5,
  );
});

test('fuzz: parseJson accepts exactly what JSON.parse accepts (up to its nesting limit), and writes back the same value', () => {
  // biome-ignore format: a word list reads better on a few long lines
  const JSON_WORDS = ['{', '}', '[', ']', ',', ':', '"', '"a"', '"\\u00e9"', '"\\ud800"', '\\', '1', '-', '0', '01', '1.', '.5', '1e', '1e+5', '1E400', '-0', 'true', 'tru', 'null', 'false', ' ', '\t', '\n', '\r', '\f', '\u00a0'];
  const text = fc.oneof(
    nasty(JSON_WORDS),
    fc.tuple(fc.jsonValue(), fc.constantFrom(0, 1, '\t')).map(([v, n]) => JSON.stringify(v, null, n)),
  );
  // -0 and 0 are the same JSON number to a server; Python (so HTTPie) writes -0 as 0.
  const plain = (t: string) => JSON.parse(t, (_k, v: unknown) => (Object.is(v, -0) ? 0 : v));
  check(
    fc.property(
      text,
      guard((t) => {
        const v = run(() => parseJson(t), [JsonSyntaxError, NestingError]);
        let expected: unknown;
        try {
          expected = plain(t);
        } catch {
          assert.equal(v, undefined, 'parseJson accepted what JSON.parse refuses');
          return;
        }
        if (v === undefined) {
          assert.throws(() => parseJson(t), NestingError, 'parseJson refused what JSON.parse accepts');
          return;
        }
        const out = stringifyJson(v);
        bounded('JSON', out.length, t.length, 6, 16);
        assert.deepEqual(plain(out), expected);
      }),
    ),
  );
});

test('fuzz: settings read as data: JSONC keeps its length and its JSON value; a module object literal is read or refused with a LiteralError, a JSON object exported reads back the same', () => {
  // biome-ignore format: a word list reads better on a few long lines
  const WORDS = ['{', '}', '[', ']', ',', ':', '"', "'", '`', '${', '"a"', "'b'", 'k', '\\', '//', '/*', '*/', '\n', '1', '-1.5e3', '0x1f', 'true', 'null', 'f()', '...x', 'module.exports =', 'export default', ';', ' '];
  const text = fc.oneof(
    nasty(WORDS),
    fc.tuple(fc.jsonValue(), fc.constantFrom(0, 1, '\t')).map(([v, n]) => `module.exports = ${JSON.stringify({ v }, null, n)};`),
  );
  check(
    fc.property(
      text,
      guard((t) => {
        const stripped = run(() => stripJsonc(t));
        assert.equal(stripped?.length, t.length);
        const v = run(() => readModuleObject(t), [LiteralError]);
        const m = /^module\.exports = (.*);$/s.exec(t);
        if (m) {
          let expected: unknown;
          try {
            expected = JSON.parse(m[1]!);
          } catch {
            return;
          }
          assert.deepEqual(v, expected);
          assert.deepEqual(JSON.parse(stripJsonc(m[1]!)), expected);
        }
      }),
    ),
  );
});

// ---- URLs --------------------------------------------------------------------------------------

test('fuzz: parseUrl gives a request target of printable ASCII, or a UsageError; checkUrl agrees; expandUrl never throws', () => {
  const mode = fc.constantFrom<[string, boolean, boolean | 'raw']>(['http', false, false], ['https', true, false], ['http', false, true], ['http', false, 'raw'], ['ftp', false, false]);
  check(
    fc.property(
      nasty(URL_WORDS),
      mode,
      guard((input, [scheme, pathAsIs, asWritten]) => {
        const expanded = run(() => expandUrl(input, scheme));
        bounded('expanded URL', expanded!.length, input.length, 1, 32);
        const url = run(() => parseUrl(input, scheme, pathAsIs, asWritten), [CliError]);
        const checked = run(() => (checkUrl(input, scheme), true), [CliError]);
        assert.equal(checked !== undefined, url !== undefined, 'checkUrl and parseUrl disagree');
        if (!url) return;
        assert.match(url.path, /^\/[\x21-\x7e]*$/);
        assert.match(url.query, /^[\x21-\x7e]*$/);
        assert.ok(url.hostname !== '' && !/[\s/\\?#@]/.test(url.hostname), url.hostname);
        assert.ok(Number.isInteger(url.port) && url.port >= 0 && url.port <= 65535, String(url.port));
        // A character becomes at most its UTF-8 bytes as %XX (9 for 3 bytes).
        bounded('request target', url.path.length + url.query.length, input.length, 9, 2);
        // HTTPie's reading: the URL printed (the request line, --offline) and read again is the same URL.
        if (!pathAsIs && !asWritten && (scheme === 'http' || scheme === 'https')) {
          const shown = formatUrl(url);
          assert.equal(formatUrl(parseUrl(shown, scheme)), shown);
        }
      }),
    ),
  );
});

test('fuzz: curl URLs parse or fail with a CurlUrlError, and what they print back parses to the same URL', () => {
  check(
    fc.property(
      nasty(URL_WORDS).map(bytes),
      fc.boolean(),
      guard((text, pathAsIs) => {
        const url = run(() => parseCurlUrl(text, { pathAsIs }), [CurlUrlError]);
        if (!url) return;
        assert.match(url.path, /^\/[\x21-\x7e]*$/);
        bounded('path and query', url.path.length + (url.query?.length ?? 0), text.length, 3, 1);
        const again = run(() => parseCurlUrl(formatCurlUrl(url, true), { pathAsIs }), [CurlUrlError]);
        assert.deepEqual(again, url);
      }),
    ),
  );
});

test('fuzz: a Location resolves against the URL it came from, or fails with a CurlUrlError', () => {
  const bases = ['http://h/a/b?q', 'https://u:p@h:8443/', 'http://[::1]:8080/x/y/'].map((u) => parseCurlUrl(u));
  check(
    fc.property(
      fc.constantFrom(...bases),
      nasty(URL_WORDS).map(bytes),
      guard((base: CurlUrl, location) => {
        const url = run(() => resolveLocation(base, location), [CurlUrlError]);
        if (url) bounded('resolved URL', formatCurlUrl(url).length, location.length, 3, 64);
      }),
    ),
  );
});

test('fuzz: URL globs expand to at most 100,000 URLs, or fail with a CurlUrlError', () => {
  check(
    fc.property(
      nasty(URL_WORDS).map(bytes),
      guard((text) => {
        const urls = run(() => expandGlob(text), [CurlUrlError]);
        if (urls) assert.ok(urls.length <= 100_000, `${urls.length} URLs`);
      }),
    ),
  );
});

// ---- .http files -------------------------------------------------------------------------------

// biome-ignore format: a word list reads better on a few long lines
const HTTP_WORDS = [
  '\n', '\n', '\r\n', '###', '### title\n', 'GET ', 'POST ', 'DELETE ', 'GET http://h/', 'POST https://h:8443/x?a=1', '/path', 'http://h/{{a}}', ' HTTP/1.1', ' HTTP/2', ' HTTP/2 (Prior Knowledge)',
  'X: y\n', 'Content-Type: application/json\n', 'Host: h\n', ': x', '@a = 1\n', '@a=', '@b = {{a}}{{a}}\n', '{{a}}', '{{ a }}', '{{$uuid}}', '{{$randomInt 1 9}}', '{{$datetime "YYYY" 1 d}}', '{{$timestamp -1 y}}',
  '{{$processEnv HOME}}', '{{$dotenv X}}', '{{r.response.body.$.a}}', '{{r.response.body.$..*}}', '{{r.response.headers.X}}', '{{$.a[0]}}', '{{a + b}}', '# @name r\n', '// @name r\n', '# @no-redirect\n', '# @no-cookie-jar\n',
  '# @ref r\n', '# @timeout 5\n', '# @connection-timeout 2 m\n', '# @no-auto-encoding\n', '< ./f.json\n', '<@ ./f.txt\n', '> {%\n', 'client.test("t", () => {});\n', '%}\n', '> ./h.js\n', '>> out.json\n', '>>! out.json\n',
  '?? status == 200\n', '?? header content-type includes json\n', '?? body $.a exists\n', 'run #r\n', 'run ./other.http\n', 'run ./x.http (@a=2)\n', 'import ./x.http\n', '/*', '*/', '{"a": 1}\n', 'query { a }\n', 'GRAPHQL ',
  'WS ws://h/\n', 'GRPC h:50051/S/M\n', '--boundary\n', 'Content-Disposition: form-data; name="f"\n', '<> ./resp.json\n', '#', '//', 'HTTP/1.1 200 OK\n',
];
const SOURCE: Omit<SourceOptions, 'file'> & { curlOutput: typeof curlOutput } = { dir, cwd: dir, pid: process.pid, env: { HOME: dir }, warn: () => {}, debug: () => {}, curlOutput };
const oneLine = (s: string) => s.replace(/[\r\n]+/g, ' ');

/** Requests in the shape of a file (lines before, a request line, headers, a body), each part nasty: input that gets past the first line. */
const httpRequest = fc
  .tuple(
    fc.array(fc.oneof(fc.constantFrom('# @name r', '@a = 1', '@h = http://h', '# @no-redirect', '# @ref r', '< {%', 'client.global.set("x", 1)', '%}'), nasty(HTTP_WORDS, 4).map(oneLine)), {
      maxLength: 3,
    }),
    fc.constantFrom('GET', 'POST', 'get', 'PROPFIND', 'GRAPHQL', ''),
    fc.oneof(fc.constantFrom('http://h/', 'https://h:8443/x?a=1', '{{h}}/p', '/rel'), nasty(URL_WORDS, 6).map(oneLine)),
    fc.constantFrom('', ' HTTP/1.1', ' HTTP/2'),
    fc.array(
      fc.tuple(nasty(['X-A', 'Content-Type', 'Host', '{{a}}', '-'], 3), nasty(HTTP_WORDS, 4)).map(([n, v]) => oneLine(`${n}: ${v}`)),
      { maxLength: 4 },
    ),
    fc.array(nasty(HTTP_WORDS, 6), { maxLength: 4 }),
  )
  .map(([pre, method, url, version, headers, body]) => [...pre, `${method} ${url}${version}`, ...headers, '', ...body].join('\n'));
const httpText = fc.oneof(
  nasty(HTTP_WORDS, 40),
  fc.array(httpRequest, { minLength: 1, maxLength: 4 }).map((rs) => rs.join('\n###\n')),
);

test('fuzz: .http text parses, or fails with an HttpParseError at a place in the file', () => {
  check(
    fc.property(
      httpText,
      guard((text) => {
        let error: HttpParseError | undefined;
        const parsed = run(() => {
          try {
            return parseHttp(text);
          } catch (e) {
            if (e instanceof HttpParseError) error = e;
            throw e;
          }
        }, [HttpParseError]);
        const lines = text.split('\n').length;
        if (parsed) bounded('requests', parsed.items.length, lines, 1, 0);
        else assert.ok(error!.line >= 1 && error!.line <= lines && error!.col >= 1, `${error!.line}:${error!.col} of ${lines} lines`);
      }),
    ),
  );
});

test('fuzz: an .http file is read (never sent) into entries, or refused with a CliError', async () => {
  await check(
    fc.asyncProperty(
      httpText,
      guard(async (text) => {
        const script = await runAsync(() => parseHttpFile(text, { ...SOURCE, file: 'fuzz.http' }), [CliError]);
        if (script) bounded('entries', script.entries.length, text.split('\n').length, 1, 0);
      }),
    ),
    0.5,
  );
});

test('fuzz: JSONPath expressions are read or refused with a JsonPathError, on documents of any shape and width', () => {
  // biome-ignore format: a word list reads better on a few long lines
  const PATH_WORDS = ['$', '.', '..', '*', '[', ']', '[*]', '[0]', '[-1]', '[1:3]', '[::2]', '[0,1]', "['a']", '["a"]', 'a', 'b', '[?(@.a)]', '@', '(', ')', "'", '"', 'length', '__proto__', 'constructor'];
  // A wide document is shown in a failure report by its size, not its 200,000 items.
  const wide = fc
    .integer({ min: 0, max: 200_000 })
    .map((n) => Object.defineProperty({ a: Array.from({ length: n }, (_, i) => ({ b: i })), b: 'x' }, fc.toStringMethod, { value: () => `{a: [{b: 0}, ... ${n} items], b: 'x'}` }));
  const STEPS = ['.a', '.b', '.*', '[*]', '..*', '..b', '[0:]', '[::-1]', '[0,1]', '[-1]', "['a']", '[?(@.b)]', '[?(@.b > 2)]'];
  const valid = fc.array(fc.constantFrom(...STEPS), { minLength: 1, maxLength: 4 }).map((steps) => '$' + steps.join(''));
  check(
    fc.property(
      fc.oneof(fc.jsonValue(), wide),
      fc.oneof(valid, nasty(PATH_WORDS, 12)),
      guard((doc, path) => {
        const problem = run(() => jsonPathProblem(path));
        const found = run(() => jsonPath(doc, path), [JsonPathError]);
        assert.equal(problem === undefined, found !== undefined, `jsonPathProblem says ${problem}`);
      }),
    ),
    0.5,
  );
});

// ---- curl files --------------------------------------------------------------------------------

// biome-ignore format: a word list reads better on a few long lines
const CURL_WORDS = [
  'curl ', 'curl', ' ', ' ', '\\\n', '\n', '\r\n', ';', '&&', '||', '|', '&', '-d ', '--data ', '--data-raw ', '--data-binary ', '--data-urlencode ', '-H ', '-X ', 'POST ', '-F ', '-G ', '-u ', '-o ', '-O ', '-L ', '-s ', '-i ', '-I ',
  '-b ', '-c ', '-e ', '-T ', '--url ', '--json ', '-w ', '%{http_code}', '--next ', '-: ', '-g ', '--path-as-is ', '--proto-default https ', '--compressed ', '-v ', '--', '--no-', '-sSfL ', 'a=b', 'a@b', '@-', '@f',
  'http://h/', 'https://h:8443/p?q', 'h/x', '[1-3]', '{a,b}', '[a-z:2]', '[0-99999999]', '"', "'", "$'\\x41\\n'", "$'\\u00e9'", '$"x"', '$A', '${A}', '${A:-x}', '${A#a}', '${A/a/b}', '${#A}', '${A:1:2}', '$(echo x)', '`echo x`',
  '$((1+2))', '$1', '$@', '$?', 'A=x ', 'A=$A$A\n', 'export A=1\n', 'unset A\n', '<<EOF\n', '<<-EOF\n', "<<'EOF'\n", 'EOF\n', '<<<', '>', '>>', '2>&1', '< f', '#', 'set -e\n', 'set -o pipefail\n', 'cd /tmp\n', 'cd ..\n',
  'if ', 'then ', 'fi', 'for ', 'do ', 'done', 'while ', 'case ', 'esac', '{ ', ' }', '( ', ' )', 'function f ', 'f() ', '$ curl ', '> ', 'env -i ', 'sudo ', 'time ', 'echo ', 'true', 'exit 1', 'REM ', '^\n', 'set A=1\n', '%A%',
  'curl.exe ', 'ECHO OFF\n', '@echo off\n',
];
// biome-ignore format: a word list reads better on a few long lines
const CURL_OPTIONS = [
  '-d', '--data-raw', '--data-binary', '--data-urlencode', '-F', '--form-string', '-H', '-X', '-u', '-G', '--url-query', '-b', '-c', '-e', '-A', '--json', '-o', '-O', '-w', '-L', '--max-redirs', '--retry', '-m', '--connect-timeout',
  '--resolve', '--connect-to', '-x', '--proxy-user', '--compressed', '--http2', '--http1.0', '-k', '-r', '-C', '-z', '-I', '-i', '-s', '-f', '--fail-with-body', '-g', '--path-as-is', '--proto-default', '--url', '-T', '--oauth2-bearer',
  '--digest', '--next', '-:', '--create-dirs', '-D', '--limit-rate', '--noproxy', '--', '-sSfL', '-XPOST', '-HX:y', '--data=a',
];
const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
/** Commands in the shape of curl's (options, and arguments of any bytes quoted for the shell): input that reaches curl's own parser. */
const curlCommand = fc
  .array(
    fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...CURL_OPTIONS) }, { weight: 3, arbitrary: nasty(URL_WORDS, 6).map(shellQuote) }, { weight: 2, arbitrary: nasty(CURL_WORDS, 6).map(shellQuote) }),
    { maxLength: 10 },
  )
  .map((args) => ['curl', ...args].join(' '));
/** Not `-K`/`--config` (a config file; `-K -` reads standard input: the test would wait on it), and no device files (`cat /dev/zero`). */
const curlText = fc
  .oneof(
    nasty(CURL_WORDS, 40),
    fc.array(curlCommand, { minLength: 1, maxLength: 4 }).map((cs) => cs.join('\n')),
  )
  .filter((t) => !/K|--conf|\/dev|\/proc|\/sys/.test(t));

test('fuzz: the shell reader parses a curl file or fails with a ShellSyntaxError', () => {
  check(
    fc.property(
      curlText.map(bytes),
      guard((text) => {
        const items = run(() => parseShell(text), [ShellSyntaxError]);
        if (items) bounded('commands', items.length, text.length, 1, 1);
      }),
    ),
  );
});

test('fuzz: a curl file is read (never sent) into entries, or refused with a CliError', async () => {
  await check(
    fc.asyncProperty(
      curlText,
      guard(async (text) => {
        const script = await runAsync(() => parseCurlFile(text, { ...SOURCE, file: 'fuzz.curl' }), [CliError]);
        // A URL glob may make up to 100,000 transfers of one command; each command is an entry.
        if (script) bounded('entries', script.entries.length, text.length, 1, 1);
      }),
    ),
    0.5,
  );
});

// ---- JSON formatting ---------------------------------------------------------------------------

test('fuzz: formatJsonBytes formats JSON (the same value read back), returns null for anything else, or says NotFormatted', () => {
  // biome-ignore format: a word list reads better on a few long lines
  const JSON_WORDS = ['{', '}', '[', ']', ',', ':', ' ', '\n', '"', '"a"', '"\\u00e9"', '"\\ud83d\\ude00"', '\\', '1', '-1.5e+3', '01', 'true', 'null', 'false', ")]}',\n", 'while(1);', 'for(;;);', '\ufeff'];
  const text = fc.oneof(
    nasty(JSON_WORDS),
    fc.tuple(fc.constantFrom('', ' ', '\n\t', ")]}'\n", 'while(1);', '\ufeff'), fc.jsonValue(), fc.constantFrom(0, 2, '\t')).map(([pre, v, n]) => pre + JSON.stringify(v, null, n)),
  );
  const input = fc.oneof({ weight: 4, arbitrary: text.map((t) => Buffer.from(t, 'utf8')) }, { weight: 1, arbitrary: fc.uint8Array({ maxLength: 200 }).map((a) => Buffer.from(a)) });
  const format = fc.record({ indent: fc.constantFrom(0, 2, 4, 8), sorted: fc.boolean(), palette: fc.constantFrom(MONO, paletteFor('default')) });
  check(
    fc.property(
      input,
      format,
      guard((body, f) => {
        const out = run(() => formatJsonBytes(body, f), [NotFormatted]);
        if (out === undefined) return;
        // Formatting's own limit (json-format.ts): 16 times the body, three times that with colours, plus 1 MiB and a prefix line.
        if (out !== null) bounded('formatted JSON', out.length, body.length, f.palette === MONO ? 16 : 48, (1 << 20) + 32);
        const source = body.toString('utf8');
        // A body with a BOM or an anti-hijacking prefix is not JSON.parse's to judge.
        if (/^(\ufeff|\)\]\}'|while|for)/.test(source) || f.palette !== MONO) return;
        let expected: unknown;
        try {
          expected = JSON.parse(source);
        } catch {
          assert.equal(out, null, 'formatted what JSON.parse refuses');
          return;
        }
        assert.notEqual(out, null, 'refused what JSON.parse accepts');
        assert.deepEqual(JSON.parse(out!.toString('utf8')), expected);
      }),
    ),
  );
});

// ---- response heads ----------------------------------------------------------------------------

// biome-ignore format: a word list reads better on a few long lines
const HEAD_WORDS = ['HTTP/1.1 200 OK', 'HTTP/1.0 404 Not Found', 'HTTP/2 204', 'HTTP/1.1 999', 'HTTP/1.1  200', 'HTTP/3 200 x', 'Content-Length: ', 'content-length:', 'X: y', 'Set-Cookie: a=b', ' folded', '\tfolded', ':', ': x', 'Name', '2', '2, 2', '2, 5', ' 7 ', '-1', '0x10', '99999999999999999999', '9007199254740993', '1e3', '\r\n', '\n'];

test('fuzz: response heads parse into names and values from the text, or fail with a NetworkError; Content-Length is a safe integer or refused', () => {
  const LENGTHS = ['0', '2', '2, 2', '2, 5', ' 7 ', '-1', '0x10', '1e3', '9007199254740991', '9007199254740993, 9007199254740992', '99999999999999999999', '1'.repeat(400), ''];
  const length = fc.tuple(fc.constantFrom('Content-Length', 'content-length', 'CONTENT-LENGTH '), fc.oneof(fc.constantFrom(...LENGTHS), nasty(LENGTHS, 3))).map(([n, v]) => `${n}: ${v}`);
  const line = fc.oneof(nasty(HEAD_WORDS, 8), length);
  const head = fc
    .tuple(fc.constantFrom('HTTP/1.1 200 OK', 'HTTP/2 302', ''), fc.array(line, { maxLength: 12 }), fc.constantFrom('\n', '\r\n'))
    .map(([status, lines, eol]) => bytes([status + (lines[0] ?? ''), ...lines.slice(1)].join(eol)));
  check(
    fc.property(
      fc.oneof(head, nasty(HEAD_WORDS).map(bytes)),
      guard((text) => {
        const parsed = run(() => parseResponseHead(text, 'h'), [CliError]);
        if (!parsed) return;
        assert.equal(parsed.rawHeaders.length % 2, 0);
        assert.ok(parsed.status >= 0 && parsed.status <= 999 && /^\d\.\d$/.test(parsed.httpVersion), `${parsed.httpVersion} ${parsed.status}`);
        bounded(
          'head',
          parsed.rawHeaders.reduce((n, s) => n + s.length, parsed.reason.length),
          text.length,
          1,
          0,
        );
        const length = run(() => contentLength(parsed.rawHeaders, 'h'), [CliError]);
        if (length !== undefined) assert.ok(Number.isSafeInteger(length) && length >= 0, `Content-Length ${length}: not a whole number of bytes JavaScript holds exactly`);
      }),
    ),
  );
});

// ---- cookies -----------------------------------------------------------------------------------

test('fuzz: Set-Cookie values are stored for their host or rejected, never thrown; the jar writes and reads its file', async () => {
  await loadPublicSuffixes();
  // biome-ignore format: a word list reads better on a few long lines
  const COOKIE_WORDS = ['a=b', 'n=v', '=', ';', '; ', '; Domain=', 'example.org', '.example.org', 'sub.example.org', 'org', 'other.org', '127.0.0.1', '; Path=', '/', '/a', '; Max-Age=', '0', '-1', '9'.repeat(400), '99999999999', '; Expires=', 'Wed, 21 Oct 2015 07:28:00 GMT', 'Fri, 31 Dec 9999 23:59:59 GMT', '; Secure', '; HttpOnly', '; SameSite=Lax', '"x"', '__Host-', '\t', '#HttpOnly_', 'TRUE', 'FALSE'];
  const urls: ParsedUrl[] = ['http://example.org/a/b', 'https://sub.example.org/', 'http://127.0.0.1:8080/x', 'http://[::1]/', 'https://localhost/p/q/'].map((u) => parseUrl(u));
  check(
    fc.property(
      fc.array(nasty(COOKIE_WORDS, 16), { minLength: 1, maxLength: 4 }),
      fc.constantFrom(...urls),
      nasty(COOKIE_WORDS),
      guard((headers, url, file) => {
        const jar = new CookieJar();
        for (const header of headers) {
          const cookie = run(() => jar.setCookie(header, url, 1_700_000_000_000));
          if (!cookie) continue;
          assert.ok(cookie.name !== '' && header.includes(cookie.name) && header.includes(cookie.value), JSON.stringify(cookie));
          assert.ok(domainMatches(url.hostname, cookie.domain), `${cookie.domain} for ${url.hostname}`);
          assert.ok(cookie.hostOnly || /^[\d.]+$/.test(cookie.domain) || !isPublicSuffix(cookie.domain), `a cookie for the public suffix ${cookie.domain}`);
          assert.doesNotMatch(cookie.name + cookie.value, /[\x00-\x08\x0a-\x1f\x7f]/, 'a control character goes back in the Cookie header');
        }
        const sent = run(() => jar.cookieHeader(url, 1_700_000_000_000));
        if (sent !== undefined) bounded('Cookie header', sent.length, headers.join('').length, 2, 0);
        run(() => CookieJar.fromNetscape(jar.toNetscape()).all());
        run(() => CookieJar.fromNetscape(file).toNetscape());
      }),
    ),
  );
});

// ---- download names ----------------------------------------------------------------------------

const NOT_IN_NAMES = new RegExp(`[/\\\\<>:"|?*\\x00-\\x1f\\x7f-\\x9f${BIDI}]`);
/** A name a download may take: a bare, visible file name (filename.ts). */
function assertSafeName(name: string) {
  assert.ok(name !== '' && Buffer.byteLength(name) <= 255, `${JSON.stringify(name)}: empty or more than 255 bytes`);
  assert.doesNotMatch(name, NOT_IN_NAMES);
  assert.doesNotMatch(name, /^[.\s]|[.\s]$/, 'starts or ends with a dot or a blank');
  assert.doesNotMatch(name.split('.')[0]!, /^(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³])$/i, 'a reserved device name');
}

test('fuzz: Content-Disposition and URL paths give a safe download name, whatever they hold; sanitizing twice changes nothing', () => {
  // biome-ignore format: a word list reads better on a few long lines
  const CD_WORDS = ['attachment', 'inline', ';', '; ', 'filename=', 'filename*=', 'FILENAME = ', "UTF-8''", "utf-8'en'", "iso-8859-1''", "x''", '%E2%82%AC', '%2F', '%5C', '%00', '%C0%AE', '%ff', '"', '\\"', '../', '..\\', '.', '...', 'CON', 'com1', 'Nul.txt', '.txt', '.tar.gz', 'a.b', ' ', '\u202e', '\u061c', 'é'];
  const types = fc.constantFrom(undefined, 'application/json', 'text/html; charset=utf-8', 'image/svg+xml', '', ';', 'APPLICATION/PDF');
  check(
    fc.property(
      nasty(CD_WORDS),
      nasty([...CD_WORDS, ...URL_WORDS]),
      types,
      guard((cd, urlPath, type) => {
        const proposed = run(() => nameFromContentDisposition(cd));
        if (proposed !== undefined) bounded('proposed name', proposed.length, cd.length, 1, 0);
        for (const raw of [cd, urlPath, proposed ?? '']) {
          const safe = run(() => sanitizeFileName(raw));
          if (safe === undefined) continue;
          assertSafeName(safe);
          assert.equal(
            run(() => sanitizeFileName(safe)),
            safe,
            'sanitizing a safe name changed it',
          );
        }
        assertSafeName(run(() => chooseFileName(cd, urlPath, type))!);
      }),
    ),
  );
});
