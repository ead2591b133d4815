import { MAX_NESTING } from '../nesting.js';
import type { Palette } from './palette.js';

/**
 * JSON indentation and colouring without changing a single value: strings (escapes included),
 * numbers (`1.0`, `1e3`, `-0`, big integers) and key order are copied byte for byte from the
 * body; only whitespace changes. It works on bytes (UTF-8, as JSON is), in one pass with a
 * validating scanner and an explicit stack, writing into one growing buffer: no JSON.parse, no
 * string per token, so a 13 MB document formats in a fraction of a second. Text that is not JSON
 * returns null and the caller shows it as it came. `sorted` sorts object keys by their decoded
 * value, as Python's sort_keys does.
 */
export interface JsonFormat {
  indent: number;
  sorted: boolean;
  palette: Palette;
}

type Kind = 0 | 1 | 2; // string, number, literal

interface Visitor {
  open(kind: number): void; // 123 '{' or 91 '['
  close(kind: number, empty: boolean): void; // 125 '}' or 93 ']'
  key(start: number, end: number): void;
  value(start: number, end: number, kind: Kind): void;
  comma(): void;
}

class Invalid extends Error {}

/**
 * Valid JSON that is not formatted, with the reason (the printer shows the body as it came, and
 * says so): nested deeper than MAX_NESTING levels, or indentation that would make the output more
 * than OUTPUT_FACTOR times the body (each level adds its indentation to every line below it, so a
 * body nested 20,000 deep would format to gigabytes). Memory stays proportional to the body.
 */
export class NotFormatted extends Error {}

/** The formatted output may be this many times the body (plus 1 MiB): ordinary JSON is 1.5-4x. */
const OUTPUT_FACTOR = 16;

function isWs(c: number) {
  return c === 32 || c === 10 || c === 13 || c === 9;
}
function isHex(c: number) {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102);
}

/** Validates `b` (from `start`) as one JSON value and reports its tokens in order. */
function scan(b: Uint8Array, v: Visitor, start: number): void {
  let i = start;
  const n = b.length;
  const skip = () => {
    while (i < n && isWs(b[i]!)) i++;
  };
  const str = (): number => {
    i++;
    for (;;) {
      if (i >= n) throw new Invalid();
      const c = b[i]!;
      if (c === 34) return ++i;
      if (c === 92) {
        const e = b[i + 1];
        if (e === 117) {
          if (!(isHex(b[i + 2]!) && isHex(b[i + 3]!) && isHex(b[i + 4]!) && isHex(b[i + 5]!))) throw new Invalid();
          i += 6;
        } else if (e === 34 || e === 92 || e === 47 || e === 98 || e === 102 || e === 110 || e === 114 || e === 116) i += 2;
        else throw new Invalid();
      } else if (c < 32) throw new Invalid();
      else i++;
    }
  };
  const digits = () => {
    const from = i;
    while (i < n && b[i]! >= 48 && b[i]! <= 57) i++;
    return i - from;
  };
  const number = () => {
    if (b[i] === 45) i++;
    if (b[i] === 48) i++;
    else if (digits() === 0) throw new Invalid();
    if (b[i] === 46) {
      i++;
      if (digits() === 0) throw new Invalid();
    }
    if (b[i] === 101 || b[i] === 69) {
      i++;
      if (b[i] === 43 || b[i] === 45) i++;
      if (digits() === 0) throw new Invalid();
    }
  };
  const literal = (word: number[]) => {
    for (let k = 0; k < word.length; k++) if (b[i + k] !== word[k]) throw new Invalid();
    i += word.length;
  };
  const keyThenColon = () => {
    if (b[i] !== 34) throw new Invalid();
    const from = i;
    v.key(from, str());
    skip();
    if (b[i] !== 58) throw new Invalid();
    i++;
    skip();
  };
  const stack: number[] = [];
  let expectValue = true;
  skip();
  for (;;) {
    if (expectValue) {
      if (i >= n) throw new Invalid();
      const c = b[i]!;
      const from = i;
      if (c === 123 || c === 91) {
        i++;
        skip();
        const closer = c === 123 ? 125 : 93;
        v.open(c);
        if (b[i] === closer) {
          i++;
          v.close(closer, true);
          expectValue = false;
        } else {
          if (stack.length >= MAX_NESTING) throw new NotFormatted(`JSON nested more than ${MAX_NESTING.toLocaleString('en-US')} levels deep`);
          stack.push(c);
          if (c === 123) keyThenColon();
          continue;
        }
      } else if (c === 34) {
        v.value(from, str(), 0);
        expectValue = false;
      } else if (c === 116) {
        literal([116, 114, 117, 101]);
        v.value(from, i, 2);
        expectValue = false;
      } else if (c === 102) {
        literal([102, 97, 108, 115, 101]);
        v.value(from, i, 2);
        expectValue = false;
      } else if (c === 110) {
        literal([110, 117, 108, 108]);
        v.value(from, i, 2);
        expectValue = false;
      } else {
        number();
        v.value(from, i, 1);
        expectValue = false;
      }
    }
    skip();
    if (stack.length === 0) {
      if (i !== n) throw new Invalid();
      return;
    }
    const top = stack[stack.length - 1]!;
    const c = b[i];
    if (c === 44) {
      i++;
      skip();
      v.comma();
      if (top === 123) keyThenColon();
      expectValue = true;
    } else if ((c === 125 && top === 123) || (c === 93 && top === 91)) {
      i++;
      stack.pop();
      v.close(c, false);
    } else throw new Invalid();
  }
}

/** Writes tokens with indentation and colours into a growing buffer. */
class Emitter implements Visitor {
  private out: Buffer;
  private at = 0;
  private depth = 0;
  private readonly kinds: number[] = [];
  private readonly pads: Buffer[] = [];
  private readonly colour: { key: Buffer; str: Buffer; num: Buffer; lit: Buffer; punct: Buffer; reset: Buffer };
  private readonly colon: Buffer;
  /** The most the output may grow to (NotFormatted past it). */
  private readonly limit: number;

  constructor(
    private readonly src: Uint8Array,
    private readonly f: JsonFormat,
  ) {
    // Room for the whole result up front (indentation and colour codes roughly triple a compact
    // document): pages that are never written are never resident, while growing would copy.
    this.out = Buffer.allocUnsafe(Math.max(1024, src.length * (f.palette.key ? 4 : 2) + 4096));
    // Colour codes are counted in the allowance: they are not the indentation this guards against.
    this.limit = src.length * OUTPUT_FACTOR * (f.palette.key ? 3 : 1) + (1 << 20);
    const p = f.palette;
    const B = (s: string) => Buffer.from(s, 'latin1');
    this.colour = { key: B(p.key), str: B(p.string), num: B(p.number), lit: B(p.literal), punct: B(p.punct), reset: B(p.reset) };
    this.colon = B((p.punct ? p.punct + ':' + p.reset : ':') + ' ');
  }

  private room(n: number) {
    if (this.at + n <= this.out.length) return;
    if (this.at + n > this.limit) throw new NotFormatted(`formatted, this JSON would be more than ${OUTPUT_FACTOR} times its size (indentation of deep nesting)`);
    const bigger = Buffer.allocUnsafe(Math.max(this.out.length * 2, this.at + n));
    this.out.copy(bigger, 0, 0, this.at);
    this.out = bigger;
  }
  // Short copies byte by byte: a typed-array call per token costs more than the bytes it moves.
  private put(buf: Uint8Array) {
    const len = buf.length;
    this.room(len);
    const out = this.out;
    let at = this.at;
    for (let k = 0; k < len; k++) out[at++] = buf[k]!;
    this.at = at;
  }
  private putSrc(start: number, end: number) {
    const len = end - start;
    this.room(len);
    const out = this.out;
    if (len > 64) {
      Buffer.prototype.copy.call(this.src, out, this.at, start, end);
      this.at += len;
      return;
    }
    const src = this.src;
    let at = this.at;
    for (let k = start; k < end; k++) out[at++] = src[k]!;
    this.at = at;
  }
  private putByte(c: number) {
    this.room(1);
    this.out[this.at++] = c;
  }
  private pad(depth: number) {
    this.put((this.pads[depth] ??= Buffer.from('\n' + ' '.repeat(Math.max(0, this.f.indent) * depth))));
  }
  private punct(c: number) {
    if (this.colour.punct.length) {
      this.put(this.colour.punct);
      this.putByte(c);
      this.put(this.colour.reset);
    } else this.putByte(c);
  }
  private coloured(colour: Buffer, start: number, end: number) {
    if (colour.length) {
      this.put(colour);
      this.putSrc(start, end);
      this.put(this.colour.reset);
    } else this.putSrc(start, end);
  }
  private inArray() {
    return this.kinds[this.kinds.length - 1] === 91;
  }

  open(kind: number) {
    if (this.inArray()) this.pad(this.depth);
    this.punct(kind);
    this.kinds.push(kind);
    this.depth++;
  }
  close(kind: number, empty: boolean) {
    this.depth--;
    this.kinds.pop();
    if (!empty) this.pad(this.depth);
    this.punct(kind);
  }
  key(start: number, end: number) {
    this.pad(this.depth);
    this.coloured(this.colour.key, start, end);
    this.put(this.colon);
  }
  value(start: number, end: number, kind: Kind) {
    if (this.inArray()) this.pad(this.depth);
    this.coloured(kind === 0 ? this.colour.str : kind === 1 ? this.colour.num : this.colour.lit, start, end);
  }
  comma() {
    this.punct(44);
  }
  result(): Buffer {
    return this.out.subarray(0, this.at);
  }
}

type Node = { t: 0; entries: [number, number, Node][] } | { t: 1; items: Node[] } | { t: 2; start: number; end: number; kind: Kind };

/** Builds a tree of token positions (for sorting keys). */
class TreeBuilder implements Visitor {
  root: Node | undefined;
  private readonly stack: Node[] = [];
  private key0 = 0;
  private key1 = 0;
  private add(node: Node) {
    const top = this.stack[this.stack.length - 1];
    if (!top) this.root = node;
    else if (top.t === 0) top.entries.push([this.key0, this.key1, node]);
    else if (top.t === 1) top.items.push(node);
  }
  open(kind: number) {
    const node: Node = kind === 123 ? { t: 0, entries: [] } : { t: 1, items: [] };
    this.add(node);
    this.stack.push(node);
  }
  close() {
    this.stack.pop();
  }
  key(start: number, end: number) {
    this.key0 = start;
    this.key1 = end;
  }
  value(start: number, end: number, kind: Kind) {
    this.add({ t: 2, start, end, kind });
  }
  comma() {}
}

function replay(src: Uint8Array, node: Node, v: Visitor) {
  if (node.t === 2) return v.value(node.start, node.end, node.kind);
  if (node.t === 1) {
    v.open(91);
    node.items.forEach((item, k) => {
      if (k) v.comma();
      replay(src, item, v);
    });
    return v.close(93, node.items.length === 0);
  }
  const decoded = node.entries.map((e) => [JSON.parse(Buffer.from(src.subarray(e[0], e[1])).toString('utf8')) as string, e] as const);
  decoded.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  v.open(123);
  decoded.forEach(([, [k0, k1, x]], idx) => {
    if (idx) v.comma();
    v.key(k0, k1);
    replay(src, x, v);
  });
  v.close(125, decoded.length === 0);
}

/** Anti-JSON-hijacking prefixes some APIs put before their JSON. */
const PREFIX = /^(\)\]\}',?[ \t]*\r?\n?|while\s*\(1\);\s*|for\s*\(;;\);\s*)/;

/** Formats a JSON body (bytes, UTF-8) or returns null when it is not JSON; NotFormatted when it is too deep to format. */
export function formatJsonBytes(body: Uint8Array, f: JsonFormat): Buffer | null {
  const bom = body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf ? 3 : 0;
  const prefix = PREFIX.exec(Buffer.from(body.subarray(bom, bom + 16)).toString('latin1'))?.[0] ?? '';
  const start = bom + prefix.length;
  const emitter = new Emitter(body, f);
  try {
    if (f.sorted) {
      const tree = new TreeBuilder();
      scan(body, tree, start);
      replay(body, tree.root!, emitter);
    } else scan(body, emitter, start);
  } catch (e) {
    if (e instanceof Invalid) return null;
    // Valid so far but not to be formatted: the caller prints the body as it came, with a note.
    throw e;
  }
  const out = emitter.result();
  return prefix ? Buffer.concat([Buffer.from(prefix.trimEnd() + '\n', 'latin1'), out]) : out;
}

/** The same for text (tests, other charsets). */
export function formatJson(text: string, f: JsonFormat): string | null {
  return formatJsonBytes(Buffer.from(text, 'utf8'), f)?.toString('utf8') ?? null;
}

/** Is this a JSON media type (application/json, text/json, anything +json, ...)? */
export function isJsonType(contentType: string | undefined): boolean {
  if (!contentType) return false;
  const mime = contentType.split(';')[0]!.trim().toLowerCase();
  return mime === 'application/json' || mime.endsWith('+json') || mime === 'text/json' || mime === 'application/x-json' || mime.endsWith('/json');
}

/** Does a body that was not labelled JSON look like it anyway (text/plain, javascript, none)? */
export function looksLikeJson(head: string): boolean {
  return /^\s*([[{]|\)\]\}'|while\s*\(1\))/.test(head);
}

/** Colours JSON text without touching its layout (--pretty=colors, streamed lines). */
export function colourJson(text: string, p: Palette): string {
  if (!p.key && !p.string) return text;
  return text.replace(/("(?:[^"\\]|\\.)*")(\s*:)?|-?\b\d+(?:\.\d+)?(?:[eE][+-]?\d+)?\b|\b(?:true|false|null)\b/g, (tok, str: string | undefined, colon: string | undefined) => {
    if (str !== undefined) return colon ? p.key + str + p.reset + colon : p.string + str + p.reset;
    return (/^[tfn]/.test(tok) ? p.literal : p.number) + tok + p.reset;
  });
}
