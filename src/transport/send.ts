import type { Agent, ClientRequest, IncomingMessage, RequestOptions } from 'node:http';
import type { Socket } from 'node:net';
import type { Readable } from 'node:stream';
import type { TLSSocket, ConnectionOptions } from 'node:tls';
import { readFileSync } from 'node:fs';
import { NetworkError, TimeoutError, UsageError } from '../errors.js';
import type { PreparedRequest } from '../request/prepare.js';
import type { RequestSettings } from '../request/spec.js';
import { hostAndPort, type ParsedUrl } from '../request/url.js';
import { connectLimit, deadlineError, mapNetworkError, timeoutError, timeLeft } from './errors.js';
import { parseProxy, pickProxy, type ProxyTarget } from './proxy.js';
import { now } from '../clock.js';
import { awaitAnswer } from './poll.js';

/** What came back for one request: the head as received and the body as a raw (still encoded) stream. */
export interface ResponseHead {
  httpVersion: string;
  status: number;
  reason: string;
  /** Flat [name, value, name, value, ...], original case and order. */
  rawHeaders: string[];
}

export interface Timings {
  start: number;
  dns?: number;
  connect?: number;
  tls?: number;
  firstByte?: number;
  end?: number;
}

export interface HopInfo {
  remoteAddress?: string;
  remotePort?: number;
  /** This end of the connection (curl's %{local_ip} and %{local_port}). */
  localAddress?: string;
  localPort?: number;
  tlsProtocol?: string;
  tlsCipher?: string;
  reused: boolean;
  proxy?: string;
  /** The body's bytes as they came, when it was decoded (curl's %{size_download} counts these). */
  bodyBytes?: number;
  /** Set when --timeout fired (also while the body was streaming). */
  timedOut?: boolean;
  timings: Timings;
  /** On the final hop of a request whose redirects were followed: how many (curl's %{num_redirects}). */
  redirects?: number;
  /** The response heads of the hops before the final one, when the caller asked for them (curl's -D and -i after -L). */
  earlierHeads?: ResponseHead[];
}

export interface Hop {
  url: ParsedUrl;
  request: PreparedRequest;
  response: ResponseHead;
  /** The body as it arrives (still Content-Encoded). */
  body: Readable;
  info: HopInfo;
  /**
   * The fast lane of raw.ts: hands each body chunk to the consumer synchronously (the chunk is
   * only valid during the call) and resolves at the end of the body. Absent on node:http hops.
   */
  attach?: (consumer: (chunk: Buffer) => void) => Promise<void>;
}

type HttpModule = typeof import('node:http');
let httpMod: HttpModule | undefined;
let httpsMod: typeof import('node:https') | undefined;
let tlsMod: typeof import('node:tls') | undefined;
const agents = new Map<string, Agent>();

async function modules() {
  httpMod ??= await import('node:http');
  return httpMod;
}

function tlsOptions(settings: RequestSettings, servername: string): ConnectionOptions {
  const { tls } = settings;
  const read = (path: string, what: string) => {
    try {
      return readFileSync(path);
    } catch (e) {
      throw new UsageError(`cannot read ${what} '${path}': ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (e as Error).message}`);
    }
  };
  const opts: ConnectionOptions = { rejectUnauthorized: tls.verify !== false, servername: /^[\d.]+$|:/.test(servername) ? undefined : servername };
  if (typeof tls.verify === 'string') opts.ca = read(tls.verify, 'CA bundle');
  if (tls.cert) opts.cert = read(tls.cert, 'client certificate');
  if (tls.certKey) opts.key = read(tls.certKey, 'client certificate key');
  else if (tls.cert) opts.key = opts.cert;
  if (tls.certKeyPass) opts.passphrase = tls.certKeyPass;
  opts.ALPNProtocols = ['http/1.1'];
  if (tls.cert) checkClientCert(tls.cert, tls.certKey, opts);
  return opts;
}

const checkedCerts = new Set<string>();
/**
 * A client certificate or key that OpenSSL cannot use is an error naming the file, before anything
 * is sent (node:https would only say "PEM routines::no start line"). Checked once per pair of files.
 */
function checkClientCert(cert: string, certKey: string | undefined, opts: ConnectionOptions) {
  const key = `${cert}\0${certKey ?? ''}\0${opts.passphrase ?? ''}`;
  if (checkedCerts.has(key)) return;
  const why = (e: unknown) => (e as Error).message.replace(/^error:[0-9A-F]+:/, '');
  try {
    tlsMod!.createSecureContext({ cert: opts.cert });
  } catch (e) {
    throw new UsageError(`--cert '${cert}' is not a usable PEM certificate: ${why(e)}`);
  }
  try {
    tlsMod!.createSecureContext({ cert: opts.cert, key: opts.key, passphrase: opts.passphrase });
  } catch (e) {
    const where = certKey ? `--cert-key '${certKey}'` : `--cert '${cert}' (no --cert-key: the key is looked for in the same file)`;
    throw new UsageError(`${where}: the private key cannot be used: ${why(e)}`);
  }
  checkedCerts.add(key);
}

/** Keep-alive agents shared by every request of the process (exec reuses connections through them). */
async function agentFor(scheme: 'http' | 'https', key: string, tls?: ConnectionOptions): Promise<Agent> {
  let agent = agents.get(key);
  if (!agent) {
    if (scheme === 'https') {
      httpsMod ??= await import('node:https');
      agent = new httpsMod.Agent({ keepAlive: true, ...(tls as object) });
    } else {
      agent = new (await modules()).Agent({ keepAlive: true });
    }
    agents.set(key, agent);
  }
  return agent;
}

export function closeConnections() {
  for (const a of agents.values()) a.destroy();
  agents.clear();
  if (h2Loaded) void import('./h2.js').then((m) => m.closeH2Sessions());
}
let h2Loaded = false;

/** Opens a CONNECT tunnel through an HTTP proxy and starts TLS inside it. */
async function tunnel(proxy: ProxyTarget, url: ParsedUrl, settings: RequestSettings, timings: Timings): Promise<TLSSocket> {
  const http = await modules();
  tlsMod ??= await import('node:tls');
  const authority = hostAndPort(url);
  const headers: string[] = ['Host', authority];
  if (proxy.authorization) headers.push('Proxy-Authorization', proxy.authorization);
  const socket = await new Promise<Socket>((resolve, reject) => {
    const req = http.request({ host: proxy.url.hostname.replace(/^\[|\]$/g, ''), port: Number(proxy.url.port || 80), method: 'CONNECT', path: authority, headers, agent: false });
    // The tunnel is part of connecting (curl's --connect-timeout counts it), as is its TLS handshake.
    const limit = connectLimit(settings);
    if (limit) req.setTimeout(limit.ms, () => req.destroy(new TimeoutError(`proxy ${proxy.display} did not answer within ${limit.text}`)));
    req.on('connect', (res: IncomingMessage, sock: Socket) => {
      timings.connect = now();
      if (res.statusCode !== 200) {
        sock.destroy();
        reject(new NetworkError(`proxy ${proxy.display} refused the tunnel to ${authority}: ${res.statusCode} ${res.statusMessage ?? ''}`.trim()));
      } else resolve(sock);
    });
    req.on('response', (res: IncomingMessage) => {
      res.resume();
      reject(new NetworkError(`proxy ${proxy.display} refused the tunnel to ${authority}: ${res.statusCode} ${res.statusMessage ?? ''}`.trim()));
    });
    req.on('error', (e) => reject(mapNetworkError(e, `proxy ${proxy.display}`)));
    req.end();
  });
  return await new Promise<TLSSocket>((resolve, reject) => {
    const limit = connectLimit(settings);
    const tlsSock = tlsMod!.connect({ socket, ...tlsOptions(settings, url.hostname) }, () => {
      timings.tls = now();
      // The handshake's limit only: the requests on the tunnel keep their own.
      if (limit) tlsSock.setTimeout(0);
      resolve(tlsSock);
    });
    if (limit) tlsSock.setTimeout(limit.ms, () => tlsSock.destroy(new TimeoutError(`TLS handshake with ${authority} timed out`)));
    tlsSock.once('error', (e) => reject(mapNetworkError(e, authority, proxy.display)));
  });
}

/**
 * node:http writes the request head as soon as the request is made (its headers are given as a
 * list), adding lines of its own; where sling's rules differ, that text is corrected before it is
 * sent: the method as written (node:http upper-cases it; curl sends `-X wHat` as written), and for
 * curl files curl's framing: no `Connection` line the user did not give, and no
 * `Transfer-Encoding: chunked` on a request without a body (curl's `-X POST` with no data).
 */
function reframe(req: ClientRequest & { _header?: string; chunkedEncoding: boolean }, request: PreparedRequest, settings: RequestSettings) {
  let head = req._header;
  if (typeof head !== 'string') return;
  if (request.method !== req.method && head.startsWith(req.method + ' ')) head = request.method + head.slice(req.method.length);
  if (settings.curlFraming) {
    // curl's `-H 'Name;'`: `Name:` with nothing after the colon.
    for (const [n, v] of request.headers) if (v === '') head = head.replace(`\r\n${n}: \r\n`, `\r\n${n}:\r\n`);
    const given = (name: string) => request.headers.some(([n]) => n.toLowerCase() === name);
    // node:http's own lines come after the given ones, just before the blank line.
    if (!given('connection')) head = head.replace(/\r\nConnection: (?:keep-alive|close)\r\n(?=(?:[^\r]*\r\n)*\r\n$)/, '\r\n');
    if (request.body.length === 0 && req.chunkedEncoding && !given('transfer-encoding') && !given('content-length')) {
      head = head.replace(/\r\nTransfer-Encoding: chunked\r\n(?=(?:[^\r]*\r\n)*\r\n$)/, '\r\n');
      req.chunkedEncoding = false;
    }
  }
  req._header = head;
}

export interface SendOptions {
  env: NodeJS.ProcessEnv;
  /** Poll briefly for the answer once the request is written (poll.ts; `sling exec`). */
  poll?: boolean;
}

/** Sends one request (no redirect handling) and resolves when the response head has arrived. */
export async function sendOnce(url: ParsedUrl, request: PreparedRequest, settings: RequestSettings, opts: SendOptions, retried = 0): Promise<Hop> {
  const http = await modules();
  // tlsOptions() checks a client certificate with node:tls.
  if (url.scheme === 'https' && settings.tls.cert) tlsMod ??= await import('node:tls');
  const timings: Timings = { start: now() };
  const where = url.hostHeader.includes(':') ? url.hostHeader : `${url.hostHeader}:${url.port}`;
  const proxyText = pickProxy(url, settings.proxies, settings.proxyEnv ?? opts.env);
  let proxy: ProxyTarget | undefined;
  if (proxyText) {
    try {
      proxy = parseProxy(proxyText);
    } catch (e) {
      throw new UsageError((e as Error).message);
    }
  }
  const headers: string[] = [];
  // Header values go out as UTF-8 bytes (as HTTPie sends them); Node writes strings as latin1.
  for (const [n, v] of request.headers) headers.push(n, /[^\x00-\x7f]/.test(v) ? Buffer.from(v, 'utf8').toString('latin1') : v);
  // curl's --http2 on http:// (direct): the HTTP/1.1 request offers an upgrade to h2c, next to
  // any Connection or Upgrade header of the user's (as curl 7.88 sends it).
  const offerH2c = settings.http2 === 'alpn' && url.scheme === 'http' && !proxy && !settings.unixSocket;
  if (offerH2c && h2cOrigins.has(where)) return await sendH2c(url, request, settings);
  if (offerH2c) {
    // Where curl puts it: after its Accept line, before the user's headers and the body's.
    let at = headers.length;
    for (let i = 0; i < headers.length; i += 2) if (headers[i]!.toLowerCase() === 'accept') at = i + 2;
    headers.splice(at, 0, 'Connection', 'Upgrade, HTTP2-Settings', 'Upgrade', 'h2c', 'HTTP2-Settings', H2C_SETTINGS);
  }
  // The lenient parser lets sling show what a misbehaving server sent (control characters in a
  // header, say; they are neutralised before they reach a terminal) instead of failing, as curl does.
  const base: RequestOptions = { method: request.method, headers, path: request.target, setHost: false, insecureHTTPParser: true };
  let options: RequestOptions;
  if (settings.http2 && !proxy && !settings.unixSocket) {
    const { sendH2 } = await import('./h2.js');
    h2Loaded = true;
    const h2 = await sendH2(url, request, settings, url.scheme === 'https' ? tlsOptions(settings, url.hostname) : {});
    if (h2) return h2;
    // The server chose HTTP/1.1, or plain http:// (with the h2c offer): the usual way below.
  }
  const family = settings.family ? { family: settings.family } : {};
  if (settings.unixSocket) {
    // curl's --unix-socket: the URL still names the host (Host header, TLS name); the bytes go to the socket.
    const tls = url.scheme === 'https' ? tlsOptions(settings, url.hostname) : undefined;
    options = { ...base, socketPath: settings.unixSocket, agent: await agentFor(url.scheme, `unix:${url.scheme}:${settings.unixSocket}`, tls), ...(tls as object) };
  } else if (proxy && url.scheme === 'http') {
    // Plain HTTP through a proxy: the absolute URL goes on the request line.
    if (proxy.authorization) headers.push('Proxy-Authorization', proxy.authorization);
    if (settings.curlFraming && !headers.some((h, i) => i % 2 === 0 && /^proxy-connection$/i.test(h))) {
      // curl's own line to the proxy, after its default headers, before the user's.
      let at = 0;
      for (let i = 0; i < headers.length; i += 2) if (/^(host|user-agent|accept)$/i.test(headers[i]!)) at = i + 2;
      headers.splice(at, 0, 'Proxy-Connection', 'Keep-Alive');
    }
    options = { ...base, host: proxy.url.hostname.replace(/^\[|\]$/g, ''), port: Number(proxy.url.port || 80), path: `http://${url.hostHeader}${request.target}`, agent: await agentFor('http', `proxy:${proxy.url.host}`) };
  } else if (proxy) {
    // HTTPS through a proxy: a kept-alive pool of tunnels (CONNECT, then TLS) per proxy, origin and
    // TLS settings, so a file of requests reuses one tunnel as it reuses direct connections.
    const key = `tunnel:${proxy.display}:${url.hostHeader}:${JSON.stringify(settings.tls)}`;
    let agent = agents.get(key);
    if (!agent) {
      agent = new http.Agent({ keepAlive: true });
      // Node's agent takes a socket made later through the callback; the request's own timings come in its options.
      (agent as unknown as { createConnection: unknown }).createConnection = (o: { slingTimings?: Timings }, done: (err: Error | null, s?: Socket) => void) => {
        tunnel(proxy, url, settings, o.slingTimings ?? timings).then((s) => done(null, s), (e: Error) => done(e));
        return undefined;
      };
      agents.set(key, agent);
    }
    options = { ...base, host: url.hostname, port: url.port, agent, slingTimings: timings } as RequestOptions;
  } else if (url.scheme === 'https') {
    const tls = tlsOptions(settings, url.hostname);
    const key = `https:${JSON.stringify(settings.tls)}`;
    options = { ...base, ...family, host: url.hostname, port: url.port, agent: await agentFor('https', key, tls), ...(tls as object) };
  } else {
    options = { ...base, ...family, host: url.hostname, port: url.port, agent: await agentFor('http', 'http') };
  }

  const hop = await new Promise<Hop | typeof UPGRADED | typeof STALE>((resolve, reject) => {
    let req: ClientRequest;
    try {
      // Direct HTTPS needs https.request (its agent speaks TLS); tunnels bring their own TLS socket.
      req = url.scheme === 'https' && !proxy ? httpsMod!.request(options) : http.request(options);
      reframe(req as ClientRequest & { _header?: string; chunkedEncoding: boolean }, request, settings);
    } catch (e) {
      reject(new UsageError(`cannot send the request: ${(e as Error).message}`));
      return;
    }
    let settled = false;
    let answer: IncomingMessage | undefined;
    const whereVia = proxy ? `${where} (through proxy ${proxy.display})` : where;
    const hopInfo: HopInfo = { reused: false, proxy: proxy?.display, timings };
    const fail = (e: unknown) => {
      if (settled) return;
      settled = true;
      // A kept-alive connection that died before answering (closed or reset by the server): the
      // request goes again on a new connection, as curl does (see keepalive.ts).
      const code = (e as NodeJS.ErrnoException | undefined)?.code;
      if ((req as ClientRequest & { reusedSocket?: boolean }).reusedSocket && !hopInfo.timedOut && (code === 'ECONNRESET' || code === 'EPIPE') && retried < STALE_RETRIES) {
        resolve(STALE);
        return;
      }
      reject(mapNetworkError(e, where, proxy?.display));
    };
    if (settings.timeoutMs) {
      req.setTimeout(settings.timeoutMs, () => {
        hopInfo.timedOut = true;
        req.destroy(timeoutError(whereVia, settings, answer !== undefined, hopInfo));
      });
    }
    if (settings.deadline !== undefined) {
      // curl's -m: the request and its body, however steadily the bytes come (the timer ends with the request).
      const hard = setTimeout(() => {
        hopInfo.timedOut = true;
        req.destroy(deadlineError(whereVia, settings, answer !== undefined));
      }, timeLeft(settings));
      req.once('close', () => clearTimeout(hard));
    }
    req.on('socket', (socket: Socket) => {
      if ((req as ClientRequest & { reusedSocket?: boolean }).reusedSocket) return;
      // Connecting, TLS handshake included (as curl's --connect-timeout counts it): the connection
      // limit, else --timeout, also for a server that never accepts or never finishes the handshake.
      const limit = connectLimit(settings);
      if (limit && socket.connecting) {
        const timer = setTimeout(() => {
          hopInfo.timedOut = true;
          // Through a proxy, the connection is the proxy's.
          req.destroy(new TimeoutError(`could not connect to ${proxy ? `proxy ${proxy.display}` : where} within ${limit.text}`));
        }, limit.ms);
        socket.once((socket as Socket & { encrypted?: boolean }).encrypted ? 'secureConnect' : 'connect', () => clearTimeout(timer));
        socket.once('close', () => clearTimeout(timer));
      }
      socket.once('lookup', () => (timings.dns = now()));
      socket.once('connect', () => (timings.connect = now()));
      socket.once('secureConnect', () => (timings.tls = now()));
    });
    req.on('error', (e: unknown) => {
      // After the head: a connection reset while a body read until the close was arriving reaches
      // the request, not the response, and node:http then ends that body as if complete. Handed to
      // the response, it is a body cut short (exit 6) instead of a partial body with exit 0.
      if (settled && answer && !answer.complete) answer.destroy(e as Error);
      else fail(e);
    });
    // 101 to the h2c offer: the server now speaks HTTP/2 on this connection (handled below).
    req.on('upgrade', (_res: IncomingMessage, socket: Socket) => {
      settled = true;
      socket.destroy();
      resolve(UPGRADED);
    });
    req.on('response', (res: IncomingMessage) => {
      settled = true;
      answer = res;
      timings.firstByte = now();
      const socket = res.socket as TLSSocket | null;
      const info = hopInfo;
      info.remoteAddress = socket?.remoteAddress;
      info.remotePort = socket?.remotePort;
      info.localAddress = socket?.localAddress;
      info.localPort = socket?.localPort;
      info.reused = Boolean((req as ClientRequest & { reusedSocket?: boolean }).reusedSocket);
      if (socket && typeof socket.getProtocol === 'function') {
        info.tlsProtocol = socket.getProtocol() ?? undefined;
        info.tlsCipher = socket.getCipher()?.name;
      }
      if (settings.maxHeaders !== undefined && res.rawHeaders.length / 2 > settings.maxHeaders) {
        req.destroy();
        reject(new NetworkError(`${where} sent ${res.rawHeaders.length / 2} headers, more than --max-headers ${settings.maxHeaders}`));
        return;
      }
      res.on('end', () => (timings.end = now()));
      resolve({
        url,
        request,
        response: { httpVersion: res.httpVersion, status: res.statusCode ?? 0, reason: res.statusMessage ?? '', rawHeaders: res.rawHeaders },
        body: res,
        info,
      });
    });
    if (request.body.length > 0) req.end(request.body);
    else req.end();
    if (opts.poll) awaitAnswer(() => settled);
  });
  if (hop === STALE) return await sendOnce(url, request, settings, opts, retried + 1);
  if (hop !== UPGRADED) return hop;
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

/** Origins that accepted the h2c upgrade: later --http2 requests to them speak HTTP/2 at once, on the session of the first. */
const h2cOrigins = new Set<string>();

async function sendH2c(url: ParsedUrl, request: PreparedRequest, settings: RequestSettings): Promise<Hop> {
  const { sendH2 } = await import('./h2.js');
  h2Loaded = true;
  return (await sendH2(url, request, { ...settings, http2: 'prior-knowledge' }, {}))!;
}

/** What curl 7.88 offers in HTTP2-Settings (base64url SETTINGS payload): at most 100 concurrent streams, a 32 MiB window, no server push. */
const H2C_SETTINGS = 'AAMAAABkAAQCAAAAAAIAAAAA';
const UPGRADED = Symbol('h2c upgrade accepted');
const STALE = Symbol('a reused connection died before answering');
const STALE_RETRIES = 3;
const REPEATABLE = new Set(['GET', 'HEAD', 'OPTIONS']);

