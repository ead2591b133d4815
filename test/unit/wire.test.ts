// Each lane that turns a request into bytes (node:http in send.ts, the raw HTTP/1.1 lanes of
// raw.ts and keepalive.ts, HTTP/2 in h2.ts) refuses a head with CR, LF or NUL itself, before it
// connects: called directly, against a loopback listener that counts its connections.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { CliError } from '../../src/errors.js';
import type { PreparedRequest } from '../../src/model/prepare.js';
import type { RequestSettings } from '../../src/model/spec.js';
import { parseUrl } from '../../src/model/url.js';
import { sendOnce } from '../../src/transport/send.js';
import { sendRaw } from '../../src/transport/raw.js';
import { sendKeepAlive } from '../../src/transport/keepalive.js';
import { sendH2 } from '../../src/transport/h2.js';

async function listener(t: TestContext) {
  let connections = 0;
  const sockets = new Set<net.Socket>();
  // A connection is counted and closed at once: a lane that connected fails fast with a network error.
  const server = net.createServer((s) => {
    connections++;
    sockets.add(s);
    s.on('error', () => {});
    s.destroy();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.after(() => {
    for (const s of sockets) s.destroy();
    return new Promise<void>((r) => server.close(() => r()));
  });
  return { port: (server.address() as net.AddressInfo).port, connections: () => connections };
}

const settings = { follow: false, maxRedirects: 0, tls: { verify: true }, proxies: {}, proxyEnv: {} } as unknown as RequestSettings;

/** Three bad heads: a header value, a method, a target. */
function badRequests(host: string): [PreparedRequest, RegExp][] {
  const ok = [['Host', host] as [string, string]];
  return [
    [{ method: 'GET', target: '/', headers: [...ok, ['Authorization', 'Bearer AT\r\nX-Injected: yes']], body: Buffer.alloc(0) }, /the value of the header 'Authorization' holds a line break \(CR\)/],
    [{ method: 'GET\r\nX: 1', target: '/', headers: ok, body: Buffer.alloc(0) }, /the method 'GET\\r\\nX: 1' holds a line break/],
    [{ method: 'GET', target: '/a\nb', headers: ok, body: Buffer.alloc(0) }, /the request target '\/a\\nb' holds a line break \(LF\)/],
    [{ method: 'GET', target: '/', headers: [...ok, ['X-A\0', '1']], body: Buffer.alloc(0) }, /the header name 'X-A\\x00' holds a NUL character/],
  ];
}

const refused = (pattern: RegExp) => (e: unknown) => e instanceof CliError && e.exitCode === 1 && pattern.test(e.message);

test('every lane refuses a method, target or header with CR, LF or NUL before it connects: node:http, raw, kept-alive, HTTP/2', async (t) => {
  const srv = await listener(t);
  const host = `127.0.0.1:${srv.port}`;
  const url = parseUrl(`http://${host}/`);
  for (const [request, pattern] of badRequests(host)) {
    await assert.rejects(sendOnce(url, request, settings, { env: {} }), refused(pattern), 'node:http');
    await assert.rejects(sendRaw(url, request, settings), refused(pattern), 'raw');
    await assert.rejects(sendKeepAlive(url, request, settings, { poll: false }), refused(pattern), 'kept-alive');
    await assert.rejects(sendH2(url, request, { ...settings, http2: 'prior-knowledge' }, {}), refused(pattern), 'HTTP/2');
  }
  assert.equal(srv.connections(), 0, 'no connection was made');
});
