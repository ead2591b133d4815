// What the WebSocket tests share: a RequestSpec for a URL, a `ws` server on 127.0.0.1 (the
// independent implementation the client is checked against), and a raw TCP server that answers the
// handshake correctly and then sends whatever bytes a test gives it (the hostile server), with a
// reader of the client's masked frames as the server receives them.
import type { TestContext } from 'node:test';
import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { readFileSync } from 'node:fs';
import { WebSocketServer, type WebSocket, type ServerOptions } from 'ws';
import type { Header, RequestSettings, RequestSpec } from '../../src/model/spec.js';
import { parseUrl } from '../../src/model/url.js';
import { makeCerts } from './servers.js';

export function specFor(url: string, settings: Partial<RequestSettings> = {}, headers: Header[] = []): RequestSpec {
  return {
    method: 'GET',
    url: parseUrl(url),
    query: [],
    headers,
    body: { kind: 'none' },
    // proxyEnv: the test's own environment's proxies never apply.
    settings: { follow: false, maxRedirects: 0, tls: { verify: true }, proxies: {}, proxyEnv: {}, compress: 0, chunked: false, ...settings } as RequestSettings,
  };
}

export interface WsServer {
  port: number;
  wss: WebSocketServer;
  /** The handshake requests, as node:http read them. */
  handshakes: IncomingMessage[];
  /** The connections, in order. */
  clients: WebSocket[];
  /** The next connection (the one after those so far). */
  next(): Promise<WebSocket>;
}

/** A `ws` server on 127.0.0.1 (with TLS: the CA-signed or the self-signed test certificate), closed after the test. */
export async function wsServer(t: TestContext, options: ServerOptions = {}, tlsCert?: 'good' | 'bad'): Promise<WsServer> {
  let wss: WebSocketServer;
  let port: number;
  let closeHttps: (() => void) | undefined;
  if (tlsCert) {
    const certs = makeCerts();
    if (!certs) throw new Error('openssl is needed for the TLS tests');
    const server = https.createServer({
      key: readFileSync(tlsCert === 'good' ? certs.serverKey : certs.badKey),
      cert: readFileSync(tlsCert === 'good' ? certs.serverCert : certs.badCert),
    });
    server.on('tlsClientError', () => {});
    const sockets = new Set<net.Socket>();
    server.on('connection', (s: net.Socket) => {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
    });
    wss = new WebSocketServer({ ...options, server });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as net.AddressInfo).port;
    closeHttps = () => {
      for (const s of sockets) s.destroy();
      server.close();
    };
  } else {
    wss = new WebSocketServer({ ...options, host: '127.0.0.1', port: 0 });
    await new Promise<void>((r) => wss.once('listening', r));
    port = (wss.address() as net.AddressInfo).port;
  }
  const handshakes: IncomingMessage[] = [];
  const clients: WebSocket[] = [];
  const waiting: ((ws: WebSocket) => void)[] = [];
  wss.on('connection', (ws, req) => {
    handshakes.push(req);
    clients.push(ws);
    ws.on('error', () => {});
    waiting.shift()?.(ws);
  });
  t.after(
    () =>
      new Promise<void>((r) => {
        for (const c of clients) c.terminate();
        closeHttps?.();
        wss.close(() => r());
      }),
  );
  return {
    port,
    wss,
    handshakes,
    clients,
    next: () => new Promise<WebSocket>((r) => waiting.push(r)),
  };
}

/** A frame from the client, as a server reads it (unmasked). */
export interface ClientFrame {
  fin: boolean;
  opcode: number;
  masked: boolean;
  payload: Buffer;
}

/** The client's frames in `bytes` (whole ones only) and how many bytes they took. */
export function readClientFrames(bytes: Buffer): { frames: ClientFrame[]; used: number } {
  const frames: ClientFrame[] = [];
  let pos = 0;
  for (;;) {
    if (bytes.length - pos < 2) break;
    const b0 = bytes[pos]!;
    const b1 = bytes[pos + 1]!;
    let len = b1 & 0x7f;
    let at = pos + 2;
    if (len === 126) {
      if (bytes.length < at + 2) break;
      len = bytes.readUInt16BE(at);
      at += 2;
    } else if (len === 127) {
      if (bytes.length < at + 8) break;
      len = Number(bytes.readBigUInt64BE(at));
      at += 8;
    }
    const masked = (b1 & 0x80) !== 0;
    const mask = masked ? bytes.subarray(at, at + 4) : undefined;
    if (masked) at += 4;
    if (bytes.length < at + len) break;
    const payload = Buffer.from(bytes.subarray(at, at + len));
    if (mask) for (let i = 0; i < payload.length; i++) payload[i] = payload[i]! ^ mask[i & 3]!;
    frames.push({ fin: (b0 & 0x80) !== 0, opcode: b0 & 0x0f, masked, payload });
    pos = at + len;
  }
  return { frames, used: pos };
}

/** A frame as a server sends it (unmasked unless told), with any first byte: the hostile server's building block. */
export function serverFrame(opcode: number, payload: Buffer | string, opts: { fin?: boolean; rsv?: number; mask?: boolean; length?: bigint } = {}): Buffer {
  const data = Buffer.isBuffer(payload) ? payload : Buffer.from(payload, 'utf8');
  const n = opts.length ?? BigInt(data.length);
  const b0 = ((opts.fin ?? true) ? 0x80 : 0) | ((opts.rsv ?? 0) << 4) | opcode;
  const maskBit = opts.mask ? 0x80 : 0;
  let head: Buffer;
  if (n < 126n) head = Buffer.from([b0, maskBit | Number(n)]);
  else if (n < 65536n) {
    head = Buffer.alloc(4);
    head[0] = b0;
    head[1] = maskBit | 126;
    head.writeUInt16BE(Number(n), 2);
  } else {
    head = Buffer.alloc(10);
    head[0] = b0;
    head[1] = maskBit | 127;
    head.writeBigUInt64BE(n, 2);
  }
  if (!opts.mask) return Buffer.concat([head, data]);
  const mask = Buffer.from([1, 2, 3, 4]);
  const masked = Buffer.from(data.map((b, i) => b ^ mask[i & 3]!));
  return Buffer.concat([head, mask, masked]);
}

export interface RawWs {
  port: number;
  /** The handshake requests, as text. */
  handshakes: string[];
  /** The frames each connection sent after its handshake, as they come. */
  frames: ClientFrame[][];
  /** Whether each connection has ended (the client closed or ended it). */
  ended: boolean[];
}

/**
 * A raw TCP server that reads a handshake, answers 101 with the right accept key (or the head
 * `answer` makes of the key), then hands the socket to `after` and records the client's frames.
 */
export async function rawWs(t: TestContext, after: (socket: net.Socket, index: number) => void, answer?: (key: string) => string): Promise<RawWs> {
  const state: RawWs = { port: 0, handshakes: [], frames: [], ended: [] };
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => {});
    const index = state.frames.length;
    state.frames.push([]);
    state.ended.push(false);
    let held = Buffer.alloc(0);
    let inHead = true;
    socket.on('data', (d: Buffer) => {
      held = Buffer.concat([held, d]);
      if (inHead) {
        const end = held.indexOf('\r\n\r\n');
        if (end === -1) return;
        const text = held.toString('latin1', 0, end);
        held = held.subarray(end + 4);
        inHead = false;
        state.handshakes.push(text);
        const key = /^sec-websocket-key:\s*(.*)$/im.exec(text)?.[1]?.trim() ?? '';
        const accept = createHash('sha1').update(`${key}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`).digest('base64');
        socket.write(answer ? answer(key) : `HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n\r\n`);
        after(socket, index);
      }
      const { frames, used } = readClientFrames(held);
      held = held.subarray(used);
      state.frames[index]!.push(...frames);
    });
    socket.on('end', () => {
      state.ended[index] = true;
      socket.end();
    });
    socket.on('close', () => {
      state.ended[index] = true;
      sockets.delete(socket);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  state.port = (server.address() as net.AddressInfo).port;
  t.after(
    () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  );
  return state;
}

/** The code of a close frame's payload (undefined for an empty one). */
export const closeCodeOf = (f: ClientFrame | undefined): number | undefined => (f && f.payload.length >= 2 ? f.payload.readUInt16BE(0) : undefined);
