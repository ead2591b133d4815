import { closeSync, openSync, readSync } from 'node:fs';
import { expandHome, FileTooLargeError, readLimited, TEXT_FILE_LIMIT } from '../../files.js';
import type { BodyPiece, FileBody } from '../../model/spec.js';
import { largeFile } from '../../model/upload.js';
import { resolve as resolvePath } from 'node:path';
import { UsageError } from '../../errors.js';
import type { BodyLine, RequestNode } from './ast.js';
import type { FileCtx, Resolution } from './vars.js';
import { compile, rawText, type Template } from './template.js';

/** What building a request (request.ts) and its body (here) need. */
export interface BuildOptions {
  res: Resolution;
  file: FileCtx;
  lenient: boolean;
  warn(message: string): void;
}

/** Request bodies as written: plain lines and `< file` includes, multipart, url-encoded forms, GraphQL. */
function readInclude(line: BodyLine & { kind: 'file' }, o: BuildOptions): Buffer | FileBody | string {
  const path = o.res.resolve(line.path);
  const full = resolvePath(o.file.dir, expandHome(path));
  // `< file` as it is: a large one is read as it is sent (upload.ts), not now.
  if (!line.vars) {
    const large = largeFile(full, path);
    if (large) return large;
  }
  let data: Buffer;
  try {
    // `<@ file` is text to substitute in (held as a string, twice the bytes); `< file` here is a
    // small file or a device (a large file or a pipe is a FileBody above).
    data = readLimited(full, TEXT_FILE_LIMIT, path, line.vars ? 'a body file read as text to substitute its {{variables}}' : 'a device read as a body');
  } catch (e) {
    if (e instanceof FileTooLargeError) throw new UsageError(`${o.file.path}:${line.line}:${line.col}: ${e.message}`);
    const code = (e as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a directory' : (e as Error).message;
    const where = `${o.file.path}:${line.line}:${line.col}`;
    if (!o.lenient) throw new UsageError(`${where}: cannot read '${path}': ${why}`);
    o.warn(`${where}: cannot read '${path}': ${why}; shown as written`);
    return `<${line.vars ? '@' + (line.encoding ?? '') : ''} ${path}`;
  }
  if (!line.vars) return data;
  // `<@ file`: the file's text (in the encoding `<@latin1 file` names) with its {{variables}} substituted.
  const text = line.encoding ? new TextDecoder(line.encoding).decode(data) : data.toString('utf8');
  // Its placeholders are placed in it: `data.json:4:12: unknown variable {{id}}`.
  return o.res.resolve(compile(text, 1, 1, (l, c) => `${path}:${l}:${c}`));
}

/**
 * The body's bytes; with a large `< file` in it (upload.ts), its pieces instead (bytes and files,
 * in order), which the request sends as it reads them.
 */
export function bodyBytes(node: RequestNode, o: BuildOptions, contentType: string | undefined): Buffer | BodyPiece[] {
  const lines = node.body;
  if (lines.length === 0) return Buffer.alloc(0);
  const ct = contentType?.toLowerCase() ?? '';
  if (ct.startsWith('multipart/')) {
    const multipart = multipartBody(node, o, contentType!);
    if (multipart) return multipart;
  }
  if (ct.startsWith('application/x-www-form-urlencoded') && lines.every((l) => l.kind === 'text')) {
    // Several lines make one form (REST Client: `&key=value` lines); spaces around = and & go. A
    // line that does not start with `&` keeps its line break. The text goes as written (JetBrains;
    // REST Client would percent-encode it): a form the file wrote raw, or one `--to http` made
    // from a curl command, keeps its bytes.
    let s = '';
    for (const l of lines) {
      const t = o.res.resolve((l as { t: Template }).t).trim();
      if (t === '') continue;
      s += s === '' || t.startsWith('&') || s.endsWith('&') ? t : '\n' + t;
    }
    return Buffer.from(s.replace(/[ \t]*&[ \t]*/g, '&').replace(/[ \t]*=[ \t]*/g, '='), 'utf8');
  }
  // NDJSON ends every line, the last one too (REST Client, httpyac; Elasticsearch's _bulk needs it).
  if (ct.startsWith('application/x-ndjson')) {
    const body = textBody(lines, o);
    if (Array.isArray(body)) return lastByte(body[body.length - 1]!) === 10 ? body : [...body, Buffer.from('\n')];
    return body.length && body[body.length - 1] !== 10 ? Buffer.concat([body, Buffer.from('\n')]) : body;
  }
  return textBody(lines, o);
}

/** The last byte of a piece (a file's is read from it). */
function lastByte(p: BodyPiece): number | undefined {
  if (Buffer.isBuffer(p)) return p[p.length - 1];
  const b = Buffer.alloc(1);
  let fd: number | undefined;
  try {
    fd = openSync(p.path, 'r');
    return readSync(fd, b, 0, 1, p.fileSize - 1) === 1 ? b[0] : undefined;
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** Chunks as one Buffer, or as pieces when a large file is among them. */
function joined(chunks: BodyPiece[]): Buffer | BodyPiece[] {
  if (chunks.some((c) => !Buffer.isBuffer(c))) return chunks;
  return chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks as Buffer[]);
}

/** The body lines as written, `< file` includes read (large ones as pieces, read when sent). */
function textBody(lines: BodyLine[], o: BuildOptions): Buffer | BodyPiece[] {
  if (lines.length === 1 && lines[0]!.kind === 'text') return Buffer.from(o.res.resolve(lines[0]!.t), 'utf8');
  const chunks: BodyPiece[] = [];
  let text = '';
  for (const l of lines) {
    if (l.kind === 'text') text += o.res.resolve(l.t) + l.eol;
    else {
      const inc = readInclude(l, o);
      if (typeof inc === 'string') text += inc + l.eol;
      else {
        if (text) chunks.push(Buffer.from(text, 'utf8'));
        text = '';
        chunks.push(inc);
        if (l.eol) text = l.eol;
      }
    }
  }
  if (text) chunks.push(Buffer.from(text, 'utf8'));
  return joined(chunks);
}

/**
 * A multipart body as written, re-assembled with CRLF line breaks (as the wire format wants),
 * `< ./file` parts read as bytes, trailing blank lines of each part dropped. The delimiter lines
 * are found by the boundary as written in the Content-Type header (before variables are
 * substituted), so `boundary={{$timestamp}}` works. null: no delimiter found, send as text.
 */
function multipartBody(node: RequestNode, o: BuildOptions, contentType: string): Buffer | BodyPiece[] | null {
  const ctHeader = node.headers.find((h) => /^content-type$/i.test(rawText(h.name)));
  const rawBoundary = ctHeader && /boundary=("?)([^";\s]+)\1/i.exec(rawText(ctHeader.value))?.[2];
  const boundary = /boundary=("?)([^";\s]+)\1/i.exec(contentType)?.[2];
  if (!rawBoundary || !boundary) return null;
  const open = '--' + rawBoundary;
  const close = open + '--';
  const isDelimiter = (l: BodyLine) => l.kind === 'text' && (l.raw.trim() === open || l.raw.trim() === close);
  if (!node.body.some(isDelimiter)) return null;
  const chunks: BodyPiece[] = [];
  let i = 0;
  const lines = node.body;
  while (i < lines.length && !isDelimiter(lines[i]!)) i++;
  while (i < lines.length) {
    const delim = lines[i] as { raw: string };
    if (delim.raw.trim() === close) {
      chunks.push(Buffer.from(`--${boundary}--\r\n`));
      break;
    }
    chunks.push(Buffer.from(`--${boundary}\r\n`));
    i++;
    // part headers up to the first blank line
    let head = '';
    while (i < lines.length && !isDelimiter(lines[i]!)) {
      const l = lines[i]!;
      if (l.kind === 'text' && l.raw.trim() === '') {
        i++;
        break;
      }
      head += (l.kind === 'text' ? o.res.resolve(l.t) : '') + '\r\n';
      i++;
    }
    chunks.push(Buffer.from(head + '\r\n'));
    let end = i;
    while (end < lines.length && !isDelimiter(lines[end]!)) end++;
    let last = end;
    while (last > i && lines[last - 1]!.kind === 'text' && (lines[last - 1] as { raw: string }).raw.trim() === '') last--;
    for (let j = i; j < last; j++) {
      const l = lines[j]!;
      if (l.kind === 'text') chunks.push(Buffer.from(o.res.resolve(l.t), 'utf8'));
      else {
        const inc = readInclude(l, o);
        chunks.push(typeof inc === 'string' ? Buffer.from(inc, 'utf8') : inc);
      }
      if (j < last - 1) chunks.push(Buffer.from('\r\n'));
    }
    chunks.push(Buffer.from('\r\n'));
    i = end;
  }
  return joined(chunks);
}

export class GraphqlVariablesError extends Error {}

/**
 * GraphQL (JetBrains `GRAPHQL url`, REST Client `X-REQUEST-TYPE: GraphQL`, httpyac's query
 * bodies): the query, then optionally a blank line and the variables as JSON, sent as
 * `{"query": ..., "operationName": ..., "variables": ...}`.
 */
export function graphqlBody(text: string, fragments?: Map<string, string>, operationName?: string, emptyVariables = false): Buffer {
  let query = text;
  let variables: unknown;
  const blanks = /\r?\n[ \t]*\r?\n/g;
  let m: RegExpExecArray | null;
  const cuts: number[] = [];
  while ((m = blanks.exec(text))) cuts.push(m.index, m.index + m[0].length);
  for (let k = cuts.length - 2; k >= 0; k -= 2) {
    const tail = text.slice(cuts[k + 1]!).trim();
    if (!tail.startsWith('{')) continue;
    try {
      variables = JSON.parse(tail);
      query = text.slice(0, cuts[k]!);
      break;
    } catch (e) {
      // A selection set (`{ a }`) is part of the query; an object of JSON (`{"id": 1,, }`, `{}`)
      // that does not parse is the variables written wrong: not sent as query text.
      if (/^\{\s*("|\})/.test(tail)) throw new GraphqlVariablesError(`the GraphQL variables after the blank line are not valid JSON: ${(e as Error).message}`);
    }
  }
  query = query.trim();
  // httpyac fragments, in file order: each one the query (with the fragments added so far) spreads.
  if (fragments) for (const [name, fragment] of fragments) if (new RegExp(`\\.\\.\\.\\s*${name}(?!\\w)`).test(query)) query += `\n${fragment}`;
  const doc: Record<string, unknown> = { query };
  const op = /^\s*(query|mutation|subscription)\s+([A-Za-z_]\w*)/.exec(query);
  if (operationName !== undefined) doc.operationName = operationName;
  else if (op) doc.operationName = op[2];
  if (variables !== undefined) doc.variables = variables;
  else if (emptyVariables) doc.variables = {};
  return Buffer.from(JSON.stringify(doc), 'utf8');
}
