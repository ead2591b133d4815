import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { CliError } from '../../src/errors.js';
import { BodyReader, HeadReader, requestBytes } from '../../src/transport/h1.js';
import { headProblem } from '../../src/transport/wire.js';
import type { PreparedRequest } from '../../src/model/prepare.js';
import type { RequestSettings } from '../../src/model/spec.js';

const settings = {} as RequestSettings;

/** Reads a whole answer fed in the given pieces: its status, body, and whether the body ended. */
function readAnswer(pieces: Buffer[], method = 'GET') {
  const heads = new HeadReader('h:1', 'h:1', settings);
  let reader: BodyReader | undefined;
  const body: Buffer[] = [];
  let complete = false;
  for (const piece of pieces) {
    if (complete) break; // bytes after the end (of a Content-Length body) are not the body's
    if (!reader) {
      const rest = heads.read(piece);
      if (rest === undefined) continue;
      reader = new BodyReader(method, heads.head!, 'h:1', (b) => body.push(Buffer.from(b)));
      complete = reader.empty || reader.feed(rest);
    } else complete = reader.feed(piece);
  }
  return { status: heads.head?.status, body: Buffer.concat(body).toString('latin1'), complete, framing: reader?.framing };
}

/** Every way of cutting the bytes in two, and one byte at a time. */
function cuts(text: string): Buffer[][] {
  const all = Buffer.from(text, 'latin1');
  const out: Buffer[][] = [[all]];
  for (let i = 1; i < all.length; i++) out.push([all.subarray(0, i), all.subarray(i)]);
  out.push([...all].map((b) => Buffer.from([b])));
  return out;
}

test('a chunked body with extensions and trailers after a 100 Continue, read the same however the reads cut it', () => {
  const answer = 'HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;x=y\r\nhello\r\n1\r\n \r\n5\r\nworld\r\n0\r\nX-Sum: 1\r\n\r\n';
  for (const pieces of cuts(answer)) assert.deepEqual(readAnswer(pieces), { status: 200, body: 'hello world', complete: true, framing: 'chunked' });
});

test('Content-Length, until-close and empty bodies; a head with bare LF line ends', () => {
  for (const pieces of cuts('HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nabcEXTRA')) assert.deepEqual(readAnswer(pieces), { status: 200, body: 'abc', complete: true, framing: 'length' });
  assert.deepEqual(readAnswer([Buffer.from('HTTP/1.0 200 OK\n\nsome')]), { status: 200, body: 'some', complete: false, framing: 'close' });
  assert.deepEqual(readAnswer([Buffer.from('HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\n')], 'HEAD'), { status: 200, body: '', complete: true, framing: 'none' });
  assert.deepEqual(readAnswer([Buffer.from('HTTP/1.1 204 No Content\r\n\r\n')]), { status: 204, body: '', complete: true, framing: 'none' });
});

test('malformed answers: bad chunk size, endless chunk line, a 101 nobody asked for, not HTTP', () => {
  assert.throws(() => readAnswer([Buffer.from('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n')]), /^NetworkError: h:1 sent a malformed chunked body \(chunk size /);
  assert.throws(() => readAnswer([Buffer.from('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n'), Buffer.alloc(20000, 'a')]), /a line of more than 16 kB/);
  assert.throws(() => readAnswer([Buffer.from('HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\r\n')]), /answered 101 Switching Protocols \(to websocket\)/);
  assert.throws(() => readAnswer([Buffer.from('SSH-2.0-OpenSSH\r\n')]), /did not answer in HTTP/);
  const heads = new HeadReader('h:1', 'h:1', settings);
  assert.equal(heads.read(Buffer.from('HTTP/1.1 200 OK\r\n')), undefined);
  assert.equal(heads.partial, true);
});

test('chunk sizes are hexadecimal digits only; Transfer-Encoding frames the body over Content-Length, and such a connection is not used again', () => {
  for (const size of ['0x5', '+5', ' 5', '5 5', '-5', ''])
    assert.throws(() => readAnswer([Buffer.from(`HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n${size}\r\nhello\r\n0\r\n\r\n`)]), /malformed chunked body \(chunk size/, size);
  assert.deepEqual(readAnswer([Buffer.from('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\t;a=b\r\nhello\r\n0\r\n\r\n')]), { status: 200, body: 'hello', complete: true, framing: 'chunked' });
  const framed = (head: string) => {
    const heads = new HeadReader('h:1', 'h:1', settings);
    heads.read(Buffer.from(`${head}\r\n\r\n`));
    return new BodyReader('GET', heads.head!, 'h:1', () => {});
  };
  const both = framed('HTTP/1.1 200 OK\r\nContent-Length: 50\r\nTransfer-Encoding: chunked');
  assert.deepEqual([both.framing, both.reusable], ['chunked', false]);
  const gzipOnly = framed('HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip');
  assert.deepEqual([gzipOnly.framing, gzipOnly.reusable], ['close', true]);
  const old = framed('HTTP/1.0 200 OK\r\nTransfer-Encoding: chunked');
  assert.deepEqual([old.framing, old.reusable], ['chunked', false]);
  const plain = framed('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked');
  assert.deepEqual([plain.framing, plain.reusable], ['chunked', true]);
});

test('request bytes: UTF-8 values, chunk framing of a buffered body, the Connection line and curl`s empty header', () => {
  const request = { method: 'POST', target: '/p', headers: [], body: Buffer.from('abc') } as unknown as PreparedRequest;
  const bytes = (headers: [string, string][], curl: boolean, keepAlive: boolean) => requestBytes(request, headers, '/p', curl, keepAlive).toString('latin1');
  assert.equal(bytes([['X', 'é']], false, true), 'POST /p HTTP/1.1\r\nX: \xc3\xa9\r\nConnection: keep-alive\r\n\r\nabc');
  assert.equal(bytes([['Transfer-Encoding', 'chunked']], false, false), 'POST /p HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n');
  assert.equal(bytes([['Empty', '']], true, false), 'POST /p HTTP/1.1\r\nEmpty:\r\n\r\nabc');
  assert.equal(
    bytes(
      [
        ['Empty', ''],
        ['connection', 'close'],
      ],
      false,
      true,
    ),
    'POST /p HTTP/1.1\r\nEmpty: \r\nconnection: close\r\n\r\nabc',
  );
});

/** A string of any UTF-16 code units, with CR, LF and NUL among the likely ones, and tokens like real methods and names. */
const anyText = fc.oneof(
  fc.string({ unit: fc.oneof(fc.constantFrom('\r', '\n', '\0', ' ', ':', 'a', 'é'), fc.string({ unit: 'binary', minLength: 1, maxLength: 1 })), maxLength: 24 }),
  fc.constantFrom('GET', 'POST', '/p?q=1', 'Authorization', 'Bearer AT', ''),
);
const BREAKS = /[\r\n\0]/;

test('request bytes: no method, target, header name or value with CR, LF or NUL ever makes a byte; without them, one line each', () => {
  fc.assert(
    fc.property(anyText, anyText, fc.array(fc.tuple(anyText, anyText), { maxLength: 5 }), (method, target, headers) => {
      const request = { method, target, headers, body: Buffer.alloc(0) } as unknown as PreparedRequest;
      const bad = BREAKS.test(method) || BREAKS.test(target) || headers.some(([n, v]) => BREAKS.test(n) || BREAKS.test(v));
      // The check every client makes (client.ts, h2.ts) says the same as the bytes do.
      assert.equal(headProblem(method, target, headers) !== undefined, bad);
      let bytes: Buffer | undefined;
      try {
        bytes = requestBytes(request, headers, target, false, false);
      } catch (e) {
        assert.ok(bad, `refused a clean head: ${(e as Error).message}`);
        assert.ok(e instanceof CliError && e.exitCode === 1, String(e));
        assert.doesNotMatch(e.message, /[\r\n\0]/, 'the message is one line');
        return;
      }
      assert.ok(!bad, 'bytes were made of a head with CR, LF or NUL');
      // Request line, one line per header, the blank line: nothing split, nothing joined.
      assert.equal(bytes.toString('latin1').split('\r\n').length, 1 + headers.length + 2);
    }),
    { seed: 26, numRuns: 2000 },
  );
});

test('request bytes: the refusal names the header (never its value), the method or the target', () => {
  const request = (method: string, target: string) => ({ method, target, headers: [], body: Buffer.alloc(0) }) as unknown as PreparedRequest;
  assert.throws(() => requestBytes(request('GET', '/'), [['Authorization', 'Bearer AT\r\nX-Injected: yes']], '/', false, true), {
    message: "the value of the header 'Authorization' holds a line break (CR) at character 10, which would end the header early: the request was not sent",
  });
  assert.throws(() => requestBytes(request('GET', '/'), [['X-A\nB', '1']], '/', false, true), /^UsageError: the header name 'X-A\\nB' holds a line break \(LF\)/);
  assert.throws(() => requestBytes(request('GET\r\nX: 1', '/'), [], '/', false, true), /the method 'GET\\r\\nX: 1' holds a line break \(CR\), which would split the request line/);
  assert.throws(() => requestBytes(request('GET', '/a\0b'), [], '/a\0b', false, true), /the request target '\/a\\x00b' holds a NUL character/);
});
