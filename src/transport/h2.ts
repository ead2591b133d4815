import type { ClientHttp2Session, ClientHttp2Stream, IncomingHttpHeaders } from 'node:http2';
import type { Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { PassThrough } from 'node:stream';
import { NetworkError } from '../errors.js';
import type { PreparedRequest } from '../model/prepare.js';
import type { RequestSettings } from '../model/spec.js';
import { hostAndPort, type ParsedUrl } from '../model/url.js';
import { connectLimit, connectTimeout, deadlineError, h2Name, mapNetworkError, timeoutError, timeLeft } from './errors.js';
import { connectionKey, openTunnel, socketTarget, tunnel } from './connect.js';
import type { ProxyTarget } from './proxy.js';
import type { Hop } from './hop.js';
import type { HopInfo, Timings } from '../model/exchange.js';
import { H2_FORBIDDEN, headerInPairs } from '../model/headers.js';
import { now } from '../clock.js';
import { isStreamed, writeStreamed } from '../model/upload.js';
import { checkHead } from './wire.js';

/**
 * HTTP/2 (node:http2): with `alpn`, h2 is offered over TLS next to http/1.1 and used when the
 * server picks it (curl's --http2 on https://); with `prior-knowledge`, h2 is spoken from the first
 * byte over cleartext, and over TLS offered the same way as with `alpn` (curl 7.88 offers
 * h2,http/1.1 there too and falls back). Sessions are kept per origin and reused by later requests.
 * Returns null when the server chose HTTP/1.1: the caller sends the request the usual way.
 */
const sessions = new Map<string, ClientHttp2Session>();
const inFlight = new WeakMap<ClientHttp2Session, number>();

/** Headers HTTP/2 forbids (connection-specific), and Host, which becomes :authority. */
const HOP_BY_HOP = new Set([...H2_FORBIDDEN, 'host']);

export function closeH2Sessions() {
  for (const s of sessions.values()) s.close();
  sessions.clear();
}

/**
 * The kept HTTP/2 session for the URL and settings, opened when there is none (gRPC, grpc.ts, opens
 * its calls on it too, with `http2: 'prior-knowledge'`); null when TLS negotiated HTTP/1.1. With a
 * proxy (gRPC's: client.ts sends no HTTP/2 request through one) the connection is a CONNECT tunnel
 * through it, HTTP/2 spoken in it as it is (h2c) or in TLS offering `h2` alone; a session through a
 * proxy and a direct one are never the same.
 */
export async function session(url: ParsedUrl, settings: RequestSettings, tlsOpts: object, timings: Timings, where: string, proxy?: ProxyTarget): Promise<ClientHttp2Session | null> {
  // Over plain HTTP only prior knowledge speaks h2 here: curl's --http2 there offers an h2c
  // upgrade on an HTTP/1.1 request (client.ts).
  if (url.scheme === 'http' && settings.http2 !== 'prior-knowledge') return null;
  const via = proxy ? `${proxy.display}|${proxy.authorization ?? ''}` : '';
  const key = `${url.scheme}://${url.hostHeader}|${settings.http2}|${JSON.stringify(settings.tls)}|${connectionKey(settings)}|${via}`;
  const cached = sessions.get(key);
  if (cached && !cached.closed && !cached.destroyed) return cached;
  const http2 = await import('node:http2');
  const origin = `${url.scheme}://${hostAndPort(url)}`;
  // The connection is made here (not by node:http2), so that a server that never accepts it is
  // given up on after --connect-timeout / # @connection-timeout (else --timeout), as over HTTP/1.1,
  // and no connection attempt is left behind to keep the process alive.
  const socket = proxy ? await tunnelSocket(proxy, url, settings, timings) : await connectSocket(url, settings, tlsOpts, timings, where);
  if (url.scheme === 'https' && (socket as TLSSocket).alpnProtocol !== 'h2') {
    socket.destroy();
    return null;
  }
  const created = http2.connect(origin, { createConnection: () => socket });
  // A tunnel's socket comes paused (connect.ts openTunnel). node:http2 takes over its handle, which
  // net keeps reading while paused until the buffer is full, and takes what is buffered on the next
  // tick; resumed after that, so that reading never stays stopped by the pause.
  if (proxy && url.scheme === 'http') socket.resume();
  created.on('error', () => {}); // reported through the request stream
  created.unref();
  sessions.set(key, created);
  return created;
}

/** Through a proxy: the CONNECT tunnel (h2c in it as it is), or TLS in it offering HTTP/2 alone (connect.ts). */
async function tunnelSocket(proxy: ProxyTarget, url: ParsedUrl, settings: RequestSettings, timings: Timings): Promise<Socket | TLSSocket> {
  return url.scheme === 'https' ? await tunnel(proxy, url, settings, timings, ['h2']) : await openTunnel(proxy, url, settings, timings);
}

/** A TCP (and for https a TLS) connection, with the connect limit and the handshake's idle limit. */
async function connectSocket(url: ParsedUrl, settings: RequestSettings, tlsOpts: object, timings: Timings, where: string): Promise<Socket | TLSSocket> {
  // -4/-6, --resolve, --interface (connect.ts).
  const to = socketTarget(url, settings);
  const s: Socket | TLSSocket = url.scheme === 'https' ? (await import('node:tls')).connect({ ...to, ...tlsOpts, ALPNProtocols: ['h2', 'http/1.1'] }) : (await import('node:net')).connect(to);
  return await new Promise((resolve, reject) => {
    const limit = connectLimit(settings);
    let tcp = false;
    const timer = limit
      ? setTimeout(() => {
          s.destroy();
          reject(connectTimeout(where, limit.text, tcp && url.scheme === 'https'));
        }, limit.ms)
      : undefined;
    // The limit covers the TLS handshake too, as curl's --connect-timeout does.
    s.once('connect', () => {
      tcp = true;
      timings.connect = now();
      if (url.scheme !== 'http') return;
      if (timer) clearTimeout(timer);
      resolve(s);
    });
    s.once('secureConnect', () => {
      if (timer) clearTimeout(timer);
      timings.tls = now();
      resolve(s);
    });
    s.once('error', (e) => {
      if (timer) clearTimeout(timer);
      reject(mapNetworkError(e, where));
    });
  });
}

/** An idle session never keeps the process alive; one with a stream in flight does (until the stream closes). */
export function holdSession(s: ClientHttp2Session, stream: ClientHttp2Stream): void {
  inFlight.set(s, (inFlight.get(s) ?? 0) + 1);
  s.ref();
  stream.once('close', () => {
    const left = (inFlight.get(s) ?? 1) - 1;
    inFlight.set(s, left);
    if (left === 0 && !s.destroyed) s.unref();
  });
}

/**
 * An HTTP/2 answer's headers as a flat [name, value, ...] list (pseudo-headers left out), and the
 * connection's addresses and TLS into `info`: what every stream of a session reads as its answer
 * comes (an HTTP request's here, a gRPC call's in grpc.ts).
 */
export function answerHead(s: ClientHttp2Session, h: IncomingHttpHeaders, info: HopInfo): string[] {
  const socket = s.socket as TLSSocket | undefined;
  info.remoteAddress = socket?.remoteAddress;
  info.remotePort = socket?.remotePort;
  info.localAddress = socket?.localAddress;
  info.localPort = socket?.localPort;
  if (socket && typeof socket.getProtocol === 'function') {
    info.tlsProtocol = socket.getProtocol() ?? undefined;
    info.tlsCipher = socket.getCipher()?.name;
  }
  const rawHeaders: string[] = [];
  for (const [name, value] of Object.entries(h)) {
    if (name.startsWith(':') || value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) rawHeaders.push(name, String(v));
  }
  return rawHeaders;
}

export async function sendH2(url: ParsedUrl, request: PreparedRequest, settings: RequestSettings, tlsOpts: object): Promise<Hop | null> {
  // Before a session is opened: HTTP/2 frames headers with lengths, but a server that turns them
  // back into HTTP/1.1 lines (a gateway) would split them as HTTP/1.1 does (RFC 9113, 8.2.1).
  checkHead(request.method, request.target, request.headers);
  const timings: Timings = { start: now() };
  const where = hostAndPort(url);
  const s = await session(url, settings, tlsOpts, timings, where);
  if (!s) return null;
  const reused = timings.connect === undefined && timings.tls === undefined;
  const headers: Record<string, string | string[]> = {
    ':method': request.method,
    ':path': request.target,
    ':scheme': url.scheme,
    ':authority': headerInPairs(request.headers, 'host') ?? url.hostHeader,
  };
  for (const [n, v] of request.headers) {
    const lower = n.toLowerCase();
    if (HOP_BY_HOP.has(lower)) continue;
    const prev = headers[lower];
    headers[lower] = prev === undefined ? v : lower === 'cookie' ? `${prev}; ${v}` : ([] as string[]).concat(prev, v);
  }
  const info: HopInfo = { reused, timings, tlsProtocol: undefined, tlsCipher: undefined };
  return await new Promise<Hop>((resolve, reject) => {
    let stream: ClientHttp2Stream;
    try {
      stream = s.request(headers, { endStream: request.body.length === 0 });
    } catch (e) {
      reject(mapNetworkError(e, where));
      return;
    }
    holdSession(s, stream);
    let settled = false;
    stream.once('close', () => {
      // Closed before any answer without an error (a server's RST_STREAM with NO_ERROR, say).
      if (!settled) {
        settled = true;
        reject(new NetworkError(`${where} closed the HTTP/2 stream without answering (${h2Name(stream.rstCode)})`));
      }
    });
    stream.on('error', (e) => {
      if (!settled) {
        settled = true;
        reject(mapNetworkError(e, where));
      }
    });
    if (settings.timeoutMs) {
      stream.setTimeout(settings.timeoutMs, () => {
        info.timedOut = true;
        stream.destroy(timeoutError(where, settings, settled, info));
      });
    }
    if (settings.deadline !== undefined) {
      // curl's -m: the stream and its body, however steadily the bytes come.
      const hard = setTimeout(() => {
        info.timedOut = true;
        stream.destroy(deadlineError(where, settings, settled));
      }, timeLeft(settings));
      stream.once('close', () => clearTimeout(hard));
    }
    stream.on('response', (h: IncomingHttpHeaders) => {
      settled = true;
      timings.firstByte = now();
      const rawHeaders = answerHead(s, h, info);
      const status = Number(h[':status']);
      const length = h['content-length'] === undefined ? undefined : Number(h['content-length']);
      const expectBody = request.method !== 'HEAD' && status !== 204 && status !== 304;
      // node:http2 ends a stream normally when its connection dies mid-body: the body goes through
      // a PassThrough that ends only when the stream ended well (no reset, no missing bytes).
      const body = new PassThrough();
      let received = 0;
      stream.on('data', (c: Buffer) => {
        received += c.length;
        if (!body.write(c)) stream.pause();
      });
      body.on('drain', () => stream.resume());
      stream.on('error', (e) => body.destroy(e));
      // The reader gave up on the body (curl's -f on an HTTP error): the stream goes too (RST_STREAM CANCEL).
      body.on('close', () => {
        if (!body.writableEnded && !stream.closed && !stream.destroyed) stream.close(0x8);
      });
      stream.on('end', () => {
        timings.end = now();
        const short = expectBody && length !== undefined && received < length;
        if (stream.rstCode || short) body.destroy(Object.assign(new Error('aborted'), { code: 'ECONNRESET' }));
        else body.end();
      });
      void import('node:http').then(({ STATUS_CODES }) => resolve({ url, request, response: { httpVersion: '2', status, reason: STATUS_CODES[status] ?? '', rawHeaders }, body, info }));
    });
    const body = request.body;
    if (isStreamed(body)) {
      writeStreamed(body, stream).then(
        () => {
          if (!stream.destroyed) stream.end();
        },
        (e: Error) => {
          if (!settled) {
            settled = true;
            reject(e);
          }
          stream.close(0x8);
        },
      );
    } else if (body.length) stream.end(body);
  });
}
