/**
 * Settings files read as data, never run: JSON with comments and trailing commas (JSONC, which
 * IntelliJ and VS Code accept in their JSON files), and a JavaScript module whose export is a plain
 * object literal (httpyac's `httpyac.config.js`: `module.exports = { environments: {...} }`). The
 * JavaScript reader knows literals only (objects, arrays, strings, numbers, true, false, null,
 * comments): a call, a name, a spread, a template with `${`, `require` or anything else is
 * refused with its place, so nothing in the file is ever evaluated.
 */

/** A place in the text and what is wrong there. */
export class LiteralError extends Error {
  constructor(
    message: string,
    readonly offset: number,
  ) {
    super(message);
  }
}

/** `LINE:COL` (1-based) of an offset into the text. */
export function lineCol(text: string, offset: number): string {
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  return `${line}:${offset - (before.lastIndexOf('\n') + 1) + 1}`;
}

/**
 * JSONC → JSON of the same length: each comment (`//` to the end of the line, `/* *\/`) and each
 * comma before a `}` or `]` becomes blanks (line breaks kept), so JSON.parse's offsets still point
 * into the original text. Strings are left as they are.
 */
export function stripJsonc(text: string): string {
  const out = text.split('');
  let lastComma = -1;
  const blank = (from: number, to: number) => {
    for (let k = from; k < to; k++) if (out[k] !== '\n' && out[k] !== '\r') out[k] = ' ';
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '"') {
      lastComma = -1;
      for (i++; i < text.length && text[i] !== '"'; i++) if (text[i] === '\\') i++;
    } else if (c === '/' && text[i + 1] === '/') {
      const end = text.indexOf('\n', i);
      const stop = end === -1 ? text.length : end;
      blank(i, stop);
      i = stop - 1;
    } else if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      const stop = end === -1 ? text.length : end + 2;
      blank(i, stop);
      i = stop - 1;
    } else if (c === ',') lastComma = i;
    else if (c === '}' || c === ']') {
      if (lastComma !== -1) out[lastComma] = ' ';
      lastComma = -1;
    } else if (!/\s/.test(c)) lastComma = -1;
  }
  return out.join('');
}

/**
 * The object a JavaScript module exports, read as a literal: `module.exports = {...}` or
 * `export default {...}` (after comments and an optional `'use strict';`), and nothing after it
 * but `;` and comments. Throws a LiteralError at the first thing that is not a literal.
 */
export function readModuleObject(text: string): Record<string, unknown> {
  const r = new Reader(text);
  r.space();
  if (r.word("'use strict'") || r.word('"use strict"')) {
    r.space();
    r.word(';');
    r.space();
  }
  const head = /^(?:module\s*\.\s*exports\s*=|export\s+default\b)/.exec(text.slice(r.i));
  if (!head) throw new LiteralError('expected `module.exports = {` or `export default {`', r.i);
  r.i += head[0].length;
  r.space();
  if (text[r.i] !== '{') throw new LiteralError('the export is not an object literal', r.i);
  const value = r.value(0) as Record<string, unknown>;
  r.space();
  if (text[r.i] === ';') r.i++;
  r.space();
  if (r.i < text.length) throw new LiteralError('more code after the exported object', r.i);
  return value;
}

/** Nesting past this is refused (a literal this deep is no settings file). */
const MAX_DEPTH = 100;

class Reader {
  i = 0;
  constructor(private readonly t: string) {}

  word(w: string): boolean {
    if (!this.t.startsWith(w, this.i)) return false;
    this.i += w.length;
    return true;
  }

  /** Blanks and comments. */
  space(): void {
    const t = this.t;
    for (;;) {
      while (this.i < t.length && /\s/.test(t[this.i]!)) this.i++;
      if (t.startsWith('//', this.i)) {
        const end = t.indexOf('\n', this.i);
        this.i = end === -1 ? t.length : end;
      } else if (t.startsWith('/*', this.i)) {
        const end = t.indexOf('*/', this.i + 2);
        if (end === -1) throw new LiteralError('a comment that is not closed', this.i);
        this.i = end + 2;
      } else return;
    }
  }

  value(depth: number): unknown {
    if (depth > MAX_DEPTH) throw new LiteralError(`nested deeper than ${MAX_DEPTH} levels`, this.i);
    this.space();
    const t = this.t;
    const c = t[this.i];
    if (c === '{') return this.object(depth);
    if (c === '[') return this.array(depth);
    if (c === '"' || c === "'" || c === '`') return this.string();
    const num = /^[-+]?(?:0[xX][0-9a-fA-F]+|(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)/.exec(t.slice(this.i, this.i + 400));
    if (num) {
      this.i += num[0].length;
      return Number(num[0]);
    }
    for (const [w, v] of [
      ['true', true],
      ['false', false],
      ['null', null],
    ] as const) {
      if (t.startsWith(w, this.i) && !/[\w$]/.test(t[this.i + w.length] ?? '')) {
        this.i += w.length;
        return v;
      }
    }
    throw new LiteralError(this.i >= t.length ? 'the text ends inside the object' : `${describe(t, this.i)} is not a literal (sling reads the file as data and runs nothing)`, this.i);
  }

  private object(depth: number): Record<string, unknown> {
    const t = this.t;
    this.i++;
    const out: Record<string, unknown> = {};
    for (;;) {
      this.space();
      if (t[this.i] === '}') {
        this.i++;
        return out;
      }
      let key: string;
      const c = t[this.i];
      if (c === '"' || c === "'") key = this.string();
      else {
        const m = /^[A-Za-z_$][\w$]*|^\d+/.exec(t.slice(this.i, this.i + 1000));
        if (!m) throw new LiteralError(`${describe(t, this.i)} is not a property name`, this.i);
        key = m[0];
        this.i += key.length;
      }
      this.space();
      if (t[this.i] !== ':') throw new LiteralError(`the property '${key}' is not 'name: value' (sling reads the file as data and runs nothing)`, this.i);
      this.i++;
      const v = this.value(depth + 1);
      // A key like __proto__ stays an own property, never the prototype.
      Object.defineProperty(out, key, { value: v, enumerable: true, writable: true, configurable: true });
      this.space();
      if (t[this.i] === ',') this.i++;
      else if (t[this.i] !== '}') throw new LiteralError(`expected ',' or '}' after the value of '${key}'`, this.i);
    }
  }

  private array(depth: number): unknown[] {
    const t = this.t;
    this.i++;
    const out: unknown[] = [];
    for (;;) {
      this.space();
      if (t[this.i] === ']') {
        this.i++;
        return out;
      }
      out.push(this.value(depth + 1));
      this.space();
      if (t[this.i] === ',') this.i++;
      else if (t[this.i] !== ']') throw new LiteralError("expected ',' or ']' in an array", this.i);
    }
  }

  private string(): string {
    const t = this.t;
    const q = t[this.i]!;
    const start = this.i;
    let out = '';
    for (this.i++; this.i < t.length; this.i++) {
      const c = t[this.i]!;
      if (c === q) {
        this.i++;
        return out;
      }
      if (q === '`' && c === '$' && t[this.i + 1] === '{') throw new LiteralError('a template with ${...} is code, not a literal (sling runs nothing)', this.i);
      if (q !== '`' && c === '\n') break;
      if (c !== '\\') {
        out += c;
        continue;
      }
      const e = t[++this.i];
      if (e === undefined) break;
      const simple: Record<string, string> = { n: '\n', t: '\t', r: '\r', b: '\b', f: '\f', v: '\v', '0': '\0' };
      if (e in simple) out += simple[e];
      else if (e === 'u' || e === 'x') {
        const m = e === 'x' ? /^[0-9a-fA-F]{2}/.exec(t.slice(this.i + 1, this.i + 3)) : /^(?:[0-9a-fA-F]{4}|\{[0-9a-fA-F]{1,6}\})/.exec(t.slice(this.i + 1, this.i + 9));
        if (!m) throw new LiteralError(`a bad \\${e} escape`, this.i - 1);
        const code = Number.parseInt(m[0].replace(/[{}]/g, ''), 16);
        if (code > 0x10ffff) throw new LiteralError('a bad \\u escape', this.i - 1);
        out += String.fromCodePoint(code);
        this.i += m[0].length;
      } else if (e === '\r' || e === '\n') {
        if (e === '\r' && t[this.i + 1] === '\n') this.i++;
      } else out += e;
    }
    throw new LiteralError('a string that is not closed', start);
  }
}

/** A few characters of what stands at the offset, for a message. */
function describe(t: string, at: number): string {
  const word = /^[^\s,:;{}[\]()]{1,30}/.exec(t.slice(at, at + 30));
  return `'${word ? word[0] : t[at]}'`;
}
