// The gRPC message framing a server's bytes go through (transport/grpc.ts MessageReader): a flag
// byte, a 4-byte length, the message. Property tests (fast-check, seeded): any split of a stream into
// chunks gives the same messages, and arbitrary bytes give messages or the codec's own error, never
// anything else.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { GrpcFrameError, MessageReader, frameMessage, percentDecode } from '../../src/transport/grpc.js';

const SEED = 26;

/** A stream of framed messages, some flagged compressed. */
function framed(messages: { compressed: boolean; data: Uint8Array }[]): Buffer {
  return Buffer.concat(
    messages.map((m) => {
      const f = frameMessage(m.data);
      f[0] = m.compressed ? 1 : 0;
      return f;
    }),
  );
}

/** The stream cut at the given points (sorted, deduplicated, within it). */
function cut(bytes: Buffer, points: number[]): Buffer[] {
  const at = [...new Set(points.map((p) => p % (bytes.length + 1)))].sort((a, b) => a - b);
  const out: Buffer[] = [];
  let from = 0;
  for (const p of at) {
    out.push(bytes.subarray(from, p));
    from = p;
  }
  out.push(bytes.subarray(from));
  return out;
}

test('gRPC framing: any split of the byte stream into chunks gives the same messages', () => {
  const message = fc.record({ compressed: fc.boolean(), data: fc.uint8Array({ maxLength: 300 }) });
  fc.assert(
    fc.property(fc.array(message, { maxLength: 12 }), fc.array(fc.nat(), { maxLength: 40 }), (messages, points) => {
      const bytes = framed(messages);
      const reader = new MessageReader(1000, 'server');
      const got = cut(bytes, points).flatMap((c) => reader.push(c));
      reader.end();
      assert.deepEqual(
        got.map((m) => ({ compressed: m.compressed, data: Buffer.from(m.data) })),
        messages.map((m) => ({ compressed: m.compressed, data: Buffer.from(m.data) })),
      );
    }),
    { seed: SEED, numRuns: 300 },
  );
});

test('gRPC framing: arbitrary bytes give messages or the framing error, never another exception', () => {
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 400 }), fc.array(fc.nat(), { maxLength: 10 }), fc.integer({ min: 0, max: 500 }), (bytes, points, max) => {
      const reader = new MessageReader(max, 'server');
      try {
        for (const c of cut(Buffer.from(bytes), points)) for (const m of reader.push(c)) assert.ok(m.data.length <= max);
        reader.end();
      } catch (e) {
        assert.ok(e instanceof GrpcFrameError, String(e));
        assert.doesNotMatch((e as Error).message, /\n/);
      }
    }),
    { seed: SEED, numRuns: 500 },
  );
});

test('gRPC framing: a length over the limit fails at the prefix, before the message is held', () => {
  const reader = new MessageReader(10, 'srv:1');
  const prefix = Buffer.from([0, 0, 0, 0, 11]);
  assert.throws(
    () => reader.push(prefix),
    (e: unknown) => e instanceof GrpcFrameError && /sent a gRPC message of 11 bytes, over the limit of 10 bytes/.test((e as Error).message),
  );
});

test('gRPC framing: a stream that ends inside a message, or inside a prefix, is an error', () => {
  const whole = frameMessage(Buffer.from('hello'));
  const r1 = new MessageReader(100, 'srv:1');
  assert.deepEqual(r1.push(whole.subarray(0, 7)), []);
  assert.throws(() => r1.end(), /ended the gRPC response in the middle of a message \(2 of its 5 bytes came\)/);
  const r2 = new MessageReader(100, 'srv:1');
  r2.push(whole.subarray(0, 3));
  assert.throws(() => r2.end(), /middle of a message's 5-byte prefix/);
});

test('grpc-message is percent-decoded as UTF-8, and a lone % stays', () => {
  assert.equal(percentDecode('no such item: caf%C3%A9'), 'no such item: café');
  assert.equal(percentDecode('100% sure %zz'), '100% sure %zz');
});
