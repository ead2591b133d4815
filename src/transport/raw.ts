import type { Socket } from 'node:net';
import { Readable } from 'node:stream';
import { CliError, NetworkError, TimeoutError } from '../errors.js';
import { isStreamed, writeStreamed } from '../model/upload.js';
import type { PreparedRequest } from '../model/prepare.js';
import type { RequestSettings } from '../model/spec.js';
import { hostAndPort, type ParsedUrl } from '../model/url.js';
import { mapNetworkError } from './errors.js';
import { socketTarget } from './connect.js';
import { headerIn } from '../model/headers.js';
import { contentLength, incompleteHead, MAX_INTERIM, maxHeadersError, parseResponseHead, tooManyInterim, unaskedSwitch } from './head.js';
import type { Hop } from './send.js';
import type { HopInfo, Timings } from '../model/exchange.js';
import { now } from '../clock.js';

/**
 * The download fast lane: a minimal HTTP/1.1 exchange on a plain TCP socket that reads into one
 * reused 1 MiB buffer (net's `onread`) and hands body bytes straight to the consumer, without
 * node:http's parser and stream layers. Node's http client tops out near half of curl's speed for
 * a 1 GiB file; this reaches curl (bench/download.mjs). Used only for downloads over plain HTTP
 * without a proxy; everything else goes through send.ts.
 */
const READ_BUFFER = 1 << 20;

type Consumer = (chunk: Buffer) => void;

export async function sendRaw(url: ParsedUrl, request: PreparedRequest, settings: RequestSettings): Promise<Hop> {
  const net = await import('node:net');
  const timings: Timings = { start: now() };
  const where = hostAndPort(url);
  const info: HopInfo = { reused: false, timings };

  return await new Promise<Hop>((resolve, reject) => {
    let phase: 'head' | 'body' | 'done' = 'head';
    let head = Buffer.alloc(0);
    let consumer: Consumer | undefined;
    let finish: ((err?: Error) => void) | undefined;
    let pending: Buffer[] = []; // body bytes that arrived before a consumer attached
    let framing: 'length' | 'chunked' | 'close' | 'none' = 'close';
    let remaining = 0; // bytes left (length), or in the current chunk (chunked)
    let chunkState: 'size' | 'data' | 'data-crlf' | 'trailer' = 'size';
    let sizeLine = '';
    let received = 0;
    let settled = false;

    const deliver = (bytes: Buffer) => {
      if (bytes.length === 0) return;
      received += bytes.length;
      if (consumer) {
        // A consumer that cannot take the bytes (a full disk) ends the transfer with its error,
        // which reaches whoever attached it; thrown here it would escape the socket's callback.
        try {
          consumer(bytes);
        } catch (e) {
          end(e as Error);
        }
      } else pending.push(Buffer.from(bytes)); // the read buffer is reused: keep a copy
    };
    const end = (err?: Error) => {
      if (phase === 'done') return;
      phase = 'done';
      timings.end = now();
      socket.destroy();
      if (finish) finish(err);
      else endError = err ?? null;
    };
    let endError: Error | null | undefined; // set when the body ended before anyone attached

    const body = (data: Buffer) => {
      let at = 0;
      while (at < data.length && phase === 'body') {
        if (framing === 'length') {
          const n = Math.min(remaining, data.length - at);
          deliver(data.subarray(at, at + n));
          at += n;
          remaining -= n;
          if (remaining === 0) end();
        } else if (framing === 'close') {
          deliver(data.subarray(at));
          at = data.length;
        } else {
          // chunked: size line, data, CRLF, ... 0 CRLF, trailers, CRLF
          if (chunkState === 'size' || chunkState === 'trailer') {
            const nl = data.indexOf(10, at);
            const piece = data.toString('latin1', at, nl === -1 ? data.length : nl);
            at = nl === -1 ? data.length : nl + 1;
            sizeLine += piece;
            if (nl === -1) continue;
            const line = sizeLine.replace(/\r$/, '');
            sizeLine = '';
            if (chunkState === 'trailer') {
              if (line === '') end();
              continue;
            }
            const size = parseInt(line.split(';')[0]!.trim(), 16);
            if (!Number.isFinite(size) || size < 0) return end(new NetworkError(`${where} sent a malformed chunked body`));
            if (size === 0) chunkState = 'trailer';
            else {
              remaining = size;
              chunkState = 'data';
            }
          } else if (chunkState === 'data') {
            const n = Math.min(remaining, data.length - at);
            deliver(data.subarray(at, at + n));
            at += n;
            remaining -= n;
            if (remaining === 0) chunkState = 'data-crlf';
          } else {
            const nl = data.indexOf(10, at);
            if (nl === -1) at = data.length;
            else {
              at = nl + 1;
              chunkState = 'size';
            }
          }
        }
      }
    };

    /** Interim (1xx) answers so far. */
    let interim = 0;
    const onData = (data: Buffer) => {
      if (phase === 'body') return body(data);
      if (phase !== 'head') return;
      head = Buffer.concat([head, data]);
      const endAt = head.indexOf('\r\n\r\n');
      if (endAt === -1) {
        if (head.length > 256 * 1024) fail(new NetworkError(`${where} sent a response head larger than 256 kB`));
        return;
      }
      let response;
      try {
        response = parseResponseHead(head.toString('latin1', 0, endAt), where);
      } catch (e) {
        return fail(e);
      }
      const rest = Buffer.from(head.subarray(endAt + 4));
      head = Buffer.alloc(0);
      if (response.status === 101) return fail(unaskedSwitch(where, headerIn(response.rawHeaders, 'upgrade')));
      if (response.status >= 100 && response.status < 200) {
        // 100 Continue and other interim answers: the real head follows.
        if (++interim > MAX_INTERIM) return fail(tooManyInterim(where));
        if (rest.length) onData(rest);
        return;
      }
      timings.firstByte = now();
      const tooMany = maxHeadersError(response, settings, where);
      if (tooMany) return fail(tooMany);
      const te = headerIn(response.rawHeaders, 'transfer-encoding');
      if (request.method === 'HEAD' || response.status === 204 || response.status === 304) framing = 'none';
      else if (te && /chunked/i.test(te)) framing = 'chunked';
      else {
        let cl: number | undefined;
        try {
          cl = contentLength(response.rawHeaders, where);
        } catch (e) {
          return fail(e as Error);
        }
        if (cl !== undefined) {
          framing = 'length';
          remaining = cl;
        } else framing = 'close';
      }
      phase = 'body';
      socket.pause();
      settled = true;
      if (framing === 'none' || (framing === 'length' && remaining === 0)) end();
      else if (rest.length) body(rest);

      const attach = (c: Consumer) =>
        new Promise<void>((res, rej) => {
          consumer = c;
          for (const p of pending) c(p);
          pending = [];
          finish = (err) => (err ? rej(err) : res());
          if (endError !== undefined) return endError ? rej(endError) : res();
          socket.resume();
        });
      // A stream view for the generic path (redirect bodies, decoding); the fast path calls attach.
      let stream: Readable | undefined;
      const lazyStream = () => {
        if (stream) return stream;
        stream = new Readable({ read() {} });
        attach((chunk) => stream!.push(Buffer.from(chunk))).then(
          () => stream!.push(null),
          (e) => stream!.destroy(e),
        );
        return stream;
      };
      const hop = {
        url,
        request,
        response,
        info,
        attach,
        get body() {
          return lazyStream();
        },
      } as unknown as Hop;
      resolve(hop);
    };

    const fail = (e: unknown) => {
      if (phase === 'done') return;
      if (!settled) {
        settled = true;
        phase = 'done';
        socket.destroy();
        reject(e instanceof CliError ? e : mapNetworkError(e, where));
      } else end(e instanceof Error ? e : new Error(String(e)));
    };

    const buffer = Buffer.allocUnsafe(READ_BUFFER);
    const socket: Socket = net.connect({
      ...socketTarget(url, settings),
      onread: { buffer, callback: (n: number, buf: Buffer) => void onData(buf.subarray(0, n)) },
    } as unknown as import('node:net').NetConnectOpts);
    socket.once('lookup', () => (timings.dns = now()));
    const connectTimer = settings.connectTimeoutMs
      ? setTimeout(() => fail(new TimeoutError(`could not connect to ${where} within ${settings.connectTimeoutMs! / 1000}s`)), settings.connectTimeoutMs)
      : undefined;
    socket.once('close', () => clearTimeout(connectTimer));
    socket.once('connect', () => {
      clearTimeout(connectTimer);
      timings.connect = now();
      info.remoteAddress = socket.remoteAddress;
      info.remotePort = socket.remotePort;
      info.localAddress = socket.localAddress;
      info.localPort = socket.localPort;
      let text = `${request.method} ${request.target} HTTP/${request.version ?? '1.1'}\r\n`;
      for (const [n, v] of request.headers) text += `${n}: ${/[^\x00-\x7f]/.test(v) ? Buffer.from(v, 'utf8').toString('latin1') : v}\r\n`;
      socket.write(Buffer.from(text + '\r\n', 'latin1'));
      const body = request.body;
      if (isStreamed(body)) {
        const chunked = request.headers.some(([n, v]) => n.toLowerCase() === 'transfer-encoding' && /chunked/i.test(v));
        writeStreamed(body, socket, chunked).catch((e: Error) => fail(e));
      } else if (body.length) socket.write(body);
    });
    if (settings.timeoutMs) {
      socket.setTimeout(settings.timeoutMs, () => {
        info.timedOut = true;
        // After the head, the body stalled: bodyError() says so, with the bytes that came.
        if (phase === 'body') end(new Error('timeout'));
        else fail(new TimeoutError(`no answer from ${where} within ${settings.timeoutMs! / 1000}s (${settings.timeoutFrom ?? '--timeout'})`));
      });
    }
    socket.on('error', (e) => {
      if (phase === 'body') {
        // The socket's own error (a reset: ECONNRESET) names the cut; a clean close ends below.
        const cut = Object.assign(new Error(`reset after ${received} bytes`), { code: (e as NodeJS.ErrnoException).code ?? 'ECONNRESET' });
        return end(cut);
      }
      fail(e);
    });
    socket.on('close', () => {
      if (phase === 'head') fail(head.length ? incompleteHead(where) : Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }));
      else if (phase === 'body') {
        if (framing === 'close') end();
        else end(Object.assign(new Error('aborted'), { code: 'ECONNRESET' }));
      }
    });
  });
}
