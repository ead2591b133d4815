import { MAX_NESTING, NestingError } from '../nesting.js';
/**
 * A JSON value that keeps what JavaScript objects lose: integers of any size, numbers written the
 * way Python writes them (`1.0` stays `1.0`, `1e3` becomes `1000.0`), key order for keys that look
 * like integers, and duplicate keys (`{"a": 1, "a": 2}` is sent as written, as HTTPie does: how a
 * server takes them is a thing people test). Raw JSON items (`:=`) are parsed into it, nested paths
 * build it, and it serialises the way HTTPie does (`{"a": 1}`, non-ASCII escaped), so a server
 * receives the same bytes from sling and HTTPie.
 */
export type JsonValue =
  /** `m` holds each key's last value; `dup`, only when a key came twice, every pair in order. */
  | { t: 'obj'; m: Map<string, JsonValue>; dup?: [string, JsonValue][] }
  | { t: 'arr'; a: (JsonValue | undefined)[] }
  | { t: 'str'; v: string }
  | { t: 'num'; raw: string }
  | { t: 'bool'; v: boolean }
  | { t: 'null' };

export const jsonString = (v: string): JsonValue => ({ t: 'str', v });
export const jsonNull: JsonValue = { t: 'null' };

export class JsonSyntaxError extends Error {
  constructor(
    message: string,
    readonly offset: number,
  ) {
    super(message);
  }
}

/** Parses JSON text strictly (RFC 8259), keeping number text. Throws JsonSyntaxError with an offset. */
export function parseJson(text: string): JsonValue {
  let i = 0;
  const fail = (what: string): never => {
    throw new JsonSyntaxError(i >= text.length ? `unexpected end of input (${what})` : `${what} at position ${i + 1}`, i);
  };
  const ws = () => {
    while (i < text.length) {
      const c = text.charCodeAt(i);
      if (c === 32 || c === 9 || c === 10 || c === 13) i++;
      else break;
    }
  };
  /** `depth`: the arrays and objects around this value (at most MAX_NESTING, nesting.ts). */
  const value = (depth = 0): JsonValue => {
    ws();
    const c = text[i];
    if (c === '{') {
      if (depth >= MAX_NESTING) throw new NestingError();
      i++;
      const m = new Map<string, JsonValue>();
      const pairs: [string, JsonValue][] = [];
      let twice = false;
      ws();
      if (text[i] === '}') {
        i++;
        return { t: 'obj', m };
      }
      for (;;) {
        ws();
        if (text[i] !== '"') fail('expected a string key');
        const k = str();
        ws();
        if (text[i] !== ':') fail("expected ':'");
        i++;
        const v = value(depth + 1);
        if (m.has(k)) twice = true;
        m.set(k, v);
        pairs.push([k, v]);
        ws();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] === '}') {
          i++;
          return twice ? { t: 'obj', m, dup: pairs } : { t: 'obj', m };
        }
        fail("expected ',' or '}'");
      }
    }
    if (c === '[') {
      if (depth >= MAX_NESTING) throw new NestingError();
      i++;
      const a: JsonValue[] = [];
      ws();
      if (text[i] === ']') {
        i++;
        return { t: 'arr', a };
      }
      for (;;) {
        a.push(value(depth + 1));
        ws();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] === ']') {
          i++;
          return { t: 'arr', a };
        }
        fail("expected ',' or ']'");
      }
    }
    if (c === '"') return { t: 'str', v: str() };
    if (text.startsWith('true', i)) {
      i += 4;
      return { t: 'bool', v: true };
    }
    if (text.startsWith('false', i)) {
      i += 5;
      return { t: 'bool', v: false };
    }
    if (text.startsWith('null', i)) {
      i += 4;
      return jsonNull;
    }
    const m = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
    m.lastIndex = i;
    const r = m.exec(text);
    if (r && r[0].length > 0 && r[0] !== '-') {
      i += r[0].length;
      return { t: 'num', raw: pythonNumber(r[0]) };
    }
    return fail('expected a JSON value');
  };
  const str = (): string => {
    i++; // opening quote
    let out = '';
    for (;;) {
      if (i >= text.length) fail('unterminated string');
      const ch = text[i]!;
      const code = ch.charCodeAt(0);
      if (ch === '"') {
        i++;
        return out;
      }
      if (code < 0x20) fail('control character in string');
      if (ch === '\\') {
        const e = text[i + 1];
        const map: Record<string, string> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };
        if (e !== undefined && e in map) {
          out += map[e];
          i += 2;
        } else if (e === 'u' && /^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) {
          out += String.fromCharCode(parseInt(text.slice(i + 2, i + 6), 16));
          i += 6;
        } else {
          i++;
          fail('invalid escape in string');
        }
      } else {
        out += ch;
        i++;
      }
    }
  };
  const v = value();
  ws();
  if (i < text.length) fail('unexpected text after the JSON value');
  return v;
}

/**
 * A JSON number as HTTPie sends it: Python parses it (an int of any size, or a float) and writes it
 * back. Integers keep their digits (`-0` is `0`); floats get Python's repr: the shortest digits
 * that read back to the same double, fixed notation with at least one decimal for exponents -4 to
 * 15 (`1000.0`, `0.0001`), else `1e+16`, `1e-05`, `1.2345678901234568e+17`. A float too big for a
 * double keeps its text: Python would send `Infinity`, which is not JSON.
 */
export function pythonNumber(text: string): string {
  if (!/[.eE]/.test(text)) return text === '-0' ? '0' : text;
  const x = Number(text);
  if (!Number.isFinite(x)) return text;
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0';
  const sign = x < 0 ? '-' : '';
  // toExponential() without an argument gives the shortest digits that identify the double.
  const [mant, exp] = Math.abs(x).toExponential().split('e') as [string, string];
  const digits = mant.replace('.', '');
  const point = Number(exp) + 1; // where the decimal point goes, counted from the first digit
  if (point > -4 && point <= 16) {
    if (point <= 0) return `${sign}0.${'0'.repeat(-point)}${digits}`;
    if (point >= digits.length) return `${sign}${digits}${'0'.repeat(point - digits.length)}.0`;
    return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
  }
  const e = point - 1;
  const m = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
  return `${sign}${m}e${e < 0 ? '-' : '+'}${String(Math.abs(e)).padStart(2, '0')}`;
}

function quote(s: string, asciiOnly: boolean): string {
  let out = '"';
  for (let k = 0; k < s.length; k++) {
    const c = s.charCodeAt(k);
    if (c === 0x22) out += '\\"';
    else if (c === 0x5c) out += '\\\\';
    else if (c === 0x0a) out += '\\n';
    else if (c === 0x0d) out += '\\r';
    else if (c === 0x09) out += '\\t';
    else if (c === 0x08) out += '\\b';
    else if (c === 0x0c) out += '\\f';
    else if (c < 0x20 || (asciiOnly && c > 0x7e)) out += '\\u' + c.toString(16).padStart(4, '0');
    else out += s[k];
  }
  return out + '"';
}

/** Serialises like Python's json.dumps with default settings: `, ` and `: `, non-ASCII as \uXXXX. */
export function stringifyJson(v: JsonValue | undefined, asciiOnly = true): string {
  if (v === undefined) return 'null';
  switch (v.t) {
    case 'obj': {
      const parts: string[] = [];
      for (const [k, x] of v.dup ?? v.m) parts.push(quote(k, asciiOnly) + ': ' + stringifyJson(x, asciiOnly));
      return '{' + parts.join(', ') + '}';
    }
    case 'arr':
      return '[' + v.a.map((x) => stringifyJson(x, asciiOnly)).join(', ') + ']';
    case 'str':
      return quote(v.v, asciiOnly);
    case 'num':
      return v.raw;
    case 'bool':
      return v.v ? 'true' : 'false';
    case 'null':
      return 'null';
  }
}

/**
 * Sets key `k` of object `o`: a key that came twice in the JSON text has its last pair replaced, as
 * a lookup finds that one; a new key goes last.
 */
export function setKey(o: Extract<JsonValue, { t: 'obj' }>, k: string, v: JsonValue) {
  if (o.dup) {
    let at = -1;
    for (let n = o.dup.length - 1; n >= 0 && at === -1; n--) if (o.dup[n]![0] === k) at = n;
    if (at === -1) o.dup.push([k, v]);
    else o.dup[at] = [k, v];
  }
  o.m.set(k, v);
}

/** The text a value becomes in a form field (Python's str() of the parsed value, for scalars). */
export function formText(v: JsonValue): string | null {
  switch (v.t) {
    case 'str':
      return v.v;
    case 'num':
      return v.raw;
    case 'bool':
      return v.v ? 'True' : 'False';
    case 'null':
      return 'None';
    default:
      return null;
  }
}
