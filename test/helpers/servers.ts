// Loopback test servers: a capturing HTTP(S) server, a raw TCP server for misbehaving peers,
// an HTTP proxy (CONNECT + absolute-form), and throwaway certificates made with openssl.
// Everything listens on 127.0.0.1 port 0 and never talks to anything but 127.0.0.1.
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import tls from 'node:tls';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface CapturedRequest {
  method: string;
  /** Request target exactly as received (origin-form path + query). */
  url: string;
  httpVersion: string;
  /** Header names and values alternating, in the order and case they arrived. */
  rawHeaders: string[];
  body: Buffer;
  /** Connection number on this server (same number = same TCP connection). */
  socketId: number;
  /** For TLS servers: whether a client certificate was presented and verified, and its CN. */
  clientCertAuthorized?: boolean;
  clientCertCN?: string;
}

export type Handler = (req: http.IncomingMessage, res: http.ServerResponse, captured: CapturedRequest) => void;

export interface CaptureServer {
  port: number;
  url: string;
  requests: CapturedRequest[];
  /** Number of TCP connections accepted so far. */
  connections(): number;
  close(): Promise<void>;
}

export interface RawServer {
  port: number;
  url: string;
  /** Number of TCP connections accepted so far. */
  connections(): number;
  close(): Promise<void>;
}

/** Values of a header (case-insensitive) from a rawHeaders list. */
export function headerValues(rawHeaders: string[], name: string): string[] {
  const out: string[] = [];
  const lower = name.toLowerCase();
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    if (rawHeaders[i].toLowerCase() === lower) out.push(rawHeaders[i + 1]);
  }
  return out;
}

/** The single value of a header, undefined when absent (joined with ", " when repeated). */
export function header(req: CapturedRequest, name: string): string | undefined {
  const v = headerValues(req.rawHeaders, name);
  return v.length === 0 ? undefined : v.join(', ');
}

/** Header names as received, in order. */
export function headerNames(req: CapturedRequest): string[] {
  return req.rawHeaders.filter((_, i) => i % 2 === 0);
}

// Tracks sockets so close() can destroy keep-alive connections and `node --test` can exit.
function trackSockets(server: net.Server, event: 'connection' | 'secureConnection' = 'connection') {
  const sockets = new Set<net.Socket>();
  const ids = new WeakMap<net.Socket, number>();
  let count = 0;
  server.on(event, (s: net.Socket) => {
    ids.set(s, ++count);
    sockets.add(s);
    s.on('error', () => {});
    s.on('close', () => sockets.delete(s));
  });
  // For TLS servers also track the raw TCP sockets (handshakes that never complete).
  if (event !== 'connection') {
    server.on('connection', (s: net.Socket) => {
      sockets.add(s);
      s.on('error', () => {});
      s.on('close', () => sockets.delete(s));
    });
  }
  return {
    idOf: (s: net.Socket) => ids.get(s) ?? 0,
    count: () => count,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        sockets.clear();
        server.close(() => resolve());
        if ('closeAllConnections' in server) (server as http.Server).closeAllConnections();
      }),
  };
}

function listen(server: net.Server): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve((server.address() as net.AddressInfo).port);
    });
  });
}

function capturing(handler: Handler, requests: CapturedRequest[], idOf: () => (s: net.Socket) => number): http.RequestListener {
  return (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('error', () => {});
    req.on('end', () => {
      const captured: CapturedRequest = {
        method: req.method ?? '',
        url: req.url ?? '',
        httpVersion: req.httpVersion,
        rawHeaders: [...req.rawHeaders],
        body: Buffer.concat(chunks),
        socketId: idOf()(req.socket),
      };
      if (req.socket instanceof tls.TLSSocket) {
        const peer = req.socket.getPeerCertificate();
        captured.clientCertAuthorized = req.socket.authorized;
        if (peer && peer.subject) captured.clientCertCN = peer.subject.CN as string;
      }
      requests.push(captured);
      try {
        handler(req, res, captured);
      } catch (e) {
        res.statusCode = 500;
        res.end(`test handler threw: ${String(e)}`);
      }
    });
  };
}

/** A plain HTTP server on 127.0.0.1 that records every request (headers and full body) before calling handler. */
export async function startHttp(handler: Handler): Promise<CaptureServer> {
  const requests: CapturedRequest[] = [];
  let tracker: ReturnType<typeof trackSockets>;
  const server = http.createServer(capturing(handler, requests, () => tracker.idOf));
  server.keepAliveTimeout = 30000;
  tracker = trackSockets(server);
  const port = await listen(server);
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    requests,
    connections: () => tracker.count(),
    close: () => tracker.close(),
  };
}

/** A bare TCP server: onSocket is called with the first chunk the client sent. */
export async function startRaw(onSocket: (socket: net.Socket, firstChunk: Buffer) => void): Promise<RawServer> {
  const server = net.createServer((socket) => {
    socket.once('data', (chunk: Buffer) => onSocket(socket, chunk));
  });
  const tracker = trackSockets(server);
  const port = await listen(server);
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    connections: () => tracker.count(),
    close: () => tracker.close(),
  };
}

/** A port on 127.0.0.1 with (almost certainly) nobody listening: bound, then released. */
export async function closedPort(): Promise<number> {
  const server = net.createServer();
  const port = await listen(server);
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

/**
 * A port on 127.0.0.1 whose connection attempts never complete (a firewall that drops them, a
 * server too busy to accept): a listener in a child process whose event loop is blocked, so it
 * never accepts, with its queue filled by connections of our own.
 */
export async function unansweredPort(): Promise<{ port: number; close(): void }> {
  const child = spawn(
    process.execPath,
    [
      '-e',
      "const s = require('net').createServer(); s.listen({ port: 0, host: '127.0.0.1', backlog: 1 }, () => { require('fs').writeSync(1, s.address().port + '\\n'); Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 120000); });",
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout!.once('data', (d: Buffer) => resolve(Number(String(d).trim())));
    child.once('exit', (code) => reject(new Error(`the unanswering listener ended (${code})`)));
  });
  // The queue (backlog 1) holds two: fill it (two connections are made), and a third attempt waits.
  let connected = 0;
  let full!: () => void;
  const queued = new Promise<void>((r) => (full = r));
  const fillers = [0, 1, 2].map(() =>
    net
      .connect(port, '127.0.0.1')
      .on('connect', () => ++connected === 2 && full())
      .on('error', () => {}),
  );
  await queued;
  return {
    port,
    close: () => {
      for (const f of fillers) f.destroy();
      child.kill('SIGKILL');
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Certificates

export interface Certs {
  dir: string;
  caCert: string;
  serverCert: string;
  serverKey: string;
  badCert: string;
  badKey: string;
  clientCert: string;
  clientKey: string;
  /** A CA-signed server certificate for the name lanes.test only (no address), for --resolve / --connect-to. */
  lanesCert: string;
  lanesKey: string;
}

let certsCache: Certs | null | undefined;
let certsError = '';

/** Why makeCerts() returned null (empty when it did not). */
export function certsUnavailableReason(): string {
  return certsError;
}

/**
 * Generates (once per process) a test CA, a CA-signed server cert for 127.0.0.1, localhost and sling.test (--resolve),
 * one for lanes.test only,
 * a self-signed "bad" server cert, and a CA-signed client cert. Null when openssl is unavailable.
 */
export function makeCerts(): Certs | null {
  if (certsCache !== undefined) return certsCache;
  const probe = spawnSync('openssl', ['version'], { encoding: 'utf8' });
  if (probe.error || probe.status !== 0) {
    certsError = `openssl not found: ${probe.error ? probe.error.message : probe.stderr}`;
    certsCache = null;
    return null;
  }
  const dir = mkdtempSync(join(tmpdir(), 'sling-certs-'));
  process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
  const p = (name: string) => join(dir, name);
  const run = (args: string[]) => {
    const r = spawnSync('openssl', args, { cwd: dir, encoding: 'utf8' });
    if (r.error || r.status !== 0) {
      throw new Error(`openssl ${args.join(' ')} failed: ${r.error?.message ?? r.stderr}`);
    }
  };
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  try {
    // Certificate authority.
    run([
      'req',
      '-x509',
      ...ec,
      '-keyout',
      p('ca.key'),
      '-out',
      p('ca.pem'),
      '-days',
      '30',
      '-subj',
      '/CN=sling test CA',
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign,cRLSign',
    ]);
    // Server certificate for 127.0.0.1 and localhost, signed by the CA.
    writeFileSync(
      p('server.ext'),
      ['basicConstraints=CA:FALSE', 'keyUsage=critical,digitalSignature,keyEncipherment', 'extendedKeyUsage=serverAuth', 'subjectAltName=IP:127.0.0.1,DNS:localhost,DNS:sling.test', ''].join('\n'),
    );
    run(['req', ...ec, '-keyout', p('server.key'), '-out', p('server.csr'), '-subj', '/CN=127.0.0.1']);
    run(['x509', '-req', '-in', p('server.csr'), '-CA', p('ca.pem'), '-CAkey', p('ca.key'), '-set_serial', '1001', '-days', '30', '-extfile', p('server.ext'), '-out', p('server.pem')]);
    // Server certificate for lanes.test only: a client that checks it against an address fails.
    writeFileSync(p('lanes.ext'), ['basicConstraints=CA:FALSE', 'keyUsage=critical,digitalSignature,keyEncipherment', 'extendedKeyUsage=serverAuth', 'subjectAltName=DNS:lanes.test', ''].join('\n'));
    run(['req', ...ec, '-keyout', p('lanes.key'), '-out', p('lanes.csr'), '-subj', '/CN=lanes.test']);
    run(['x509', '-req', '-in', p('lanes.csr'), '-CA', p('ca.pem'), '-CAkey', p('ca.key'), '-set_serial', '1003', '-days', '30', '-extfile', p('lanes.ext'), '-out', p('lanes.pem')]);
    // Self-signed server certificate that the CA never signed (same names, so only trust fails).
    run(['req', '-x509', ...ec, '-keyout', p('bad.key'), '-out', p('bad.pem'), '-days', '30', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost']);
    // Client certificate signed by the CA.
    writeFileSync(p('client.ext'), ['basicConstraints=CA:FALSE', 'keyUsage=critical,digitalSignature,keyEncipherment', 'extendedKeyUsage=clientAuth', ''].join('\n'));
    run(['req', ...ec, '-keyout', p('client.key'), '-out', p('client.csr'), '-subj', '/CN=sling-test-client']);
    run(['x509', '-req', '-in', p('client.csr'), '-CA', p('ca.pem'), '-CAkey', p('ca.key'), '-set_serial', '1002', '-days', '30', '-extfile', p('client.ext'), '-out', p('client.pem')]);
  } catch (e) {
    certsError = `openssl failed: ${(e as Error).message}`;
    certsCache = null;
    return null;
  }
  certsCache = {
    dir,
    caCert: p('ca.pem'),
    serverCert: p('server.pem'),
    serverKey: p('server.key'),
    badCert: p('bad.pem'),
    badKey: p('bad.key'),
    clientCert: p('client.pem'),
    clientKey: p('client.key'),
    lanesCert: p('lanes.pem'),
    lanesKey: p('lanes.key'),
  };
  return certsCache;
}

export interface HttpsOptions {
  cert: 'good' | 'bad';
  /** Ask for (but do not require) a client certificate; see CapturedRequest.clientCert*. */
  requestClientCert?: boolean;
}

/** An HTTPS server on 127.0.0.1 with the CA-signed ("good") or self-signed ("bad") certificate. */
export async function startHttps(handler: Handler, opts: HttpsOptions): Promise<CaptureServer> {
  const certs = makeCerts();
  if (!certs) throw new Error(certsUnavailableReason());
  const requests: CapturedRequest[] = [];
  let tracker: ReturnType<typeof trackSockets>;
  const server = https.createServer(
    {
      key: readFileSync(opts.cert === 'good' ? certs.serverKey : certs.badKey),
      cert: readFileSync(opts.cert === 'good' ? certs.serverCert : certs.badCert),
      ca: [readFileSync(certs.caCert)],
      requestCert: opts.requestClientCert ?? false,
      rejectUnauthorized: false,
    },
    capturing(handler, requests, () => tracker.idOf),
  );
  server.on('tlsClientError', () => {});
  tracker = trackSockets(server, 'secureConnection');
  const port = await listen(server);
  return {
    port,
    url: `https://127.0.0.1:${port}`,
    requests,
    connections: () => tracker.count(),
    close: () => tracker.close(),
  };
}

// ---------------------------------------------------------------------------------------------
// Proxy

export interface ProxyServer {
  port: number;
  url: string;
  /** CONNECT targets as requested (e.g. "127.0.0.1:4321"). */
  connects: string[];
  /** Absolute-form requests for http:// targets. */
  plainRequests: { method: string; url: string; headers: http.IncomingHttpHeaders }[];
  close(): Promise<void>;
}

const LOOPBACK_NAMES = new Set(['127.0.0.1', 'localhost']);

/**
 * An HTTP proxy on 127.0.0.1: tunnels CONNECT to loopback targets (or answers failStatus),
 * and forwards absolute-form http:// requests to loopback targets.
 */
export async function startConnectProxy(opts: { failStatus?: number } = {}): Promise<ProxyServer> {
  const connects: string[] = [];
  const plainRequests: ProxyServer['plainRequests'] = [];
  const upstreams = new Set<net.Socket>();
  const trackUp = (s: net.Socket) => {
    upstreams.add(s);
    s.on('error', () => {});
    s.on('close', () => upstreams.delete(s));
  };

  const server = http.createServer((req, res) => {
    plainRequests.push({ method: req.method ?? '', url: req.url ?? '', headers: { ...req.headers } });
    let target: URL;
    try {
      target = new URL(req.url ?? '');
    } catch {
      res.writeHead(400, { 'Content-Type': 'text/plain' });
      res.end('proxy: expected an absolute-form request target\n');
      return;
    }
    if (target.protocol !== 'http:' || !LOOPBACK_NAMES.has(target.hostname)) {
      res.writeHead(403, { 'Content-Type': 'text/plain' });
      res.end('proxy: only http://127.0.0.1 and http://localhost targets are allowed\n');
      req.resume();
      return;
    }
    const headers = { ...req.headers };
    delete headers['proxy-connection'];
    delete headers['proxy-authorization'];
    const up = http.request(
      {
        host: '127.0.0.1',
        port: Number(target.port || 80),
        method: req.method,
        path: target.pathname + target.search,
        headers,
        agent: false,
      },
      (upRes) => {
        const raw: string[] = [];
        for (let i = 0; i + 1 < upRes.rawHeaders.length; i += 2) {
          const name = upRes.rawHeaders[i].toLowerCase();
          if (name === 'connection' || name === 'keep-alive') continue;
          raw.push(upRes.rawHeaders[i], upRes.rawHeaders[i + 1]);
        }
        res.writeHead(upRes.statusCode ?? 502, upRes.statusMessage, raw);
        upRes.pipe(res);
      },
    );
    up.on('socket', trackUp);
    up.on('error', (e) => {
      if (!res.headersSent) {
        res.writeHead(502, { 'Content-Type': 'text/plain' });
        res.end(`proxy: upstream error: ${e.message}\n`);
      } else {
        res.destroy();
      }
    });
    req.pipe(up);
  });

  server.on('connect', (req: http.IncomingMessage, client: net.Socket, head: Buffer) => {
    const targetSpec = req.url ?? '';
    connects.push(targetSpec);
    client.on('error', () => {});
    if (opts.failStatus !== undefined) {
      const reason = http.STATUS_CODES[opts.failStatus] ?? 'Failed';
      client.end(`HTTP/1.1 ${opts.failStatus} ${reason}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`);
      return;
    }
    const m = /^\[?([^\]]+?)\]?:(\d+)$/.exec(targetSpec);
    if (!m || !LOOPBACK_NAMES.has(m[1])) {
      client.end('HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
      return;
    }
    const up = net.connect(Number(m[2]), '127.0.0.1');
    trackUp(up);
    up.on('connect', () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length) up.write(head);
      up.pipe(client);
      client.pipe(up);
    });
    up.on('error', () => {
      if (client.writable) client.end('HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
    });
    up.on('close', () => client.destroy());
    client.on('close', () => up.destroy());
  });

  const tracker = trackSockets(server);
  const port = await listen(server);
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    connects,
    plainRequests,
    close: async () => {
      for (const s of upstreams) s.destroy();
      upstreams.clear();
      await tracker.close();
    },
  };
}
