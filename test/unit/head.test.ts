import { test } from 'node:test';
import assert from 'node:assert/strict';
import { NetworkError } from '../../src/errors.js';
import { contentLength, parseResponseHead } from '../../src/transport/head.js';

const length = (value: string) => contentLength(parseResponseHead(`HTTP/1.1 200 OK\r\nContent-Length: ${value}`, 'h').rawHeaders, 'h');

test('Content-Length: digits, or a list of equal values', () => {
  assert.equal(length('0'), 0);
  assert.equal(length('2, 2'), 2);
  assert.equal(length('9007199254740991'), Number.MAX_SAFE_INTEGER);
  assert.throws(() => length('2, 5'), /Content-Length 2 and 5 disagree/);
  assert.throws(() => length('-1'), /malformed HTTP response \(Content-Length '-1'\)/);
});

test('Content-Length past 2^53 is malformed (fuzz: 400 digits gave Infinity, ...993 and ...992 were taken as equal)', () => {
  for (const value of ['9007199254740992', '9007199254740993, 9007199254740992', '99999999999999999999', '1'.repeat(400)]) {
    assert.throws(
      () => length(value),
      (e: unknown) => e instanceof NetworkError && /malformed HTTP response \(Content-Length/.test(e.message),
      value,
    );
  }
});

test('a response head: a folded line joins the value before it with a space, a CR in a value is a space, blanks before the colon go, a NUL is malformed', () => {
  const head = (text: string) => parseResponseHead(text, 'h').rawHeaders;
  assert.deepEqual(head('HTTP/1.1 200 OK\r\nX-A: one\r\n  two\r\n\tthree\r\nX-B: b'), ['X-A', 'one two three', 'X-B', 'b']);
  assert.deepEqual(head('HTTP/1.1 200 OK\r\n folded before any header\r\nX-A: a'), ['X-A', 'a']);
  assert.deepEqual(head('HTTP/1.1 200 OK\r\nX-A: a\rb\r\nX-B : v'), ['X-A', 'a b', 'X-B', 'v']);
  assert.throws(() => head('HTTP/1.1 200 OK\r\nX-A: a\0b'), /malformed HTTP response \(a NUL character in its head\)/);
  assert.throws(() => head('HTTP/1.1 200 OK\r\nX-A one'), /a header line without a colon: 'X-A one'/);
});
