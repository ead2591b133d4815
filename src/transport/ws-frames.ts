import { isUtf8 } from 'node:buffer';

/**
 * The WebSocket frame codec (RFC 6455 §5) of sling's own client (websocket.ts): frames as a client
 * writes them (masked, §5.3) and a reader of the frames a server sends, which reassembles
 * fragmented messages. It owns no socket: websocket.ts feeds it the bytes as they come and writes
 * what it makes. Every byte it reads is a stranger's, so it checks before it keeps anything:
 * a frame's length (up to 64 bits) is held against the message limit before a byte of its payload
 * is kept, and what breaks the protocol throws a FrameError carrying the close code the client
 * answers with (1002 protocol error, 1007 invalid UTF-8, 1009 too big). No extension is offered,
 * so a reserved bit set is an error.
 */

export const OP_CONTINUATION = 0x0;
export const OP_TEXT = 0x1;
export const OP_BINARY = 0x2;
export const OP_CLOSE = 0x8;
export const OP_PING = 0x9;
export const OP_PONG = 0xa;

/** The close codes the reader fails with. */
export const CLOSE_NORMAL = 1000;
export const CLOSE_PROTOCOL = 1002;
export const CLOSE_INVALID_DATA = 1007;
export const CLOSE_TOO_BIG = 1009;

/** What a server's frames did wrong: the words for a message, and the close code the client sends back. */
export class FrameError extends Error {
  constructor(
    message: string,
    readonly closeCode: number,
  ) {
    super(message);
    this.name = 'FrameError';
  }
}

/** What the reader makes of the bytes: a whole message, a control frame. */
export type FrameEvent =
  | { kind: 'message'; data: Buffer; binary: boolean }
  | { kind: 'ping'; data: Buffer }
  | { kind: 'pong'; data: Buffer }
  /** A close frame: its code (absent when the frame had no payload) and reason. */
  | { kind: 'close'; code?: number; reason: string };

/** The largest payload of a control frame (§5.5). */
const CONTROL_MAX = 125;

/**
 * One frame as a client sends it: FIN set (sling sends a message in one frame), masked with `mask`
 * (4 bytes; a client masks every frame, §5.3). `mask` is taken as given so that tests can repeat
 * a frame; websocket.ts draws a new random one for each frame.
 */
export function encodeFrame(opcode: number, payload: Buffer, mask: Buffer | undefined, fin = true): Buffer {
  const n = payload.length;
  const lengthBytes = n < 126 ? 0 : n < 65536 ? 2 : 8;
  const head = 2 + lengthBytes + (mask ? 4 : 0);
  const out = Buffer.allocUnsafe(head + n);
  out[0] = (fin ? 0x80 : 0) | (opcode & 0x0f);
  const maskBit = mask ? 0x80 : 0;
  if (lengthBytes === 0) out[1] = maskBit | n;
  else if (lengthBytes === 2) {
    out[1] = maskBit | 126;
    out.writeUInt16BE(n, 2);
  } else {
    out[1] = maskBit | 127;
    out.writeUInt32BE(Math.floor(n / 2 ** 32), 2);
    out.writeUInt32BE(n >>> 0, 6);
  }
  if (!mask) {
    payload.copy(out, head);
    return out;
  }
  mask.copy(out, head - 4, 0, 4);
  for (let i = 0; i < n; i++) out[head + i] = payload[i]! ^ mask[i & 3]!;
  return out;
}

/** A close frame's payload: the code (2 bytes) and the reason, cut to fit 125 bytes on a character's edge. */
export function closePayload(code: number | undefined, reason = ''): Buffer {
  if (code === undefined) return Buffer.alloc(0);
  let text = Buffer.from(reason, 'utf8');
  if (text.length > CONTROL_MAX - 2) {
    let end = CONTROL_MAX - 2;
    // Not in the middle of a character: back to the first byte of one.
    while (end > 0 && (text[end]! & 0xc0) === 0x80) end--;
    text = text.subarray(0, end);
  }
  const out = Buffer.allocUnsafe(2 + text.length);
  out.writeUInt16BE(code, 0);
  text.copy(out, 2);
  return out;
}

/** A close code a peer may send (§7.4.1, §7.4.2): 1000-1003, 1007-1014, 3000-4999. */
export function validCloseCode(code: number): boolean {
  return (code >= 1000 && code <= 1003) || (code >= 1007 && code <= 1014) || (code >= 3000 && code <= 4999);
}

/**
 * Reads the frames a server sends, from bytes in pieces of any size: `feed` returns what they
 * completed (messages reassembled from their fragments, control frames as they come, interleaved
 * as the RFC allows) and throws a FrameError at the first thing that breaks the protocol; the
 * reader is of no further use after that. `maxMessage` bounds one message (all its fragments).
 */
export class FrameReader {
  /** Bytes of a frame head not yet complete (at most 14). */
  private head = Buffer.alloc(0);
  /** The frame being read, once its head is: its opcode, whether it ends a message, its payload length and the payload so far. */
  private frame: { opcode: number; fin: boolean; length: number; got: number; parts: Buffer[] } | undefined;
  /** The message being reassembled from fragments: its kind and pieces. */
  private message: { binary: boolean; size: number; parts: Buffer[] } | undefined;
  private closed = false;

  constructor(private readonly maxMessage: number) {}

  feed(data: Buffer): FrameEvent[] {
    const out: FrameEvent[] = [];
    let pos = 0;
    while (pos < data.length && !this.closed) {
      if (!this.frame) {
        // The head: 2 bytes, then 2 or 8 of length (no masking key: a server's frames are never masked).
        const need = () => {
          const h = this.head;
          if (h.length < 2) return 2;
          const l = h[1]! & 0x7f;
          return 2 + (l === 126 ? 2 : l === 127 ? 8 : 0);
        };
        while (pos < data.length && this.head.length < need()) {
          const take = Math.min(need() - this.head.length, data.length - pos);
          this.head = Buffer.concat([this.head, data.subarray(pos, pos + take)]);
          pos += take;
          if (this.head.length === 2) this.checkFirstTwo();
        }
        if (this.head.length < need()) break;
        this.startFrame();
        // A frame with an empty payload is complete with its head.
        if (this.frame!.length === 0) this.endFrame(out);
        continue;
      }
      const f = this.frame;
      const take = Math.min(f.length - f.got, data.length - pos);
      // A copy: the bytes given are the caller's, only valid during the call.
      f.parts.push(Buffer.from(data.subarray(pos, pos + take)));
      f.got += take;
      pos += take;
      if (f.got === f.length) this.endFrame(out);
    }
    return out;
  }

  /** What the first two bytes alone say is wrong: reserved bits, an unknown opcode, a mask, a control frame too long or in fragments. */
  private checkFirstTwo() {
    const b0 = this.head[0]!;
    const b1 = this.head[1]!;
    if (b0 & 0x70) throw new FrameError(`a frame with reserved bits set (${(b0 & 0x70) >> 4}), with no extension agreed`, CLOSE_PROTOCOL);
    const opcode = b0 & 0x0f;
    if (![OP_CONTINUATION, OP_TEXT, OP_BINARY, OP_CLOSE, OP_PING, OP_PONG].includes(opcode)) throw new FrameError(`a frame of unknown opcode 0x${opcode.toString(16)}`, CLOSE_PROTOCOL);
    if (b1 & 0x80) throw new FrameError('a masked frame (a server must not mask its frames)', CLOSE_PROTOCOL);
    if (opcode >= OP_CLOSE) {
      if (!(b0 & 0x80)) throw new FrameError(`a fragmented ${opName(opcode)} frame (control frames cannot be fragmented)`, CLOSE_PROTOCOL);
      if ((b1 & 0x7f) > CONTROL_MAX) throw new FrameError(`a ${opName(opcode)} frame longer than 125 bytes`, CLOSE_PROTOCOL);
    }
  }

  private startFrame() {
    const h = this.head;
    this.head = Buffer.alloc(0);
    const fin = (h[0]! & 0x80) !== 0;
    const opcode = h[0]! & 0x0f;
    const l = h[1]! & 0x7f;
    let length: number;
    if (l < 126) length = l;
    else if (l === 126) length = h.readUInt16BE(2);
    else {
      const high = h.readUInt32BE(2);
      // The most significant bit of a 64-bit length must be 0 (§5.2).
      if (high & 0x80000000) throw new FrameError('a frame length with its most significant bit set', CLOSE_PROTOCOL);
      length = high * 2 ** 32 + h.readUInt32BE(6);
    }
    if (opcode === OP_CONTINUATION) {
      if (!this.message) throw new FrameError('a continuation frame with no message to continue', CLOSE_PROTOCOL);
    } else if (opcode === OP_TEXT || opcode === OP_BINARY) {
      if (this.message) throw new FrameError(`a new ${opName(opcode)} message before the fragmented one was finished`, CLOSE_PROTOCOL);
    }
    // Held against the limit before any byte of it is kept: a claimed length is only a number.
    if (opcode < OP_CLOSE) {
      const so = (this.message?.size ?? 0) + length;
      if (so > this.maxMessage) throw new FrameError(`a message of more than ${this.maxMessage} bytes (${length === so ? `a frame of ${length}` : `${so} so far`})`, CLOSE_TOO_BIG);
      if (opcode !== OP_CONTINUATION) this.message = { binary: opcode === OP_BINARY, size: 0, parts: [] };
    }
    this.frame = { opcode, fin, length, got: 0, parts: [] };
  }

  private endFrame(out: FrameEvent[]) {
    const f = this.frame!;
    this.frame = undefined;
    const payload = f.parts.length === 1 ? f.parts[0]! : Buffer.concat(f.parts, f.length);
    if (f.opcode === OP_PING) return void out.push({ kind: 'ping', data: payload });
    if (f.opcode === OP_PONG) return void out.push({ kind: 'pong', data: payload });
    if (f.opcode === OP_CLOSE) {
      this.closed = true;
      if (payload.length === 0) return void out.push({ kind: 'close', reason: '' });
      if (payload.length === 1) throw new FrameError('a close frame of 1 byte (a code takes 2)', CLOSE_PROTOCOL);
      const code = payload.readUInt16BE(0);
      if (!validCloseCode(code)) throw new FrameError(`a close frame with code ${code}, which a peer may not send`, CLOSE_PROTOCOL);
      const reason = payload.subarray(2);
      if (!isUtf8(reason)) throw new FrameError('a close frame whose reason is not UTF-8', CLOSE_INVALID_DATA);
      return void out.push({ kind: 'close', code, reason: reason.toString('utf8') });
    }
    const m = this.message!;
    if (payload.length) m.parts.push(payload);
    m.size += payload.length;
    if (!f.fin) return;
    this.message = undefined;
    const data = m.parts.length === 1 ? m.parts[0]! : Buffer.concat(m.parts, m.size);
    if (!m.binary && !isUtf8(data)) throw new FrameError('a text message that is not UTF-8', CLOSE_INVALID_DATA);
    out.push({ kind: 'message', data, binary: m.binary });
  }
}

function opName(opcode: number): string {
  return opcode === OP_TEXT ? 'text' : opcode === OP_BINARY ? 'binary' : opcode === OP_CLOSE ? 'close' : opcode === OP_PING ? 'ping' : opcode === OP_PONG ? 'pong' : 'continuation';
}
