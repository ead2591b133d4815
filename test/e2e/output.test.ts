// What gets printed when stdout is a pipe: default response print, --body, --headers, -v,
// --print, HEAD, --offline, -q, binary bodies, and the absence of colour codes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runSling, VERSION } from '../helpers/cli.js';
import { assertExit, httpServer, lines, okText, parseMessage, show } from '../helpers/assert.js';

const ESC = '\x1b';

test('default print: status line, headers in original case and order, blank line, body', async (t) => {
  const srv = await httpServer(t, (_req, res) => {
    res.writeHead(200, 'OK', ['X-First', '1', 'content-TYPE', 'text/plain', 'X-Mixed-Case', 'Value With Spaces', 'Set-Cookie', 'a=1', 'Set-Cookie', 'b=2', 'X-Last', 'z']);
    res.end('hello body');
  });
  const r = await runSling([`${srv.url}/`]);
  assertExit(r, 0);
  const msg = parseMessage(r.stdout);
  assert.equal(msg.startLine, 'HTTP/1.1 200 OK', show(r));
  const ours = new Set(['x-first', 'content-type', 'x-mixed-case', 'set-cookie', 'x-last']);
  assert.deepEqual(
    msg.headers.filter(([k]) => ours.has(k.toLowerCase())),
    [
      ['X-First', '1'],
      ['content-TYPE', 'text/plain'],
      ['X-Mixed-Case', 'Value With Spaces'],
      ['Set-Cookie', 'a=1'],
      ['Set-Cookie', 'b=2'],
      ['X-Last', 'z'],
    ],
    show(r),
  );
  for (const line of lines(r.stdout.slice(0, r.stdout.indexOf('hello body')))) {
    if (line === '' || line.startsWith('HTTP/1.1 ')) continue;
    assert.match(line, /^[!#$%&'*+.^_`|~0-9A-Za-z-]+: /, `header line should be "Name: value": ${JSON.stringify(line)}`);
  }
  assert.equal(msg.body.trimEnd(), 'hello body', show(r));
  assert.ok(!r.stdout.includes(ESC), 'no ANSI escapes when piped');
  assert.equal(r.stderr, '', show(r));
});

test('the reason phrase is printed as the server sent it', async (t) => {
  const srv = await httpServer(t, (_req, res) => {
    res.writeHead(299, 'Mostly Fine', { 'Content-Type': 'text/plain' });
    res.end('x');
  });
  const r = await runSling([`${srv.url}/`]);
  assertExit(r, 0);
  assert.equal(lines(r.stdout)[0], 'HTTP/1.1 299 Mostly Fine', show(r));
});

test('--body prints exactly the body bytes', async (t) => {
  const srv = await httpServer(t, (_req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8' });
    res.end('line one\nline two: ünïcödé ✓');
  });
  const r = await runSling(['--body', `${srv.url}/`]);
  assertExit(r, 0);
  assert.equal(r.stdout, 'line one\nline two: ünïcödé ✓', show(r));
});

test('-b prints a JSON body unmodified (no reformatting when piped)', async (t) => {
  const json = '{"b":1,"a":[1,2],"s":"x"}';
  const srv = await httpServer(t, (_req, res) => {
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end(json);
  });
  const r = await runSling(['-b', `${srv.url}/`]);
  assertExit(r, 0);
  assert.equal(r.stdout, json, show(r));
});

test('-b prints a binary body (with NUL bytes) byte for byte', async (t) => {
  const bin = Buffer.from([0x00, 0x01, 0xff, 0xfe, 0x00, 0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00]);
  const srv = await httpServer(t, (_req, res) => {
    res.writeHead(200, { 'Content-Type': 'application/octet-stream' });
    res.end(bin);
  });
  const r = await runSling(['-b', `${srv.url}/`]);
  assertExit(r, 0);
  assert.ok(r.stdoutBytes.equals(bin), `expected ${bin.toString('hex')}, got ${r.stdoutBytes.toString('hex')}`);
});

test('default print of a binary body contains the raw bytes after the headers', async (t) => {
  const bin = Buffer.from([0x00, 0x10, 0x20, 0x00, 0xc3, 0x28, 0xff]);
  const srv = await httpServer(t, (_req, res) => {
    res.writeHead(200, { 'Content-Type': 'application/octet-stream' });
    res.end(bin);
  });
  const r = await runSling([`${srv.url}/`]);
  assertExit(r, 0);
  assert.match(r.stdout, /^HTTP\/1\.1 200 OK/, show(r));
  const sep = r.stdoutBytes.indexOf('\r\n\r\n') >= 0 ? r.stdoutBytes.indexOf('\r\n\r\n') + 4 : r.stdoutBytes.indexOf('\n\n') + 2;
  assert.ok(sep > 2, show(r));
  assert.ok(r.stdoutBytes.subarray(sep, sep + bin.length).equals(bin), `body bytes: ${r.stdoutBytes.subarray(sep).toString('hex')}`);
});

test('-h URL prints only the response headers', async (t) => {
  const srv = await httpServer(t, (_req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/plain', 'X-Marker': 'present' });
    res.end('BODY-SHOULD-NOT-APPEAR');
  });
  const r = await runSling(['-h', `${srv.url}/`]);
  assertExit(r, 0);
  assert.match(r.stdout, /^HTTP\/1\.1 200 OK/, show(r));
  assert.match(r.stdout, /^X-Marker: present$/m, show(r));
  assert.ok(!r.stdout.includes('BODY-SHOULD-NOT-APPEAR'), show(r));
  assert.ok(!r.stdout.includes('Usage:'), show(r));
  assert.equal(srv.requests.length, 1);
});

test('--headers prints only the response headers', async (t) => {
  const srv = await httpServer(t, (_req, res) => {
    res.writeHead(404, { 'Content-Type': 'text/plain' });
    res.end('NOT-HERE');
  });
  const r = await runSling(['--headers', `${srv.url}/`]);
  assertExit(r, 0);
  assert.match(r.stdout, /^HTTP\/1\.1 404 Not Found/, show(r));
  assert.ok(!r.stdout.includes('NOT-HERE'), show(r));
});

test('HEAD prints only headers', async (t) => {
  const srv = await httpServer(t, (_req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Length': '11', 'X-Head': 'yes' });
    res.end();
  });
  const r = await runSling(['HEAD', `${srv.url}/h`]);
  assertExit(r, 0);
  assert.equal(srv.requests[0].method, 'HEAD');
  const msg = parseMessage(r.stdout);
  assert.equal(msg.startLine, 'HTTP/1.1 200 OK', show(r));
  assert.ok(
    msg.headers.some(([k, v]) => k === 'X-Head' && v === 'yes'),
    show(r),
  );
  assert.equal(msg.body.trim(), '', show(r));
});

test('-v prints the request (line, default headers) before the response', async (t) => {
  const srv = await httpServer(t, okText);
  const r = await runSling(['-v', `${srv.url}/path?q=1`]);
  assertExit(r, 0);
  const out = r.stdout;
  const reqMsg = parseMessage(out);
  assert.equal(reqMsg.startLine, 'GET /path?q=1 HTTP/1.1', show(r));
  const has = (k: string, v: string) => reqMsg.headers.some(([hk, hv]) => hk.toLowerCase() === k.toLowerCase() && hv === v);
  assert.ok(has('Host', `127.0.0.1:${srv.port}`), show(r));
  assert.ok(has('User-Agent', `sling/${VERSION}`), show(r));
  assert.ok(has('Connection', 'keep-alive'), show(r));
  assert.ok(has('Accept', '*/*'), show(r));
  assert.ok(has('Accept-Encoding', 'gzip, deflate, br'), show(r));
  const resAt = out.indexOf('HTTP/1.1 200 OK');
  assert.ok(resAt > out.indexOf('GET /path?q=1 HTTP/1.1'), show(r));
  assert.match(out.slice(resAt), /ok\s*$/, show(r));
});

test('--print=HBhb prints request headers+body and response headers+body', async (t) => {
  const srv = await httpServer(t, (_req, res) => {
    res.writeHead(201, { 'Content-Type': 'text/plain' });
    res.end('created-marker');
  });
  const r = await runSling(['--print=HBhb', 'POST', `${srv.url}/items`, 'name=widget', 'n:=3']);
  assertExit(r, 0);
  const out = r.stdout;
  const reqLine = out.indexOf('POST /items HTTP/1.1');
  const resLine = out.indexOf('HTTP/1.1 201 Created');
  assert.equal(reqLine, 0, show(r));
  assert.ok(resLine > 0, show(r));
  const requestPart = parseMessage(out.slice(0, resLine));
  assert.ok(
    requestPart.headers.some(([k, v]) => k.toLowerCase() === 'content-type' && /^application\/json/.test(v)),
    show(r),
  );
  assert.deepEqual(JSON.parse(requestPart.body.trim()), { name: 'widget', n: 3 });
  assert.match(out.slice(resLine), /created-marker\s*$/, show(r));
});

test('--print=H prints only the request headers (the request is still sent)', async (t) => {
  const srv = await httpServer(t, (_req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/plain' });
    res.end('RESPONSE-BODY');
  });
  const r = await runSling(['--print=H', `${srv.url}/only-req`]);
  assertExit(r, 0);
  assert.match(r.stdout, /^GET \/only-req HTTP\/1\.1/, show(r));
  assert.doesNotMatch(r.stdout, /^HTTP\/1\.1 /m, show(r));
  assert.ok(!r.stdout.includes('RESPONSE-BODY'), show(r));
  assert.equal(srv.requests.length, 1);
});

test('--offline prints the request and sends nothing', async (t) => {
  const srv = await httpServer(t, okText);
  const r = await runSling(['--offline', 'POST', `${srv.url}/off`, 'a=1', 'X-Test:offline']);
  assertExit(r, 0);
  assert.equal(srv.requests.length, 0, 'nothing may be sent with --offline');
  assert.equal(srv.connections(), 0, 'no connection may be opened with --offline');
  const msg = parseMessage(r.stdout);
  assert.equal(msg.startLine, 'POST /off HTTP/1.1', show(r));
  assert.ok(
    msg.headers.some(([k, v]) => k === 'X-Test' && v === 'offline'),
    show(r),
  );
  assert.ok(
    msg.headers.some(([k, v]) => k.toLowerCase() === 'content-type' && /^application\/json/.test(v)),
    show(r),
  );
  assert.deepEqual(JSON.parse(msg.body.trim()), { a: '1' });
});

test('--offline works even when nothing listens on the port', async () => {
  const r = await runSling(['--offline', 'http://127.0.0.1:9/nowhere']);
  assertExit(r, 0);
  assert.match(r.stdout, /^GET \/nowhere HTTP\/1\.1/, show(r));
});

test('-q prints nothing on success but still sends the request', async (t) => {
  const srv = await httpServer(t, okText);
  const r = await runSling(['-q', `${srv.url}/quiet`]);
  assertExit(r, 0);
  assert.equal(r.stdout, '');
  assert.equal(r.stderr, '');
  assert.equal(srv.requests.length, 1);
});

test('-q with --check-status and a 500 exits 5 with empty stdout', async (t) => {
  const srv = await httpServer(t, (_req, res) => {
    res.writeHead(500);
    res.end('boom');
  });
  const r = await runSling(['-q', '--check-status', `${srv.url}/`]);
  assertExit(r, 5);
  assert.equal(r.stdout, '', show(r));
});

test('no ANSI colour codes when piped, even without NO_COLOR', async (t) => {
  const srv = await httpServer(t, (_req, res) => {
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end('{"colour":"none","n":1}');
  });
  const r = await runSling(['-v', `${srv.url}/`, 'x==1'], { env: { NO_COLOR: '' } });
  assertExit(r, 0);
  assert.ok(!r.stdout.includes(ESC), show(r));
  assert.ok(!r.stderr.includes(ESC), show(r));
});
