import { createHash } from 'node:crypto';
import { checkNesting } from '../../nesting.js';
import type { Completed } from '../../model/exec.js';
import { formatUrl } from '../../model/url.js';
import type { ParsedAssert } from './asserts.js';

/**
 * Checks one httpyac assertion against a response (loaded with the first request that has one).
 * What httpyac does, as its documentation and behaviour describe it:
 * - the field: `status` (a number), `header NAME` (its value; several values make a list),
 *   `body` (the body as text), `body PATH` (`(parsedBody || body).PATH`), `js EXPR` (an expression
 *   over `response`), `duration [firstByte|tcp|download]` (milliseconds, total by default),
 *   `xpath EXPR` (over the XML body: no node is undefined, one its text, several a list of texts);
 * - the expected text is converted to the type of the value found (a number, true/false, null,
 *   JSON for an object or a list) except for `matches` and the hashes;
 * - `exists`/`isTrue` mean truthy, `isFalse` falsy; `<`, `>`, ... compare numbers; `includes`,
 *   `startsWith`, `endsWith` compare text (`includes` on a list looks for an element); the hashes
 *   are base64 digests of the body (or of the value's text).
 * One deliberate difference: `!=` is the opposite of `==` for objects and lists too (httpyac compares
 * them by identity, so `!=` always holds).
 * Expressions run in the script process (expressionOf), in a fresh node:vm context that holds
 * nothing but a JSON copy of the response.
 */
export function checkAssert(a: ParsedAssert, expectedText: string, done: Completed, evaluated?: Evaluated): { name: string; failure: string | null } {
  const name = `${a.value || a.field} ${a.spelled} ${expectedText}`.trim();
  let value: unknown;
  try {
    value = fieldValue(a, done, evaluated);
  } catch (e) {
    return { name, failure: (e as Error).message };
  }
  const raw = a.predicate === 'matches' || a.predicate === 'md5' || a.predicate === 'sha256' || a.predicate === 'sha512';
  const expected = raw ? expectedText : convert(value, expectedText);
  let ok: boolean;
  try {
    ok = holds(a, value, expected, done);
  } catch (e) {
    return { name, failure: (e as Error).message };
  }
  return { name, failure: ok ? null : `got ${show(value)}` };
}

/** What the script process made of an assertion's expression (src/sources/http/script.ts): its value as JSON, or why not. */
export interface Evaluated {
  json?: string;
  error?: string;
}

/**
 * The JavaScript an assertion runs (`js EXPR`, `body PATH`), or undefined. It runs in the script
 * process (ScriptHost.evaluate: its memory limit, 1 s), in a fresh context holding nothing but
 * `response`, a JSON copy of evaluationInput().
 */
export function expressionOf(a: ParsedAssert, namespaces?: Record<string, string>): string | undefined {
  if (a.field === 'js') return a.value;
  // XPath 1.0 over the body as an XML document (engine/xml.ts, inside the engine): httpyac's value,
  // undefined for no node, a node's text, a list of texts for several, or a number, string, boolean.
  if (a.field === 'xpath') return `__expr_xpath(response.body, ${JSON.stringify(a.value)}, ${JSON.stringify(namespaces ?? {})})`;
  if (a.field === 'body' && a.value) return `(response.parsedBody || response.body)${/^[[(]/.test(a.value) ? '' : '.'}${a.value}`;
  return undefined;
}

/** The response as an expression sees it, as JSON. */
export function evaluationInput(done: Completed): string {
  return JSON.stringify(responseData(done));
}

function fieldValue(a: ParsedAssert, done: Completed, evaluated?: Evaluated): unknown {
  switch (a.field) {
    case 'status':
      return done.response.status;
    case 'header':
      return headerMap(done.response.rawHeaders)[a.value.toLowerCase()];
    case 'duration': {
      const t = done.info.timings;
      const since = (from: number | undefined, to: number | undefined) => (from === undefined || to === undefined ? undefined : Math.round(to - from));
      switch (a.value) {
        case 'firstByte':
          return since(t.start, t.firstByte);
        case 'tcp':
          return since(t.start, t.connect);
        case 'download':
          return since(t.firstByte, t.end);
        default:
          return since(t.start, t.end);
      }
    }
    case 'body':
      if (!a.value) return done.body.toString('utf8');
      return result(evaluated);
    case 'js':
    case 'xpath':
      return result(evaluated);
  }
}

function result(evaluated: Evaluated | undefined): unknown {
  if (!evaluated) throw new Error('the expression was not run');
  if (evaluated.error !== undefined) throw new Error(evaluated.error);
  return evaluated.json === undefined ? undefined : JSON.parse(evaluated.json);
}

/** Headers by lower-case name; a header sent several times gives a list of its values. */
function headerMap(raw: string[]): Record<string, string | string[]> {
  const headers: Record<string, string | string[]> = Object.create(null);
  for (let i = 0; i < raw.length; i += 2) {
    const k = raw[i]!.toLowerCase();
    const had = headers[k];
    headers[k] = had === undefined ? raw[i + 1]! : Array.isArray(had) ? [...had, raw[i + 1]!] : [had, raw[i + 1]!];
  }
  return headers;
}

/** The response as httpyac's scripts see it, plain data only. */
export function responseData(done: Completed) {
  const headers = headerMap(done.response.rawHeaders);
  const type = typeof headers['content-type'] === 'string' ? (headers['content-type'] as string) : '';
  const body = done.body.toString('utf8');
  let parsedBody: unknown;
  if (/json/i.test(type)) {
    try {
      parsedBody = JSON.parse(body);
    } catch {
      // not JSON after all: parsedBody stays undefined, as in httpyac
    }
    checkNesting(parsedBody);
  }
  const t = done.info.timings;
  return {
    statusCode: done.response.status,
    statusMessage: done.response.reason,
    httpVersion: done.response.httpVersion,
    headers,
    contentType: { mimeType: type.split(';')[0]!.trim(), charset: /charset=([^;]+)/i.exec(type)?.[1]?.trim() },
    body,
    parsedBody,
    timings: { total: t.end === undefined ? undefined : Math.round(t.end - t.start) },
    request: { method: done.request.method, url: formatUrl(done.url), headers: Object.fromEntries(done.request.headers) },
  };
}

/** The expected text as a value of the type found (httpyac's conversion). */
function convert(value: unknown, text: string): unknown {
  if (text === '') return text;
  if (typeof value === 'number') return Number(text);
  if (typeof value === 'boolean') return /^true$/i.test(text) ? true : /^false$/i.test(text) ? false : Boolean(text);
  if (typeof value === 'string') return text;
  if (value === null && text === 'null') return null;
  if (value === undefined && text === 'undefined') return undefined;
  if (typeof value === 'object' && value !== null) {
    try {
      return JSON.parse(text);
    } catch {
      return text;
    }
  }
  return text;
}

const asText = (v: unknown): string => (v === undefined || v === null ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v));
const asNumber = (v: unknown): number | undefined => {
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
  return Number.isNaN(n) ? undefined : n;
};

function equal(value: unknown, expected: unknown): boolean {
  if (typeof value === 'object' && value !== null) return JSON.stringify(value) === JSON.stringify(expected);
  return value === expected;
}

function holds(a: ParsedAssert, value: unknown, expected: unknown, done: Completed): boolean {
  switch (a.predicate) {
    case '==':
      return equal(value, expected);
    case '!=':
      return !equal(value, expected);
    case '>':
    case '>=':
    case '<':
    case '<=': {
      const v = asNumber(value);
      const e = asNumber(expected);
      if (v === undefined || e === undefined) return false;
      return a.predicate === '>' ? v > e : a.predicate === '>=' ? v >= e : a.predicate === '<' ? v < e : v <= e;
    }
    case 'startsWith':
    case 'endsWith': {
      const v = asText(value);
      const e = asText(expected);
      return v !== '' && e !== '' && (a.predicate === 'startsWith' ? v.startsWith(e) : v.endsWith(e));
    }
    case 'includes':
      if (Array.isArray(value)) return value.some((x) => equal(x, expected) || asText(x) === asText(expected));
      return asText(expected) !== '' && asText(value).includes(asText(expected));
    case 'exists':
      return Boolean(value);
    case 'isFalse':
      return !value;
    case 'isNumber':
      return typeof value === 'number';
    case 'isString':
      return typeof value === 'string';
    case 'isBoolean':
      return typeof value === 'boolean';
    case 'isArray':
      return Array.isArray(value);
    case 'matches': {
      let re: RegExp;
      try {
        re = new RegExp(String(expected), 'u');
      } catch (e) {
        throw new Error(`'${String(expected)}' is not a regular expression: ${(e as Error).message}`);
      }
      const v = asText(value);
      return v !== '' && re.test(v);
    }
    case 'md5':
    case 'sha256':
    case 'sha512': {
      // The body's own bytes when the field is the whole body, else the value's text.
      const bytes = a.field === 'body' && !a.value ? done.body : Buffer.from(asText(value), 'utf8');
      return createHash(a.predicate).update(bytes).digest('base64') === expected;
    }
  }
}

function show(v: unknown): string {
  if (v === undefined) return 'nothing';
  const text = typeof v === 'number' || typeof v === 'boolean' || v === null ? String(v) : JSON.stringify(v);
  return text.length > 200 ? text.slice(0, 197) + '...' : text;
}
