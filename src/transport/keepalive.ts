import type { Socket } from 'node:net';
import { Readable } from 'node:stream';
import { NetworkError, TimeoutError } from '../errors.js';
import type { PreparedRequest } from '../request/prepare.js';
import type { RequestSettings } from '../request/spec.js';
import { hostAndPort, type ParsedUrl } from '../request/url.js';
import { connectLimit, deadlineError, mapNetworkError, timeoutError, timeLeft } from './errors.js';
import { contentLength, headerIn, incompleteHead, maxHeadersError, notHttp1, parseResponseHead, STREAM_FROM } from './head.js';
import type { Hop, HopInfo, ResponseHead, Timings } from './send.js';
import { now } from '../clock.js';
import { setArriving } from './inflight.js';
import { awaitAnswer } from './poll.js';

/**
 * The `sling exec` lane for plain HTTP without a proxy: a minimal HTTP/1.1 client on kept-alive
 * TCP sockets (one pool per run), reading each response whole. A file of a thousand requests
 * spends most of its time in the per-request machinery of node:http (agents, parsers, streams,
 * events); here a request is one write, its response a few reads (node:net's `onread`, into one
 * shared buffer, no stream) parsed in place, and each socket keeps the same listeners for its
 * whole life. That keeps `sling exec` level with `curl -K` once warm (bench/exec-http.mjs). HTTPS,
 * proxies and the main command use send.ts.
 *
 * What it keeps from send.ts: header values sent as UTF-8 bytes, the lenient reading of heads,
 * interim 1xx answers skipped, --timeout as the longest silence, --max-headers, `Connection:
 * keep-alive` on the wire (node:http adds it too; not for curl files, as curl sends none), and
 * reuse information for --debug and -vv.
 */
interface Exchange {
  data(chunk: Buffer): void;
  /** --timeout: the socket was silent for too long. */
  timeout?(): void;
  /** The peer closed (end) or the socket died (error, close). */
  gone(err?: Error): void;
}

interface Conn {
  socket: Socket;
  key: string;
  current?: Exchange;
}

const idle = new Map<string, Conn[]>();
let netMod: typeof import('node:net') | undefined;

function unpark(c: Conn) {
  const list = idle.get(c.key);
  const at = list ? list.indexOf(c) : -1;
  if (at !== -1) list!.splice(at, 1);
}

/**
 * Where every socket of the lane reads into (node:net's `onread`): no stream machinery and no new
 * buffer per read. A chunk is only valid during the call; whatever is kept is copied.
 */
const READ_BUFFER = Buffer.allocUnsafe(64 * 1024);

function open(url: ParsedUrl, key: string): Conn {
  const c = { key } as Conn;
  const socket = netMod!.connect({
    host: url.hostname,
    port: url.port,
    noDelay: true,
    onread: {
      buffer: READ_BUFFER,
      callback: (n: number, buf: Uint8Array) => {
        c.current?.data((buf as Buffer).subarray(0, n));
        return true;
      },
    },
  });
  c.socket = socket;
  socket.on('timeout', () => c.current?.timeout?.());
  const gone = (err?: Error) => {
    const cur = c.current;
    c.current = undefined;
    unpark(c);
    socket.destroy();
    cur?.gone(err);
  };
  socket.on('end', () => gone());
  socket.on('close', () => gone());
  socket.on('error', (e) => gone(e));
  return c;
}

function take(key: string): Conn | undefined {
  const list = idle.get(key);
  while (list?.length) {
    const c = list.pop()!;
    if (!c.socket.destroyed && !c.socket.readableEnded) return c;
    c.socket.destroy();
  }
  return undefined;
}

function park(c: Conn) {
  c.current = undefined;
  // An idle socket never keeps the process alive.
  c.socket.unref();
  const list = idle.get(c.key);
  if (list) list.push(c);
  else idle.set(c.key, [c]);
}

/**
 * The bytes node:http would write: the request line and names as latin1 (a target can carry raw
 * bytes, as curl sends them), header values with non-ASCII characters as UTF-8 (send.ts), and a
 * body framed in chunks when the request says `Transfer-Encoding: chunked`.
 */
function wire(request: PreparedRequest, curlFraming: boolean): Buffer {
  let text = `${request.method} ${request.target} HTTP/1.1\r\n`;
  let connection = false;
  let chunked = false;
  const headers = request.headers;
  for (let i = 0; i < headers.length; i++) {
    const n = headers[i]![0];
    const v = headers[i]![1];
    if (n.length === 10 && n.toLowerCase() === 'connection') connection = true;
    else if (n.length === 17 && n.toLowerCase() === 'transfer-encoding' && /chunked/i.test(v)) chunked = true;
    // curl's `-H 'Name;'` goes out as `Name:` with nothing after the colon.
    text += v === '' && curlFraming ? `${n}:\r\n` : `${n}: ${/[^\x00-\x7f]/.test(v) ? Buffer.from(v, 'utf8').toString('latin1') : v}\r\n`;
  }
  if (!connection && !curlFraming) text += 'Connection: keep-alive\r\n';
  text += '\r\n';
  const body = request.body;
  if (chunked) {
    const framed = body.length ? `${body.length.toString(16)}\r\n` : '';
    return Buffer.concat([Buffer.from(text + framed, 'latin1'), body, Buffer.from(body.length ? '\r\n0\r\n\r\n' : '0\r\n\r\n', 'latin1')]);
  }
  const size = text.length + body.length;
  // One buffer for head and body: one write, no concatenation of pieces. Most requests go out
  // through one buffer the lane keeps (send() lets go of it when a write has to wait): a new
  // buffer per request is new memory for the process to touch, until the garbage collector
  // gives it back.
  const out = size <= OUT_BUFFER_SIZE ? outBuffer : Buffer.allocUnsafe(size);
  out.write(text, 0, 'latin1');
  body.copy(out, text.length);
  return size <= OUT_BUFFER_SIZE ? out.subarray(0, size) : out;
}

const OUT_BUFFER_SIZE = 16 * 1024;
let outBuffer = Buffer.allocUnsafe(OUT_BUFFER_SIZE);

/** Writes a request's bytes; a write that could not go out at once keeps the shared buffer, and the lane takes a new one. */
function send(sock: Socket, bytes: Buffer) {
  sock.write(bytes);
  if (bytes.buffer === outBuffer.buffer && sock.writableLength > 0) outBuffer = Buffer.allocUnsafe(OUT_BUFFER_SIZE);
}

const HEAD_END = Buffer.from('\r\n\r\n', 'latin1');
const HEAD_END_LF = Buffer.from('\n\n', 'latin1');

/** A hop whose body was read whole: readBody takes `whole` directly; a stream is made only for those who ask for one. */
class WholeHop implements Hop {
  private stream?: Readable;
  constructor(
    readonly url: ParsedUrl,
    readonly request: PreparedRequest,
    readonly response: ResponseHead,
    readonly info: HopInfo,
    readonly whole: Buffer,
  ) {}

  get body(): Readable {
    if (!this.stream) {
      this.stream = new Readable({ read() {} });
      if (this.whole.length) this.stream.push(this.whole);
      this.stream.push(null);
    }
    return this.stream;
  }
}

/** A hop whose body is still arriving (a streamable caller, a large or open-ended body). */
class StreamHop implements Hop {
  constructor(
    readonly url: ParsedUrl,
    readonly request: PreparedRequest,
    readonly response: ResponseHead,
    readonly info: HopInfo,
    readonly body: Readable,
  ) {}
}

const hangUp = () => Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });

/**
 * Sends one request on a kept-alive connection (a new one when none is idle). Not an async
 * function: the common case (a reused connection) is one write and one promise.
 */
export function sendKeepAlive(url: ParsedUrl, request: PreparedRequest, settings: RequestSettings, onWritten?: () => void, streamable?: (head: ResponseHead) => boolean): Promise<Hop> {
  const where = hostAndPort(url);
  const timings: Timings = { start: now() };
  const info: HopInfo = { reused: false, timings };
  return sendOn(url, where, request, settings, info, onWritten, 0, streamable);
}

/**
 * How many times a request goes again on a new connection when a kept-alive one turns out dead:
 * closed or reset by the server before any byte of the answer (a server that closes idle
 * connections, or closes after each answer without saying `Connection: close`). curl does the
 * same ("Connection died, retrying a fresh connect"); the request cannot have been answered.
 */
const STALE_RETRIES = 3;

function sendOn(url: ParsedUrl, where: string, request: PreparedRequest, settings: RequestSettings, info: HopInfo, onWritten: (() => void) | undefined, retries: number, streamable: ((head: ResponseHead) => boolean) | undefined): Promise<Hop> {
  const conn = take(where);
  if (conn) {
    info.reused = true;
    conn.socket.ref();
    return exchangeOn(conn, url, request, settings, info, onWritten, retries < STALE_RETRIES ? () => retry() : undefined, streamable);
  }
  info.reused = false;
  return connect(url, where, settings, info).then((c) => exchangeOn(c, url, request, settings, info, onWritten, undefined, streamable));

  function retry(): Promise<Hop> {
    return sendOn(url, where, request, settings, info, undefined, retries + 1, streamable);
  }
}

async function connect(url: ParsedUrl, where: string, settings: RequestSettings, info: HopInfo): Promise<Conn> {
  const timings = info.timings;
  netMod ??= await import('node:net');
  const c = open(url, where);
  c.socket.once('lookup', () => (timings.dns = now()));
  await new Promise<void>((resolve, reject) => {
    const limit = connectLimit(settings);
    const timer = limit
      ? setTimeout(() => {
          info.timedOut = true;
          c.current = undefined;
          c.socket.destroy();
          reject(new TimeoutError(`could not connect to ${where} within ${limit.text}`));
        }, limit.ms)
      : undefined;
    c.current = {
      data: () => {},
      gone: (e) => {
        if (timer) clearTimeout(timer);
        reject(mapNetworkError(e ?? hangUp(), where));
      },
    };
    c.socket.once('connect', () => {
      if (timer) clearTimeout(timer);
      c.current = undefined;
      resolve();
    });
  });
  timings.connect = now();
  return c;
}

function exchangeOn(c: Conn, url: ParsedUrl, request: PreparedRequest, settings: RequestSettings, info: HopInfo, onWritten?: () => void, stale?: () => Promise<Hop>, streamable?: (head: ResponseHead) => boolean): Promise<Hop> {
  const where = c.key;
  const timings = info.timings;
  const sock = c.socket;
  info.remoteAddress = sock.remoteAddress;
  info.remotePort = sock.remotePort;
  info.localAddress = sock.localAddress;
  info.localPort = sock.localPort;

  return new Promise<Hop>((resolve, reject) => {
    let pending: Buffer | undefined;
    let response: ResponseHead | undefined;
    let framing: 'none' | 'length' | 'chunked' | 'close' = 'close';
    let remaining = 0;
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    // chunked decoding: > 0 data left in the chunk, -1 size line next, -2 CRLF after data, -3 trailers
    let chunkLeft = -1;
    /** The body as it arrives, once handed over (streamable): chunks go there instead of into `chunks`. */
    let stream: Readable | undefined;

    /**
     * What came of a body that failed (cut short, stalled): printed before the error and left in
     * curl's -o file. Encoded bytes that are to be decoded are marked so: the runner decodes what it can.
     */
    const cutBody = () => {
      info.bodyBytes = size;
      const encoded = !settings.keepEncoding && headerIn(response!.rawHeaders, 'content-encoding') !== undefined;
      return { response: response!, body: Buffer.concat(chunks, size), info, request, url, encoded };
    };
    /** curl's -m: the transfer ends by its deadline, however steadily the bytes come. */
    let hard: ReturnType<typeof setTimeout> | undefined;
    const finish = (err?: Error, reusable = false) => {
      if (done) return;
      done = true;
      if (hard) clearTimeout(hard);
      if (arrivingSet) setArriving(undefined);
      if (settings.timeoutMs) sock.setTimeout(0);
      if (err) {
        c.current = undefined;
        sock.destroy();
        if (stream) stream.destroy(err);
        else reject(err);
        return;
      }
      timings.end = now();
      const r = response!;
      const conn = headerIn(r.rawHeaders, 'connection');
      const keep = reusable && !(conn && /close/i.test(conn)) && !(r.httpVersion === '1.0' && !(conn && /keep-alive/i.test(conn)));
      // A streamed body's last bytes may have paused the socket (a slow reader): it reads again before it is reused.
      resumeReading();
      if (keep) park(c);
      else {
        c.current = undefined;
        sock.destroy();
      }
      if (stream) {
        stream.push(null);
        return;
      }
      const whole = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size);
      resolve(new WholeHop(url, request, r, info, whole));
    };

    /** Reading stopped because the reader of a streamed body is behind (a full pipe): not the server's silence. */
    let paused = false;
    /** Body bytes (a copy): kept, or passed on when the body is streamed. */
    const keepBytes = (bytes: Buffer) => {
      size += bytes.length;
      if (!stream) chunks.push(bytes);
      else if (!stream.push(bytes) && !paused) {
        paused = true;
        sock.pause();
        // --timeout measures the server's silence, not ours.
        if (settings.timeoutMs) sock.setTimeout(0);
      }
    };
    const resumeReading = () => {
      if (!paused) return;
      paused = false;
      if (settings.timeoutMs && !done) sock.setTimeout(settings.timeoutMs);
      sock.resume();
    };

    /** A large or open-ended body still arriving: the caller gets it as a stream from here on. */
    const handOver = () => {
      const r = response!;
      if (arrivingSet) {
        arrivingSet = false;
        setArriving(undefined);
      }
      stream = new Readable({
        read: resumeReading,
        // The reader gave up (a body that cannot be decoded, stdout gone): the connection goes with it.
        destroy: (err, cb) => {
          if (!done) {
            done = true;
            c.current = undefined;
            sock.destroy();
          }
          cb(err);
        },
      });
      for (const ch of chunks) stream.push(ch);
      chunks.length = 0;
      resolve(new StreamHop(url, request, r, info, stream));
    };

    /** Consumes body bytes of `data` from `at`; true when the body is complete. */
    const bodyBytes = (data: Buffer, at: number): boolean => {
      if (framing === 'length') {
        const n = Math.min(remaining, data.length - at);
        if (n > 0) {
          keepBytes(Buffer.from(data.subarray(at, at + n)));
          remaining -= n;
        }
        return remaining === 0;
      }
      if (framing === 'close') {
        if (at < data.length) keepBytes(Buffer.from(data.subarray(at)));
        return false;
      }
      let pos = at;
      for (;;) {
        if (chunkLeft > 0) {
          const n = Math.min(chunkLeft, data.length - pos);
          if (n > 0) {
            keepBytes(Buffer.from(data.subarray(pos, pos + n)));
            chunkLeft -= n;
            pos += n;
          }
          if (chunkLeft > 0) return false;
          chunkLeft = -2;
        }
        const nl = data.indexOf(10, pos);
        if (nl === -1) {
          if (pos < data.length) pending = Buffer.from(data.subarray(pos));
          return false;
        }
        const line = data.toString('latin1', pos, nl).replace(/\r$/, '');
        pos = nl + 1;
        if (chunkLeft === -2) {
          chunkLeft = -1;
          continue;
        }
        if (chunkLeft === -3) {
          if (line === '') return true;
          continue;
        }
        const n = parseInt(line, 16);
        if (!Number.isFinite(n) || n < 0) throw new NetworkError(`${where} sent a malformed chunked body`);
        chunkLeft = n === 0 ? -3 : n;
      }
    };

    /** Some byte of the answer arrived (a connection that answered is not retried). */
    let answered = false;
    let arrivingSet = false;
    /** Reads so far (a --timeout that fires checks whether one came meanwhile). */
    let reads = 0;
    const data = (incoming: Buffer) => {
      if (done) return;
      reads++;
      answered = true;
      try {
        let d = pending ? Buffer.concat([pending, incoming]) : incoming;
        pending = undefined;
        if (!response) {
          let endAt = d.indexOf(HEAD_END);
          let sep = 4;
          if (endAt === -1) {
            endAt = d.indexOf(HEAD_END_LF);
            sep = 2;
          }
          // Not HTTP/1.x (an HTTP/2-only server, another protocol): said at once, not after a timeout.
          const alien = notHttp1(where, d);
          if (alien) return finish(alien);
          if (endAt === -1) {
            if (d.length > 256 * 1024) return finish(new NetworkError(`${where} sent a response head larger than 256 kB`));
            pending = Buffer.from(d);
            return;
          }
          const r = parseResponseHead(d.toString('latin1', 0, endAt), where);
          d = d.subarray(endAt + sep);
          if (r.status >= 100 && r.status < 200) {
            // 100 Continue and other interim answers: the real head follows.
            if (d.length) data(d);
            return;
          }
          timings.firstByte = now();
          const tooMany = maxHeadersError(r, settings, where);
          if (tooMany) return finish(tooMany);
          response = r;
          // Ctrl-C from here on: the head and the bytes so far are printed (when they need no decoding).
          arrivingSet = true;
          setArriving(() => ({ response: r, body: headerIn(r.rawHeaders, 'content-encoding') ? Buffer.alloc(0) : Buffer.concat(chunks, size), info }));
          const te = headerIn(r.rawHeaders, 'transfer-encoding');
          if (request.method === 'HEAD' || r.status === 204 || r.status === 304) framing = 'none';
          else if (te && /chunked/i.test(te)) framing = 'chunked';
          else {
            const cl = contentLength(r.rawHeaders, where);
            if (cl !== undefined) {
              framing = 'length';
              remaining = cl;
            } else framing = 'close';
          }
          if (framing === 'none' || (framing === 'length' && remaining === 0)) return finish(undefined, d.length === 0);
          // curl's -f: an HTTP error ends the transfer at its head (the body is not waited for; the connection goes).
          if (settings.failAtHead && r.status >= 400) return finish();
          if (bodyBytes(d, 0)) return finish(undefined, true);
          if (streamable && (framing !== 'length' || remaining + size > STREAM_FROM) && streamable(response)) handOver();
          return;
        }
        if (bodyBytes(d, 0)) finish(undefined, true);
      } catch (e) {
        finish(e instanceof Error ? e : new Error(String(e)));
      }
    };

    c.current = {
      data,
      gone: (err) => {
        if (stale && !answered && !done) {
          // A reused connection that died before answering: the request goes again on a new one.
          done = true;
          c.current = undefined;
          sock.destroy();
          resolve(stale());
          return;
        }
        if (!err && response && framing === 'close') return finish();
        if (response) {
          const cut = Object.assign(new Error(`aborted after ${size} bytes`), { code: 'ECONNRESET' });
          const length = headerIn(response.rawHeaders, 'content-length');
          const e = new NetworkError(`the response body from ${url.hostHeader} was cut short${length ? ` (Content-Length was ${length})` : ''}: ${(err as NodeJS.ErrnoException | undefined)?.code === 'ECONNRESET' ? 'connection reset' : 'connection closed'}`, undefined, { cause: err ?? cut });
          // The head and, when they need no decoding, the bytes that arrived: printed before the error.
          timings.end = now();
          if (!stream) e.partial = cutBody();
          return finish(e);
        }
        // Bytes that never made a head (an HTTP/0.9 answer, a head cut off by the close).
        if (pending?.length && !err) return finish(incompleteHead(where));
        finish(mapNetworkError(err ?? hangUp(), where));
      },
    };
    if (settings.timeoutMs) {
      c.current.timeout = () => {
        // The timer may have fired because sling itself was busy (a write to a full pipe blocks
        // the process): bytes that came meanwhile are read first (the poll phase runs before
        // setImmediate), and only a socket that stayed silent times out.
        const seen = reads;
        setImmediate(() => {
          if (!done && reads === seen) timedOut();
        });
      };
      const timedOut = () => {
        info.timedOut = true;
        if (!response) return finish(timeoutError(where, settings, false, info));
        // The head came, then the body stalled: what arrived is printed before the error.
        const e = timeoutError(url.hostHeader, settings, true, { bodyBytes: size });
        timings.end = now();
        if (!stream) e.partial = cutBody();
        finish(e);
      };
      sock.setTimeout(settings.timeoutMs);
    }
    if (settings.deadline !== undefined) {
      hard = setTimeout(() => {
        info.timedOut = true;
        if (!response) return finish(deadlineError(where, settings, false, 0));
        const e = deadlineError(url.hostHeader, settings, true, size);
        timings.end = now();
        if (!stream) e.partial = cutBody();
        finish(e);
      }, timeLeft(settings));
    }
    send(sock, wire(request, settings.curlFraming === true));
    awaitAnswer(() => done);
    onWritten?.();
  });
}
