// What a TLS failure says: a certificate for other names says which names it has and how to reach
// the server by one (no CA bundle can fix it), and a handshake that never ends after TCP connected
// is not reported as a connection that never came.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import https from 'node:https';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { runSling } from '../helpers/cli.js';
import { certsUnavailableReason, makeCerts, type Certs } from '../helpers/servers.js';
import { assertExit, assertNoStack, rawServer, show } from '../helpers/assert.js';

const certs = makeCerts();

function needCerts(t: TestContext): Certs | undefined {
  if (!certs) t.skip(certsUnavailableReason());
  return certs ?? undefined;
}

/** An HTTPS server on 127.0.0.1 whose certificate (from the test CA) names lanes.test only. */
async function lanesServer(t: TestContext, c: Certs): Promise<number> {
  const srv = https.createServer({ key: readFileSync(c.lanesKey), cert: readFileSync(c.lanesCert), ALPNProtocols: ['h2', 'http/1.1'] }, (_req, res) => res.end('reached'));
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  t.after(() => {
    srv.closeAllConnections();
    srv.close();
  });
  return (srv.address() as AddressInfo).port;
}

const oneFile = (name: string, text: string) => {
  const dir = mkdtempSync(join(tmpdir(), 'sling-tls-'));
  writeFileSync(join(dir, name), text);
  return join(dir, name);
};

test('a certificate for other names says which names it has and hints --resolve, not --verify, in every lane', async (t) => {
  const c = needCerts(t);
  if (!c) return;
  const port = await lanesServer(t, c);
  const message = `TLS handshake with 127.0.0.1:${port} failed: the certificate is for other names (DNS:lanes.test), not 127.0.0.1`;
  const hint = `  hint: use a name the certificate is for in the URL (lanes.test); to reach this server by it, add --resolve lanes.test:${port}:127.0.0.1`;
  const runs = [await runSling([`--verify=${c.caCert}`, `https://127.0.0.1:${port}/`]), await runSling([`--verify=${c.caCert}`, '--http-version=2', `https://127.0.0.1:${port}/`])];
  for (const r of runs) {
    assertExit(r, 6);
    assertNoStack(r.stderr);
    assert.equal(r.stderr, `sling: error: ${message}\n${hint}\n`, show(r));
  }
  // sling exec's kept-alive lane says the same, after the request's place.
  const file = oneFile('a.http', `GET https://127.0.0.1:${port}/\n`);
  const r = await runSling(['exec', `--verify=${c.caCert}`, file]);
  assert.equal(r.code, 6, show(r));
  assert.ok(r.stderr.includes(message), show(r));
  assert.doesNotMatch(r.stderr, /--verify=PATH/);
  // The hint works.
  const ok = await runSling([`--verify=${c.caCert}`, '--body', `--resolve=lanes.test:${port}:127.0.0.1`, `https://lanes.test:${port}/`]);
  assertExit(ok, 0);
  assert.equal(ok.stdout, 'reached');
});

test('a TLS handshake that does not finish after TCP connected says so, with the limit, in every lane', async (t) => {
  // Accepts the connection, reads the ClientHello and never answers it.
  const srv = await rawServer(t, () => {});
  const where = `127.0.0.1:${srv.port}`;
  for (const args of [[], ['--http-version=2']]) {
    const r = await runSling(['--timeout=0.5', ...args, `https://${where}/`]);
    assertExit(r, 2);
    assert.equal(r.stderr, `sling: error: connected to ${where}, but the TLS handshake did not finish within 0.5s (--timeout)\n`, show(r));
  }
  const file = oneFile('s.http', `# @connection-timeout 0.5\nGET https://${where}/\n`);
  const r = await runSling(['exec', file]);
  assert.equal(r.code, 2, show(r));
  assert.match(r.stderr, new RegExp(`s\\.http:2: connected to 127\\.0\\.0\\.1:${srv.port}, but the TLS handshake did not finish within 0\\.5s \\(# @connection-timeout\\)`), show(r));
});
