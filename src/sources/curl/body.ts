import { randomBytes } from 'node:crypto';
import type { DataKind } from './args.js';
import { streamed } from '../../model/prepare.js';
import type { BodyPiece, FileBody } from '../../model/spec.js';
import type { WireBody } from '../../model/upload.js';

/**
 * Request bodies as curl 7.88 builds them: the -d family joined with `&` (--json pieces joined
 * with nothing), -d @file with its CR and LF bytes removed, --data-urlencode in its five forms,
 * and -F multipart bodies with curl's part headers, name escaping and content-type guesses.
 * Everything is a byte string (latin1) until it becomes a Buffer.
 */
export interface FileAccess {
  /** The file's bytes as a byte string; '-' is standard input. undefined when it cannot be read. */
  read(path: string): string | undefined;
  /** An existing file's size and time (in the command's folder), for -C - and -z FILE; undefined when there is none. */
  stat?(path: string): { size: number; mtimeMs: number } | undefined;
  warn(message: string): void;
  /**
   * A large file (upload.ts) to be read as it is sent, not now; `textLines`: as -d @file reads it.
   * undefined: a small file, or none (read() then reads it, or says why not).
   */
  large?(path: string, textLines: boolean): FileBody | undefined;
}

export class CurlBodyError extends Error {}

/** curl_easy_escape: everything but ALPHA DIGIT - . _ ~ as %XX (upper case); then %20 → '+'. */
export function escapeData(s: string): string {
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (/[A-Za-z0-9\-._~]/.test(c)) out += c;
    else if (c === ' ') out += '+';
    else out += '%' + c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0');
  }
  return out;
}

/**
 * --data-urlencode / --url-query: `content`, `=content`, `name=content`, `@file`, `name@file`. The
 * first '=' splits name and content, else the first '@' (a file); a file that cannot be read, or
 * is empty, gives an empty piece without its name (as curl does).
 */
export function urlencodePiece(value: string, files: FileAccess): string {
  let at = value.indexOf('=');
  if (at === -1) at = value.indexOf('@');
  const name = at === -1 ? '' : value.slice(0, at);
  const sep = at === -1 ? '' : value[at];
  const rest = at === -1 ? value : value.slice(at + 1);
  let content: string | undefined;
  if (sep === '@') {
    content = files.read(rest);
    if (content === undefined) missingData(rest, files);
    if (!content) return '';
  } else content = rest;
  const enc = escapeData(content);
  return name ? `${name}=${enc}` : enc;
}

/**
 * A -d @file that cannot be read: curl warns and sends an empty body. A Windows drive path
 * (`C:\\data\\x.json`, `C:/x.json`) that is not there is a file written for another system, or a
 * path bash took apart: the command is refused rather than sent without its body.
 */
function missingData(path: string, files: FileAccess): void {
  if (/^[A-Za-z]:[\\/]/.test(path)) {
    throw new CurlBodyError(
      `cannot read the file '${path}' for -d; with a Windows drive path the command is not run rather than sent without its body (in a bash-style file write the path quoted, '${path}', or with /: ${path.replace(/\\/g, '/')})`,
    );
  }
  files.warn(`could not read data from file '${path}', this makes an empty POST`);
}

/** The value of one -d/--data-* option: a file's content or the text itself. */
export function dataPiece(kind: DataKind, value: string, files: FileAccess): string {
  if (kind === 'urlencode') return urlencodePiece(value, files);
  if (kind !== 'raw' && value.startsWith('@')) {
    const path = value.slice(1);
    const content = files.read(path);
    if (content === undefined) {
      missingData(path, files);
      return '';
    }
    // -d @file and --data-ascii @file read the file as text lines; binary and json keep the bytes.
    return kind === 'data' || kind === 'ascii' ? textLines(content) : content;
  }
  return value;
}

/**
 * curl's reading of a -d @file: in pieces of at most 255 bytes that end after a newline (fgets with
 * a 256-byte buffer), each cut at its first CR, then at its first LF, then at its first NUL.
 */
export function textLines(content: string): string {
  let out = '';
  for (let i = 0; i < content.length; ) {
    const nl = content.indexOf('\n', i);
    const end = Math.min(nl === -1 ? content.length : nl + 1, i + 255);
    let piece = content.slice(i, end);
    i = end;
    for (const stop of ['\r', '\n', '\0']) {
      const at = piece.indexOf(stop);
      if (at !== -1) piece = piece.slice(0, at);
    }
    out += piece;
  }
  return out;
}

/**
 * The body the data options make (joinData), with large files (-d @file, --data-binary @file,
 * --json @file) left as FileBodies that are read as the body is sent.
 */
export function dataBody(items: { kind: DataKind; value: string }[], files: FileAccess): WireBody {
  const pieces: BodyPiece[] = [];
  let text = '';
  items.forEach((item, i) => {
    if (i > 0 && item.kind !== 'json') text += '&';
    const path = item.kind !== 'raw' && item.kind !== 'urlencode' && item.value.startsWith('@') ? item.value.slice(1) : undefined;
    const large = path !== undefined ? files.large?.(path, item.kind === 'data' || item.kind === 'ascii') : undefined;
    if (!large) {
      text += dataPiece(item.kind, item.value, files);
      return;
    }
    if (text) pieces.push(Buffer.from(text, 'latin1'));
    text = '';
    pieces.push(large);
  });
  if (text || pieces.length === 0) pieces.push(Buffer.from(text, 'latin1'));
  return streamed(pieces);
}

/** All data options of a command, joined as curl does (a `&` before each piece but --json ones). */
export function joinData(items: { kind: DataKind; value: string }[], files: FileAccess): string {
  let out = '';
  items.forEach((item, i) => {
    const piece = dataPiece(item.kind, item.value, files);
    out += i > 0 && item.kind !== 'json' ? '&' + piece : piece;
  });
  return out;
}

// ---------------------------------------------------------------- multipart (-F)

export interface FormPart {
  /** undefined: `-F =value` (no name parameter at all). */
  name?: string;
  filename?: string;
  contentType?: string;
  headers: string[];
  /** The content as a byte string, or a large file read as it is sent. */
  data: string | FileBody;
}

const MIME_BY_EXT: Record<string, string> = {
  gif: 'image/gif',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  png: 'image/png',
  svg: 'image/svg+xml',
  txt: 'text/plain',
  htm: 'text/html',
  html: 'text/html',
  pdf: 'application/pdf',
  xml: 'application/xml',
};

/** curl's content-type guess for a file name (case-insensitive extension). */
export function guessType(filename: string): string | undefined {
  const dot = filename.lastIndexOf('.');
  return dot === -1 ? undefined : MIME_BY_EXT[filename.slice(dot + 1).toLowerCase()];
}

function basename(path: string): string {
  const i = Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\'));
  return i === -1 ? path : path.slice(i + 1);
}

/**
 * One word of a -F value at `pos`: a double-quoted string (with \\ and \" escapes; what follows the
 * closing quote up to the separator is dropped), or the text up to `;` (or `,` in a file list).
 * Leading blanks are skipped; trailing blanks of an unquoted word are dropped.
 */
function paramWord(s: string, pos: number, stop: string): { word: string; end: number } {
  while (pos < s.length && /\s/.test(s[pos]!)) pos++;
  if (s[pos] === '"') {
    let word = '';
    let k = pos + 1;
    for (; k < s.length && s[k] !== '"'; k++) {
      if (s[k] === '\\' && (s[k + 1] === '"' || s[k + 1] === '\\')) word += s[++k];
      else word += s[k];
    }
    if (k < s.length) {
      let end = k + 1;
      while (end < s.length && !stop.includes(s[end]!)) end++;
      return { word, end };
    }
    // No closing quote: the word is read unquoted, quote included.
  }
  let end = pos;
  while (end < s.length && !stop.includes(s[end]!)) end++;
  return { word: s.slice(pos, end).trimEnd(), end };
}

interface PartParams {
  value: string;
  type?: string;
  filename?: string;
  headers: string[];
  files: FileAccess;
}

/** `;type=`, `;filename=`, `;headers=`, `;encoder=` after a -F value (curl's parameter rules). */
function parseParams(s: string, pos: number, stop: string, files: FileAccess): PartParams {
  const first = paramWord(s, pos, ';' + stop);
  const out: PartParams = { value: first.word, headers: [], files };
  pos = first.end;
  // The content type runs over later unknown parameters (`type=text/plain; charset=utf-8`).
  let typeStart = -1;
  let typeEnd = -1;
  while (s[pos] === ';') {
    pos++;
    while (pos < s.length && /\s/.test(s[pos]!)) pos++;
    // Parameter names are case-insensitive in curl (`;Type=`).
    const rest = s.slice(pos, pos + 9).toLowerCase();
    if (typeStart === -1 && rest.startsWith('type=')) {
      pos += 5;
      while (pos < s.length && /\s/.test(s[pos]!)) pos++;
      typeStart = pos;
      const m = /^[^()<>@,;:\\"[\]?=\r\n ]*/.exec(s.slice(pos))!;
      pos += m[0].length;
      typeEnd = pos;
      // Skip to the next separator.
      while (pos < s.length && s[pos] !== ';' && !stop.includes(s[pos]!)) pos++;
    } else if (rest.startsWith('filename=')) {
      if (typeStart !== -1) out.type ??= s.slice(typeStart, typeEnd);
      const w = paramWord(s, pos + 9, ';' + stop);
      out.filename = w.word;
      pos = w.end;
    } else if (rest.startsWith('headers=')) {
      if (typeStart !== -1) out.type ??= s.slice(typeStart, typeEnd);
      pos += 8;
      if (s[pos] === '@' || s[pos] === '<') {
        const w = paramWord(s, pos + 1, ';' + stop);
        pos = w.end;
        const text = files.read(w.word);
        if (text === undefined) files.warn(`cannot read part headers from '${w.word}'`);
        else for (const line of text.split(/\r?\n/)) if (line.trim() && !line.startsWith('#')) out.headers.push(line.trimEnd());
      } else {
        const w = paramWord(s, pos, ';' + stop);
        out.headers.push(w.word);
        pos = w.end;
      }
    } else if (rest.startsWith('encoder=')) {
      const w = paramWord(s, pos + 8, ';' + stop);
      pos = w.end;
      files.warn(`-F: the encoder '${w.word}' is not supported; the part is sent as it is`);
    } else if (typeStart !== -1 && out.type === undefined) {
      // Part of the content type.
      let end = pos;
      let last = pos;
      while (end < s.length && s[end] !== ';' && !stop.includes(s[end]!)) {
        if (!/\s/.test(s[end]!)) last = end + 1;
        end++;
      }
      typeEnd = last;
      pos = end;
    } else {
      const w = paramWord(s, pos, ';' + stop);
      pos = w.end;
      if (w.word) files.warn(`-F: skipping the unknown part parameter '${w.word}'`);
    }
  }
  if (typeStart !== -1) out.type ??= s.slice(typeStart, typeEnd);
  if (out.type !== undefined && !/^[^/ ]+\/[^;,\n]+/.test(out.type)) throw new CurlBodyError(`-F: '${out.type}' is not a content type (it needs a '/')`);
  if (pos < s.length && stop.includes(s[pos]!)) throw new CurlBodyError('-F: several files in one part (a comma-separated list) are not supported');
  return out;
}

/** Parses one -F / --form-string value into a part, reading its file when it names one. */
export function formPart(value: string, literal: boolean, files: FileAccess): FormPart {
  const eq = value.indexOf('=');
  if (eq === -1) throw new CurlBodyError(`-F '${value}': a form part needs name=content`);
  const name = eq === 0 ? undefined : value.slice(0, eq);
  const content = value.slice(eq + 1);
  if (literal) return { name, headers: [], data: content };
  if (content.startsWith('@')) {
    const p = parseParams(content, 1, ',', files);
    const data = files.large?.(p.value, false) ?? files.read(p.value);
    if (data === undefined) throw new CurlBodyError(`-F: cannot read the file '${p.value}'`);
    const filename = p.filename ?? basename(p.value);
    // The type is guessed from the part's file name, else from the file's own name; standard input
    // (`@-`) gets none.
    const contentType = p.type ?? guessType(filename) ?? guessType(basename(p.value)) ?? (p.value === '-' ? undefined : 'application/octet-stream');
    return { name, filename, contentType, headers: p.headers, data };
  }
  if (content.startsWith('<')) {
    const p = parseParams(content, 1, '', files);
    const data = files.large?.(p.value, false) ?? files.read(p.value);
    if (data === undefined) throw new CurlBodyError(`-F: cannot read the file '${p.value}'`);
    return { name, contentType: p.type, headers: p.headers, data };
  }
  const p = parseParams(content, 0, '', files);
  return { name, filename: p.filename, contentType: p.type ?? (p.filename ? guessType(p.filename) : undefined), headers: p.headers, data: p.value };
}

/** A boundary shaped like curl's: 24 dashes and 16 hex digits. */
export function newBoundary(): string {
  return '-'.repeat(24) + randomBytes(8).toString('hex');
}

/** Field and file names: `"` CR LF percent-encoded (HTML5 forms), or backslash-escaped with --form-escape. */
function escapeName(s: string, backslash: boolean): string {
  if (backslash) return s.replace(/[\\"]/g, (c) => '\\' + c);
  return s.replace(/"/g, '%22').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

/**
 * The multipart body. Parts say `form-data` when the content type is multipart/form-data, and
 * `attachment` otherwise (curl does that for a custom `-H 'Content-Type: multipart/mixed'`).
 */
export function encodeMultipart(parts: FormPart[], boundary: string, contentType: string, formEscape: boolean): WireBody {
  const disposition = /^multipart\/form-data/i.test(contentType.trim()) ? 'form-data' : 'attachment';
  const pieces: BodyPiece[] = [];
  let out = '';
  for (const part of parts) {
    out += `--${boundary}\r\nContent-Disposition: ${disposition}`;
    if (part.name !== undefined) out += `; name="${escapeName(part.name, formEscape)}"`;
    if (part.filename !== undefined) out += `; filename="${escapeName(part.filename, formEscape)}"`;
    out += '\r\n';
    if (part.contentType) out += `Content-Type: ${part.contentType}\r\n`;
    for (const h of part.headers) out += h + '\r\n';
    if (typeof part.data === 'string') out += '\r\n' + part.data + '\r\n';
    else {
      pieces.push(Buffer.from(out + '\r\n', 'latin1'), part.data);
      out = '\r\n';
    }
  }
  out += `--${boundary}--\r\n`;
  pieces.push(Buffer.from(out, 'latin1'));
  return streamed(pieces);
}
