import type { Socket } from 'node:net';
import type { ConnectionOptions, TLSSocket } from 'node:tls';
import { Readable } from 'node:stream';
import { NetworkError } from '../errors.js';
import type { PreparedRequest } from '../model/prepare.js';
import type { RequestSettings } from '../model/spec.js';
import { hostAndPort, type ParsedUrl } from '../model/url.js';
import { connectLimit, connectTimeout, deadlineError, mapNetworkError, timeoutError, timeLeft } from './errors.js';
import { IDEMPOTENT, connectionKey, h2cOfferHeaders, loadTls, proxyHeaders, proxyTarget, socketTarget, tlsOptions, tunnel } from './connect.js';
import type { ProxyTarget } from './proxy.js';
import { headerIn } from '../model/headers.js';
import { cutShort } from './body.js';
import { BodyReader, HeadReader, requestBytes, sendsChunked, writeRequest } from './h1.js';
import { incompleteHead, STREAM_FROM } from './head.js';
import type { Consumer, Hop } from './hop.js';
import type { HopInfo, ResponseHead, Timings } from '../model/exchange.js';
import { now } from '../clock.js';
import { isStreamed, writeStreamed } from '../model/upload.js';
import { setArriving } from './inflight.js';
import { awaitAnswer } from './poll.js';
import { checkHead, headProblem } from './wire.js';

/**
 * sling's one HTTP/1.1 client, for every command: the main command, downloads, `sling exec` and
 * every request a curl file frames. Kept-alive sockets (one pool per process) over TCP, TLS, a
 * Unix socket, a plain HTTP proxy or a CONNECT tunnel; HTTP/2 (h2.ts) tried first when a request
 * asks for it. A request is one write, its response a few reads (the sockets' `onread`, into one
 * shared buffer, no stream) parsed in place by the one codec (h1.ts), and each socket keeps the
 * same listeners for its whole life.
 *
 * The bytes are the codec's; what differs between commands is policy, passed in (ClientOptions):
 * - the body read whole before the hop is handed over (`readWhole`: `sling exec`, which prints a
 *   response behind the next request), unless `streamable` lets a large or open-ended one go as a
 *   stream; or handed over at the head, still arriving (the main command, downloads), as a stream
 *   (`hop.body`) or piece by piece to a synchronous consumer (`hop.attach`: a download's file);
 * - curl framing (`settings.curlFraming`): the method as given (`-X wHat`), no Connection line the
 *   user did not give, `Name:` for `-H 'Name;'`; otherwise `Connection: keep-alive` is added when
 *   the request has no Connection line (as node:http and HTTPie send it).
 * What every command gets alike: header values sent as UTF-8 bytes, interim 1xx answers skipped,
 * --timeout as the longest silence, the deadline of curl's -m (`settings.deadline`) over the whole
 * transfer, --max-headers, a request sent again when a kept connection turns out dead (idempotent
 * ones only), reuse information for --debug and -vv.
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
  /** The server kept this connection open after an answer (it was reused, and answered, or outlived a turn of the loop). */
  proven?: boolean;
}

const idle = new Map<string, Conn[]>();
let netMod: typeof import('node:net') | undefined;
let tlsMod: typeof import('node:tls') | undefined;

/** Closes the idle connections of the lane (the end of a run: idle sockets never keep the process alive anyway). */
export function closeIdle() {
  for (const list of idle.values()) for (const c of list) c.socket.destroy();
  idle.clear();
}

function unpark(c: Conn) {
  const list = idle.get(c.key);
  const at = list ? list.indexOf(c) : -1;
  if (at !== -1) list!.splice(at, 1);
}

/**
 * Where every socket of the client reads into (node:net's `onread`): no stream machinery and no
 * new buffer per read. A chunk is only valid during the call; whatever is kept is copied (a body
 * taken by `attach` goes to its file from here, uncopied). 1 MiB, as the download lane had: a
 * large body comes in fewer reads (its pages are touched only as far as reads fill them).
 */
const READ_BUFFER = Buffer.allocUnsafe(1 << 20);

/** How the lane reaches a server, and the pool of kept-alive connections it belongs to. */
interface Route {
  key: string;
  /** TCP (or a Unix socket), TLS over it, plain HTTP to a proxy, TLS in a CONNECT tunnel through one. */
  kind: 'tcp' | 'tls' | 'proxy' | 'tunnel';
  /** Messages name this: the server's `host:port`. */
  where: string;
  proxy?: ProxyTarget;
}

function routeFor(url: ParsedUrl, settings: RequestSettings, proxy: ProxyTarget | undefined, where: string): Route {
  const tlsKey = () => JSON.stringify(settings.tls);
  if (proxy) {
    if (url.scheme === 'http') return { key: `proxy|${proxy.display}`, kind: 'proxy', where, proxy };
    return { key: `tunnel|${proxy.display}|${where}|${tlsKey()}`, kind: 'tunnel', where, proxy };
  }
  const via = connectionKey(settings);
  if (url.scheme === 'https') return { key: `tls|${where}|${via}|${tlsKey()}`, kind: 'tls', where };
  return { key: via ? `tcp|${where}|${via}` : where, kind: 'tcp', where };
}

/** A socket of the lane: TCP or TLS to the server (or a Unix socket), or TCP to a proxy. */
function open(url: ParsedUrl, route: Route, settings: RequestSettings): Conn {
  const c = { key: route.key } as Conn;
  const onread = {
    buffer: READ_BUFFER,
    callback: (n: number, buf: Uint8Array) => {
      c.current?.data((buf as Buffer).subarray(0, n));
      return true;
    },
  };
  const to = socketTarget(url, settings);
  let socket: Socket;
  if (route.kind === 'tls') {
    // The TLS options (files read, a client certificate checked) only when a connection is made.
    // node:tls takes `onread` as node:net does (documented for tls.connect; @types/node 20 lacks it).
    const options: ConnectionOptions & { onread?: typeof onread } = { ...to, ...tlsOptions(settings, url.hostname) };
    options.onread = onread;
    socket = tlsMod!.connect(options);
    socket.setNoDelay(true);
  } else if (route.kind === 'proxy') {
    socket = netMod!.connect({ host: route.proxy!.url.hostname.replace(/^\[|\]$/g, ''), port: Number(route.proxy!.url.port || 80), noDelay: true, onread });
  } else socket = netMod!.connect({ ...to, noDelay: true, onread });
  return attach(c, socket);
}

/** The lane's listeners on a socket, for its whole life (`data` events for a tunnel's TLS socket, which has no onread). */
function attach(c: Conn, socket: Socket, viaData = false): Conn {
  c.socket = socket;
  if (viaData) socket.on('data', (d: Buffer) => c.current?.data(d));
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
    // The server closed it while it was idle: a request that is not idempotent takes a new one from now on.
    closesSilently.add(key);
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

/**
 * A hop handed over with its body still arriving. The body is taken once: as a stream (`body`),
 * or by a consumer (`attach`); asked for the other way after that, it still comes whole and once
 * (a consumer gets the stream's pieces; `body` after `attach` is an empty stream whose destroy
 * closes the connection, as a caller that gives up on a body does).
 */
class LiveHop implements Hop {
  private stream?: Readable;
  private attached = false;
  constructor(
    readonly url: ParsedUrl,
    readonly request: PreparedRequest,
    readonly response: ResponseHead,
    readonly info: HopInfo,
    private readonly open: () => Readable,
    private readonly take: (consumer: Consumer) => Promise<void>,
    private readonly close: () => void,
  ) {}

  get body(): Readable {
    if (!this.stream) {
      const close = this.close;
      this.stream = this.attached
        ? new Readable({
            read() {
              this.push(null);
            },
            destroy(err, done) {
              close();
              done(err);
            },
          })
        : this.open();
    }
    return this.stream;
  }

  attach = (consumer: Consumer): Promise<void> => {
    if (this.stream) return drain(this.stream, consumer);
    this.attached = true;
    return this.take(consumer);
  };
}

/** A stream's pieces, to a consumer (what it throws ends the stream with that error; a promise it returns pauses it). */
function drain(stream: Readable, consumer: Consumer): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    stream.on('data', (c: Buffer) => {
      try {
        const wait = consumer(c);
        // Its output is full: the stream waits.
        if (wait) {
          stream.pause();
          wait.then(
            () => stream.resume(),
            (e) => stream.destroy(e as Error),
          );
        }
      } catch (e) {
        stream.destroy(e as Error);
      }
    });
    stream.once('end', resolve);
    stream.once('error', reject);
  });
}

const hangUp = () => Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });

export interface ClientOptions {
  /** The proxy of the request (proxy.ts pickProxy), as given. */
  proxy?: string;
  /** Called once the request is written. */
  onWritten?: () => void;
  /**
   * Read the body whole before the hop is handed over (`sling exec`); else it is handed over at
   * its head, the body still arriving (a body complete with its head is whole either way).
   */
  readWhole?: boolean;
  /** With readWhole: a head whose large or open-ended body goes as a stream (exchange.ts ExchangeOptions.streamable). */
  streamable?: (head: ResponseHead) => boolean;
  /** Poll for the answer before sleeping (poll.ts); false with SLING_NO_POLL. */
  poll: boolean;
}

/** What goes on the wire for one request: its header lines and request target (a proxy's, an h2c offer's). */
interface Framing {
  headers: readonly (readonly [string, string])[];
  target: string;
  /** The request offers an upgrade to h2c: a 101 answer means the server took it. */
  h2c: boolean;
}

/**
 * Sends one request (no redirects) on a kept-alive connection (a new one when none is idle) and
 * resolves with its hop. Not an async function: the common case (plain HTTP, a reused
 * connection) is one write and one promise.
 */
export function sendRequest(url: ParsedUrl, request: PreparedRequest, settings: RequestSettings, opts: ClientOptions): Promise<Hop> {
  // Before a connection is taken or made: a head that cannot go on the wire is refused whole (wire.ts).
  const bad = headProblem(request.method, request.target, request.headers);
  if (bad) return Promise.reject(bad);
  if (opts.proxy || url.scheme !== 'http' || settings.http2 || connectionKey(settings)) return sendRouted(url, request, settings, opts);
  const where = hostAndPort(url);
  const timings: Timings = { start: now() };
  const info: HopInfo = { reused: false, timings };
  return sendOn(url, { key: where, kind: 'tcp', where }, request, { headers: request.headers, target: request.target, h2c: false }, settings, info, opts, 0);
}

/** Origins that accepted the h2c upgrade: later --http2 requests to them speak HTTP/2 at once, on the session of the first. */
const h2cOrigins = new Set<string>();
let h2Loaded = false;

/** Closes the HTTP/2 sessions of the run, when there are any. */
export async function closeH2(): Promise<void> {
  if (h2Loaded) (await import('./h2.js')).closeH2Sessions();
}

/** HTTPS, proxies, Unix sockets, -4/-6 and HTTP/2: the route is worked out, HTTP/2 tried first when asked for. */
async function sendRouted(url: ParsedUrl, request: PreparedRequest, settings: RequestSettings, opts: ClientOptions): Promise<Hop> {
  const where = hostAndPort(url);
  const proxy = proxyTarget(opts.proxy);
  // tlsOptions() checks a client certificate with node:tls.
  if (url.scheme === 'https') tlsMod ??= await loadTls();
  // Over a Unix socket too (the h2 session's socket is socketTarget's, connect.ts), as curl does.
  if (settings.http2 && !proxy) {
    if (!settings.unixSocket && h2cOrigins.has(where)) return await sendH2c(url, request, settings);
    if (url.scheme === 'https' || settings.http2 === 'prior-knowledge') {
      const { sendH2 } = await import('./h2.js');
      h2Loaded = true;
      const h2 = await sendH2(url, request, settings, url.scheme === 'https' ? tlsOptions(settings, url.hostname) : {});
      if (h2) return h2;
      // The server chose HTTP/1.1 (ALPN): the usual way below.
    }
  }
  const route = routeFor(url, settings, proxy, where);
  let framing: Framing = { headers: request.headers, target: request.target, h2c: false };
  // Plain HTTP through a proxy: the absolute URL goes on the request line.
  if (route.kind === 'proxy') {
    framing = { headers: proxyHeaders(request.headers, proxy!, settings.curlFraming === true), target: `http://${url.hostHeader}${request.target}`, h2c: false };
    checkHead(request.method, framing.target, framing.headers);
  }
  // curl's --http2 on http:// (direct): an HTTP/1.1 request that offers an upgrade to h2c.
  else if (settings.http2 === 'alpn' && url.scheme === 'http' && !settings.unixSocket && !settings.noH2cUpgrade) framing = { ...framing, headers: h2cOfferHeaders(request.headers), h2c: true };
  const info: HopInfo = { reused: false, timings: { start: now() }, proxy: proxy?.display };
  try {
    return await sendOn(url, route, request, framing, settings, info, opts, 0);
  } catch (e) {
    if (!(e instanceof H2cAccepted)) throw e;
  }
  // The server accepted the h2c upgrade: its answer to this request comes on HTTP/2 stream 1 of that
  // connection, which node:http2 cannot take over. A request without a body is sent again on a new
  // connection speaking HTTP/2 from the first byte (a server that upgrades to h2c speaks it); one
  // with a body is not sent twice.
  if (request.body.length > 0 || !REPEATABLE.has(request.method)) {
    throw new NetworkError(
      `${where} switched to HTTP/2 (101 Switching Protocols, accepting the h2c upgrade offer): sling cannot go on with that connection and does not send a ${request.method} request${request.body.length ? ' with a body' : ''} twice`,
      "ask for HTTP/2 with prior knowledge: curl's --http2-prior-knowledge, or `HTTP/2 (Prior Knowledge)` at the end of a .http request line",
    );
  }
  h2cOrigins.add(where);
  return await sendH2c(url, request, settings);
}

async function sendH2c(url: ParsedUrl, request: PreparedRequest, settings: RequestSettings): Promise<Hop> {
  const { sendH2 } = await import('./h2.js');
  h2Loaded = true;
  return (await sendH2(url, request, { ...settings, http2: 'prior-knowledge' }, {}))!;
}

/** A 101 answer to an h2c upgrade offer: the connection now speaks HTTP/2. */
class H2cAccepted extends Error {}
const REPEATABLE = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * How many times a request goes again on a new connection when a kept-alive one turns out dead:
 * closed or reset by the server before any byte of the answer (a server that closes idle
 * connections, or closes after each answer without saying `Connection: close`). curl does the
 * same ("Connection died, retrying a fresh connect"); the request cannot have been answered.
 */
const STALE_RETRIES = 3;

/**
 * Routes whose server was found to close a kept-alive connection without saying so: a request that
 * is not idempotent goes to them on a new connection, never on a kept one it could find dead once
 * written (it is never sent twice). The first such close is seen by an idempotent request (retried)
 * or before a POST is written (reuseAfterATurn).
 */
const closesSilently = new Set<string>();

function sendOn(url: ParsedUrl, route: Route, request: PreparedRequest, framing: Framing, settings: RequestSettings, info: HopInfo, opts: ClientOptions, retries: number): Promise<Hop> {
  let conn = take(route.key);
  if (conn && !IDEMPOTENT.has(request.method) && closesSilently.has(route.key)) {
    conn.socket.destroy();
    conn = undefined;
  }
  if (conn && !conn.proven && !IDEMPOTENT.has(request.method)) return reuseAfterATurn(conn, url, route, request, framing, settings, info, opts);
  if (conn) {
    info.reused = true;
    conn.socket.ref();
    return exchangeOn(conn, route, url, request, framing, settings, info, opts, retries < STALE_RETRIES ? () => retry() : undefined);
  }
  info.reused = false;
  return connect(url, route, settings, info).then((c) => exchangeOn(c, route, url, request, framing, settings, info, opts));

  function retry(): Promise<Hop> {
    closesSilently.add(route.key);
    return sendOn(url, route, request, framing, settings, info, { ...opts, onWritten: undefined }, retries + 1);
  }
}

/**
 * A POST (or another request that is not idempotent) on a kept-alive connection that has not yet
 * shown that the server keeps it open: the event loop goes round once more first (its sockets
 * polled), so that a close the server sent with its last answer is seen and the request goes on
 * a new connection instead. Once written, such a request is never sent again (exchangeOn), so this
 * is what keeps a server that closes after each answer working. Once per connection: measured on
 * 1,000 POSTs on one connection, a wait before every request cost 4-10 %.
 */
function reuseAfterATurn(conn: Conn, url: ParsedUrl, route: Route, request: PreparedRequest, framing: Framing, settings: RequestSettings, info: HopInfo, opts: ClientOptions): Promise<Hop> {
  // Two turns: the first ends the turn the last answer was read in, the second follows a poll of the sockets.
  return new Promise<void>((resolve) => setImmediate(() => setImmediate(resolve))).then(() => {
    if (!conn.socket.destroyed && !conn.socket.readableEnded) {
      conn.proven = true;
      info.reused = true;
      conn.socket.ref();
      return exchangeOn(conn, route, url, request, framing, settings, info, opts);
    }
    conn.socket.destroy();
    closesSilently.add(route.key);
    return sendOn(url, route, request, framing, settings, info, opts, STALE_RETRIES);
  });
}

async function connect(url: ParsedUrl, route: Route, settings: RequestSettings, info: HopInfo): Promise<Conn> {
  const timings = info.timings;
  netMod ??= await import('node:net');
  // Through a CONNECT tunnel: the proxy's answer and the TLS handshake inside it (connect.ts).
  if (route.kind === 'tunnel') return attach({ key: route.key } as Conn, await tunnel(route.proxy!, url, settings, timings), true);
  const c = open(url, route, settings);
  const via = route.kind === 'proxy' ? route.proxy!.display : undefined;
  c.socket.once('lookup', () => (timings.dns = now()));
  await new Promise<void>((resolve, reject) => {
    const limit = connectLimit(settings);
    let tcp = false;
    const timer = limit
      ? setTimeout(() => {
          info.timedOut = true;
          c.current = undefined;
          c.socket.destroy();
          // Connected over TCP, the wait was for the TLS handshake.
          reject(connectTimeout(via ? `proxy ${via}` : route.where, limit.text, tcp && route.kind === 'tls'));
        }, limit.ms)
      : undefined;
    c.current = {
      data: () => {},
      gone: (e) => {
        if (timer) clearTimeout(timer);
        reject(mapNetworkError(e ?? hangUp(), route.where, via));
      },
    };
    c.socket.once('connect', () => {
      tcp = true;
      timings.connect = now();
      // The limit covers the TLS handshake too, as curl's --connect-timeout does.
      if (route.kind === 'tls') return;
      if (timer) clearTimeout(timer);
      c.current = undefined;
      resolve();
    });
    if (route.kind === 'tls') {
      c.socket.once('secureConnect', () => {
        timings.tls = now();
        if (timer) clearTimeout(timer);
        c.current = undefined;
        resolve();
      });
    }
  });
  return c;
}

function exchangeOn(
  c: Conn,
  route: Route,
  url: ParsedUrl,
  request: PreparedRequest,
  onWire: Framing,
  settings: RequestSettings,
  info: HopInfo,
  { onWritten, readWhole, streamable, poll }: ClientOptions,
  stale?: () => Promise<Hop>,
): Promise<Hop> {
  const where = route.where;
  const via = route.proxy?.display;
  /** Time-outs before any answer name the proxy the request went through. */
  const whereVia = via ? `${where} (through proxy ${via})` : where;
  const timings = info.timings;
  const sock = c.socket;
  info.remoteAddress = sock.remoteAddress;
  info.remotePort = sock.remotePort;
  info.localAddress = sock.localAddress;
  info.localPort = sock.localPort;
  if (route.kind === 'tls' || route.kind === 'tunnel') {
    info.tlsProtocol = (sock as TLSSocket).getProtocol() ?? undefined;
    info.tlsCipher = (sock as TLSSocket).getCipher()?.name;
  }

  return new Promise<Hop>((resolve, reject) => {
    const heads = new HeadReader(where, whereVia, settings, onWire.h2c);
    let response: ResponseHead | undefined;
    let reader: BodyReader | undefined;
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    /** A streamed body (upload.ts) is still being written. */
    let uploading = false;
    /** The hop was handed over with its body still arriving: its bytes go to whoever takes them. */
    let handed = false;
    /** The body as it arrives, once taken as a stream: chunks go there instead of into `chunks`. */
    let stream: Readable | undefined;
    /** The body as it arrives, once taken by a consumer (attach): each piece goes to it, uncopied. */
    let sink: Consumer | undefined;
    let sinkEnd: { resolve(): void; reject(e: Error): void } | undefined;
    /** A handed-over body that ended (null) or failed before anyone took it. */
    let ended: Error | null | undefined;

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
        else if (sinkEnd) sinkEnd.reject(err);
        else if (handed) ended = err;
        else reject(err);
        return;
      }
      timings.end = now();
      const r = response!;
      const conn = headerIn(r.rawHeaders, 'connection');
      // An answer that came before a streamed body was all written (a 413, say): the connection goes.
      const keep = reusable && reader!.reusable && !uploading && !(conn && /close/i.test(conn)) && !(r.httpVersion === '1.0' && !(conn && /keep-alive/i.test(conn)));
      // A streamed body's last bytes may have paused the socket (a slow reader): it reads again before it is reused.
      resumeReading();
      if (keep) {
        // A reused connection that answered: the server keeps its connections open.
        if (info.reused) c.proven = true;
        park(c);
      } else {
        c.current = undefined;
        sock.destroy();
      }
      if (stream) {
        stream.push(null);
        return;
      }
      if (sinkEnd) return sinkEnd.resolve();
      if (handed) {
        ended = null;
        return;
      }
      const whole = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size);
      resolve(new WholeHop(url, request, r, info, whole));
    };

    /** Reading stopped because the reader of a streamed body is behind (a full pipe): not the server's silence. */
    let paused = false;
    /** Pieces a consumer (attach) has not taken yet: reading waits for all of them. */
    let waits = 0;
    /** Body bytes (a copy: the read buffer is shared): kept, or passed on when the body is streamed. */
    const keepBytes = (view: Buffer) => {
      size += view.length;
      if (sink) {
        // A consumer that cannot take the bytes (a full disk) ends the transfer with its error.
        try {
          const wait = sink(view);
          // Its output is full (a pipe whose reader is slow): read on once it has taken every piece
          // it holds (they are views of the read buffer, which the next read would overwrite).
          // While it waits, --timeout does not run: the server is not the one who is slow.
          if (wait) {
            waits++;
            pauseReading();
            wait.then(
              () => {
                if (--waits === 0 && !done) resumeReading();
              },
              (e) => finish(e instanceof Error ? e : new Error(String(e))),
            );
          }
        } catch (e) {
          finish(e instanceof Error ? e : new Error(String(e)));
        }
        return;
      }
      const bytes = Buffer.from(view);
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

    /** Stops reading until the handed-over body is taken (--timeout measures the server's silence, not ours). */
    const pauseReading = () => {
      if (paused) return;
      paused = true;
      sock.pause();
      if (settings.timeoutMs) sock.setTimeout(0);
    };
    /** The body still arriving as a stream, with what came before it was taken. */
    const openStream = () => {
      stream = new Readable({
        read: resumeReading,
        // The reader gave up (a body that cannot be decoded, stdout gone): the connection goes with it.
        destroy: (err, cb) => {
          abandon();
          cb(err);
        },
      });
      for (const ch of chunks) stream.push(ch);
      chunks.length = 0;
      if (ended === null) stream.push(null);
      else if (ended) stream.destroy(ended);
      return stream;
    };
    /** The body still arriving, to a synchronous consumer: no stream, no copy. */
    const attachBody = (consumer: Consumer) =>
      new Promise<void>((resolveAll, rejectAll) => {
        try {
          for (const ch of chunks) consumer(ch);
        } catch (e) {
          finish(e instanceof Error ? e : new Error(String(e)));
          return rejectAll(e);
        }
        chunks.length = 0;
        if (ended !== undefined) return ended ? rejectAll(ended) : resolveAll();
        sink = consumer;
        sinkEnd = { resolve: resolveAll, reject: rejectAll };
        resumeReading();
      });

    /** The caller gave up on a body it took by attach: the connection goes. */
    const abandon = () => {
      if (done) return;
      done = true;
      if (hard) clearTimeout(hard);
      c.current = undefined;
      sock.destroy();
    };

    /** The hop goes to the caller at its head: the body is read from here on, once the caller takes it. */
    const handOver = () => {
      handed = true;
      if (arrivingSet) {
        arrivingSet = false;
        setArriving(undefined);
      }
      pauseReading();
      resolve(new LiveHop(url, request, response!, info, openStream, attachBody, abandon));
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
        if (reader) {
          if (reader.feed(incoming)) finish(undefined, true);
          return;
        }
        const d = heads.read(incoming);
        if (d === undefined) return;
        const r = heads.head!;
        if (r.status === 101) return finish(new H2cAccepted());
        timings.firstByte = now();
        response = r;
        // Ctrl-C from here on: the head and the bytes so far are printed (when they need no decoding).
        arrivingSet = true;
        setArriving(() => ({ response: r, body: headerIn(r.rawHeaders, 'content-encoding') ? Buffer.alloc(0) : Buffer.concat(chunks, size), info }));
        const body = (reader = new BodyReader(request.method, r, where, keepBytes));
        if (body.empty) return finish(undefined, d.length === 0);
        // curl's -f: an HTTP error ends the transfer at its head (the body is not waited for; the connection goes).
        if (settings.failAtHead && r.status >= 400) return finish();
        if (body.feed(d)) return finish(undefined, true);
        if (!readWhole || (streamable && (body.framing !== 'length' || body.left + size > STREAM_FROM) && streamable(r))) handOver();
      } catch (e) {
        finish(e instanceof Error ? e : new Error(String(e)));
      }
    };

    c.current = {
      data,
      gone: (err) => {
        if (info.reused && !answered && !done && !IDEMPOTENT.has(request.method)) {
          // A reused connection that died before answering a POST (or another request that is not
          // idempotent): the server may have received it and acted on it, so it is not sent again
          // (RFC 9110, 9.2.2).
          return finish(
            new NetworkError(
              `${whereVia} closed the kept-alive connection without answering: the ${request.method} request is not sent again, as the server may have received it`,
              'a server that closes the connection after an answer should say `Connection: close` in it',
            ),
          );
        }
        if (stale && !answered && !done) {
          // A reused connection that died before answering: the request goes again on a new one.
          done = true;
          c.current = undefined;
          sock.destroy();
          resolve(stale());
          return;
        }
        if (!err && response && reader?.framing === 'close') return finish();
        if (response) {
          const cut = Object.assign(new Error(`aborted after ${size} bytes`), { code: 'ECONNRESET' });
          const why = (err as NodeJS.ErrnoException | undefined)?.code === 'ECONNRESET' ? 'connection reset' : 'connection closed';
          const e = cutShort(url.hostHeader, response.rawHeaders, why, err ?? cut);
          // The head and, when they need no decoding, the bytes that arrived: printed before the error.
          timings.end = now();
          if (!handed) e.partial = cutBody();
          return finish(e);
        }
        // Bytes that never made a head (an HTTP/0.9 answer, a head cut off by the close).
        if (heads.partial && !err) return finish(incompleteHead(where));
        finish(mapNetworkError(err ?? hangUp(), where, via));
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
        if (!response) return finish(timeoutError(whereVia, settings, false, info));
        // The head came, then the body stalled: what arrived is printed before the error.
        const e = timeoutError(url.hostHeader, settings, true, { bodyBytes: size });
        timings.end = now();
        if (!handed) e.partial = cutBody();
        finish(e);
      };
      sock.setTimeout(settings.timeoutMs);
    }
    if (settings.deadline !== undefined) {
      hard = setTimeout(() => {
        info.timedOut = true;
        if (!response) return finish(deadlineError(whereVia, settings, false, 0));
        const e = deadlineError(url.hostHeader, settings, true, size);
        timings.end = now();
        if (!handed) e.partial = cutBody();
        finish(e);
      }, timeLeft(settings));
    }
    // The request with a `Connection: keep-alive` line when it has none (as HTTPie sends it), or as curl does (curlFraming).
    const curl = settings.curlFraming === true;
    const body = request.body;
    if (isStreamed(body)) {
      sock.write(requestBytes(request, onWire.headers, onWire.target, curl, !curl, settings.curl?.headerGaps));
      uploading = true;
      writeStreamed(body, sock, sendsChunked(onWire.headers)).then(
        () => (uploading = false),
        (e: Error) => finish(e),
      );
      awaitAnswer(() => done || handed, poll);
      // On the wire (its head, the body going out): the title of a long upload shows while it goes.
      onWritten?.();
      return;
    }
    writeRequest(sock, requestBytes(request, onWire.headers, onWire.target, curl, !curl, settings.curl?.headerGaps));
    awaitAnswer(() => done || handed, poll);
    onWritten?.();
  });
}
