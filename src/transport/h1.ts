import type { Socket } from 'node:net';
import { NetworkError } from '../errors.js';
import type { ResponseHead } from '../model/exchange.js';
import { headerIn } from '../model/headers.js';
import type { PreparedRequest } from '../model/prepare.js';
import type { RequestSettings } from '../model/spec.js';
import { isStreamed } from '../model/upload.js';
import { contentLength, MAX_INTERIM, maxHeadersError, notHttp1, parseResponseHead, tooManyInterim, unaskedSwitch } from './head.js';
import { checkHead } from './wire.js';

/**
 * The one HTTP/1.1 codec, of the one client every command sends through (client.ts): the request
 * as bytes (requestBytes, writeRequest), the response head with its interim 1xx answers skipped
 * (HeadReader, parseResponseHead in head.ts), and the body framed by Content-Length, chunks (with
 * trailers) or the close (BodyReader). It owns no socket and no timer: the client reads and
 * writes, and decides what a connection's end, a stall or a full disk mean.
 */

export type HeaderLines = readonly (readonly [string, string])[];

/** Whether the header lines say `Transfer-Encoding: chunked` (the body goes out in chunks). */
export function sendsChunked(headers: HeaderLines): boolean {
  for (let i = 0; i < headers.length; i++) {
    const n = headers[i]![0];
    if (n.length === 17 && n.toLowerCase() === 'transfer-encoding' && /chunked/i.test(headers[i]![1])) return true;
  }
  return false;
}

/**
 * The bytes of a request: the request line and names as latin1 (a target can carry raw
 * bytes, as curl sends them), header values with non-ASCII characters as UTF-8 (as HTTPie sends them), and a
 * body framed in chunks when the request says `Transfer-Encoding: chunked`. `curlFraming`: curl's
 * `-H 'Name;'` goes out as `Name:` with nothing after the colon. `keepAlive`: a `Connection:
 * keep-alive` line when the request has no Connection line. A streamed body
 * (upload.ts) is not in the bytes: the caller writes it after them (writeStreamed). A CR, LF or NUL
 * in the method, the target or a header is thrown (wire.ts) and no byte is made: the lanes check
 * the same before they connect, so this only holds the line.
 */
export function requestBytes(request: PreparedRequest, headers: HeaderLines, target: string, curlFraming: boolean, keepAlive: boolean, gaps?: Readonly<Record<string, string>>): Buffer {
  checkHead(request.method, target, headers);
  let text = `${request.method} ${target} HTTP/${request.version ?? '1.1'}\r\n`;
  let connection = false;
  let chunked = false;
  for (let i = 0; i < headers.length; i++) {
    const n = headers[i]![0];
    const v = headers[i]![1];
    if (n.length === 10 && n.toLowerCase() === 'connection') connection = true;
    else if (n.length === 17 && n.toLowerCase() === 'transfer-encoding' && /chunked/i.test(v)) chunked = true;
    // curl framing: a -H line as curl sends it, with the blanks after the colon as written (gaps).
    const gap = gaps && curlFraming ? (gaps[n.toLowerCase()] ?? ' ') : ' ';
    text += v === '' && curlFraming ? `${n}:\r\n` : `${n}:${gap}${/[^\x00-\x7f]/.test(v) ? Buffer.from(v, 'utf8').toString('latin1') : v}\r\n`;
  }
  if (!connection && keepAlive) text += 'Connection: keep-alive\r\n';
  text += '\r\n';
  const body = request.body;
  if (isStreamed(body)) return Buffer.from(text, 'latin1');
  if (chunked) {
    const framed = body.length ? `${body.length.toString(16)}\r\n` : '';
    return Buffer.concat([Buffer.from(text + framed, 'latin1'), body, Buffer.from(body.length ? '\r\n0\r\n\r\n' : '0\r\n\r\n', 'latin1')]);
  }
  const size = text.length + body.length;
  // One buffer for head and body: one write, no concatenation of pieces. Most requests go out
  // through one buffer the codec keeps (writeRequest lets go of it when a write has to wait): a
  // new buffer per request is new memory for the process to touch, until the garbage collector
  // gives it back.
  const out = size <= OUT_BUFFER_SIZE ? outBuffer : Buffer.allocUnsafe(size);
  out.write(text, 0, 'latin1');
  body.copy(out, text.length);
  return size <= OUT_BUFFER_SIZE ? out.subarray(0, size) : out;
}

const OUT_BUFFER_SIZE = 16 * 1024;
let outBuffer = Buffer.allocUnsafe(OUT_BUFFER_SIZE);

/** Writes requestBytes' bytes; a write that could not go out at once keeps the shared buffer, and the codec takes a new one. */
export function writeRequest(sock: Socket, bytes: Buffer) {
  sock.write(bytes);
  if (bytes.buffer === outBuffer.buffer && sock.writableLength > 0) outBuffer = Buffer.allocUnsafe(OUT_BUFFER_SIZE);
}

const HEAD_END = Buffer.from('\r\n\r\n', 'latin1');
const HEAD_END_LF = Buffer.from('\n\n', 'latin1');
/** The largest response head waited for. */
const HEAD_MAX = 256 * 1024;

/**
 * Reads the response head of one request from the bytes as they come: interim (1xx) answers are
 * skipped, bytes that cannot be HTTP/1.x fail at once, --max-headers is kept. `where` names the
 * server in messages about the head, `whereVia` (with the proxy) in those about the answer. A 101
 * is the answer only when the request offered a switch (`switchOffered`, the h2c offer).
 */
export class HeadReader {
  /** The answer's head, once read returned the bytes after it. */
  head: ResponseHead | undefined;
  /** Bytes of a head not yet complete, kept between reads. */
  private held: Buffer | undefined;
  private interim = 0;

  constructor(
    private readonly where: string,
    private readonly whereVia: string,
    private readonly settings: RequestSettings,
    private readonly switchOffered = false,
  ) {}

  /** Whether bytes came that did not make a head (an HTTP/0.9 answer, a head cut off by a close). */
  get partial(): boolean {
    return this.held !== undefined && this.held.length > 0;
  }

  /**
   * Takes the next bytes of the answer: the bytes after the head (a view of `data`, valid during
   * the call only) once the head is complete, in `head`; undefined while more are needed. Throws a
   * NetworkError for an answer that is not one.
   */
  read(data: Buffer): Buffer | undefined {
    let d = this.held ? Buffer.concat([this.held, data]) : data;
    this.held = undefined;
    for (;;) {
      let endAt = d.indexOf(HEAD_END);
      let sep = 4;
      if (endAt === -1) {
        endAt = d.indexOf(HEAD_END_LF);
        sep = 2;
      }
      // Not HTTP/1.x (an HTTP/2-only server, another protocol): said at once, not after a timeout.
      const alien = notHttp1(this.where, d);
      if (alien) throw alien;
      if (endAt === -1) {
        if (d.length > HEAD_MAX) throw new NetworkError(`${this.where} sent a response head larger than 256 kB`);
        if (d.length) this.held = Buffer.from(d);
        return undefined;
      }
      const r = parseResponseHead(d.toString('latin1', 0, endAt), this.where);
      d = d.subarray(endAt + sep);
      if (r.status === 101 && !this.switchOffered) throw unaskedSwitch(this.whereVia, headerIn(r.rawHeaders, 'upgrade'));
      if (r.status >= 100 && r.status < 200 && r.status !== 101) {
        // 100 Continue and other interim answers: the real head follows.
        if (++this.interim > MAX_INTERIM) throw tooManyInterim(this.whereVia);
        if (d.length) continue;
        return undefined;
      }
      if (r.status !== 101) {
        const tooMany = maxHeadersError(r, this.settings, this.where);
        if (tooMany) throw tooMany;
      }
      this.head = r;
      return d;
    }
  }
}

/** A chunk-size line: the size, then blanks and an extension or nothing. */
const CHUNK_SIZE = /^([0-9a-fA-F]{1,13})[ \t]*(?:;.*)?$/;

/** The longest chunk-size line, and the most trailer bytes, of a chunked body. */
const CHUNK_LINE_MAX = 16 * 1024;

/**
 * Reads a response body as its head frames it: nothing (HEAD, 204, 304), Content-Length bytes,
 * chunks (extensions and trailers read and dropped), or all bytes until the connection closes.
 * The body's bytes go to `onBytes` as views of the bytes read, valid during the call only.
 * A Content-Length that is not one throws (contentLength) when the reader is made.
 */
export class BodyReader {
  readonly framing: 'none' | 'length' | 'chunked' | 'close';
  /** Whether the connection may carry another request after this body (not after a head framed two ways). */
  readonly reusable: boolean = true;
  /** Bytes still to come (Content-Length framing). */
  private remaining = 0;
  // Chunks: > 0 data left in the chunk, -1 size line next, -2 CRLF after data, -3 trailers.
  private chunkLeft = -1;
  /** The start of a chunk-size or trailer line that the last read cut off. */
  private line = '';
  private trailerBytes = 0;

  constructor(
    method: string,
    head: ResponseHead,
    private readonly where: string,
    private readonly onBytes: (bytes: Buffer) => void,
  ) {
    const te = headerIn(head.rawHeaders, 'transfer-encoding');
    if (method === 'HEAD' || head.status === 204 || head.status === 304) this.framing = 'none';
    else if (te !== undefined) {
      // Transfer-Encoding wins over Content-Length (RFC 9112 §6.3): the chunks frame the body when
      // chunked is the last coding, else the close does. Both together, or Transfer-Encoding in
      // an HTTP/1.0 answer, is what a smuggling attempt looks like: the connection is not used again.
      this.framing = /(^|,)[ \t]*chunked[ \t]*$/i.test(te) ? 'chunked' : 'close';
      if (head.httpVersion === '1.0' || headerIn(head.rawHeaders, 'content-length') !== undefined) this.reusable = false;
    } else {
      const cl = contentLength(head.rawHeaders, where);
      if (cl !== undefined) {
        this.framing = 'length';
        this.remaining = cl;
      } else this.framing = 'close';
    }
  }

  /** The body is empty by its head (nothing, or Content-Length: 0): complete before any byte. */
  get empty(): boolean {
    return this.framing === 'none' || (this.framing === 'length' && this.remaining === 0);
  }

  /** Bytes still to come by Content-Length (0 for other framings). */
  get left(): number {
    return this.remaining;
  }

  /** Takes the next bytes of the body; true when it is complete (bytes after its end are ignored). Throws a NetworkError for malformed chunks. */
  feed(data: Buffer): boolean {
    if (this.framing === 'length') {
      const n = Math.min(this.remaining, data.length);
      if (n > 0) {
        this.remaining -= n;
        this.onBytes(n === data.length ? data : data.subarray(0, n));
      }
      return this.remaining === 0;
    }
    if (this.framing === 'close') {
      if (data.length) this.onBytes(data);
      return false;
    }
    if (this.framing === 'none') return true;
    let pos = 0;
    for (;;) {
      if (this.chunkLeft > 0) {
        const n = Math.min(this.chunkLeft, data.length - pos);
        if (n > 0) {
          this.chunkLeft -= n;
          pos += n;
          this.onBytes(data.subarray(pos - n, pos));
        }
        if (this.chunkLeft > 0) return false;
        this.chunkLeft = -2;
      }
      const nl = data.indexOf(10, pos);
      if (nl === -1) {
        if (pos < data.length) this.line += data.toString('latin1', pos);
        // A size line or trailer that never ends is not waited for without bound.
        if (this.line.length > CHUNK_LINE_MAX) throw new NetworkError(`${this.where} sent a malformed chunked body (a line of more than 16 kB without its end)`);
        return false;
      }
      let line = data.toString('latin1', pos, nl);
      if (this.line) {
        line = this.line + line;
        this.line = '';
      }
      if (line.charCodeAt(line.length - 1) === 13) line = line.slice(0, -1);
      pos = nl + 1;
      if (this.chunkLeft === -2) {
        this.chunkLeft = -1;
        continue;
      }
      if (this.chunkLeft === -3) {
        if (line === '') return true;
        // Trailers: as much as a head may hold (Node's own parser stops at 16 kB too).
        if ((this.trailerBytes += line.length + 2) > CHUNK_LINE_MAX) throw new NetworkError(`${this.where} sent a malformed chunked body (trailers of more than 16 kB)`);
        continue;
      }
      // chunk-size [ BWS ";" chunk-ext ] (RFC 9112 §7.1): hexadecimal digits only (not `0x5`, `+5`, ` 5`).
      const size = CHUNK_SIZE.exec(line);
      const n = size ? Number.parseInt(size[1]!, 16) : Number.NaN;
      if (!Number.isSafeInteger(n)) throw new NetworkError(`${this.where} sent a malformed chunked body (chunk size '${line.slice(0, 20).replace(/[^\x20-\x7e]/g, '.')}')`);
      this.chunkLeft = n === 0 ? -3 : n;
    }
  }
}
