// Redirects, keep-alive, authentication, URL shorthands and response decoding.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { runSling } from '../helpers/cli.js';
import { header } from '../helpers/servers.js';
import { assertError, assertExit, httpServer, okText, parseMessage, show } from '../helpers/assert.js';

/** Redirects /start with `status` to `location`, answers everything else 200 "final". */
function redirectOnce(status: number, location: string) {
  return (req: IncomingMessage, res: ServerResponse) => {
    if (req.url === '/start') {
      res.writeHead(status, { Location: location, 'Content-Length': '0' });
      res.end();
    } else {
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      res.end('final');
    }
  };
}

/** /N redirects to /N-1 until /0, which answers 200 "bottom". */
function countdown(req: IncomingMessage, res: ServerResponse) {
  const n = Number((req.url ?? '/0').slice(1));
  if (n > 0) {
    res.writeHead(302, { Location: `/${n - 1}`, 'Content-Length': '0' });
    res.end();
  } else {
    res.writeHead(200, { 'Content-Type': 'text/plain' });
    res.end('bottom');
  }
}

// ---- following redirects ---------------------------------------------------------------------------

test('redirects are not followed without --follow', async (t) => {
  const srv = await httpServer(t, redirectOnce(302, '/final'));
  const r = await runSling([`${srv.url}/start`]);
  assertExit(r, 0);
  assert.equal(srv.requests.length, 1);
  assert.match(r.stdout, /^HTTP\/1\.1 302 /, show(r));
  assert.match(r.stdout, /^Location: \/final$/im, show(r));
});

test('--follow follows a 302 and prints only the final response', async (t) => {
  const srv = await httpServer(t, redirectOnce(302, '/final'));
  const r = await runSling(['--follow', `${srv.url}/start`]);
  assertExit(r, 0);
  assert.deepEqual(
    srv.requests.map((q) => [q.method, q.url]),
    [
      ['GET', '/start'],
      ['GET', '/final'],
    ],
  );
  assert.match(r.stdout, /^HTTP\/1\.1 200 OK/, show(r));
  assert.doesNotMatch(r.stdout, /^HTTP\/1\.1 302/m, show(r));
  assert.match(r.stdout, /final$/, show(r));
});

test('-F follows an absolute same-origin Location', async (t) => {
  let base = '';
  const srv = await httpServer(t, (req, res) => redirectOnce(301, `${base}/abs`)(req, res));
  base = srv.url;
  const r = await runSling(['-F', '--body', `${srv.url}/start`]);
  assertExit(r, 0);
  assert.equal(r.stdout, 'final', show(r));
  assert.deepEqual(
    srv.requests.map((q) => q.url),
    ['/start', '/abs'],
  );
});

test('same-origin redirect reuses the keep-alive connection', async (t) => {
  const srv = await httpServer(t, redirectOnce(302, '/final'));
  const r = await runSling(['--follow', `${srv.url}/start`]);
  assertExit(r, 0);
  assert.equal(srv.requests.length, 2);
  assert.equal(srv.requests[0].socketId, srv.requests[1].socketId, 'both requests should share one socket');
  assert.equal(srv.connections(), 1, 'the server should have seen exactly one TCP connection');
});

for (const status of [301, 302, 303]) {
  test(`${status} after POST becomes GET without a body`, async (t) => {
    const srv = await httpServer(t, redirectOnce(status, '/next'));
    const r = await runSling(['--follow', 'POST', `${srv.url}/start`, 'a=1']);
    assertExit(r, 0);
    assert.equal(srv.requests.length, 2, show(r));
    const [first, second] = srv.requests;
    assert.equal(first.method, 'POST');
    assert.deepEqual(JSON.parse(first.body.toString()), { a: '1' });
    assert.equal(second.method, 'GET');
    assert.equal(second.url, '/next');
    assert.equal(second.body.length, 0);
    assert.equal(header(second, 'content-type'), undefined, 'Content-Type must be dropped with the body');
    assert.ok(['0', undefined].includes(header(second, 'content-length')), 'no body length on the GET');
  });
}

for (const [status, method] of [
  [307, 'POST'],
  [308, 'PUT'],
] as const) {
  test(`${status} keeps the method (${method}) and the body`, async (t) => {
    const srv = await httpServer(t, redirectOnce(status, '/next'));
    const r = await runSling(['--follow', method, `${srv.url}/start`, 'a=1', 'n:=2']);
    assertExit(r, 0);
    assert.equal(srv.requests.length, 2, show(r));
    const [first, second] = srv.requests;
    assert.equal(second.method, method);
    assert.equal(second.url, '/next');
    assert.deepEqual(JSON.parse(second.body.toString()), { a: '1', n: 2 });
    assert.deepEqual(second.body, first.body);
    assert.match(header(second, 'content-type') ?? '', /^application\/json/);
  });
}

test('cross-origin redirect (other port) drops Authorization, Cookie and Proxy-Authorization', async (t) => {
  const target = await httpServer(t, okText);
  const origin = await httpServer(t, redirectOnce(302, `${target.url}/landed`));
  const r = await runSling(['--follow', '-a', 'user:pass', `${origin.url}/start`, 'Cookie:session=secret', 'Proxy-Authorization:Basic c2VjcmV0', 'X-Keep:yes']);
  assertExit(r, 0);
  assert.equal(origin.requests.length, 1);
  assert.equal(target.requests.length, 1, show(r));
  const first = origin.requests[0];
  assert.equal(header(first, 'authorization'), `Basic ${Buffer.from('user:pass').toString('base64')}`);
  assert.equal(header(first, 'cookie'), 'session=secret');
  const hop = target.requests[0];
  assert.equal(hop.url, '/landed');
  assert.equal(header(hop, 'authorization'), undefined);
  assert.equal(header(hop, 'cookie'), undefined);
  assert.equal(header(hop, 'proxy-authorization'), undefined);
  assert.equal(header(hop, 'x-keep'), 'yes', 'other custom headers survive the hop');
});

test('127.0.0.1 -> localhost on the same port counts as cross-origin', async (t) => {
  let port = 0;
  const srv = await httpServer(t, (req, res) => redirectOnce(307, `http://localhost:${port}/other`)(req, res));
  port = srv.port;
  const r = await runSling(['--follow', '-a', 'user:pass', `${srv.url}/start`, 'Cookie:c=1']);
  assertExit(r, 0);
  assert.equal(srv.requests.length, 2, show(r));
  assert.ok(header(srv.requests[0], 'authorization'));
  assert.equal(header(srv.requests[1], 'host'), `localhost:${port}`);
  assert.equal(header(srv.requests[1], 'authorization'), undefined);
  assert.equal(header(srv.requests[1], 'cookie'), undefined);
});

test('same-origin redirect keeps Authorization and Cookie', async (t) => {
  const srv = await httpServer(t, redirectOnce(302, '/inside'));
  const r = await runSling(['--follow', '-a', 'user:pass', `${srv.url}/start`, 'Cookie:c=1']);
  assertExit(r, 0);
  assert.equal(srv.requests.length, 2, show(r));
  assert.equal(header(srv.requests[1], 'authorization'), `Basic ${Buffer.from('user:pass').toString('base64')}`);
  assert.equal(header(srv.requests[1], 'cookie'), 'c=1');
});

test('default --max-redirects is 30: 30 redirects are followed', async (t) => {
  const srv = await httpServer(t, countdown);
  const r = await runSling(['--follow', '--body', `${srv.url}/30`]);
  assertExit(r, 0);
  assert.equal(r.stdout, 'bottom', show(r));
  assert.equal(srv.requests.length, 31);
});

test('default --max-redirects is 30: the 31st redirect fails with exit 3', async (t) => {
  const srv = await httpServer(t, countdown);
  const r = await runSling(['--follow', `${srv.url}/31`]);
  assertError(r, 3);
  assert.equal(srv.requests.length, 31, 'the request answered with the 31st redirect is the last one sent');
});

test('--all -v prints the intermediate exchange too', async (t) => {
  const srv = await httpServer(t, redirectOnce(302, '/final'));
  const r = await runSling(['--follow', '--all', '-v', `${srv.url}/start`]);
  assertExit(r, 0);
  const out = r.stdout;
  const req1 = out.indexOf('GET /start HTTP/1.1');
  const res1 = out.indexOf('HTTP/1.1 302 Found');
  const req2 = out.indexOf('GET /final HTTP/1.1');
  const res2 = out.indexOf('HTTP/1.1 200 OK');
  assert.ok(req1 >= 0 && res1 > req1 && req2 > res1 && res2 > req2, `expected request/response pairs in order${show(r)}`);
});

// ---- authentication -----------------------------------------------------------------------------------

test('-a user:pass sends Basic authorization', async (t) => {
  const srv = await httpServer(t, okText);
  const r = await runSling(['-a', 'alice:s3cr:et', `${srv.url}/`]);
  assertExit(r, 0);
  assert.equal(header(srv.requests[0], 'authorization'), `Basic ${Buffer.from('alice:s3cr:et').toString('base64')}`);
});

test('--auth-type bearer -a TOKEN sends a Bearer token', async (t) => {
  const srv = await httpServer(t, okText);
  const r = await runSling(['--auth-type', 'bearer', '-a', 'tok.en-123', `${srv.url}/`]);
  assertExit(r, 0);
  assert.equal(header(srv.requests[0], 'authorization'), 'Bearer tok.en-123');
});

// ---- URL shorthands -------------------------------------------------------------------------------------

test(':PORT/path shorthand means http://localhost:PORT/path', async (t) => {
  const srv = await httpServer(t, okText);
  const r = await runSling([`:${srv.port}/short?x=1`]);
  assertExit(r, 0);
  assert.equal(srv.requests.length, 1, show(r));
  assert.equal(srv.requests[0].url, '/short?x=1');
  assert.equal(header(srv.requests[0], 'host'), `localhost:${srv.port}`);
});

test('URL without a scheme defaults to http://', async (t) => {
  const srv = await httpServer(t, okText);
  const r = await runSling([`127.0.0.1:${srv.port}/noscheme`]);
  assertExit(r, 0);
  assert.equal(srv.requests.length, 1, show(r));
  assert.equal(srv.requests[0].url, '/noscheme');
});

// ---- response decoding ------------------------------------------------------------------------------------

const TEXT = 'The quick brown fox jumps over the lazy dog.\n'.repeat(50);
for (const [encoding, encode] of [
  ['gzip', gzipSync],
  ['deflate', deflateSync],
  ['br', brotliCompressSync],
] as const) {
  test(`Content-Encoding: ${encoding} is decoded for display`, async (t) => {
    const srv = await httpServer(t, (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Encoding': encoding });
      res.end(encode(Buffer.from(TEXT)));
    });
    const r = await runSling([`${srv.url}/`]);
    assertExit(r, 0);
    const msg = parseMessage(r.stdout);
    assert.equal(msg.startLine, 'HTTP/1.1 200 OK', show(r));
    assert.ok(
      msg.headers.some(([k, v]) => k.toLowerCase() === 'content-encoding' && v === encoding),
      show(r),
    );
    assert.equal(msg.body.trimEnd(), TEXT.trimEnd());
  });
}

test('chunked response is printed whole', async (t) => {
  const srv = await httpServer(t, (_req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/plain' });
    res.write('part one, ');
    setImmediate(() => {
      res.write('part two, ');
      setImmediate(() => res.end('part three'));
    });
  });
  const r = await runSling(['--body', `${srv.url}/`]);
  assertExit(r, 0);
  assert.equal(r.stdout, 'part one, part two, part three', show(r));
});

test('a 1 MiB body arrives complete on stdout', async (t) => {
  const big = Buffer.alloc(1024 * 1024);
  for (let i = 0; i < big.length; i++) big[i] = 97 + (i % 26);
  const srv = await httpServer(t, (_req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Length': String(big.length) });
    res.end(big);
  });
  const r = await runSling(['--body', `${srv.url}/`]);
  assertExit(r, 0);
  assert.equal(r.stdoutBytes.length, big.length);
  assert.ok(r.stdoutBytes.equals(big));
});

test('a body read until the connection closes, then a reset: cut short, exit 6 (not the partial body with exit 0)', async (t) => {
  const { rawServer } = await import('../helpers/assert.js');
  const srv = await rawServer(t, (socket) => {
    socket.write('HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\npartial');
    setTimeout(() => socket.resetAndDestroy(), 50);
  });
  const r = await runSling(['-b', `${srv.url}/x`]);
  assertError(r, 6, /the response body from 127\.0\.0\.1:\d+ was cut short: connection reset/);
});

test('a redirect (or digest challenge) with an endless body: at most 1 MiB of it is read, its connection closed, one warning; the main command, exec and curl files go on to the target', async (t) => {
  let served = 0;
  const s = await httpServer(t, (req: IncomingMessage, res: ServerResponse) => {
    if (req.url === '/ok') return void res.end('arrived\n');
    const status = req.url === '/digest' && !req.headers.authorization ? 401 : 302;
    if (status === 302 && req.url === '/digest') return void res.end('arrived\n');
    res.writeHead(status, status === 302 ? { Location: '/ok', 'Content-Type': 'text/plain' } : { 'WWW-Authenticate': 'Digest realm="r", nonce="n", qop="auth"', 'Content-Type': 'text/plain' });
    // Endless: chunks for as long as the client reads (stops when the socket goes).
    const chunk = Buffer.alloc(64 << 10, 'x');
    const pump = () => {
      while (!res.destroyed && res.write(chunk)) served += chunk.length;
      if (!res.destroyed) res.once('drain', pump);
    };
    res.on('close', () => res.removeAllListeners('drain'));
    pump();
  });
  const { mkdtempSync, writeFileSync } = await import('node:fs');
  const { join } = await import('node:path');
  const dir = mkdtempSync(join((await import('node:os')).tmpdir(), 'sling-redir-'));
  writeFileSync(join(dir, 'r.http'), `GET ${s.url}/r\n`);
  writeFileSync(join(dir, 'r.curl'), `curl -sL ${s.url}/r\n`);
  for (const args of [
    ['-F', `${s.url}/r`],
    ['exec', '--print=b', join(dir, 'r.http')],
    ['exec', join(dir, 'r.curl')],
    ['-A', 'digest', '-a', 'u:p', `${s.url}/digest`],
  ]) {
    served = 0;
    const r = await runSling(args, { timeoutMs: 120_000 });
    assert.equal(r.code, 0, `${args.join(' ')}: ${r.stderr}`);
    assert.equal(r.stdout.trim().split('\n').pop(), 'arrived', args.join(' '));
    assert.match(r.stderr, /warning: the body of the (302|401) answer from 127\.0\.0\.1:\d+ is over 1 MiB: the rest is not read \(its connection is closed\)/);
    assert.ok(served < 64 << 20, `${served} bytes served to ${args.join(' ')}`);
  }
});
