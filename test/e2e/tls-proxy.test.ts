// TLS verification, client certificates, and proxies (CONNECT for https, absolute-form for http).
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runSling } from '../helpers/cli.js';
import { certsUnavailableReason, closedPort, header, makeCerts, type Certs } from '../helpers/servers.js';
import { assertError, assertExit, assertWarning, httpServer, httpsServer, okText, proxyServer, show } from '../helpers/assert.js';

const certs = makeCerts();
const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The certificates, or undefined after marking the test skipped (openssl missing). */
function needCerts(t: TestContext): Certs | undefined {
  if (!certs) {
    const why = certsUnavailableReason();
    t.skip(why.startsWith('openssl not found') ? why : `openssl not found: ${why}`);
    return undefined;
  }
  return certs;
}

const secretText = (text: string) => (_req: IncomingMessage, res: ServerResponse) => {
  res.writeHead(200, { 'Content-Type': 'text/plain' });
  res.end(text);
};

// ---- TLS verification ----------------------------------------------------------------------------------

test('https with --verify=CA.pem trusts the test CA', async (t) => {
  const c = needCerts(t);
  if (!c) return;
  const srv = await httpsServer(t, secretText('over tls'), { cert: 'good' });
  const r = await runSling([`--verify=${c.caCert}`, '--body', `${srv.url}/secure?x=1`]);
  assertExit(r, 0);
  assert.equal(r.stdout, 'over tls', show(r));
  assert.equal(srv.requests.length, 1);
  assert.equal(srv.requests[0].url, '/secure?x=1');
});

test('https with a certificate from an unknown CA fails with exit 6 by default', async (t) => {
  if (!needCerts(t)) return;
  const srv = await httpsServer(t, okText, { cert: 'good' });
  const r = await runSling([`${srv.url}/`]);
  assertError(r, 6);
  assert.equal(srv.requests.length, 0, 'no request may be sent over an unverified connection');
});

test('https with a self-signed ("bad") certificate fails with exit 6', async (t) => {
  if (!needCerts(t)) return;
  const srv = await httpsServer(t, okText, { cert: 'bad' });
  const r = await runSling([`${srv.url}/`]);
  assertError(r, 6);
  assert.equal(srv.requests.length, 0);
});

test('a self-signed certificate is not trusted just because another CA is given', async (t) => {
  const c = needCerts(t);
  if (!c) return;
  const srv = await httpsServer(t, okText, { cert: 'bad' });
  const r = await runSling([`--verify=${c.caCert}`, `${srv.url}/`]);
  assertError(r, 6);
  assert.equal(srv.requests.length, 0);
});

test('--verify=no accepts a bad certificate and warns on stderr', async (t) => {
  if (!needCerts(t)) return;
  const srv = await httpsServer(t, secretText('insecure but fine'), { cert: 'bad' });
  const r = await runSling(['--verify=no', `${srv.url}/`]);
  assertExit(r, 0);
  assertWarning(r);
  assert.match(r.stdout, /^HTTP\/1\.1 200 OK/, show(r));
  assert.match(r.stdout, /insecure but fine/, show(r));
  assert.equal(srv.requests.length, 1);
});

test('--cert/--cert-key present a client certificate', async (t) => {
  const c = needCerts(t);
  if (!c) return;
  const srv = await httpsServer(t, okText, { cert: 'good', requestClientCert: true });
  const r = await runSling([`--verify=${c.caCert}`, '--cert', c.clientCert, '--cert-key', c.clientKey, `${srv.url}/`]);
  assertExit(r, 0);
  assert.equal(srv.requests.length, 1, show(r));
  assert.equal(srv.requests[0].clientCertAuthorized, true);
  assert.equal(srv.requests[0].clientCertCN, 'sling-test-client');
});

test('a --cert that is not a certificate, or a --cert-key that does not fit it, is an error naming the file; nothing is sent', async (t) => {
  const c = needCerts(t);
  if (!c) return;
  const srv = await httpsServer(t, okText, { cert: 'good', requestClientCert: true });
  const notPem = join(c.dir, 'not-a-certificate.txt');
  writeFileSync(notPem, 'hello\n');
  const r1 = await runSling([`--verify=${c.caCert}`, '--cert', notPem, `${srv.url}/`]);
  assertExit(r1, 1);
  assert.match(r1.stderr, new RegExp(`^sling: error: --cert '${escape(notPem)}' is not a usable PEM certificate: .*no start line\\n$`));
  const r2 = await runSling([`--verify=${c.caCert}`, '--cert', c.clientCert, '--cert-key', c.badKey, `${srv.url}/`]);
  assertExit(r2, 1);
  assert.match(r2.stderr, new RegExp(`^sling: error: --cert-key '${escape(c.badKey)}': the private key cannot be used: .+\\n$`));
  const r3 = await runSling([`--verify=${c.caCert}`, '--cert', c.clientCert, `${srv.url}/`]);
  assertExit(r3, 1);
  assert.match(r3.stderr, /no --cert-key: the key is looked for in the same file\): the private key cannot be used/);
  assert.equal(srv.requests.length, 0);
});

test('without --cert no client certificate is presented', async (t) => {
  const c = needCerts(t);
  if (!c) return;
  const srv = await httpsServer(t, okText, { cert: 'good', requestClientCert: true });
  const r = await runSling([`--verify=${c.caCert}`, `${srv.url}/`]);
  assertExit(r, 0);
  assert.equal(srv.requests.length, 1, show(r));
  assert.equal(srv.requests[0].clientCertAuthorized, false);
  assert.equal(srv.requests[0].clientCertCN, undefined);
});

// ---- proxies: https via CONNECT ---------------------------------------------------------------------------

test('--proxy https:http://PROXY tunnels https through CONNECT', async (t) => {
  const c = needCerts(t);
  if (!c) return;
  const srv = await httpsServer(t, secretText('tunnelled'), { cert: 'good' });
  const proxy = await proxyServer(t);
  const r = await runSling([`--verify=${c.caCert}`, '--proxy', `https:${proxy.url}`, '--body', `${srv.url}/t`]);
  assertExit(r, 0);
  assert.equal(r.stdout, 'tunnelled', show(r));
  assert.deepEqual(proxy.connects, [`127.0.0.1:${srv.port}`]);
  assert.equal(proxy.plainRequests.length, 0);
  assert.equal(srv.requests.length, 1);
  assert.equal(srv.requests[0].url, '/t');
});

test('exec: HTTPS through a proxy reuses one tunnel for the requests of a file', async (t) => {
  const c = needCerts(t);
  if (!c) return;
  const srv = await httpsServer(t, secretText('again'), { cert: 'good' });
  const proxy = await proxyServer(t);
  const dir = mkdtempSync(join(tmpdir(), 'sling-tunnel-'));
  writeFileSync(join(dir, 't.http'), `GET ${srv.url}/1\n\n###\nGET ${srv.url}/2\n\n###\nGET ${srv.url}/3\n`);
  const r = await runSling(['exec', `--verify=${c.caCert}`, '--proxy', `https:${proxy.url}`, '--print=b', 't.http'], { cwd: dir });
  assertExit(r, 0);
  assert.deepEqual(
    srv.requests.map((q) => q.url),
    ['/1', '/2', '/3'],
    show(r),
  );
  assert.deepEqual(proxy.connects, [`127.0.0.1:${srv.port}`], 'one CONNECT for three requests');
});

test('HTTPS_PROXY from the environment is used for https', async (t) => {
  const c = needCerts(t);
  if (!c) return;
  const srv = await httpsServer(t, secretText('env tunnel'), { cert: 'good' });
  const proxy = await proxyServer(t);
  const r = await runSling([`--verify=${c.caCert}`, '--body', `${srv.url}/e`], {
    env: { HTTPS_PROXY: proxy.url },
  });
  assertExit(r, 0);
  assert.equal(r.stdout, 'env tunnel', show(r));
  assert.deepEqual(proxy.connects, [`127.0.0.1:${srv.port}`]);
});

test('CONNECT answered with 502 fails with exit 6 and nothing reaches the target', async (t) => {
  const c = needCerts(t);
  if (!c) return;
  const srv = await httpsServer(t, okText, { cert: 'good' });
  const proxy = await proxyServer(t, { failStatus: 502 });
  const r = await runSling([`--verify=${c.caCert}`, '--proxy', `https:${proxy.url}`, `${srv.url}/`]);
  assertError(r, 6);
  assert.deepEqual(proxy.connects, [`127.0.0.1:${srv.port}`]);
  assert.equal(srv.requests.length, 0);
});

// ---- proxies: plain http ----------------------------------------------------------------------------------

test('--proxy http:http://PROXY sends absolute-form requests through the proxy', async (t) => {
  const srv = await httpServer(t, secretText('via proxy'));
  const proxy = await proxyServer(t);
  const r = await runSling(['--proxy', `http:${proxy.url}`, `${srv.url}/via?x=1`]);
  assertExit(r, 0);
  assert.equal(proxy.plainRequests.length, 1, show(r));
  assert.equal(proxy.plainRequests[0].method, 'GET');
  assert.equal(proxy.plainRequests[0].url, `${srv.url}/via?x=1`);
  assert.equal(srv.requests.length, 1);
  assert.equal(srv.requests[0].url, '/via?x=1');
  assert.match(r.stdout, /^HTTP\/1\.1 200 OK/, show(r));
  assert.match(r.stdout, /via proxy/, show(r));
});

test('--proxy with a bare proxy URL is used for http', async (t) => {
  const srv = await httpServer(t, secretText('bare'));
  const proxy = await proxyServer(t);
  const r = await runSling(['--proxy', proxy.url, '--body', 'POST', `${srv.url}/bare`, 'a=1']);
  assertExit(r, 0);
  assert.equal(r.stdout, 'bare', show(r));
  assert.equal(proxy.plainRequests.length, 1);
  assert.equal(proxy.plainRequests[0].method, 'POST');
  assert.deepEqual(JSON.parse(srv.requests[0].body.toString()), { a: '1' });
});

test('HTTP_PROXY from the environment is used for http', async (t) => {
  const srv = await httpServer(t, secretText('env proxy'));
  const proxy = await proxyServer(t);
  const r = await runSling(['--body', `${srv.url}/env`], { env: { HTTP_PROXY: proxy.url } });
  assertExit(r, 0);
  assert.equal(r.stdout, 'env proxy', show(r));
  assert.equal(proxy.plainRequests.length, 1);
  assert.equal(proxy.plainRequests[0].url, `${srv.url}/env`);
});

test('NO_PROXY bypasses HTTP_PROXY for matching hosts', async (t) => {
  const srv = await httpServer(t, secretText('direct'));
  const proxy = await proxyServer(t);
  const r = await runSling(['--body', `${srv.url}/direct`], {
    env: { HTTP_PROXY: proxy.url, NO_PROXY: '127.0.0.1' },
  });
  assertExit(r, 0);
  assert.equal(r.stdout, 'direct', show(r));
  assert.equal(proxy.plainRequests.length, 0);
  assert.equal(proxy.connects.length, 0);
  assert.equal(srv.requests.length, 1);
  assert.equal(header(srv.requests[0], 'host'), `127.0.0.1:${srv.port}`);
});

test('an unreachable proxy fails with exit 6', async (t) => {
  const srv = await httpServer(t, okText);
  const port = await closedPort();
  const r = await runSling(['--proxy', `http:http://127.0.0.1:${port}`, `${srv.url}/`]);
  assertError(r, 6);
  assert.equal(srv.requests.length, 0);
});
