// sling's WebSocket client (src/transport/websocket.ts) against `ws` as the independent server, a
// raw TCP server for what a well-behaved server never sends, a TLS server with the test
// certificates and the CONNECT proxy of the other tests; everything on 127.0.0.1.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CliError } from '../../src/errors.js';
import { CookieJar } from '../../src/model/cookies.js';
import { parseUrl } from '../../src/model/url.js';
import { acceptFor, openWebSocket, type WebSocketOptions, type WebSocketSession } from '../../src/transport/websocket.js';
import { proxyServer, rawServer } from '../helpers/assert.js';
import { closedPort, makeCerts, unansweredPort } from '../helpers/servers.js';
import { until } from '../helpers/wait.js';
import { closeCodeOf, rawWs, serverFrame, specFor, wsServer } from '../helpers/websocket.js';

/** Options that collect the messages. */
function collecting(extra: Partial<WebSocketOptions> = {}) {
  const messages: { data: Buffer; binary: boolean }[] = [];
  const debug: string[] = [];
  const opts: WebSocketOptions = { env: {}, maxMessage: 1 << 20, onMessage: (data, binary) => messages.push({ data, binary }), debug: (m) => debug.push(m), ...extra };
  return { messages, debug, opts };
}

const certs = makeCerts();
const noCerts = certs ? false : 'openssl is needed for the TLS tests';

test('the handshake carries the spec headers after Host, the upgrade headers, a fresh key, and the 101 is checked', async (t) => {
  const srv = await wsServer(t);
  const { opts } = collecting();
  const spec = specFor(`http://127.0.0.1:${srv.port}/chat?room=1`, {}, [
    ['X-Token', 'abc'],
    ['Connection', 'keep-alive'],
  ]);
  const session = await openWebSocket(spec, opts);
  t.after(() => session.close());
  const req = srv.handshakes[0]!;
  assert.equal(req.url, '/chat?room=1');
  assert.equal(req.method, 'GET');
  const names = req.rawHeaders.filter((_, i) => i % 2 === 0);
  assert.deepEqual(names, ['Host', 'Upgrade', 'Connection', 'Sec-WebSocket-Key', 'Sec-WebSocket-Version', 'X-Token']);
  assert.equal(req.headers.host, `127.0.0.1:${srv.port}`);
  assert.equal(req.headers.upgrade, 'websocket');
  assert.equal(req.headers.connection, 'Upgrade', "the file's own Connection line is replaced");
  assert.equal(req.headers['sec-websocket-version'], '13');
  assert.equal(Buffer.from(req.headers['sec-websocket-key']!, 'base64').length, 16);
  assert.equal(req.headers['x-token'], 'abc');
  // What the session reports is what went and what came.
  assert.deepEqual(
    session.request.headers.map(([n]) => n),
    names,
  );
  assert.equal(session.response.status, 101);
  assert.equal(session.where, `ws://127.0.0.1:${srv.port}/chat?room=1`);
  assert.equal(session.info.remoteAddress, '127.0.0.1');
  assert.equal(session.info.remotePort, srv.port);
  // A second session draws a new key.
  const again = await openWebSocket(spec, opts);
  t.after(() => again.close());
  assert.notEqual(srv.handshakes[1]!.headers['sec-websocket-key'], req.headers['sec-websocket-key']);
  assert.equal(acceptFor('dGhlIHNhbXBsZSBub25jZQ=='), 's3pPLMBiTxaQ9kYGzzhZRbK+xOo=', "RFC 6455's example");
});

test('text and binary messages go both ways, masked, of every length form', async (t) => {
  const srv = await wsServer(t);
  const got: { data: Buffer; binary: boolean }[] = [];
  srv.wss.on('connection', (ws) => ws.on('message', (data, isBinary) => ws.send(data as Buffer, { binary: isBinary })));
  const { messages, opts } = collecting();
  const session = await openWebSocket(specFor(`http://127.0.0.1:${srv.port}/`), opts);
  t.after(() => session.close());
  const ws = srv.clients[0]!;
  ws.on('message', (data, isBinary) => got.push({ data: data as Buffer, binary: isBinary }));
  const sent: (string | Buffer)[] = ['héllo ☃', Buffer.from([0, 1, 2, 255]), '', 'x'.repeat(125), 'y'.repeat(126), Buffer.alloc(65535, 7), Buffer.alloc(70000, 9)];
  for (const m of sent) await session.send(m);
  await until('the echoes', () => messages.length === sent.length);
  assert.equal(got.length, sent.length);
  for (let i = 0; i < sent.length; i++) {
    const m = sent[i]!;
    const bytes = typeof m === 'string' ? Buffer.from(m, 'utf8') : m;
    assert.deepEqual(got[i], { data: bytes, binary: typeof m !== 'string' }, `server got message ${i}`);
    assert.equal(messages[i]!.binary, typeof m !== 'string', `binary flag of echo ${i}`);
    assert.ok(messages[i]!.data.equals(bytes), `echo ${i}`);
  }
});

test('a message the server sends in fragments, with a ping between them, comes whole; the ping is answered', async (t) => {
  const raw = await rawWs(t, (socket) => {
    socket.write(
      Buffer.concat([
        serverFrame(1, 'hel', { fin: false }),
        serverFrame(0x9, 'p1'),
        serverFrame(0, 'lo ', { fin: false }),
        serverFrame(0, '☃', { fin: true }),
        serverFrame(2, Buffer.from([1, 2]), { fin: false }),
      ]),
    );
    // The last fragment in pieces of one byte.
    const last = serverFrame(0, Buffer.from([3]), { fin: true });
    for (const b of last) socket.write(Buffer.from([b]));
  });
  const { messages, debug, opts } = collecting();
  const session = await openWebSocket(specFor(`http://127.0.0.1:${raw.port}/`), opts);
  t.after(() => session.close());
  await until('two messages', () => messages.length === 2);
  assert.deepEqual(
    messages.map((m) => [m.data.toString('utf8'), m.binary]),
    [
      ['hello ☃', false],
      ['\x01\x02\x03', true],
    ],
  );
  await until('the pong', () => raw.frames[0]!.length > 0);
  const pong = raw.frames[0]![0]!;
  assert.equal(pong.opcode, 0xa);
  assert.equal(pong.masked, true, 'a client masks every frame');
  assert.equal(pong.payload.toString(), 'p1');
  assert.ok(debug.some((d) => /ping from .* pong sent/.test(d)));
});

test('a ping from the ws server is answered with its payload; a ping from sling is answered by the server', async (t) => {
  const srv = await wsServer(t);
  const { debug, opts } = collecting();
  const session = await openWebSocket(specFor(`http://127.0.0.1:${srv.port}/`), opts);
  t.after(() => session.close());
  const ws = srv.clients[0]!;
  const pong = new Promise<Buffer>((r) => ws.once('pong', r));
  ws.ping(Buffer.from('are you there'));
  assert.equal((await pong).toString(), 'are you there');
  await session.ping(Buffer.from('p'));
  await until('the pong from the server', () => debug.some((d) => /pong from .*\(1 bytes\)/.test(d)));
});

test('the server closes with a code and a reason: the close is echoed and the session ends clean', async (t) => {
  const srv = await wsServer(t);
  const { opts } = collecting();
  const session = await openWebSocket(specFor(`http://127.0.0.1:${srv.port}/`), opts);
  const ws = srv.clients[0]!;
  const echoed = new Promise<[number, string]>((r) => ws.once('close', (code, reason) => r([code, reason.toString()])));
  ws.close(4001, 'bye now');
  const closed = await session.closed;
  assert.deepEqual(closed, { code: 4001, reason: 'bye now', clean: true });
  assert.deepEqual(await echoed, [4001, ''], 'the close frame echoed with its code');
  await assert.rejects(session.send('late'), (e: unknown) => e instanceof CliError && /is closed: nothing more can be sent/.test(e.message));
});

test('close() sends its code and reason, waits for the server close frame and ends clean', async (t) => {
  const srv = await wsServer(t);
  const { opts } = collecting();
  const session = await openWebSocket(specFor(`http://127.0.0.1:${srv.port}/`), opts);
  const ws = srv.clients[0]!;
  const seen = new Promise<[number, string]>((r) => ws.once('close', (code, reason) => r([code, reason.toString()])));
  const result = await session.close(1000, 'done');
  assert.deepEqual(await seen, [1000, 'done']);
  assert.deepEqual(result, { code: 1000, reason: 'done', clean: true });
  assert.equal(await session.closed, result, 'closed settles with the same result');
  await assert.rejects(session.close(1005), /not a close code a client may send/);
});

test('a server that ignores the close is dropped after the wait, without an error', async (t) => {
  // Answers nothing after the handshake: the close frame goes unanswered.
  const raw = await rawWs(t, () => {});
  const { opts } = collecting();
  const session = await openWebSocket(specFor(`http://127.0.0.1:${raw.port}/`), opts);
  const result = await session.close();
  assert.deepEqual(result, { code: undefined, reason: '', clean: false });
  assert.equal(closeCodeOf(raw.frames[0]![0]), 1000);
  await until('the connection ends', () => raw.ended[0] === true);
});

test('a server that drops the connection without a close frame fails the session', async (t) => {
  const raw = await rawWs(t, (socket) => socket.destroy());
  const { opts } = collecting();
  const session = await openWebSocket(specFor(`http://127.0.0.1:${raw.port}/`), opts);
  const closed = await session.closed;
  assert.equal(closed.clean, false);
  assert.match(closed.error!.message, new RegExp(`^ws://127\\.0\\.0\\.1:${raw.port}/ closed the connection without a WebSocket close frame$`));
  assert.equal(closed.error!.exitCode, 6);
});

test('wss:// with certificate checks off (--verify=no) and with the CA bundle; the default checks refuse a self-signed certificate', { skip: noCerts }, async (t) => {
  const bad = await wsServer(t, {}, 'bad');
  const good = await wsServer(t, {}, 'good');
  const { opts } = collecting();
  await assert.rejects(
    openWebSocket(specFor(`https://127.0.0.1:${bad.port}/`), opts),
    (e: unknown) => e instanceof CliError && e.exitCode === 6 && /TLS handshake with 127\.0\.0\.1:\d+ failed/.test(e.message),
  );
  const off = await openWebSocket(specFor(`https://127.0.0.1:${bad.port}/`, { tls: { verify: false } }), opts);
  t.after(() => off.close());
  assert.equal(off.where, `wss://127.0.0.1:${bad.port}/`);
  assert.ok(off.info.tlsProtocol, 'the TLS version is reported');
  const withCa = await openWebSocket(specFor(`https://127.0.0.1:${good.port}/secure`, { tls: { verify: certs!.caCert } }), opts);
  t.after(() => withCa.close());
  assert.equal(good.handshakes[0]!.url, '/secure');
  const echo = new Promise<string>((r) => good.clients[0]!.once('message', (d) => r(String(d))));
  await withCa.send('over TLS');
  assert.equal(await echo, 'over TLS');
});

test('--resolve sends the connection to the resolved address; the Host header and the TLS name stay the URL host', { skip: noCerts }, async (t) => {
  const srv = await wsServer(t);
  const { opts } = collecting();
  const session = await openWebSocket(specFor(`http://sling.test:${srv.port}/r`, { resolve: [{ host: 'sling.test', port: srv.port, address: '127.0.0.1' }] }), opts);
  t.after(() => session.close());
  assert.equal(srv.handshakes[0]!.headers.host, `sling.test:${srv.port}`);
  assert.equal(session.where, `ws://sling.test:${srv.port}/r`);
  // The test certificate names sling.test: checked against the URL host, not the address.
  const tlsSrv = await wsServer(t, {}, 'good');
  const secure = await openWebSocket(specFor(`https://sling.test:${tlsSrv.port}/`, { tls: { verify: certs!.caCert }, resolve: [{ host: 'sling.test', address: '127.0.0.1' }] }), opts);
  t.after(() => secure.close());
  assert.equal(tlsSrv.handshakes[0]!.headers.host, `sling.test:${tlsSrv.port}`);
});

test('through an HTTP proxy: ws:// and wss:// both go in a CONNECT tunnel', { skip: noCerts }, async (t) => {
  const proxy = await proxyServer(t);
  const srv = await wsServer(t);
  const tlsSrv = await wsServer(t, {}, 'good');
  const { messages, opts } = collecting();
  srv.wss.on('connection', (ws) => ws.send('through'));
  const plain = await openWebSocket(specFor(`http://127.0.0.1:${srv.port}/p`, { proxyEnv: { http_proxy: proxy.url } }), opts);
  t.after(() => plain.close());
  assert.equal(plain.info.proxy, proxy.url);
  await until('the message through the tunnel', () => messages.length === 1);
  assert.equal(messages[0]!.data.toString(), 'through');
  const secure = await openWebSocket(specFor(`https://localhost:${tlsSrv.port}/s`, { tls: { verify: certs!.caCert }, proxies: { https: proxy.url } }), opts);
  t.after(() => secure.close());
  assert.deepEqual(proxy.connects, [`127.0.0.1:${srv.port}`, `localhost:${tlsSrv.port}`]);
  assert.deepEqual(proxy.plainRequests, [], 'no request in absolute form');
  assert.equal(tlsSrv.handshakes[0]!.url, '/s');
});

test('an answer other than 101 fails with its status and the exit code of an HTTP error; no redirect is followed', async (t) => {
  const answers: Record<string, string> = {
    '/missing': 'HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n',
    '/broken': 'HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\n\r\n',
    '/moved': 'HTTP/1.1 301 Moved Permanently\r\nLocation: /elsewhere\r\nContent-Length: 0\r\n\r\n',
    '/plain': 'HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok',
  };
  const srv = await rawServer(t, (socket, first) => {
    socket.on('error', () => {});
    const path = first.toString('latin1').split(' ')[1]!;
    socket.end(answers[path]);
  });
  const { opts } = collecting();
  const expect = async (path: string, code: number, message: string) => {
    await assert.rejects(openWebSocket(specFor(`http://127.0.0.1:${srv.port}${path}`), opts), (e: unknown) => {
      assert.ok(e instanceof CliError);
      assert.equal(e.message, message);
      assert.equal(e.exitCode, code, path);
      assert.equal(e.lastAnswer?.response.status, Number(answers[path]!.slice(9, 12)));
      return true;
    });
  };
  await expect('/missing', 4, `ws://127.0.0.1:${srv.port}/missing answered 404 Not Found, not a WebSocket upgrade`);
  await expect('/broken', 5, `ws://127.0.0.1:${srv.port}/broken answered 503 Service Unavailable, not a WebSocket upgrade`);
  await expect('/moved', 3, `ws://127.0.0.1:${srv.port}/moved answered 301 Moved Permanently, not a WebSocket upgrade`);
  await expect('/plain', 6, `ws://127.0.0.1:${srv.port}/plain answered 200 OK, not a WebSocket upgrade`);
  assert.equal(srv.connections(), 4, 'the redirect was not followed');
});

test('a 101 with a wrong Sec-WebSocket-Accept, without Upgrade, or with a subprotocol not offered fails', async (t) => {
  const heads: Record<string, (key: string) => string> = {
    accept: () => 'HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n\r\n',
    upgrade: (key) => `HTTP/1.1 101 Switching Protocols\r\nUpgrade: h2c\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${acceptFor(key)}\r\n\r\n`,
    protocol: (key) => `HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${acceptFor(key)}\r\nSec-WebSocket-Protocol: chat\r\n\r\n`,
    extension: (key) =>
      `HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${acceptFor(key)}\r\nSec-WebSocket-Extensions: permessage-deflate\r\n\r\n`,
  };
  const { opts } = collecting();
  const expected: Record<string, RegExp> = {
    accept: /answered 101 with a Sec-WebSocket-Accept \('s3pPLMBiTxaQ9kYGzzhZRbK\+xOo='\) that does not answer the key sent: not a WebSocket upgrade$/,
    upgrade: /answered 101 without `Upgrade: websocket` \(Upgrade: h2c\)/,
    protocol: /answered 101 with the subprotocol 'chat', which sling did not offer$/,
    extension: /answered 101 with the extension 'permessage-deflate', which sling did not offer$/,
  };
  for (const [name, head] of Object.entries(heads)) {
    const raw = await rawWs(t, () => {}, head);
    await assert.rejects(openWebSocket(specFor(`http://127.0.0.1:${raw.port}/`), opts), (e: unknown) => e instanceof CliError && e.exitCode === 6 && expected[name]!.test(e.message), name);
    await until(`the ${name} connection closed`, () => raw.ended[0] === true);
  }
});

test('a frame longer than maxMessage closes with 1009 before any of its claimed size is kept', async (t) => {
  // Claims of 2^40 bytes (a buffer that large cannot even be made) and of 512 MiB, with 1 MiB allowed.
  for (const claim of [2n ** 40n, 512n * 1024n * 1024n]) {
    const raw = await rawWs(t, (socket) => socket.write(serverFrame(2, Buffer.alloc(1000), { length: claim })));
    const before = process.memoryUsage().arrayBuffers;
    const { messages, opts } = collecting();
    const session = await openWebSocket(specFor(`http://127.0.0.1:${raw.port}/big`), opts);
    const closed = await session.closed;
    assert.equal(closed.code, 1009);
    assert.equal(closed.clean, false);
    assert.equal(closed.error!.exitCode, 6);
    assert.equal(closed.error!.message, `ws://127.0.0.1:${raw.port}/big sent a message of more than 1048576 bytes (a frame of ${claim}): sling closed the WebSocket with 1009`);
    assert.equal(messages.length, 0);
    await until('the close frame', () => raw.frames[0]!.length > 0);
    assert.equal(closeCodeOf(raw.frames[0]![0]), 1009);
    assert.ok(process.memoryUsage().arrayBuffers - before < 64 * 1024 * 1024, 'no buffer of the claimed size');
  }
  // The limit holds over the fragments of one message too.
  const raw = await rawWs(t, (socket) => socket.write(Buffer.concat([serverFrame(1, 'a'.repeat(600), { fin: false }), serverFrame(0, 'b'.repeat(600))])));
  const { opts } = collecting({ maxMessage: 1000 });
  const session = await openWebSocket(specFor(`http://127.0.0.1:${raw.port}/`), opts);
  const closed = await session.closed;
  assert.equal(closed.code, 1009);
  assert.match(closed.error!.message, /a message of more than 1000 bytes \(1200 so far\)/);
});

test('invalid UTF-8 in a text message closes with 1007', async (t) => {
  const raw = await rawWs(t, (socket) => socket.write(serverFrame(1, Buffer.from([0x68, 0xc3, 0x28]))));
  const { messages, opts } = collecting();
  const session = await openWebSocket(specFor(`http://127.0.0.1:${raw.port}/`), opts);
  const closed = await session.closed;
  assert.equal(closed.code, 1007);
  assert.match(closed.error!.message, /sent a text message that is not UTF-8: sling closed the WebSocket with 1007$/);
  assert.equal(messages.length, 0);
  await until('the close frame', () => raw.frames[0]!.length > 0);
  assert.equal(closeCodeOf(raw.frames[0]![0]), 1007);
  await until('the connection ends', () => raw.ended[0] === true);
});

test('frames that break the protocol close with 1002 and one line naming what came', async (t) => {
  const cases: [string, Buffer, RegExp][] = [
    ['reserved bit', serverFrame(1, 'x', { rsv: 4 }), /a frame with reserved bits set \(4\), with no extension agreed/],
    ['unknown opcode', serverFrame(3, 'x'), /a frame of unknown opcode 0x3/],
    ['masked', serverFrame(1, 'x', { mask: true }), /a masked frame \(a server must not mask its frames\)/],
    ['fragmented ping', serverFrame(9, 'x', { fin: false }), /a fragmented ping frame \(control frames cannot be fragmented\)/],
    ['long close', serverFrame(8, Buffer.alloc(126)), /a close frame longer than 125 bytes/],
    ['lone continuation', serverFrame(0, 'x'), /a continuation frame with no message to continue/],
    ['interrupted message', Buffer.concat([serverFrame(1, 'a', { fin: false }), serverFrame(1, 'b')]), /a new text message before the fragmented one was finished/],
    ['bad close code', serverFrame(8, Buffer.from([0x03, 0xed])), /a close frame with code 1005, which a peer may not send/],
  ];
  for (const [name, bytes, pattern] of cases) {
    const raw = await rawWs(t, (socket) => socket.write(bytes));
    const { opts } = collecting();
    const session = await openWebSocket(specFor(`http://127.0.0.1:${raw.port}/`), opts);
    const closed = await session.closed;
    assert.equal(closed.code, 1002, name);
    assert.equal(closed.error?.exitCode, 6, name);
    assert.match(closed.error!.message, pattern, name);
    assert.doesNotMatch(closed.error!.message, /\n/);
    await until(`the close frame (${name})`, () => raw.frames[0]!.length > 0);
    assert.equal(closeCodeOf(raw.frames[0]![0]), 1002, name);
  }
});

test('a server that never answers the handshake is given up after --timeout (exit 2)', async (t) => {
  const srv = await rawServer(t, (socket) => socket.on('error', () => {}));
  const { opts } = collecting();
  await assert.rejects(openWebSocket(specFor(`http://127.0.0.1:${srv.port}/`, { timeoutMs: 300 }), opts), (e: unknown) => {
    assert.ok(e instanceof CliError);
    assert.equal(e.exitCode, 2);
    assert.equal(e.message, `no answer from 127.0.0.1:${srv.port} within 0.3s (--timeout)`);
    return true;
  });
});

test('a connection that cannot be made within --connect-timeout fails with exit 2, naming the server', async (t) => {
  const port = await unansweredPort();
  t.after(() => port.close());
  const { opts } = collecting();
  await assert.rejects(openWebSocket(specFor(`http://127.0.0.1:${port.port}/`, { connectTimeoutMs: 200 }), opts), (e: unknown) => {
    assert.ok(e instanceof CliError);
    assert.equal(e.exitCode, 2);
    assert.equal(e.message, `could not connect to 127.0.0.1:${port.port} within 0.2s (--connect-timeout)`);
    return true;
  });
  const refused = await closedPort();
  await assert.rejects(
    openWebSocket(specFor(`http://127.0.0.1:${refused}/`), opts),
    (e: unknown) => e instanceof CliError && e.exitCode === 6 && e.message === `connection refused by 127.0.0.1:${refused}`,
  );
});

test("the jar's cookies go with the handshake and the 101's Set-Cookie is stored", async (t) => {
  const srv = await wsServer(t);
  srv.wss.on('headers', (headers) => headers.push('Set-Cookie: session=new; Path=/'));
  const jar = new CookieJar();
  jar.setCookie('theme=dark; Path=/', parseUrl(`http://127.0.0.1:${srv.port}/`));
  const { opts } = collecting({ jar });
  const session = await openWebSocket(specFor(`http://127.0.0.1:${srv.port}/ws`), opts);
  t.after(() => session.close());
  assert.equal(srv.handshakes[0]!.headers.cookie, 'theme=dark');
  assert.equal(jar.cookieHeader(parseUrl(`http://127.0.0.1:${srv.port}/other`)), 'theme=dark; session=new');
  // A spec that keeps no cookies (# @no-cookie-jar) sends none and stores none.
  const quiet = await openWebSocket({ ...specFor(`http://127.0.0.1:${srv.port}/ws`, { noCookies: true }) }, collecting({ jar: new CookieJar() }).opts);
  t.after(() => quiet.close());
  assert.equal(srv.handshakes[1]!.headers.cookie, undefined);
});

test('a subprotocol is offered and the one the server picks reported; a header with CR/LF is refused before connecting', async (t) => {
  const srv = await wsServer(t, { handleProtocols: (protocols) => (protocols.has('two') ? 'two' : false) });
  const { opts } = collecting({ subprotocols: ['one', 'two'] });
  const session: WebSocketSession = await openWebSocket(specFor(`http://127.0.0.1:${srv.port}/`), opts);
  t.after(() => session.close());
  assert.equal(srv.handshakes[0]!.headers['sec-websocket-protocol'], 'one, two');
  assert.equal(session.protocol, 'two');
  await assert.rejects(
    openWebSocket(specFor(`http://127.0.0.1:${srv.port}/`, {}, [['X-A', 'v\r\nX-Injected: 1']]), opts),
    (e: unknown) => e instanceof CliError && e.exitCode === 1 && /the value of the header 'X-A' holds a line break \(CR\)/.test(e.message),
  );
  await assert.rejects(openWebSocket({ ...specFor(`http://127.0.0.1:${srv.port}/`), method: 'POST' }, opts), /a WebSocket handshake is a GET request, not POST/);
  assert.equal(srv.handshakes.length, 1, 'nothing else reached the server');
});
