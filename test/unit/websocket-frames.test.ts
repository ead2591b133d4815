// The WebSocket frame codec (src/transport/ws-frames.ts): what a client writes, and the reader of a
// server's frames under random bytes (it returns or throws its own FrameError, nothing else) and
// under any split of a valid stream into pieces (the same messages come out).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { closePayload, encodeFrame, FrameError, type FrameEvent, FrameReader, OP_BINARY, OP_CLOSE, OP_CONTINUATION, OP_PING, OP_PONG, OP_TEXT } from '../../src/transport/ws-frames.js';
import { readClientFrames } from '../helpers/websocket.js';

const SEED = Number(process.env.SLING_FUZZ_SEED ?? 26);
const RUNS = Number(process.env.SLING_FUZZ_RUNS ?? 500);

test('a client frame is masked, with the shortest length form, and reads back as its payload', () => {
  const mask = Buffer.from([0xa1, 0xb2, 0xc3, 0xd4]);
  for (const [n, headLength] of [
    [0, 6],
    [125, 6],
    [126, 8],
    [65535, 8],
    [65536, 14],
  ] as const) {
    const payload = Buffer.alloc(n, 0x41);
    const frame = encodeFrame(OP_BINARY, payload, mask);
    assert.equal(frame.length, headLength + n, `length ${n}`);
    assert.equal(frame[0], 0x82, 'FIN and the opcode');
    assert.equal(frame[1]! & 0x80, 0x80, 'the mask bit');
    const { frames } = readClientFrames(frame);
    assert.equal(frames.length, 1);
    assert.ok(frames[0]!.payload.equals(payload), `payload ${n}`);
    if (n) assert.notEqual(frame[headLength], 0x41, 'the payload goes masked');
  }
});

test("a close frame's reason is cut to 123 bytes on a character's edge", () => {
  const p = closePayload(1000, '☃'.repeat(60));
  assert.equal(p.readUInt16BE(0), 1000);
  assert.equal(p.length, 2 + 123);
  assert.equal(p.subarray(2).toString('utf8'), '☃'.repeat(41));
  assert.equal(closePayload(undefined).length, 0);
});

test('property: random bytes in random pieces make events or a FrameError, never another error', () => {
  fc.assert(
    fc.property(fc.array(fc.uint8Array({ maxLength: 64 }), { maxLength: 12 }), fc.integer({ min: 0, max: 300 }), (pieces, max) => {
      const reader = new FrameReader(max);
      try {
        for (const piece of pieces) {
          for (const ev of reader.feed(Buffer.from(piece))) {
            // What comes out is within the limit, and text is text.
            if (ev.kind === 'message') {
              assert.ok(ev.data.length <= max);
              if (!ev.binary) assert.equal(Buffer.from(ev.data.toString('utf8'), 'utf8').equals(ev.data), true);
            }
          }
        }
      } catch (e) {
        if (!(e instanceof FrameError)) throw e;
        assert.ok([1002, 1007, 1009].includes(e.closeCode), `close code ${e.closeCode}`);
      }
    }),
    { seed: SEED, numRuns: RUNS * 4 },
  );
});

test('property: frame heads with any bits and any claimed length never throw anything but a FrameError', () => {
  fc.assert(
    fc.property(fc.integer({ min: 0, max: 255 }), fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }), fc.uint8Array({ maxLength: 40 }), (b0, length, rest) => {
      const head = Buffer.alloc(10);
      head[0] = b0;
      head[1] = 127;
      head.writeBigUInt64BE(length, 2);
      try {
        new FrameReader(1 << 20).feed(Buffer.concat([head, Buffer.from(rest)]));
      } catch (e) {
        if (!(e instanceof FrameError)) throw e;
      }
    }),
    { seed: SEED, numRuns: RUNS * 4 },
  );
});

/** A message as a server sends it: text or binary, in fragments, with pings and pongs between them. */
const message = fc.record({
  binary: fc.boolean(),
  text: fc.string({ unit: 'grapheme', maxLength: 300 }),
  bytes: fc.uint8Array({ maxLength: 70_000 / 8 }),
  big: fc.boolean(),
  cuts: fc.array(fc.integer({ min: 0, max: 100_000 }), { maxLength: 4 }),
  controls: fc.array(fc.record({ ping: fc.boolean(), data: fc.uint8Array({ maxLength: 125 }) }), { maxLength: 3 }),
});

test('property: encode then decode gives back every message and control frame, however the bytes are cut into pieces', () => {
  fc.assert(
    fc.property(fc.array(message, { minLength: 1, maxLength: 6 }), fc.array(fc.integer({ min: 1, max: 70_000 }), { minLength: 1, maxLength: 20 }), (messages, pieceSizes) => {
      const wire: Buffer[] = [];
      const expected: FrameEvent[] = [];
      for (const m of messages) {
        // Big binary messages take the 64-bit length (over 65535 bytes).
        const payload = m.binary ? (m.big ? Buffer.alloc(70_000, m.bytes.length & 0xff) : Buffer.from(m.bytes)) : Buffer.from(m.text, 'utf8');
        const cuts = [...new Set(m.cuts.map((c) => c % (payload.length + 1)))].sort((a, b) => a - b);
        const bounds = [0, ...cuts, payload.length];
        const fragments: Buffer[] = [];
        for (let i = 1; i < bounds.length; i++) if (bounds[i]! > bounds[i - 1]! || fragments.length === 0) fragments.push(payload.subarray(bounds[i - 1], bounds[i]));
        const after: FrameEvent[] = [];
        fragments.forEach((f, i) => {
          const last = i === fragments.length - 1;
          wire.push(encodeFrame(i === 0 ? (m.binary ? OP_BINARY : OP_TEXT) : OP_CONTINUATION, f, undefined, last));
          // Control frames may come between the fragments of a message (and after its last).
          const c = m.controls[i];
          if (c) {
            wire.push(encodeFrame(c.ping ? OP_PING : OP_PONG, Buffer.from(c.data), undefined));
            (last ? after : expected).push({ kind: c.ping ? 'ping' : 'pong', data: Buffer.from(c.data) });
          }
        });
        expected.push({ kind: 'message', data: payload, binary: m.binary }, ...after);
      }
      wire.push(encodeFrame(OP_CLOSE, closePayload(4000, 'bye'), undefined));
      expected.push({ kind: 'close', code: 4000, reason: 'bye' });
      const bytes = Buffer.concat(wire);
      const reader = new FrameReader(1 << 20);
      const got: FrameEvent[] = [];
      let at = 0;
      for (let i = 0; at < bytes.length; i++) {
        const size = pieceSizes[i % pieceSizes.length]!;
        got.push(...reader.feed(bytes.subarray(at, at + size)));
        at += size;
      }
      assert.deepEqual(got, expected);
    }),
    { seed: SEED, numRuns: Math.ceil(RUNS / 2) },
  );
});
