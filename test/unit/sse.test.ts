// The text/event-stream reader (model/sse.ts) against the HTML standard's rules for server-sent
// events: line ends, fields, what is kept between events, what is never dispatched, and its bound.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { EventStreamReader, EventTooLargeError, type ServerEvent } from '../../src/model/sse.js';

/** Every event of `pieces` read in that order, then the end of the stream. */
function read(pieces: (string | Buffer)[], limit = 1 << 20): ServerEvent[] {
  const r = new EventStreamReader(limit);
  const out: ServerEvent[] = [];
  for (const p of pieces) out.push(...r.push(typeof p === 'string' ? Buffer.from(p, 'utf8') : p));
  r.end();
  return out;
}

test('event stream: LF, CR and CRLF all end a line, mixed in one stream', () => {
  assert.deepEqual(read(['data: a\n\n']), [{ data: 'a' }]);
  assert.deepEqual(read(['data: a\r\r']), [{ data: 'a' }]);
  assert.deepEqual(read(['data: a\r\n\r\n']), [{ data: 'a' }]);
  assert.deepEqual(read(['data: a\r\ndata: b\rdata: c\n\r\n']), [{ data: 'a\nb\nc' }]);
});

test('event stream: a CRLF split across two pieces is one line end, not two', () => {
  // Were the LF a second line end, `data: a\r` + `\n` would dispatch at once and `data: b` start a new event.
  assert.deepEqual(read(['data: a\r', '\ndata: b\r', '\n\r', '\n']), [{ data: 'a\nb' }]);
  // A CR at the end of a piece and a CR at the start of the next are two line ends: the event is dispatched.
  assert.deepEqual(read(['data: a\r', '\rdata: b\n\n']), [{ data: 'a' }, { data: 'b' }]);
});

test('event stream: one blank after the colon is dropped, no more; a field without a colon has an empty value', () => {
  assert.deepEqual(read(['data:a\n\ndata: b\n\ndata:  c\n\n']), [{ data: 'a' }, { data: 'b' }, { data: ' c' }]);
  // `data` alone is a data line with an empty value; `data:` too.
  assert.deepEqual(read(['data\ndata\n\n']), [{ data: '\n' }]);
  assert.deepEqual(read(['data:\n\n']), [{ data: '' }]);
  // The value keeps colons after the first one.
  assert.deepEqual(read(['data: {"a": "b:c"}\n\n']), [{ data: '{"a": "b:c"}' }]);
});

test('event stream: data lines join with LF; comments and unknown fields are skipped; an event without data is not dispatched', () => {
  assert.deepEqual(read([': a comment\ndata: one\n:another\ndata: two\nretry: 1000\nfoo: bar\n\n']), [{ data: 'one\ntwo' }]);
  // Only a comment, only an event name, only an id: nothing to dispatch.
  assert.deepEqual(read([': keep-alive\n\nevent: x\n\nid: 1\n\n']), []);
});

test('event stream: the event name is for one event; the id is kept until another comes; an id with NUL is ignored', () => {
  const events = read(['event: add\nid: 1\ndata: a\n\n', 'data: b\n\n', 'id: 2\0x\nevent: del\ndata: c\n\n', 'id\ndata: d\n\n']);
  assert.deepEqual(events, [
    { data: 'a', event: 'add', id: '1' },
    { data: 'b', id: '1' },
    { data: 'c', event: 'del', id: '1' },
    { data: 'd', id: '' },
  ]);
  // An empty event name is the default (no name).
  assert.deepEqual(read(['event:\ndata: a\n\n']), [{ data: 'a' }]);
  // The id is set even by an event that is not dispatched (no data).
  assert.deepEqual(read(['id: 7\n\ndata: a\n\n']), [{ data: 'a', id: '7' }]);
});

test('event stream: a byte order mark at the start is dropped, one elsewhere is text', () => {
  assert.deepEqual(read([Buffer.from([0xef, 0xbb, 0xbf]), 'data: a\n\n']), [{ data: 'a' }]);
  // Split in the middle of the BOM's bytes.
  assert.deepEqual(read([Buffer.from([0xef]), Buffer.from([0xbb, 0xbf, 0x64]), 'ata: a\n\n']), [{ data: 'a' }]);
  // Only the first: a second BOM makes the field name `\uFEFFdata`, unknown.
  assert.deepEqual(read(['\uFEFF\uFEFFdata: a\n\n']), []);
  assert.deepEqual(read(['data: a\n\n\uFEFFdata: b\n\n']), [{ data: 'a' }]);
});

test('event stream: an event without its final blank line is not dispatched when the stream ends', () => {
  assert.deepEqual(read(['data: a\n\ndata: b\n']), [{ data: 'a' }]);
  assert.deepEqual(read(['data: a\n\ndata: b']), [{ data: 'a' }]);
});

test('event stream: UTF-8 split across pieces is decoded whole; invalid bytes are U+FFFD', () => {
  const euro = Buffer.from('data: €\n\n', 'utf8');
  assert.deepEqual(read([euro.subarray(0, 7), euro.subarray(7)]), [{ data: '€' }]);
  assert.deepEqual(read([Buffer.from([0x64, 0x61, 0x74, 0x61, 0x3a, 0xff, 0x0a, 0x0a])]), [{ data: '\uFFFD' }]);
});

test('event stream: an event past the limit fails the reader with EventTooLargeError, which keeps the events before it; one at the limit does not', () => {
  // 'data: ' + 9 characters + LF: the data is 9 characters, counted with its line end: 10.
  assert.deepEqual(read(['data: 123456789\n\n'], 10), [{ data: '123456789' }]);
  assert.throws(() => read(['data: 1234567890\n\n'], 10), EventTooLargeError);
  // Many short data lines add up.
  assert.throws(() => read(['data: 1234\ndata: 1234\ndata: 1234\n\n'], 10), EventTooLargeError);
  // A line that never ends is refused as it grows, before its end comes.
  const r = new EventStreamReader(100);
  assert.throws(() => {
    for (let i = 0; i < 20; i++) r.push(Buffer.from('x'.repeat(10)));
  }, EventTooLargeError);
  // The events the same piece completed before the one too large come with the error, in order.
  const before = new EventStreamReader(10);
  assert.throws(
    () => before.push(Buffer.from('id: 1\ndata: a\n\ndata: b\n\ndata: 1234567890\n\ndata: c\n\n')),
    (e: unknown) =>
      e instanceof EventTooLargeError &&
      e.message === 'an event of more than 10 bytes' &&
      JSON.stringify(e.events) ===
        JSON.stringify([
          { data: 'a', id: '1' },
          { data: 'b', id: '1' },
        ]),
  );
  // A limit from a fraction of a megabyte is named in whole bytes.
  assert.throws(() => read(['data: ' + 'x'.repeat(2000) + '\n\n'], 0.001 * 1024 * 1024), { message: 'an event of more than 1048 bytes' });
  // The count starts again with every event.
  assert.equal(
    read(
      Array.from({ length: 50 }, () => 'data: 12345\n\n'),
      10,
    ).length,
    50,
  );
});

/** A stream as the HTML standard builds it: fields, comments and blank lines, each line ended by LF, CR or CRLF. */
const streamText = fc
  .array(
    fc.record({
      kind: fc.constantFrom('data', 'event', 'id', 'comment', 'blank', 'retry', 'data', 'blank'),
      value: fc.string({ unit: fc.constantFrom('a', 'b', ' ', ':', 'é', '€', '\0', '{', '}') }),
      eol: fc.constantFrom('\n', '\r', '\r\n'),
    }),
    { maxLength: 40 },
  )
  .map((lines) =>
    lines
      .map((l) => {
        const v = l.value;
        const text = l.kind === 'blank' ? '' : l.kind === 'comment' ? `:${v}` : `${l.kind}: ${v}`;
        return text + l.eol;
      })
      .join(''),
  );

/** `bytes` cut at the given offsets (any, in the middle of a CRLF or of a UTF-8 character too). */
function cut(bytes: Buffer, at: number[]): Buffer[] {
  const points = [...new Set(at.map((n) => n % (bytes.length + 1)))].sort((a, b) => a - b);
  const out: Buffer[] = [];
  let from = 0;
  for (const p of points) {
    out.push(bytes.subarray(from, p));
    from = p;
  }
  out.push(bytes.subarray(from));
  return out;
}

test('event stream (property): any split of a stream into pieces gives the same events', () => {
  fc.assert(
    fc.property(streamText, fc.array(fc.nat(), { maxLength: 12 }), (text, at) => {
      const bytes = Buffer.from(text, 'utf8');
      const whole = read([bytes]);
      assert.deepEqual(read(cut(bytes, at)), whole);
      // Byte by byte too.
      assert.deepEqual(read([...bytes].map((b) => Buffer.from([b]))), whole);
    }),
    { numRuns: 400 },
  );
});

test('event stream (property): random bytes never throw anything but EventTooLargeError', () => {
  fc.assert(
    fc.property(fc.array(fc.uint8Array({ maxLength: 64 }), { maxLength: 8 }), fc.integer({ min: 1, max: 64 }), (pieces, limit) => {
      try {
        const events = read(
          pieces.map((p) => Buffer.from(p)),
          limit,
        );
        for (const e of events) assert.equal(typeof e.data, 'string');
      } catch (e) {
        if (!(e instanceof EventTooLargeError)) throw e;
      }
    }),
    { numRuns: 500 },
  );
});
