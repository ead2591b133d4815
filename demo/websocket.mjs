// The demo server's WebSocket side (RFC 6455), written with Node's own modules only: the opening
// handshake, frames read and written, and the two services on top of it: /ws, an echo, and
// /graphql, GraphQL subscriptions over the `graphql-transport-ws` subprotocol (the protocol of the
// graphql-ws library), knowing one subscription, `countdown(from: N)`.
//
// No extension (permessage-deflate) is offered; a message is at most 1 MiB (larger: close 1009).
import { createHash } from 'node:crypto';
import { isUtf8 } from 'node:buffer';

const GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11'; // RFC 6455 section 1.3
export const MAX_MESSAGE = 1024 * 1024;
export const MAX_COUNTDOWN = 100;
const COUNTDOWN_MS = 100;
const GRAPHQL_PROTOCOL = 'graphql-transport-ws';

const OP = { continuation: 0, text: 1, binary: 2, close: 8, ping: 9, pong: 10 };

/** Whether an upgrade request is a WebSocket handshake for one of the demo's WebSocket routes. */
export function wantsWebSocket(req, pathname) {
  const upgrade = (req.headers.upgrade || '').split(',').map((t) => t.trim().toLowerCase());
  return req.method === 'GET' && upgrade.includes('websocket') && (pathname === '/ws' || pathname === '/graphql');
}

function rawAnswer(socket, status, reason, value, extra = '') {
  const body = JSON.stringify({ error: value, status }, null, 2) + '\n';
  socket.end(`HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n${extra}Connection: close\r\n\r\n${body}`);
}

/**
 * Answers a WebSocket handshake on `socket` (the 'upgrade' event of node:http) and runs the route's
 * service on it. `state.timers` holds the timers, so that closing the server clears them.
 * Returns the status answered (101, or 400/426 for a handshake the demo cannot take).
 */
export function acceptWebSocket(req, socket, head, url, state) {
  const key = req.headers['sec-websocket-key'] || '';
  if (req.headers['sec-websocket-version'] !== '13') {
    rawAnswer(socket, 426, 'Upgrade Required', 'Sec-WebSocket-Version must be 13', 'Sec-WebSocket-Version: 13\r\n');
    return 426;
  }
  if (Buffer.from(key, 'base64').length !== 16) {
    rawAnswer(socket, 400, 'Bad Request', 'Sec-WebSocket-Key must be 16 bytes in base64');
    return 400;
  }
  const accept = createHash('sha1')
    .update(key + GUID)
    .digest('base64');
  const offered = (req.headers['sec-websocket-protocol'] || '').split(',').map((p) => p.trim());
  const graphql = url.pathname === '/graphql';
  const protocol = graphql && offered.includes(GRAPHQL_PROTOCOL) ? `Sec-WebSocket-Protocol: ${GRAPHQL_PROTOCOL}\r\n` : '';
  socket.write(`HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n${protocol}\r\n`);
  const ws = new WebSocketConnection(socket, state);
  if (graphql) {
    // graphql-ws closes with 4406 when the client does not speak its subprotocol.
    if (!protocol) ws.close(4406, 'Subprotocol not acceptable');
    else graphqlService(ws, state);
  } else {
    if (url.searchParams.get('greet') === '1') ws.send(JSON.stringify({ hello: 'sling' }));
    ws.onMessage = (data, binary) => ws.send(data, binary);
  }
  if (head.length) ws.receive(head);
  return 101;
}

/** One WebSocket connection, server side: frames in (masked, maybe fragmented), frames out (unmasked). */
class WebSocketConnection {
  constructor(socket, state) {
    this.socket = socket;
    this.state = state;
    this.buffered = Buffer.alloc(0);
    this.fragments = null; // { opcode, parts, size } while a fragmented message comes in
    this.closeSent = false;
    this.onMessage = () => {};
    this.onClose = () => {};
    socket.setNoDelay(true);
    socket.on('data', (chunk) => this.receive(chunk));
    socket.on('error', () => socket.destroy());
    socket.on('close', () => this.onClose());
  }

  receive(chunk) {
    this.buffered = this.buffered.length ? Buffer.concat([this.buffered, chunk]) : chunk;
    while (!this.socket.destroyed) {
      const used = this.frame(this.buffered);
      if (used === 0) break;
      this.buffered = this.buffered.subarray(used);
    }
  }

  /** Reads one frame from the start of `buf`; returns the bytes it took (0: not all there yet). */
  frame(buf) {
    if (buf.length < 2) return 0;
    const fin = (buf[0] & 0x80) !== 0;
    const opcode = buf[0] & 0x0f;
    const masked = (buf[1] & 0x80) !== 0;
    let length = buf[1] & 0x7f;
    let at = 2;
    if (length === 126) {
      if (buf.length < 4) return 0;
      length = buf.readUInt16BE(2);
      at = 4;
    } else if (length === 127) {
      if (buf.length < 10) return 0;
      const high = buf.readUInt32BE(2);
      length = high > 0 ? Number.MAX_SAFE_INTEGER : buf.readUInt32BE(6);
      at = 10;
    }
    if ((buf[0] & 0x70) !== 0) return this.fail(1002, 'reserved bits set without an extension');
    if (!masked) return this.fail(1002, 'a client frame must be masked');
    const control = opcode >= 8;
    if (control && (!fin || length > 125)) return this.fail(1002, 'a control frame must be whole and at most 125 bytes');
    if (!control && opcode !== OP.continuation && opcode !== OP.text && opcode !== OP.binary) return this.fail(1002, `unknown opcode ${opcode}`);
    if (control && opcode !== OP.close && opcode !== OP.ping && opcode !== OP.pong) return this.fail(1002, `unknown opcode ${opcode}`);
    // The size limit is checked on the frame's header, before its payload is waited for.
    if (!control && (this.fragments?.size ?? 0) + length > MAX_MESSAGE) return this.fail(1009, `a message is at most ${MAX_MESSAGE} bytes`);
    if (buf.length < at + 4 + length) return 0;
    const mask = buf.subarray(at, at + 4);
    const payload = Buffer.from(buf.subarray(at + 4, at + 4 + length));
    for (let i = 0; i < payload.length; i++) payload[i] ^= mask[i & 3];
    const used = at + 4 + length;

    if (control) {
      this.control(opcode, payload);
      return used;
    }
    if (opcode === OP.continuation && !this.fragments) return this.fail(1002, 'a continuation frame without a message to continue');
    if (opcode !== OP.continuation && this.fragments) return this.fail(1002, 'a new message before the last one ended');
    if (opcode !== OP.continuation) this.fragments = { opcode, parts: [], size: 0 };
    this.fragments.parts.push(payload);
    this.fragments.size += payload.length;
    if (!fin) return used;
    const { opcode: first, parts } = this.fragments;
    this.fragments = null;
    const data = Buffer.concat(parts);
    if (first === OP.text && !isUtf8(data)) return this.fail(1007, 'a text message must be UTF-8');
    if (!this.closeSent) this.onMessage(data, first === OP.binary);
    return used;
  }

  control(opcode, payload) {
    if (opcode === OP.ping) {
      if (!this.closeSent) this.writeFrame(OP.pong, payload);
    } else if (opcode === OP.close) {
      if (payload.length === 1) return this.fail(1002, 'a close frame with a one-byte body');
      if (payload.length >= 2) {
        const code = payload.readUInt16BE(0);
        const valid = (code >= 1000 && code <= 1014 && code !== 1004 && code !== 1005 && code !== 1006) || (code >= 3000 && code <= 4999);
        if (!valid) return this.fail(1002, `close code ${code} may not be sent`);
        if (!isUtf8(payload.subarray(2))) return this.fail(1007, 'a close reason must be UTF-8');
      }
      // The close is echoed with the code it came with (and no reason), then the server ends TCP.
      if (!this.closeSent) {
        this.closeSent = true;
        this.writeFrame(OP.close, payload.subarray(0, 2));
      }
      this.socket.end();
    }
    // A pong needs no answer.
  }

  /** Sends a text message (a string, or bytes that are text) or a binary one. */
  send(data, binary = false) {
    if (this.closeSent || this.socket.destroyed) return;
    this.writeFrame(binary ? OP.binary : OP.text, typeof data === 'string' ? Buffer.from(data) : data);
  }

  /** Starts the closing handshake from the server's side. */
  close(code, reason = '') {
    if (this.closeSent || this.socket.destroyed) return;
    this.closeSent = true;
    const body = Buffer.alloc(2 + Buffer.byteLength(reason));
    body.writeUInt16BE(code, 0);
    body.write(reason, 2);
    this.writeFrame(OP.close, body);
    this.socket.end();
  }

  fail(code, reason) {
    this.close(code, reason);
    this.buffered = Buffer.alloc(0);
    this.fragments = null;
    // Nothing more is read: what the client sends after a protocol error is not looked at.
    this.socket.removeAllListeners('data');
    this.socket.resume();
    return 0;
  }

  writeFrame(opcode, payload) {
    let head;
    if (payload.length < 126) {
      head = Buffer.from([0x80 | opcode, payload.length]);
    } else if (payload.length < 0x10000) {
      head = Buffer.from([0x80 | opcode, 126, 0, 0]);
      head.writeUInt16BE(payload.length, 2);
    } else {
      head = Buffer.alloc(10);
      head[0] = 0x80 | opcode;
      head[1] = 127;
      head.writeUInt32BE(payload.length, 6); // messages are at most 1 MiB: the high word is 0
    }
    this.socket.write(Buffer.concat([head, payload]));
  }
}

// ------------------------------------------------------------ graphql-transport-ws --

/**
 * GraphQL subscriptions as the graphql-transport-ws protocol has them: connection_init ->
 * connection_ack, subscribe -> next... complete (or error), ping -> pong, complete from the client
 * stops a subscription. A malformed message closes the socket with 4400, as the protocol says.
 */
function graphqlService(ws, state) {
  let acknowledged = false;
  const running = new Map(); // subscription id -> its timer
  const stop = (id) => {
    const timer = running.get(id);
    if (timer) {
      clearTimeout(timer);
      state.timers.delete(timer);
    }
    running.delete(id);
  };
  ws.onClose = () => {
    for (const id of [...running.keys()]) stop(id);
  };
  ws.onMessage = (data, binary) => {
    let msg;
    try {
      msg = binary ? undefined : JSON.parse(data.toString('utf8'));
    } catch {
      msg = undefined;
    }
    const hasId = (m) => typeof m.id === 'string' && m.id !== '';
    if (!msg || typeof msg !== 'object' || Array.isArray(msg) || typeof msg.type !== 'string') return ws.close(4400, 'Invalid message received');
    switch (msg.type) {
      case 'connection_init':
        if (acknowledged) return ws.close(4429, 'Too many initialisation requests');
        acknowledged = true;
        return ws.send(JSON.stringify({ type: 'connection_ack' }));
      case 'ping':
        return ws.send(JSON.stringify(msg.payload === undefined ? { type: 'pong' } : { type: 'pong', payload: msg.payload }));
      case 'pong':
        return;
      case 'complete':
        if (!hasId(msg)) return ws.close(4400, 'Invalid message received');
        return stop(msg.id);
      case 'subscribe': {
        if (!hasId(msg) || typeof msg.payload !== 'object' || msg.payload === null || typeof msg.payload.query !== 'string') return ws.close(4400, 'Invalid message received');
        if (!acknowledged) return ws.close(4401, 'Unauthorized');
        if (running.has(msg.id)) return ws.close(4409, `Subscriber for ${msg.id} already exists`);
        const m = /\bcountdown\b(?:\s*\(\s*from\s*:\s*(-?\d+)\s*\))?/.exec(msg.payload.query);
        const from = m ? Number(m[1] ?? 3) : NaN;
        if (!m || !(from >= 0 && from <= MAX_COUNTDOWN)) {
          const message = m ? `from must be a number from 0 to ${MAX_COUNTDOWN}` : 'the demo knows only countdown(from: N)';
          return ws.send(JSON.stringify({ id: msg.id, type: 'error', payload: [{ message }] }));
        }
        const tick = (n) => {
          running.delete(msg.id);
          ws.send(JSON.stringify({ id: msg.id, type: 'next', payload: { data: { countdown: n } } }));
          if (n === 0) return ws.send(JSON.stringify({ id: msg.id, type: 'complete' }));
          const timer = setTimeout(() => {
            state.timers.delete(timer);
            tick(n - 1);
          }, COUNTDOWN_MS);
          state.timers.add(timer);
          running.set(msg.id, timer);
        };
        running.set(msg.id, undefined);
        return tick(from);
      }
      default:
        return ws.close(4400, 'Invalid message received');
    }
  };
}
