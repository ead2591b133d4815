// A file whose requests all succeed leaves stderr empty, on every Node sling supports: no warning
// from the runtime (Node 22 and later printed V8's "unrecognized flag" for the flags sling once
// set at run time), none from the transport, over plain HTTP, HTTPS, a proxy and HTTP/2.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import http2 from 'node:http2';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runSling } from '../helpers/cli.js';
import { httpServer, httpsServer, proxyServer, show } from '../helpers/assert.js';
import { certsUnavailableReason, makeCerts } from '../helpers/servers.js';

const certs = makeCerts();

test('exec: requests that succeed print nothing on stderr (HTTP, HTTPS, a proxy, HTTP/2; .http and curl files)', { skip: certs ? false : certsUnavailableReason() }, async (t) => {
  const plain = await httpServer(t, (_req, res) => res.end('{"ok": true}'));
  const tls = await httpsServer(t, (_req, res) => res.end('{"tls": true}'), { cert: 'good' });
  const proxy = await proxyServer(t);
  const h2 = http2.createSecureServer({ key: readFileSync(certs!.serverKey), cert: readFileSync(certs!.serverCert) }, (_req, res) => res.end('{"h2": true}'));
  await new Promise<void>((r) => h2.listen(0, '127.0.0.1', r));
  t.after(() => h2.close());
  const h2port = (h2.address() as { port: number }).port;
  const dir = mkdtempSync(join(tmpdir(), 'sling-quiet-'));
  writeFileSync(
    join(dir, 'api.http'),
    `GET ${plain.url}/a\n\n###\nPOST ${plain.url}/b\nContent-Type: application/json\n\n{"x": 1}\n\n###\nGET ${tls.url}/c\n\n###\nGET https://127.0.0.1:${h2port}/d HTTP/2\n`,
  );
  writeFileSync(join(dir, 'calls.sh'), `curl -s ${plain.url}/e\ncurl -s -x ${proxy.url} ${plain.url}/f\ncurl -s --cacert ${certs!.caCert} ${tls.url}/g\n`);
  // .http files trust the test CA through Node's own variable (they have no --cacert).
  const env = { NODE_EXTRA_CA_CERTS: certs!.caCert };
  const a = await runSling(['exec', join(dir, 'api.http')], { env });
  assert.equal(a.code, 0, show(a));
  assert.equal(a.stderr, '');
  assert.match(a.stdout, /"ok": true[\s\S]*"tls": true[\s\S]*"h2": true/);
  const c = await runSling(['exec', join(dir, 'calls.sh')], { env });
  assert.equal(c.code, 0, show(c));
  assert.equal(c.stderr, '');
  assert.match(c.stdout, /\{"ok": true\}[\s\S]*\{"ok": true\}[\s\S]*\{"tls": true\}/);
  assert.equal(proxy.plainRequests.length, 1);
});
