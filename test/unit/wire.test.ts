// Each client that turns a request into bytes (the one HTTP/1.1 client of client.ts, direct or
// through a proxy, and HTTP/2 in h2.ts) refuses a head with CR, LF or NUL itself, before it
// connects: called directly, against a loopback listener that counts its connections.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { CliError } from '../../src/errors.js';
import type { PreparedRequest } from '../../src/model/prepare.js';
import type { RequestSettings } from '../../src/model/spec.js';
import { parseUrl } from '../../src/model/url.js';
import { sendRequest } from '../../src/transport/client.js';
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

test('the HTTP/1.1 client (direct and through a proxy) and HTTP/2 refuse a method, target or header with CR, LF or NUL before they connect', async (t) => {
  const srv = await listener(t);
  const host = `127.0.0.1:${srv.port}`;
  const url = parseUrl(`http://${host}/`);
  for (const [request, pattern] of badRequests(host)) {
    await assert.rejects(sendRequest(url, request, settings, { poll: false }), refused(pattern), 'HTTP/1.1');
    await assert.rejects(sendRequest(url, request, settings, { poll: false, proxy: `http://${host}` }), refused(pattern), 'HTTP/1.1 through a proxy');
    await assert.rejects(sendH2(url, request, { ...settings, http2: 'prior-knowledge' }, {}), refused(pattern), 'HTTP/2');
  }
  assert.equal(srv.connections(), 0, 'no connection was made');
});
