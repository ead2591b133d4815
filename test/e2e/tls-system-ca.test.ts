// The system's CA store (a company's TLS inspection root in the Windows store, say) is trusted besides
// Node's bundled roots where Node offers it (tls.getCACertificates('system'): not on Node 20). On
// Linux OpenSSL's system store is the file SSL_CERT_FILE names, which lets the test plant its CA there.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import * as tls from 'node:tls';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runSling } from '../helpers/cli.js';
import { certsUnavailableReason, makeCerts, type Certs } from '../helpers/servers.js';
import { assertError, assertExit, httpsServer, okText } from '../helpers/assert.js';

const certs = makeCerts();
const hasSystemStore = typeof (tls as { getCACertificates?: unknown }).getCACertificates === 'function';

function needCerts(t: TestContext): Certs | undefined {
  if (!certs) t.skip(`openssl not found: ${certsUnavailableReason()}`);
  return certs ?? undefined;
}

test('with SLING_SYSTEM_CA=1 a root in the system store is trusted (where Node offers the store); by default on Linux, and with 0, it is not', async (t) => {
  const c = needCerts(t);
  if (!c) return;
  const srv = await httpsServer(t, okText, { cert: 'good' });
  // The test CA as the whole system store: SSL_CERT_FILE, and a folder with no certificates.
  const system = { SSL_CERT_FILE: c.caCert, SSL_CERT_DIR: mkdtempSync(join(tmpdir(), 'sling-certdir-')) };
  const on = await runSling(['--check-status', `${srv.url}/on`], { env: { ...system, SLING_SYSTEM_CA: '1' } });
  if (hasSystemStore) {
    assertExit(on, 0);
    assert.deepEqual(
      srv.requests.map((q) => q.url),
      ['/on'],
    );
    // curl files and .http files go through the same transport: the kept-alive lane of exec.
    const d = mkdtempSync(join(tmpdir(), 'sling-sysca-'));
    const { writeFileSync } = await import('node:fs');
    writeFileSync(join(d, 'a.http'), `GET ${srv.url}/exec\n`);
    assertExit(await runSling(['exec', 'a.http'], { cwd: d, env: { ...system, SLING_SYSTEM_CA: '1' } }), 0);
    assert.equal(srv.requests.at(-1)!.url, '/exec');
  } else {
    // Node 20: no system store to add; Node's bundled roots only, as before.
    assertError(on, 6);
  }
  srv.requests.length = 0;
  // Linux's default, and SLING_SYSTEM_CA=0 anywhere: Node's roots only; the unknown CA fails.
  if (process.platform === 'linux') assertError(await runSling([`${srv.url}/default`], { env: system }), 6);
  assertError(await runSling([`${srv.url}/off`], { env: { ...system, SLING_SYSTEM_CA: '0' } }), 6);
  assert.equal(srv.requests.length, 0, 'no request over an unverified connection');
});

test('--verify PATH replaces the stores: with SLING_SYSTEM_CA=1, a server whose CA is only in the system store fails against another bundle', async (t) => {
  const c = needCerts(t);
  if (!c) return;
  const srv = await httpsServer(t, okText, { cert: 'good' });
  const other = mkdtempSync(join(tmpdir(), 'sling-otherca-'));
  const { writeFileSync, readFileSync } = await import('node:fs');
  // A bundle with another certificate only (the self-signed one).
  writeFileSync(join(other, 'other.pem'), readFileSync(c.badCert));
  const system = { SSL_CERT_FILE: c.caCert, SSL_CERT_DIR: mkdtempSync(join(tmpdir(), 'sling-certdir-')), SLING_SYSTEM_CA: '1' };
  assertError(await runSling(['--verify', join(other, 'other.pem'), `${srv.url}/x`], { env: system }), 6);
  assert.equal(srv.requests.length, 0);
});
