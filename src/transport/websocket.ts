import { createHash, randomBytes } from 'node:crypto';
import type { Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { platform } from 'node:os';
import { now } from '../clock.js';
import { CliError, NetworkError, UsageError } from '../errors.js';
import { ExitCode } from '../exit.js';
import { loadPublicSuffixes, publicSuffixesLoaded, withJarCookies, type CookieJar } from '../model/cookies.js';
import type { HopInfo, ResponseHead, Timings } from '../model/exchange.js';
import { headerIn } from '../model/headers.js';
import { prepareUncompressed, type PreparedRequest } from '../model/prepare.js';
import type { Header, RequestSettings, RequestSpec } from '../model/spec.js';
import { hostAndPort, type ParsedUrl } from '../model/url.js';
import { chooseSystemCa, loadTls, openTunnel, proxyTarget, socketTarget, tlsOptions, tunnel } from './connect.js';
import { connectLimit, connectTimeout, mapNetworkError, timeoutError } from './errors.js';
import { HeadReader, requestBytes } from './h1.js';
import { incompleteHead } from './head.js';
import { pickProxy } from './proxy.js';
import { checkHead } from './wire.js';
import { CLOSE_NORMAL, closePayload, encodeFrame, FrameError, FrameReader, OP_BINARY, OP_CLOSE, OP_PING, OP_PONG, OP_TEXT, validCloseCode } from './ws-frames.js';

/**
 * sling's own WebSocket client (RFC 6455), for `sling exec` of the WebSocket requests of a .http
 * file and for GraphQL subscriptions (graphql-ws.ts). Its own rather than the `ws` package or
 * Node's global WebSocket: Node 20 has no stable global WebSocket, and neither would connect the
 * way every other request of sling does (connect.ts: --resolve and --connect-to, -4/-6,
 * --interface, a Unix socket, the TLS options with --verify, --cert and the CA bundle, proxies from
 * the environment through a CONNECT tunnel); the protocol is small (ws-frames.ts has its frames).
 *
 * The handshake is an HTTP/1.1 GET written and read by the one codec (h1.ts): the spec's headers,
 * Host first, then `Upgrade: websocket`, `Connection: Upgrade`, a new `Sec-WebSocket-Key`, version
 * 13 and the subprotocols offered; cookies of the jar go with it and the answer's Set-Cookie is
 * stored, as exchange.ts does for a request. --connect-timeout (else --timeout) bounds connecting,
 * --timeout the wait for the answer; once the 101 has come there is no time limit here (the caller
 * decides when a session has been quiet long enough). A proxy is always spoken to with CONNECT,
 * for ws:// too (a plain proxy would not pass the upgrade on). No redirect is followed.
 *
 * Every byte after the 101 is the server's and is checked (ws-frames.ts); what breaks the protocol
 * closes the connection with the close code the RFC names and fails the session with one line.
 */

export interface WebSocketOptions {
  /** sling's environment: proxies (HTTP(S)_PROXY, NO_PROXY) when the spec has none of its own (proxy.ts), as for every request. */
  env: NodeJS.ProcessEnv;
  /** Cookies sent on the handshake and the 101's Set-Cookie stored, as exchange.ts does (none when the spec says `noCookies`). */
  jar?: CookieJar;
  /** Bytes of one (reassembled) message at most: a larger one closes with 1009 and fails the session. */
  maxMessage: number;
  /** Sec-WebSocket-Protocol offered (GraphQL: 'graphql-transport-ws'); the server must pick one of them or none. */
  subprotocols?: string[];
  /**
   * Each message from the server, whole, as it completes; never before openWebSocket has resolved.
   * What it throws fails the session (close 1011), with that error when it is a CliError.
   */
  onMessage(data: Buffer, binary: boolean): void;
  debug?(message: string): void;
}

/**
 * How a session ended. `code` and `reason`: the server's close frame's (no code when it had none);
 * when sling failed the connection (a protocol error), the code it sent (1002, 1007, 1009, 1011).
 * `clean`: both close frames went (the closing handshake of RFC 6455 §7). `error`: why the session
 * failed, when it did (a protocol error, the connection cut without a close frame, a network
 * error); undefined for a close either side asked for.
 */
export interface WebSocketClose {
  code?: number;
  reason: string;
  clean: boolean;
  error?: CliError;
}

export interface WebSocketSession {
  /** The handshake as sent (for printing -v). */
  request: PreparedRequest;
  /** The 101 head (status, reason, rawHeaders). */
  response: ResponseHead;
  /** Addresses, timings, TLS. */
  info: HopInfo;
  /** The subprotocol the server chose (Sec-WebSocket-Protocol of the 101), if any. */
  protocol?: string;
  /** `ws://host/path` or `wss://...`, as messages name the session. */
  where: string;
  /** A string goes as a text frame, a Buffer as a binary frame; masked, as a client must. Resolves once written; fails once the session is closing. */
  send(data: string | Buffer): Promise<void>;
  /** A ping frame (at most 125 bytes of payload); the server's pong is only reported to debug. */
  ping(data?: Buffer): Promise<void>;
  /**
   * The closing handshake: a close frame (1000 unless told), then the server's close frame is
   * waited for, at most CLOSE_WAIT_MS, and the connection dropped. Resolves as `closed` does.
   */
  close(code?: number, reason?: string): Promise<WebSocketClose>;
  /** Settles once (never rejects), however the session ends: the server's close, an error, close(). */
  closed: Promise<WebSocketClose>;
}

/** How long a close waits for the other side (its close frame, then the end of the connection) before the socket is dropped. */
export const CLOSE_WAIT_MS = 2000;

/** The magic of the accept key (RFC 6455 §1.3). */
const GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';

/** Sec-WebSocket-Accept for a key: base64 of the SHA-1 of the key and the GUID. */
export function acceptFor(key: string): string {
  return createHash('sha1')
    .update(key + GUID)
    .digest('base64');
}

/** Headers of the spec that the handshake makes itself (a file's own would break it). */
const OWN = new Set(['connection', 'upgrade', 'sec-websocket-key', 'sec-websocket-version', 'sec-websocket-extensions']);

/** The handshake request: the spec's (with the jar's cookies), the upgrade headers right after Host. */
function handshakeRequest(spec: RequestSpec, opts: WebSocketOptions, key: string): PreparedRequest {
  const jar = spec.settings.noCookies ? undefined : opts.jar;
  const prepared = prepareUncompressed(jar ? withJarCookies(spec, jar) : spec);
  const offered = opts.subprotocols?.length ? opts.subprotocols : undefined;
  const kept: Header[] = [];
  for (const [n, v] of prepared.headers) {
    const lower = n.toLowerCase();
    if (OWN.has(lower) || (offered && lower === 'sec-websocket-protocol')) {
      // An extension (permessage-deflate) would set bits this client does not read: not offered.
      if (lower === 'sec-websocket-extensions') opts.debug?.(`WebSocket: the header ${n} is not sent (sling offers no extension)`);
      continue;
    }
    kept.push([n, v]);
  }
  const at = kept.findIndex(([n]) => n.toLowerCase() === 'host') + 1;
  const own: Header[] = [
    ['Upgrade', 'websocket'],
    ['Connection', 'Upgrade'],
    ['Sec-WebSocket-Key', key],
    ['Sec-WebSocket-Version', '13'],
  ];
  if (offered) own.push(['Sec-WebSocket-Protocol', offered.join(', ')]);
  kept.splice(at, 0, ...own);
  return { ...prepared, headers: kept };
}

/** The URL as a WebSocket one, for messages: ws:// for http:, wss:// for https:. */
function wsUrl(url: ParsedUrl, target: string): string {
  return `${url.scheme === 'https' ? 'wss' : 'ws'}://${url.hostHeader}${target}`;
}

/**
 * Opens a WebSocket session: connects as every request does (connect.ts), sends the handshake and
 * resolves once the server has answered 101 with the right accept key. A spec with a body, or a
 * method other than GET, is the caller's error (exit 1). An answer other than 101 fails with its
 * status, the exit code an HTTP error has under --check-status (4 for 4xx, 5 for 5xx, 3 for a
 * redirect, which is not followed), 6 for any other (a 200 is no upgrade either); the error carries
 * the head as `lastAnswer` (body not read). A 101 that breaks the handshake's rules (wrong accept,
 * no `Upgrade: websocket`, a subprotocol or an extension not offered) fails with exit 6.
 */
export async function openWebSocket(spec: RequestSpec, opts: WebSocketOptions): Promise<WebSocketSession> {
  if (spec.method !== 'GET') throw new UsageError(`a WebSocket handshake is a GET request, not ${spec.method}`);
  if (spec.body.kind !== 'none') throw new UsageError('a WebSocket handshake request has no body: send messages once the session is open');
  chooseSystemCa(opts.env, platform());
  const key = randomBytes(16).toString('base64');
  const request = handshakeRequest(spec, opts, key);
  const url = spec.url;
  const where = wsUrl(url, request.target);
  // Before connecting: a head that cannot go on the wire is refused whole (wire.ts).
  checkHead(request.method, request.target, request.headers);
  const settings = spec.settings;
  const proxy = proxyTarget(pickProxy(url, settings.proxies, settings.proxyEnv ?? opts.env));
  const timings: Timings = { start: now() };
  const info: HopInfo = { reused: false, timings, proxy: proxy?.display };
  const hostPort = hostAndPort(url);
  const whereVia = proxy ? `${hostPort} (through proxy ${proxy.display})` : hostPort;
  let socket: Socket;
  if (proxy) socket = url.scheme === 'https' ? await tunnel(proxy, url, settings, timings) : await openTunnel(proxy, url, settings, timings);
  else socket = await connectDirect(url, settings, timings, hostPort);
  socket.setNoDelay(true);
  // Errors come to the listeners of each step (the handshake's, the session's); none is left unheard in between.
  socket.on('error', () => {});
  info.remoteAddress = socket.remoteAddress;
  info.remotePort = socket.remotePort;
  info.localAddress = socket.localAddress;
  info.localPort = socket.localPort;
  if (url.scheme === 'https') {
    info.tlsProtocol = (socket as TLSSocket).getProtocol?.() ?? undefined;
    info.tlsCipher = (socket as TLSSocket).getCipher?.()?.name;
  }
  opts.debug?.(`WebSocket: handshake with ${where}${proxy ? ` through proxy ${proxy.display}` : ''}`);
  const { head, rest } = await handshake(socket, request, settings, hostPort, whereVia, info);
  const jar = settings.noCookies ? undefined : opts.jar;
  try {
    if (jar) {
      const raw = head.rawHeaders;
      if (!publicSuffixesLoaded() && headerIn(raw, 'set-cookie') !== undefined) await loadPublicSuffixes();
      for (let i = 0; i < raw.length; i += 2) if (raw[i]!.toLowerCase() === 'set-cookie') jar.setCookie(raw[i + 1]!, url);
    }
    checkUpgrade(head, key, opts.subprotocols, where);
  } catch (e) {
    socket.destroy();
    if (e instanceof CliError) e.lastAnswer = { response: head, body: Buffer.alloc(0), info, request, url };
    throw e;
  }
  return startSession(socket, request, head, info, rest, where, hostPort, opts);
}

/** TCP, or TLS over it, straight to the server (socketTarget: --resolve, --connect-to, -4/-6, --interface, a Unix socket), within the connect limit. */
async function connectDirect(url: ParsedUrl, settings: RequestSettings, timings: Timings, where: string): Promise<Socket> {
  const net = await import('node:net');
  const tls = url.scheme === 'https' ? await loadTls() : undefined;
  const to = socketTarget(url, settings);
  const sock: Socket = tls ? tls.connect({ ...to, ...tlsOptions(settings, url.hostname) }) : net.connect({ ...to, noDelay: true });
  return await new Promise<Socket>((resolve, reject) => {
    const limit = connectLimit(settings);
    let tcp = false;
    const timer = limit
      ? setTimeout(() => {
          sock.destroy();
          reject(connectTimeout(where, limit.text, tcp && tls !== undefined));
        }, limit.ms)
      : undefined;
    const done = () => {
      if (timer) clearTimeout(timer);
      sock.off('error', failed);
      resolve(sock);
    };
    const failed = (e: Error) => {
      if (timer) clearTimeout(timer);
      sock.destroy();
      reject(mapNetworkError(e, where));
    };
    sock.once('lookup', () => (timings.dns = now()));
    sock.once('connect', () => {
      tcp = true;
      timings.connect = now();
      if (!tls) done();
    });
    if (tls)
      sock.once('secureConnect', () => {
        timings.tls = now();
        done();
      });
    sock.once('error', failed);
  });
}

/** Writes the handshake and reads the answer's head (interim answers skipped), within --timeout; the socket is paused after it, the bytes after the head returned. */
function handshake(sock: Socket, request: PreparedRequest, settings: RequestSettings, where: string, whereVia: string, info: HopInfo): Promise<{ head: ResponseHead; rest: Buffer }> {
  return new Promise((resolve, reject) => {
    const heads = new HeadReader(where, whereVia, settings, true);
    let settled = false;
    const end = (e?: Error) => {
      settled = true;
      sock.off('data', onData);
      sock.off('error', onError);
      sock.off('close', onClose);
      sock.off('timeout', onTimeout);
      if (settings.timeoutMs) sock.setTimeout(0);
      if (e) {
        sock.destroy();
        reject(e);
      }
    };
    const onData = (data: Buffer) => {
      if (settled) return;
      let rest: Buffer | undefined;
      try {
        rest = heads.read(data);
      } catch (e) {
        return end(e as Error);
      }
      if (rest === undefined) return;
      info.timings.firstByte = now();
      sock.pause();
      end();
      resolve({ head: heads.head!, rest: Buffer.from(rest) });
    };
    const onError = (e: Error) => end(mapNetworkError(e, where, info.proxy));
    const onClose = () => end(heads.partial ? incompleteHead(where) : mapNetworkError(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }), where, info.proxy));
    const onTimeout = () => {
      info.timedOut = true;
      end(timeoutError(whereVia, settings, false, info));
    };
    sock.on('data', onData);
    sock.on('error', onError);
    sock.on('close', onClose);
    if (settings.timeoutMs) {
      sock.on('timeout', onTimeout);
      sock.setTimeout(settings.timeoutMs);
    }
    sock.write(requestBytes(request, request.headers, request.target, false, false));
    // A tunnel's socket comes paused (connect.ts openTunnel).
    sock.resume();
  });
}

/** The 101's rules (RFC 6455 §4.1): anything else fails, with the exit code of its status. */
function checkUpgrade(head: ResponseHead, key: string, offered: string[] | undefined, where: string): void {
  const raw = head.rawHeaders;
  if (head.status !== 101) {
    const status = `${head.status}${head.reason ? ` ${head.reason}` : ''}`;
    const code =
      head.status >= 500 && head.status < 600
        ? ExitCode.SERVER_ERROR
        : head.status >= 400
          ? ExitCode.CLIENT_ERROR
          : head.status >= 300 && head.status < 400
            ? ExitCode.TOO_MANY_REDIRECTS
            : ExitCode.NETWORK;
    const location = head.status >= 300 && head.status < 400 ? headerIn(raw, 'location') : undefined;
    throw new CliError(
      `${where} answered ${status}, not a WebSocket upgrade`,
      code,
      location !== undefined ? `a WebSocket handshake follows no redirect: the server points to ${location}` : undefined,
    );
  }
  const upgrade = headerIn(raw, 'upgrade');
  if (!upgrade || upgrade.trim().toLowerCase() !== 'websocket')
    throw new NetworkError(`${where} answered 101 without \`Upgrade: websocket\`${upgrade ? ` (Upgrade: ${upgrade})` : ''}: not a WebSocket upgrade`);
  const connection = headerIn(raw, 'connection');
  if (!connection || !/(^|,)\s*upgrade\s*(,|$)/i.test(connection)) throw new NetworkError(`${where} answered 101 without \`Connection: Upgrade\`: not a WebSocket upgrade`);
  const accept = headerIn(raw, 'sec-websocket-accept');
  if (accept?.trim() !== acceptFor(key))
    throw new NetworkError(
      `${where} answered 101 with ${accept === undefined ? 'no Sec-WebSocket-Accept' : `a Sec-WebSocket-Accept ('${accept.slice(0, 40)}') that does not answer the key sent`}: not a WebSocket upgrade`,
    );
  const extensions = headerIn(raw, 'sec-websocket-extensions');
  if (extensions?.trim()) throw new NetworkError(`${where} answered 101 with the extension '${extensions.slice(0, 60)}', which sling did not offer`);
  const protocol = headerIn(raw, 'sec-websocket-protocol')?.trim();
  if (protocol && !offered?.includes(protocol))
    throw new NetworkError(`${where} answered 101 with the subprotocol '${protocol.slice(0, 60)}', which sling did not offer${offered?.length ? ` (offered: ${offered.join(', ')})` : ''}`);
}

/** A close code and reason, in words for messages. */
const closeWords = (code: number | undefined, reason: string) => (code === undefined ? 'no code' : `code ${code}${reason ? ` (${reason.length > 80 ? `${reason.slice(0, 77)}...` : reason})` : ''}`);

function startSession(sock: Socket, request: PreparedRequest, response: ResponseHead, info: HopInfo, first: Buffer, where: string, hostPort: string, opts: WebSocketOptions): WebSocketSession {
  const reader = new FrameReader(opts.maxMessage);
  const debug = opts.debug;
  /** open: both ways; closing: sling sent its close frame (nothing more goes); done: settled. */
  let state: 'open' | 'closing' | 'done' = 'open';
  /** The server's close frame, once it came. */
  let serverClose: { code?: number; reason: string } | undefined;
  /** What the session ends with, once known (a failure, or sling's own close), before the socket is gone. */
  let outcome: WebSocketClose | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let settle!: (c: WebSocketClose) => void;
  const closed = new Promise<WebSocketClose>((r) => (settle = r));

  const finish = (c: WebSocketClose) => {
    if (state === 'done') return;
    state = 'done';
    if (timer) clearTimeout(timer);
    sock.destroy();
    debug?.(`WebSocket: ${where} closed (${closeWords(c.code, c.reason)}${c.clean ? '' : ', not cleanly'})`);
    settle(c);
  };

  const write = (frame: Buffer) =>
    new Promise<void>((resolve, reject) => {
      sock.write(frame, (e) => (e ? reject(mapNetworkError(e, hostPort, info.proxy)) : resolve()));
    });
  const frame = (opcode: number, payload: Buffer) => encodeFrame(opcode, payload, randomBytes(4));

  /** Sends sling's close frame (once) and gives the other side CLOSE_WAIT_MS to finish before the socket goes. */
  const sendClose = (code: number | undefined, reason: string, end = false) => {
    if (state !== 'open') return;
    state = 'closing';
    sock.write(frame(OP_CLOSE, closePayload(code, reason)), () => {});
    if (end) sock.end();
    timer = setTimeout(() => finish(outcome ?? { code: serverClose?.code, reason: serverClose?.reason ?? '', clean: serverClose !== undefined }), CLOSE_WAIT_MS);
  };

  /** The connection fails: the close frame with the code (1002, 1007, 1009, 1011), then the socket ends. */
  const fail = (code: number, reason: string, error: CliError) => {
    if (state === 'done' || outcome) return;
    outcome = { code, reason, clean: false, error };
    if (state === 'open') sendClose(code, reason, true);
    else finish(outcome);
  };

  const onData = (data: Buffer) => {
    if (state === 'done' || outcome) return;
    let events: ReturnType<FrameReader['feed']>;
    try {
      events = reader.feed(data);
    } catch (e) {
      if (!(e instanceof FrameError)) throw e;
      return fail(e.closeCode, e.message, new NetworkError(`${where} sent ${e.message}: sling closed the WebSocket with ${e.closeCode}`));
    }
    for (const ev of events) {
      if ((state as string) === 'done' || outcome) return;
      if (ev.kind === 'message') {
        if (serverClose) continue;
        try {
          opts.onMessage(ev.data, ev.binary);
        } catch (e) {
          const error = e instanceof CliError ? e : new CliError(`handling a message from ${where} failed: ${(e as Error)?.message ?? String(e)}`);
          return fail(1011, 'client error', error);
        }
      } else if (ev.kind === 'ping') {
        debug?.(`WebSocket: ping from ${where} (${ev.data.length} bytes), pong sent`);
        if (state === 'open') sock.write(frame(OP_PONG, ev.data), () => {});
      } else if (ev.kind === 'pong') debug?.(`WebSocket: pong from ${where} (${ev.data.length} bytes)`);
      else {
        serverClose = { code: ev.code, reason: ev.reason };
        debug?.(`WebSocket: close frame from ${where} (${closeWords(ev.code, ev.reason)})`);
        // The server's close: echoed with its code (§5.5.1); then the server ends the connection.
        if (state === 'open') sendClose(ev.code, '');
        outcome = { code: ev.code, reason: ev.reason, clean: true };
      }
    }
  };

  sock.on('data', (data: Buffer) => {
    try {
      onData(data);
    } catch (e) {
      fail(1011, 'client error', e instanceof CliError ? e : new CliError(`reading from ${where} failed: ${(e as Error)?.message ?? String(e)}`));
    }
  });
  sock.on('error', (e) => {
    if (state === 'done') return;
    finish(outcome ?? { code: serverClose?.code, reason: serverClose?.reason ?? '', clean: false, error: mapNetworkError(e, hostPort, info.proxy) });
  });
  const gone = () => {
    if (state === 'done') return;
    if (outcome) return finish(outcome);
    // Closing by sling's own wish (close()), and the server just ended the connection: no failure.
    if (state === 'closing') return finish({ code: serverClose?.code, reason: serverClose?.reason ?? '', clean: false });
    finish({ reason: '', clean: false, error: new NetworkError(`${where} closed the connection without a WebSocket close frame`) });
  };
  sock.on('close', gone);
  // After the caller has its session (and printed the handshake): the frames that came with the 101, then the rest.
  setImmediate(() => {
    if (first.length) sock.emit('data', first);
    // Gone while the 101 was being read through (its cookies stored): nothing more will come.
    if (sock.destroyed) return gone();
    sock.resume();
  });

  const notOpen = () => new CliError(`the WebSocket to ${where} is ${state === 'done' ? 'closed' : 'closing'}: nothing more can be sent`);
  return {
    request,
    response,
    info,
    protocol: headerIn(response.rawHeaders, 'sec-websocket-protocol')?.trim() || undefined,
    where,
    send(data: string | Buffer): Promise<void> {
      if (state !== 'open') return Promise.reject(notOpen());
      return typeof data === 'string' ? write(frame(OP_TEXT, Buffer.from(data, 'utf8'))) : write(frame(OP_BINARY, data));
    },
    ping(data = Buffer.alloc(0)): Promise<void> {
      if (state !== 'open') return Promise.reject(notOpen());
      if (data.length > 125) return Promise.reject(new UsageError(`a WebSocket ping carries at most 125 bytes, not ${data.length}`));
      return write(frame(OP_PING, data));
    },
    close(code = CLOSE_NORMAL, reason = ''): Promise<WebSocketClose> {
      if (!validCloseCode(code)) return Promise.reject(new UsageError(`${code} is not a close code a client may send (1000-1003, 1007-1014, 3000-4999)`));
      if (state === 'open') {
        debug?.(`WebSocket: closing ${where} (${closeWords(code, reason)})`);
        sendClose(code, reason);
      }
      return closed;
    },
    closed,
  };
}
