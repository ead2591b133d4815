import type { Agent, ClientRequest, IncomingMessage, RequestOptions } from 'node:http';
import type { Socket } from 'node:net';
import type { Readable } from 'node:stream';
import type { TLSSocket, ConnectionOptions } from 'node:tls';
import { NetworkError, TimeoutError, UsageError } from '../errors.js';
import type { PreparedRequest } from '../model/prepare.js';
import type { RequestSettings } from '../model/spec.js';
import type { ParsedUrl } from '../model/url.js';
import { connectLimit, deadlineError, mapNetworkError, timeoutError, timeLeft } from './errors.js';
import { IDEMPOTENT, connectionKey, loadTls, proxyHeaders, proxyTarget, socketTarget, tlsChecks, tlsOptions, tunnel } from './connect.js';
import { pickProxy } from './proxy.js';
import { MAX_INTERIM, tooManyInterim, unaskedSwitch } from './head.js';
import { now } from '../clock.js';
import { CliError } from '../errors.js';
import { isStreamed, writeStreamed } from '../model/upload.js';
import type { HopInfo, ResponseHead, Timings } from '../model/exchange.js';
import { checkHead } from './wire.js';

export interface Hop {
  url: ParsedUrl;
  request: PreparedRequest;
  response: ResponseHead;
  /** The body as it arrives (still Content-Encoded). */
  body: Readable;
  info: HopInfo;
  /**
   * The fast lane of raw.ts: hands each body chunk to the consumer synchronously (the chunk is
   * only valid during the call) and resolves at the end of the body; a promise the consumer returns
   * (its output is full) pauses the reading until it settles. Absent on node:http hops.
   */
  attach?: (consumer: (chunk: Buffer) => void | Promise<void>) => Promise<void>;
}

type HttpModule = typeof import('node:http');
let httpMod: HttpModule | undefined;
let httpsMod: typeof import('node:https') | undefined;
const agents = new Map<string, Agent>();

async function modules() {
  httpMod ??= await import('node:http');
  return httpMod;
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

export function closeAgents() {
  for (const a of agents.values()) a.destroy();
  agents.clear();
}

export interface SendOptions {
  env: NodeJS.ProcessEnv;
}

/**
 * Sends one request (no redirect handling) with node:http and resolves when the response head has
 * arrived: the main command's lane (HTTP/1.1, TLS, proxies, Unix sockets). node:http writes the
 * request head itself (upper-case method, its own Connection line): requests that must go out
 * byte for byte as a curl file gives them take keepalive.ts instead (exchange.ts decides).
 */
export async function sendOnce(url: ParsedUrl, request: PreparedRequest, settings: RequestSettings, opts: SendOptions, retried = 0): Promise<Hop> {
  const http = await modules();
  // tlsOptions() checks a client certificate with node:tls.
  if (url.scheme === 'https' && tlsChecks(settings)) await loadTls();
  const timings: Timings = { start: now() };
  const where = url.hostHeader.includes(':') ? url.hostHeader : `${url.hostHeader}:${url.port}`;
  const proxy = proxyTarget(pickProxy(url, settings.proxies, settings.proxyEnv ?? opts.env));
  let lines: readonly (readonly [string, string])[] = request.headers;
  if (proxy && url.scheme === 'http') lines = proxyHeaders(lines, proxy, false);
  // node:http refuses some of these itself, in words of its own; this says which, before anything connects.
  checkHead(request.method, request.target, lines);
  const headers: string[] = [];
  // Header values go out as UTF-8 bytes (as HTTPie sends them); Node writes strings as latin1.
  for (const [n, v] of lines) headers.push(n, /[^\x00-\x7f]/.test(v) ? Buffer.from(v, 'utf8').toString('latin1') : v);
  // The lenient parser lets sling show what a misbehaving server sent (control characters in a
  // header, say; they are neutralised before they reach a terminal) instead of failing, as curl does.
  const base: RequestOptions = { method: request.method, headers, path: request.target, setHost: false, insecureHTTPParser: true };
  let options: RequestOptions;
  // -4/-6, --resolve, --interface (connect.ts); the agents are kept apart by them.
  const target = socketTarget(url, settings);
  const via = connectionKey(settings);
  if (settings.unixSocket) {
    // curl's --unix-socket: the URL still names the host (Host header, TLS name); the bytes go to the socket.
    const tls = url.scheme === 'https' ? tlsOptions(settings, url.hostname) : undefined;
    options = { ...base, socketPath: settings.unixSocket, agent: await agentFor(url.scheme, `unix:${url.scheme}:${settings.unixSocket}`, tls), ...(tls as object) };
  } else if (proxy && url.scheme === 'http') {
    // Plain HTTP through a proxy: the absolute URL goes on the request line.
    options = {
      ...base,
      host: proxy.url.hostname.replace(/^\[|\]$/g, ''),
      port: Number(proxy.url.port || 80),
      path: `http://${url.hostHeader}${request.target}`,
      agent: await agentFor('http', `proxy:${proxy.url.host}`),
    };
  } else if (proxy) {
    // HTTPS through a proxy: a kept-alive pool of tunnels (CONNECT, then TLS) per proxy, origin and
    // TLS settings, so a file of requests reuses one tunnel as it reuses direct connections.
    const key = `tunnel:${proxy.display}:${url.hostHeader}:${JSON.stringify(settings.tls)}`;
    let agent = agents.get(key);
    if (!agent) {
      agent = new http.Agent({ keepAlive: true });
      // Node's agent takes a socket made later through the callback; the request's own timings come in its options.
      (agent as unknown as { createConnection: unknown }).createConnection = (o: { slingTimings?: Timings }, done: (err: Error | null, s?: Socket) => void) => {
        tunnel(proxy, url, settings, o.slingTimings ?? timings).then(
          (s) => done(null, s),
          (e: Error) => done(e),
        );
        return undefined;
      };
      agents.set(key, agent);
    }
    options = { ...base, host: url.hostname, port: url.port, agent, slingTimings: timings } as RequestOptions;
  } else if (url.scheme === 'https') {
    const tls = tlsOptions(settings, url.hostname);
    const key = `https:${JSON.stringify(settings.tls)}${via}`;
    options = { ...base, ...target, agent: await agentFor('https', key, tls), ...(tls as object) };
  } else {
    options = { ...base, ...target, agent: await agentFor('http', `http${via}`) };
  }

  const hop = await new Promise<Hop | typeof STALE>((resolve, reject) => {
    let req: ClientRequest;
    try {
      // Direct HTTPS needs https.request (its agent speaks TLS); tunnels bring their own TLS socket.
      req = url.scheme === 'https' && !proxy ? httpsMod!.request(options) : http.request(options);
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
      // A file of the body that could not be read as it was sent (upload.ts): its own message.
      if (e instanceof CliError) {
        reject(e);
        return;
      }
      // A kept-alive connection that died before answering (closed or reset by the server): the
      // request goes again on a new connection, as curl does (see keepalive.ts).
      const code = (e as NodeJS.ErrnoException | undefined)?.code;
      // Only an idempotent request goes again (RFC 9110, 9.2.2): the server may have received a POST.
      if (
        (req as ClientRequest & { reusedSocket?: boolean }).reusedSocket &&
        !hopInfo.timedOut &&
        (code === 'ECONNRESET' || code === 'EPIPE') &&
        retried < STALE_RETRIES &&
        IDEMPOTENT.has(request.method)
      ) {
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
    // Interim answers (100 Continue, 103 Early Hints) come before the answer; an endless run of them is not waited out.
    let interim = 0;
    req.on('information', () => {
      if (++interim > MAX_INTERIM) {
        req.destroy();
        fail(tooManyInterim(whereVia));
      }
    });
    // node:http hands a 101 to 'upgrade' listeners only, and with none the request would never end.
    req.on('upgrade', (res: IncomingMessage, socket: Socket) => {
      socket.destroy();
      fail(unaskedSwitch(whereVia, res.headers.upgrade));
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
    const body = request.body;
    if (isStreamed(body)) {
      // A large file is read as it goes (node:http frames it when the request says chunked).
      writeStreamed(body, req).then(
        () => {
          if (!req.destroyed) req.end();
        },
        (e: Error) => req.destroy(e),
      );
    } else if (body.length > 0) req.end(body);
    else req.end();
  });
  if (hop === STALE) return await sendOnce(url, request, settings, opts, retried + 1);
  return hop;
}

const STALE = Symbol('a reused connection died before answering');
const STALE_RETRIES = 3;
