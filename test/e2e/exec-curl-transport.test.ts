// curl options that need the transport: --unix-socket, --retry, --http2 / --http2-prior-knowledge,
// -4. Each is sent by real curl and by `sling exec` to the same loopback server and compared.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import http2 from 'node:http2';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runSling } from '../helpers/cli.js';
import { curlMissing } from '../helpers/curl-capture.js';
import { makeCerts, certsUnavailableReason } from '../helpers/servers.js';

const noCurl = curlMissing();
const dir = () => mkdtempSync(join(tmpdir(), 'sling-curl-tr-'));
const home = mkdtempSync(join(tmpdir(), 'sling-curl-tr-home-'));

interface Seen {
  method: string;
  url: string;
  version: string;
  host?: string;
  authority?: string;
  h2settings?: string;
}

/** Runs one curl command line with real curl, then with sling exec (as a one-line file). */
async function both(line: string): Promise<{ curl: number | null; sling: number | null; stderr: string }> {
  const d = dir();
  // Asynchronous: the servers live in this process and must keep answering while curl runs.
  const c = await new Promise<{ status: number | null }>((resolve) => {
    const child = spawn('bash', ['-c', line], { cwd: d, env: { ...process.env, HOME: home }, stdio: 'ignore' });
    const timer = setTimeout(() => child.kill('SIGKILL'), 20000);
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status });
    });
  });
  writeFileSync(join(d, 'c.sh'), line + '\n');
  const s = await runSling(['exec', 'c.sh'], { cwd: d, env: { HOME: home } });
  return { curl: c.status, sling: s.code, stderr: s.stderr };
}

test('--unix-socket: the request goes to the socket, Host from the URL', { skip: noCurl }, async (t) => {
  const seen: Seen[] = [];
  const sock = join(dir(), 's.sock');
  const srv = http.createServer((req, res) => {
    seen.push({ method: req.method!, url: req.url!, version: req.httpVersion, host: req.headers.host });
    res.end('ok');
  });
  await new Promise<void>((r) => srv.listen(sock, r));
  t.after(() => new Promise((r) => srv.close(r)));
  const r = await both(`curl -s -o /dev/null --unix-socket ${sock} http://api.local/v1/x?y=1`);
  assert.deepEqual([r.curl, r.sling], [0, 0], r.stderr);
  assert.equal(seen.length, 2);
  assert.deepEqual(seen[1], seen[0]);
  assert.deepEqual(seen[0], { method: 'GET', url: '/v1/x?y=1', version: '1.1', host: 'api.local' });
});

test('--retry: transient 503s are retried as curl retries them', { skip: noCurl }, async (t) => {
  let n = 0;
  const counts: number[] = [];
  const srv = http.createServer((req, res) => {
    n++;
    // Every third request of a run succeeds: two 503s, then 200.
    if (n % 3 !== 0) {
      res.writeHead(503, { 'Retry-After': '1' });
      res.end('busy');
    } else res.end('ok');
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  t.after(() => new Promise((r) => srv.close(r)));
  const url = `http://127.0.0.1:${(srv.address() as { port: number }).port}/r`;
  const r = await both(`curl -s -o out.txt --retry 3 --retry-delay 1 ${url}`);
  counts.push(n);
  assert.deepEqual([r.curl, r.sling], [0, 0], r.stderr);
  assert.equal(n, 6, 'both sent 3 requests: two 503s and the 200');
  assert.match(r.stderr, /HTTP 503 from 127\.0\.0\.1:\d+: retrying in 1s \(3 retries left\)/);
  // Without --retry, one request and its 503.
  n = 0;
  const once = await both(`curl -s -o /dev/null ${url}`);
  assert.deepEqual([once.curl, once.sling, n], [0, 0, 2]);
});

test('--retry-connrefused retries a refused connection, then fails like curl (exit 6 / 7)', { skip: noCurl }, async () => {
  const r = await both('curl -s -o /dev/null --retry 1 --retry-delay 1 --retry-connrefused http://127.0.0.1:9/');
  assert.equal(r.curl, 7);
  assert.equal(r.sling, 6);
  assert.match(r.stderr, /connection refused by 127\.0\.0\.1:9: retrying in 1s \(1 retry left\)/);
});

test('--http2-prior-knowledge speaks h2 in clear text, as curl does', { skip: noCurl }, async (t) => {
  const seen: Seen[] = [];
  const srv = http2.createServer();
  srv.on('request', (req, res) => {
    seen.push({ method: req.method, url: req.url, version: req.httpVersion, authority: req.headers[':authority'] as string });
    res.end('ok');
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  t.after(() => void srv.close());
  const port = (srv.address() as { port: number }).port;
  const r = await both(`curl -s -o /dev/null --http2-prior-knowledge -X PUT -d x=1 http://127.0.0.1:${port}/h2?q=1`);
  assert.deepEqual([r.curl, r.sling], [0, 0], r.stderr);
  assert.equal(seen.length, 2);
  assert.deepEqual(seen[1], seen[0]);
  assert.deepEqual(seen[0], { method: 'PUT', url: '/h2?q=1', version: '2.0', authority: `127.0.0.1:${port}` });
});

const certs = makeCerts();
test('--http2 over TLS negotiates h2 with ALPN (and HTTP/1.1 when the server only has that)', { skip: noCurl ?? (certs ? undefined : certsUnavailableReason()) }, async (t) => {
  const seen: Seen[] = [];
  const srv = http2.createSecureServer({ key: readFileSync(certs!.serverKey), cert: readFileSync(certs!.serverCert), allowHTTP1: true });
  srv.on('request', (req, res) => {
    seen.push({ method: req.method, url: req.url, version: req.httpVersion });
    res.end('ok');
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  // An http2 server's close() waits for sessions it no longer counts as handles: do not wait.
  t.after(() => void srv.close());
  const port = (srv.address() as { port: number }).port;
  const r = await both(`curl -s -o /dev/null --http2 --cacert ${certs!.caCert} https://127.0.0.1:${port}/tls`);
  assert.deepEqual([r.curl, r.sling], [0, 0], r.stderr);
  assert.deepEqual(seen.map((s) => s.version), ['2.0', '2.0']);
  // Without --http2: HTTP/1.1 for both.
  const h1 = await both(`curl -s -o /dev/null --http1.1 --cacert ${certs!.caCert} https://127.0.0.1:${port}/tls`);
  assert.deepEqual([h1.curl, h1.sling], [0, 0], h1.stderr);
  assert.deepEqual(seen.slice(2).map((s) => s.version), ['1.1', '1.1']);
});

test('-4 resolves localhost to IPv4', { skip: noCurl }, async (t) => {
  const seen: Seen[] = [];
  const srv = http.createServer((req, res) => {
    seen.push({ method: req.method!, url: req.url!, version: req.httpVersion, host: req.headers.host });
    res.end('ok');
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  t.after(() => new Promise((r) => srv.close(r)));
  const port = (srv.address() as { port: number }).port;
  const r = await both(`curl -s -o /dev/null -4 http://localhost:${port}/four`);
  assert.deepEqual([r.curl, r.sling], [0, 0], r.stderr);
  assert.deepEqual(seen[1], seen[0]);
});

test('--http2 on http:// sends one HTTP/1.1 request, as curl does to a server without h2c', { skip: noCurl }, async (t) => {
  const seen: Seen[] = [];
  const srv = http.createServer((req, res) => {
    seen.push({ method: req.method!, url: req.url!, version: req.httpVersion });
    res.end('ok');
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  t.after(() => new Promise((r) => srv.close(r)));
  const port = (srv.address() as { port: number }).port;
  const r = await both(`curl -s -o /dev/null --http2 http://127.0.0.1:${port}/plain`);
  assert.deepEqual([r.curl, r.sling], [0, 0], r.stderr);
  assert.deepEqual(seen.map((s) => `${s.method} ${s.url} ${s.version}`), ['GET /plain 1.1', 'GET /plain 1.1']);
});
