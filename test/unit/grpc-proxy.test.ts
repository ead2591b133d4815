// sling's gRPC client (transport/grpc.ts) through an HTTP proxy, as every request goes: a CONNECT
// tunnel (connect.ts) to a @grpc/grpc-js server on 127.0.0.1, h2c spoken in it as it is and TLS in
// it offering HTTP/2; the proxy from a spec's own settings or from the environment, NO_PROXY
// honoured, and a proxy that refuses or is not there failing in one line.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { CliError } from '../../src/errors.js';
import { parseUrl } from '../../src/model/url.js';
import { grpcCall, type GrpcCallOptions, type GrpcDescriptionSource } from '../../src/transport/grpc.js';
import { SHOP_INCLUDE, SHOP_PROTO, grpcSettings, messages, shopServer } from '../helpers/grpc.js';
import { proxyServer } from '../helpers/assert.js';
import { certsUnavailableReason, closedPort, makeCerts } from '../helpers/servers.js';

const fromProto: GrpcDescriptionSource = { proto: { file: SHOP_PROTO, includeDirs: [SHOP_INCLUDE], options: {} } };

function options(over: Partial<GrpcCallOptions> = {}): GrpcCallOptions & { got: string[] } {
  const got: string[] = [];
  return { settings: grpcSettings(), env: {}, metadata: [], outgoing: messages('{"id": 3}'), onMessage: (m) => got.push(m), maxMessage: 1 << 20, readFile: (p) => readFileSync(p), ...over, got };
}

const getItem = (port: number, scheme = 'http', host = '127.0.0.1') => ({ url: parseUrl(`${scheme}://${host}:${port}/`), path: '/test.shop.Shop/GetItem' });

test('a gRPC call goes through the proxy of the request settings in a CONNECT tunnel, and never shares a session with a direct call', async (t) => {
  const srv = await shopServer(t);
  const proxy = await proxyServer(t);
  // A direct call first: its session is kept, and must not carry the proxied call.
  const direct = await grpcCall(getItem(srv.port), fromProto, options());
  assert.equal(direct.status, 0);
  assert.equal(direct.info.proxy, undefined);
  const o = options({ settings: grpcSettings({ proxies: { http: proxy.url } }) });
  const out = await grpcCall(getItem(srv.port), fromProto, o);
  assert.equal(out.status, 0);
  assert.equal(JSON.parse(o.got[0]!).itemName, 'Lamp');
  assert.equal(out.info.proxy, proxy.url);
  assert.equal(out.info.reused, false, 'a new connection, through the proxy');
  assert.deepEqual(proxy.connects, [`127.0.0.1:${srv.port}`]);
  assert.deepEqual(proxy.plainRequests, [], 'no request in absolute form');
  // A second proxied call reuses the tunnel's session; a direct one still goes direct.
  const again = await grpcCall(getItem(srv.port), fromProto, options({ settings: grpcSettings({ proxies: { all: proxy.url } }) }));
  assert.equal(again.status, 0);
  assert.equal(again.info.reused, true);
  assert.equal((await grpcCall(getItem(srv.port), fromProto, options())).info.proxy, undefined);
  assert.equal(proxy.connects.length, 1);
  assert.equal(srv.calls.length, 4);
});

test("a gRPC call takes the environment's proxy (http_proxy, HTTP_PROXY, ALL_PROXY), and a spec's own proxy environment first", async (t) => {
  const srv = await shopServer(t);
  const proxy = await proxyServer(t);
  for (const env of [{ http_proxy: proxy.url }, { HTTP_PROXY: proxy.url }, { ALL_PROXY: proxy.url }]) {
    const out = await grpcCall(getItem(srv.port), fromProto, options({ env }));
    assert.equal(out.status, 0, JSON.stringify(env));
    assert.equal(out.info.proxy, proxy.url, JSON.stringify(env));
  }
  // A curl command's own environment (settings.proxyEnv) is the one read, not sling's.
  const own = await grpcCall(getItem(srv.port), fromProto, options({ env: {}, settings: grpcSettings({ proxyEnv: { http_proxy: proxy.url } }) }));
  assert.equal(own.info.proxy, proxy.url);
  // The sessions of these calls are one (the same proxy): one tunnel.
  assert.deepEqual(proxy.connects, [`127.0.0.1:${srv.port}`]);
  assert.equal(srv.calls.length, 4);
});

test('NO_PROXY sends a gRPC call direct, past the proxy of the environment', async (t) => {
  const srv = await shopServer(t);
  const proxy = await proxyServer(t);
  for (const noProxy of ['127.0.0.1', '*', `127.0.0.1:${srv.port}`]) {
    const out = await grpcCall(getItem(srv.port), fromProto, options({ env: { http_proxy: proxy.url, NO_PROXY: noProxy } }));
    assert.equal(out.status, 0);
    assert.equal(out.info.proxy, undefined, noProxy);
  }
  assert.deepEqual(proxy.connects, []);
  assert.equal(srv.calls.length, 3);
});

test('a gRPC call found by server reflection goes through the proxy too: the reflection and the call on one tunnel', async (t) => {
  const srv = await shopServer(t, { reflection: true });
  const proxy = await proxyServer(t);
  const o = options({ env: { http_proxy: proxy.url } });
  const out = await grpcCall(getItem(srv.port), {}, o);
  assert.equal(out.status, 0);
  assert.equal(JSON.parse(o.got[0]!).itemName, 'Lamp');
  assert.deepEqual(proxy.connects, [`127.0.0.1:${srv.port}`]);
  assert.deepEqual(
    srv.calls.map((c) => c.method),
    ['GetItem'],
  );
});

const certs = makeCerts();
test('gRPC over TLS through the proxy: TLS inside the CONNECT tunnel, checked against the CA, offering HTTP/2 alone', { skip: certs ? undefined : certsUnavailableReason() }, async (t) => {
  const srv = await shopServer(t, { tls: true });
  const proxy = await proxyServer(t);
  const o = options({ env: { HTTPS_PROXY: proxy.url }, settings: grpcSettings({ tls: { verify: certs!.caCert } }) });
  const out = await grpcCall(getItem(srv.port, 'https', 'localhost'), fromProto, o);
  assert.equal(out.status, 0);
  assert.equal(JSON.parse(o.got[0]!).itemName, 'Lamp');
  assert.equal(out.info.proxy, proxy.url);
  assert.match(out.info.tlsProtocol ?? '', /^TLS/);
  assert.deepEqual(proxy.connects, [`localhost:${srv.port}`]);
  // What the TLS handshake in the tunnel offers by ALPN, as a TLS server sees it.
  const tls = await import('node:tls');
  const offered: string[][] = [];
  const hello = tls.createServer({
    key: readFileSync(certs!.serverKey),
    cert: readFileSync(certs!.serverCert),
    ALPNCallback: ({ protocols }) => {
      offered.push(protocols);
      return undefined;
    },
  });
  hello.on('tlsClientError', () => {});
  await new Promise<void>((r) => hello.listen(0, '127.0.0.1', r));
  t.after(() => new Promise<void>((r) => hello.close(() => r())));
  const port = (hello.address() as AddressInfo).port;
  await assert.rejects(grpcCall(getItem(port, 'https', 'localhost'), fromProto, options({ env: { https_proxy: proxy.url }, settings: grpcSettings({ tls: { verify: certs!.caCert } }) })));
  assert.deepEqual(offered, [['h2']]);
});

test('a proxy that refuses the tunnel fails the gRPC call in one line naming the proxy, the target and the status (exit 6)', async (t) => {
  const srv = await shopServer(t);
  const proxy = await proxyServer(t, { failStatus: 403 });
  await assert.rejects(grpcCall(getItem(srv.port), fromProto, options({ settings: grpcSettings({ proxies: { http: proxy.url } }) })), (e: unknown) => {
    assert.ok(e instanceof CliError, String(e));
    assert.equal(e.exitCode, 6);
    assert.equal(e.message, `proxy ${proxy.url} refused the tunnel to 127.0.0.1:${srv.port}: 403 Forbidden`);
    return true;
  });
  assert.deepEqual(proxy.connects, [`127.0.0.1:${srv.port}`]);
  assert.equal(srv.calls.length, 0);
});

test('a proxy that is not there fails the gRPC call as connection refused by the proxy (exit 6)', async (t) => {
  const srv = await shopServer(t);
  const dead = await closedPort();
  await assert.rejects(grpcCall(getItem(srv.port), fromProto, options({ env: { http_proxy: `http://127.0.0.1:${dead}` } })), (e: unknown) => {
    assert.ok(e instanceof CliError, String(e));
    assert.equal(e.exitCode, 6);
    assert.equal(e.message, `connection refused by proxy http://127.0.0.1:${dead}`);
    return true;
  });
  assert.equal(srv.calls.length, 0);
});
