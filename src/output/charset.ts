import { UsageError } from '../errors.js';
import { LABELS, SINGLE_BYTE } from './charset-tables.js';

/**
 * Text encodings of response bodies, as the WHATWG Encoding Standard names them (what browsers
 * accept). Single-byte encodings are decoded with the standard's own tables (charset-tables.ts),
 * not with Node's TextDecoder: Node 20 decodes windows-1252 (and its labels latin1, iso-8859-1,
 * ascii) as ISO-8859-1, giving C1 controls for 0x80-0x9F, and Node 20 and 22 differ from the
 * standard in koi8-u, windows-874, -1253 and -1255 and have no iso-8859-16 or x-user-defined.
 * UTF-8, UTF-16 and the multi-byte encodings are Node's (ICU's).
 */

let byLabel: Map<string, string> | undefined;

/**
 * UTF-32, which the Encoding Standard leaves out (browsers never meet it) but servers and files
 * do: sling decodes it itself. Without a byte order mark it is big-endian (Unicode's rule).
 */
const UTF32: Record<string, string> = { 'utf-32': 'utf-32be', 'utf-32be': 'utf-32be', 'utf-32le': 'utf-32le', utf32: 'utf-32be' };

/** The encoding a label names (ASCII whitespace trimmed, any case), or undefined. */
function encodingOf(label: string): string | undefined {
  if (!byLabel) {
    byLabel = new Map();
    for (const [name, labels] of LABELS) for (const l of labels.split(' ')) byLabel.set(l, name);
    for (const [l, name] of Object.entries(UTF32)) byLabel.set(l, name);
  }
  return byLabel.get(label.replace(/^[\t\n\f\r ]+|[\t\n\f\r ]+$/g, '').toLowerCase());
}

/** The encoding a byte order mark at the body's start names: UTF-8, or UTF-16 or UTF-32 in either byte order. */
export function bomCharset(first: Buffer | undefined): string | undefined {
  if (!first || first.length < 2) return undefined;
  const [a, b, c, d] = first;
  if (a === 0xef && b === 0xbb && c === 0xbf) return 'utf-8';
  if (a === 0xff && b === 0xfe) return c === 0 && d === 0 ? 'utf-32le' : 'utf-16le';
  if (a === 0xfe && b === 0xff) return 'utf-16be';
  if (a === 0 && b === 0 && c === 0xfe && d === 0xff) return 'utf-32be';
  return undefined;
}

/** The size of the code unit of an encoding in bytes: 2 for UTF-16, 4 for UTF-32, else 1. */
export function unitSize(name: string): 1 | 2 | 4 {
  return name.startsWith('utf-16') ? 2 : name.startsWith('utf-32') ? 4 : 1;
}

/**
 * The text holds U+0000 once decoded (what makes a body binary): a zero byte, or in UTF-16 and
 * UTF-32 a whole code unit of zeros, counted from the body's start (`offset`: where `buf` is in it).
 */
export function decodesToNul(buf: Buffer, name: string, offset = 0): boolean {
  const unit = unitSize(name);
  if (unit === 1) return buf.includes(0);
  for (let i = (unit - (offset % unit)) % unit; i + unit <= buf.length; i += unit) {
    if (buf[i] === 0 && buf[i + 1] === 0 && (unit === 2 || (buf[i + 2] === 0 && buf[i + 3] === 0))) return true;
  }
  return false;
}

const tables = new Map<string, string>();

function tableOf(name: string): string | undefined {
  let t = tables.get(name);
  if (t === undefined) {
    if (name === 'x-user-defined') t = String.fromCharCode(...Array.from({ length: 128 }, (_, i) => 0xf780 + i));
    else t = SINGLE_BYTE[name];
    if (t !== undefined) tables.set(name, t);
  }
  return t;
}

/** Node can decode this encoding (the multi-byte ones need a build with full ICU). */
function decodable(name: string): boolean {
  if (name === 'replacement') return false;
  if (name.startsWith('utf-32')) return true;
  if (tableOf(name) !== undefined) return true;
  try {
    new TextDecoder(name);
    return true;
  } catch {
    return false;
  }
}

/** The encoding a label names when sling can decode it, else undefined (unknown, or not in this Node). */
export function knownCharset(label: string): string | undefined {
  const name = encodingOf(label);
  return name !== undefined && decodable(name) ? name : undefined;
}

/**
 * `--response-charset NAME`: an encoding label of the Encoding Standard (`utf-8`, `latin1`,
 * `windows-1252`, `shift_jis`, ...), `_` and `-` taken alike (`utf_8`, `shift-jis`, `latin-1`).
 * Anything else is a usage error, before anything is sent.
 */
export function charsetOption(text: string): string {
  const tries = [text, text.replace(/_/g, '-'), text.replace(/-/g, '_'), text.replace(/[-_]/g, '')];
  const name = tries.map(encodingOf).find((n) => n !== undefined);
  if (name === undefined || name === 'replacement') {
    throw new UsageError(`--response-charset '${text}' is not a supported encoding`, 'use an encoding name such as utf-8, windows-1252, iso-8859-15, shift_jis, gbk or euc-kr');
  }
  if (!decodable(name)) throw new UsageError(`--response-charset '${text}' (${name}) is not supported by this Node: it needs a build with full ICU`);
  return name;
}

/** The charset parameter of a Content-Type, as written. */
export function headerCharset(contentType: string | undefined): string | undefined {
  return /;\s*charset\s*=\s*["']?([^"';\s]+)/i.exec(contentType ?? '')?.[1];
}

/**
 * What a body is decoded with: `--response-charset` (a byte order mark at the start picks the byte
 * order of the UTF-16 or UTF-32 it names), else the byte order mark's encoding (UTF-8, UTF-16 or
 * UTF-32, as the WHATWG decode algorithm lets a BOM win over the header), else the Content-Type's
 * charset (when it is a known one), else what an HTML document (`<meta charset>` or `http-equiv`,
 * in its first 1024 bytes) or an XML document (its `<?xml ... encoding="...">` declaration) says
 * of itself, else UTF-8.
 */
export function bodyCharset(given: string | undefined, contentType: string | undefined, first?: Buffer): string {
  const bom = bomCharset(first);
  if (given !== undefined) {
    const name = knownCharset(given) ?? 'utf-8';
    return bom && unitSize(bom) === unitSize(name) && unitSize(name) > 1 ? bom : name;
  }
  if (bom) return bom;
  const label = headerCharset(contentType);
  const fromHeader = label === undefined ? undefined : knownCharset(label);
  if (fromHeader) return fromHeader;
  if (first) {
    const mime = contentType?.split(';')[0]?.trim().toLowerCase() ?? '';
    const sniffed = mime === 'text/html' ? htmlCharset(first) : /^(text|application)\/xml$|\+xml$/.test(mime) ? xmlCharset(first) : undefined;
    if (sniffed) return sniffed;
  }
  return 'utf-8';
}

/** Needs the body's first bytes to know its charset (an HTML or XML body without a charset in the header). */
export function sniffsCharset(given: string | undefined, contentType: string | undefined): boolean {
  if (given !== undefined) return false;
  const label = headerCharset(contentType);
  if (label !== undefined && knownCharset(label)) return false;
  const mime = contentType?.split(';')[0]?.trim().toLowerCase() ?? '';
  return mime === 'text/html' || /^(text|application)\/xml$|\+xml$/.test(mime);
}

/** A declared label as HTML takes it: UTF-16 (and UTF-32) becomes UTF-8 (the bytes were read as ASCII), x-user-defined windows-1252. */
function declared(label: string): string | undefined {
  const name = knownCharset(label);
  if (name !== undefined && unitSize(name) > 1) return 'utf-8';
  if (name === 'x-user-defined') return 'windows-1252';
  return name;
}

/** The encoding an XML declaration names: `<?xml version="1.0" encoding="iso-8859-1"?>` at the very start. */
function xmlCharset(first: Buffer): string | undefined {
  const head = first
    .subarray(0, 1024)
    .toString('latin1')
    .replace(/^\xef\xbb\xbf/, '');
  const decl = /^<\?xml\s[^>]*?\bencoding\s*=\s*(["'])([A-Za-z][\w.-]*)\1/.exec(head);
  return decl ? declared(decl[2]!) : undefined;
}

const SPACE = /[\t\n\f\r ]/;

/**
 * The WHATWG prescan of an HTML document's first 1024 bytes for its encoding: comments skipped,
 * `<meta charset=...>` or `<meta http-equiv="Content-Type" content="...; charset=...">`, other
 * tags and their attributes stepped over, so that `charset=` in a comment or an attribute value
 * of another tag is not taken.
 */
export function htmlCharset(first: Buffer): string | undefined {
  const s = first.subarray(0, 1024).toString('latin1');
  let i = 0;
  /** The next attribute of a tag from i on: [name, value], or undefined at `>` or the end. */
  const attribute = (): [string, string] | undefined => {
    while (i < s.length && (SPACE.test(s[i]!) || s[i] === '/')) i++;
    if (i >= s.length || s[i] === '>') return undefined;
    let name = '';
    let value = '';
    for (;;) {
      if (i >= s.length) return undefined;
      const c = s[i]!;
      if (c === '=' && name !== '') break;
      if (SPACE.test(c)) {
        while (i < s.length && SPACE.test(s[i]!)) i++;
        if (s[i] !== '=') return [name, ''];
        break;
      }
      if (c === '/' || c === '>') return [name, ''];
      name += c.toLowerCase();
      i++;
    }
    i++; // past '='
    while (i < s.length && SPACE.test(s[i]!)) i++;
    const q = s[i];
    if (q === '"' || q === "'") {
      const end = s.indexOf(q, i + 1);
      if (end === -1) return undefined;
      value = s.slice(i + 1, end).toLowerCase();
      i = end + 1;
      return [name, value];
    }
    while (i < s.length && !SPACE.test(s[i]!) && s[i] !== '>') value += s[i++]!.toLowerCase();
    return i >= s.length ? undefined : [name, value];
  };
  while (i < s.length) {
    if (s.startsWith('<!--', i)) {
      const end = s.indexOf('-->', i + 2);
      if (end === -1) return undefined;
      i = end + 3;
    } else if (/^<meta[\t\n\f\r /]/i.test(s.slice(i, i + 6))) {
      i += 5;
      const seen = new Set<string>();
      let gotPragma = false;
      let needPragma: boolean | undefined;
      /** null: a charset attribute that names no encoding (the standard's "failure"). */
      let charset: string | null | undefined;
      for (let a = attribute(); a; a = attribute()) {
        const [name, value] = a;
        if (seen.has(name)) continue;
        seen.add(name);
        if (name === 'http-equiv') {
          if (value === 'content-type') gotPragma = true;
        } else if (name === 'content') {
          const c = contentCharset(value);
          const known = c === undefined ? undefined : declared(c);
          if (known !== undefined && charset === undefined) {
            charset = known;
            needPragma = true;
          }
        } else if (name === 'charset' && charset === undefined) {
          charset = declared(value) ?? null;
          needPragma = false;
        }
      }
      if (i >= s.length) return undefined;
      if (needPragma === undefined || (needPragma && !gotPragma) || !charset) continue;
      return charset;
    } else if (/^<\/?[a-z]/i.test(s.slice(i, i + 3))) {
      while (i < s.length && !SPACE.test(s[i]!) && s[i] !== '>') i++;
      while (attribute());
      if (i >= s.length) return undefined;
      i++;
    } else if (s.startsWith('<!', i) || s.startsWith('</', i) || s.startsWith('<?', i)) {
      const end = s.indexOf('>', i);
      if (end === -1) return undefined;
      i = end + 1;
    } else i++;
  }
  return undefined;
}

/** `text/html; charset=iso-8859-1` in a meta's content: the charset, as the standard extracts it. */
function contentCharset(content: string): string | undefined {
  let at = 0;
  for (;;) {
    const k = content.indexOf('charset', at);
    if (k === -1) return undefined;
    let j = k + 7;
    while (j < content.length && SPACE.test(content[j]!)) j++;
    if (content[j] !== '=') {
      at = j;
      continue;
    }
    j++;
    while (j < content.length && SPACE.test(content[j]!)) j++;
    const q = content[j];
    if (q === '"' || q === "'") {
      const end = content.indexOf(q, j + 1);
      return end === -1 ? undefined : content.slice(j + 1, end);
    }
    const m = /^[^\t\n\f\r ;]+/.exec(content.slice(j));
    return m ? m[0] : undefined;
  }
}

/** A decoder for a body in pieces: a piece's incomplete character waits for the next piece. */
export interface BodyDecoder {
  write(chunk: Buffer): string;
  end(): string;
}

export function charsetDecoder(name: string): BodyDecoder {
  if (name.startsWith('utf-32')) return utf32Decoder(name === 'utf-32le');
  const table = tableOf(name);
  if (table !== undefined) {
    // Each byte's UTF-16 code unit (all of these are in the BMP), written out as UTF-16LE text.
    const units = new Uint16Array(256);
    for (let b = 0; b < 256; b++) units[b] = b < 0x80 ? b : table.charCodeAt(b - 0x80);
    return {
      write: (chunk) => {
        const ascii = chunk.toString('latin1');
        if (!/[\x80-\xff]/.test(ascii)) return ascii;
        const out = new Uint16Array(chunk.length);
        for (let i = 0; i < chunk.length; i++) out[i] = units[chunk[i]!]!;
        return Buffer.from(out.buffer, out.byteOffset, out.byteLength).toString('utf16le');
      },
      end: () => '',
    };
  }
  let td: InstanceType<typeof TextDecoder>;
  try {
    td = new TextDecoder(name);
  } catch {
    td = new TextDecoder('utf-8');
  }
  return { write: (chunk) => td.decode(chunk, { stream: true }), end: () => td.decode() };
}

/** A whole body as text, in the named encoding. */
export function decodeBody(buf: Buffer, name: string): string {
  const d = charsetDecoder(name);
  return d.write(buf) + d.end();
}

/** UTF-32 in pieces (Node has no decoder for it): a byte order mark at the start is dropped, a code point past U+10FFFF or a surrogate is U+FFFD. */
function utf32Decoder(littleEndian: boolean): BodyDecoder {
  let rest: Buffer = Buffer.alloc(0);
  let first = true;
  const take = (chunk: Buffer, last: boolean): string => {
    const buf = rest.length ? Buffer.concat([rest, chunk]) : chunk;
    const whole = buf.length - (buf.length % 4);
    const parts: string[] = [];
    let points: number[] = [];
    for (let i = 0; i < whole; i += 4) {
      const cp = littleEndian ? buf.readUInt32LE(i) : buf.readUInt32BE(i);
      if (first) {
        first = false;
        if (cp === 0xfeff) continue;
      }
      points.push(cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff) ? 0xfffd : cp);
      if (points.length === 4096) {
        parts.push(String.fromCodePoint(...points));
        points = [];
      }
    }
    parts.push(String.fromCodePoint(...points));
    rest = Buffer.from(buf.subarray(whole));
    if (last && rest.length) {
      parts.push('\ufffd');
      rest = Buffer.alloc(0);
    }
    return parts.join('');
  };
  return { write: (chunk) => take(chunk, false), end: () => take(Buffer.alloc(0), true) };
}
