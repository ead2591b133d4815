// The main command's transport flags (xh's names): --http-version, --unix-socket,
// --resolve, -4/-6, --interface, --ssl, --ciphers. Each is checked on the server side (what protocol,
// request line, TLS version, cipher, local address arrived) and in the `p` properties.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import http from 'node:http';
import http2 from 'node:http2';
import https from 'node:https';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { runSling } from '../helpers/cli.js';
import { certsUnavailableReason, makeCerts } from '../helpers/servers.js';
import { assertError, assertExit } from '../helpers/assert.js';

const certs = makeCerts();
const noCerts = certs ? undefined : certsUnavailableReason();

interface Seen {
  line: string;
  remote?: string;
  host?: string;
  tls?: string;
  cipher?: string;
  sni?: string;
}

async function listen(t: TestContext, server: http.Server | http2.Http2Server | http2.Http2SecureServer | https.Server): Promise<number> {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  // An http2 server's close() waits for sessions it no longer counts as handles: do not wait.
  t.after(() => void server.close());
  return (server.address() as { port: number }).port;
}

function record(seen: Seen[]) {
  return (req: http.IncomingMessage | http2.Http2ServerRequest, res: http.ServerResponse | http2.Http2ServerResponse) => {
    const socket = req.socket as TLSSocket;
    seen.push({
      line: `${req.method} ${req.url} HTTP/${req.httpVersion}`,
      remote: socket.remoteAddress,
      host: (req.headers.host ?? req.headers[':authority']) as string,
      tls: typeof socket.getProtocol === 'function' ? (socket.getProtocol() ?? undefined) : undefined,
      cipher: typeof socket.getCipher === 'function' ? socket.getCipher()?.name : undefined,
      sni: (socket as TLSSocket & { servername?: string }).servername || undefined,
    });
    res.end('ok');
  };
}

const tlsOptions = () => ({ key: readFileSync(certs!.serverKey), cert: readFileSync(certs!.serverCert) });

test('--http-version 1.0 sends an HTTP/1.0 request line, shown as such with -v', async (t) => {
  const seen: Seen[] = [];
  const port = await listen(t, http.createServer(record(seen)));
  const r = await runSling(['--http-version', '1.0', '-v', `http://127.0.0.1:${port}/old`]);
  assertExit(r, 0);
  assert.equal(seen[0]!.line, 'GET /old HTTP/1.0');
  assert.match(r.stdout, /^GET \/old HTTP\/1\.0$/m);
  // xh's alias.
  const one = await runSling(['--http-version=1', '-b', `http://127.0.0.1:${port}/one`]);
  assertExit(one, 0);
  assert.equal(seen[1]!.line, 'GET /one HTTP/1.0');
  // With a body, and 1.1 back on the line after it.
  const post = await runSling(['--http-version', '1.0', '-b', `http://127.0.0.1:${port}/post`, 'a=1']);
  assertExit(post, 0);
  assert.equal(seen[2]!.line, 'POST /post HTTP/1.0');
  const back = await runSling(['--http-version', '1.0', '--http-version', '1.1', '-b', `http://127.0.0.1:${port}/new`]);
  assertExit(back, 0);
  assert.equal(seen[3]!.line, 'GET /new HTTP/1.1');
});

test('--http-version 1.0 also on a download (its own lane)', async (t) => {
  const seen: Seen[] = [];
  const port = await listen(t, http.createServer(record(seen)));
  const dir = mkdtempSync(join(tmpdir(), 'sling-h10-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const r = await runSling(['--http-version', '1.0', '-d', '-o', join(dir, 'f'), `http://127.0.0.1:${port}/file`]);
  assertExit(r, 0);
  assert.equal(seen[0]!.line, 'GET /file HTTP/1.0');
  assert.equal(readFileSync(join(dir, 'f'), 'utf8'), 'ok');
});

test('--http-version 2-prior-knowledge speaks h2c from the first byte; --print=p says HTTP/2', async (t) => {
  const seen: Seen[] = [];
  const port = await listen(t, http2.createServer(record(seen)));
  const r = await runSling(['--http-version', '2-prior-knowledge', '--print=hbp', `http://127.0.0.1:${port}/h2c?x=1`]);
  assertExit(r, 0);
  assert.equal(seen[0]!.line, 'GET /h2c?x=1 HTTP/2.0');
  assert.match(r.stdout, /^HTTP\/2 200 OK$/m);
  assert.match(r.stdout, /^HTTP version: HTTP\/2$/m);
  assert.match(r.stdout, /^ok$/m);
  // Without it, an HTTP/1.1 request reaches an h2-only server, which does not understand it.
  const h1 = await runSling(['--print=p', `http://127.0.0.1:${port}/h1`]);
  assert.notEqual(h1.code, 0);
});

test('--http-version 2 on https:// negotiates h2 by ALPN, and HTTP/1.1 when the server has only that', { skip: noCerts }, async (t) => {
  const seen: Seen[] = [];
  const port = await listen(t, http2.createSecureServer({ ...tlsOptions(), allowHTTP1: true }, record(seen)));
  const r = await runSling(['--http-version', '2', '--verify', certs!.caCert, '--print=hp', `https://localhost:${port}/alpn`]);
  assertExit(r, 0);
  assert.equal(seen[0]!.line, 'GET /alpn HTTP/2.0');
  assert.match(r.stdout, /^HTTP version: HTTP\/2$/m);
  assert.match(r.stdout, /^TLS: TLSv1\.3, /m);
  // The default is HTTP/1.1 with the same server.
  const plain = await runSling(['--verify', certs!.caCert, '--print=p', `https://localhost:${port}/default`]);
  assertExit(plain, 0);
  assert.equal(seen[1]!.line, 'GET /default HTTP/1.1');
  assert.match(plain.stdout, /^HTTP version: HTTP\/1\.1$/m);

  const h1seen: Seen[] = [];
  const h1port = await listen(t, https.createServer(tlsOptions(), record(h1seen)));
  const fallback = await runSling(['--http-version', '2', '--verify', certs!.caCert, '--print=p', `https://localhost:${h1port}/fallback`]);
  assertExit(fallback, 0);
  assert.equal(h1seen[0]!.line, 'GET /fallback HTTP/1.1');
  assert.match(fallback.stdout, /^HTTP version: HTTP\/1\.1$/m);
});

/** The request heads in -v output: each first line up to the blank line after its headers. */
const requestHeads = (stdout: string) => [...stdout.matchAll(/^(?:GET|POST) \S+ HTTP\/\S+\n(?:[^\n]+\n)*/gm)].map((m) => m[0]);

test('-v with --http-version 2-prior-knowledge prints the request as sent: HTTP/2, without the connection headers HTTP/2 forbids', async (t) => {
  const seen: Seen[] = [];
  const port = await listen(
    t,
    http2.createServer((req, res) => {
      if (req.url === '/pk') {
        res.writeHead(307, { Location: '/done' });
        res.end();
      } else record(seen)(req, res);
    }),
  );
  const r = await runSling(['-v', '--follow', '--http-version', '2-prior-knowledge', `http://127.0.0.1:${port}/pk`, 'a=1']);
  assertExit(r, 0);
  assert.equal(seen[0]!.line, 'POST /done HTTP/2.0');
  const heads = requestHeads(r.stdout);
  assert.equal(heads.length, 2, r.stdout);
  assert.match(heads[0]!, /^POST \/pk HTTP\/2\n/);
  assert.match(heads[1]!, /^POST \/done HTTP\/2\n/);
  for (const head of heads) {
    assert.match(head, new RegExp(`^Host: 127\\.0\\.0\\.1:${port}$`, 'm'));
    assert.match(head, /^Content-Type: application\/json$/m);
    assert.doesNotMatch(head, /^(Connection|Keep-Alive|Transfer-Encoding|Upgrade):/im, head);
  }
  // Each request comes before its answer.
  assert.ok(r.stdout.indexOf('POST /pk HTTP/2') < r.stdout.indexOf('HTTP/2 307'), r.stdout);
  assert.ok(r.stdout.indexOf('POST /done HTTP/2') < r.stdout.indexOf('HTTP/2 200'), r.stdout);
  // Without --follow: the one request, as sent.
  const once = await runSling(['-v', '--http-version', '2-prior-knowledge', `http://127.0.0.1:${port}/once`]);
  assertExit(once, 0);
  assert.deepEqual(
    requestHeads(once.stdout).map((h) => h.split('\n')[0]),
    ['GET /once HTTP/2'],
  );
});

test('-v with --http-version 2 on https:// prints the version ALPN chose: HTTP/2, or HTTP/1.1 with its Connection header', { skip: noCerts }, async (t) => {
  const h2port = await listen(t, http2.createSecureServer({ ...tlsOptions(), allowHTTP1: true }, record([])));
  const h2 = await runSling(['-v', '--http-version', '2', '--verify', certs!.caCert, `https://localhost:${h2port}/alpn`]);
  assertExit(h2, 0);
  const [head] = requestHeads(h2.stdout);
  assert.match(head!, /^GET \/alpn HTTP\/2\n/, h2.stdout);
  assert.doesNotMatch(head!, /^Connection:/im);
  assert.match(h2.stdout, /^HTTP\/2 200 OK$/m);

  const h1port = await listen(t, https.createServer(tlsOptions(), record([])));
  const h1 = await runSling(['-v', '--http-version', '2', '--verify', certs!.caCert, `https://localhost:${h1port}/fallback`]);
  assertExit(h1, 0);
  const [fallback] = requestHeads(h1.stdout);
  assert.match(fallback!, /^GET \/fallback HTTP\/1\.1\n/, h1.stdout);
  assert.match(fallback!, /^Connection: keep-alive$/m);
  assert.match(h1.stdout, /^HTTP\/1\.1 200 OK$/m);
});

test('sling exec -v with --http-version 2-prior-knowledge prints each request as sent over HTTP/2', async (t) => {
  const port = await listen(t, http2.createServer(record([])));
  const dir = mkdtempSync(join(tmpdir(), 'sling-h2v-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, 'pk.http'), `GET http://127.0.0.1:${port}/one\n\n###\nPOST http://127.0.0.1:${port}/two\nContent-Type: text/plain\n\nhello\n`);
  const r = await runSling(['exec', '-v', '--http-version', '2-prior-knowledge', 'pk.http'], { cwd: dir });
  assertExit(r, 0);
  const heads = requestHeads(r.stdout);
  assert.deepEqual(
    heads.map((h) => h.split('\n')[0]),
    ['GET /one HTTP/2', 'POST /two HTTP/2'],
    r.stdout,
  );
  for (const head of heads) assert.doesNotMatch(head, /^(Connection|Keep-Alive|Transfer-Encoding|Upgrade):/im, head);
});

test('--http-version 2 on http:// is a usage error pointing at 2-prior-knowledge (xh fails there too); a bad value is one', async (t) => {
  const seen: Seen[] = [];
  const port = await listen(t, http.createServer(record(seen)));
  const r = await runSling(['--http-version', '2', `http://127.0.0.1:${port}/`]);
  assertError(r, 1, /--http-version 2 negotiates HTTP\/2 in the TLS handshake/);
  assert.match(r.stderr, /2-prior-knowledge/);
  const bad = await runSling(['--http-version', '3', `http://127.0.0.1:${port}/`]);
  assertError(bad, 1, "--http-version must be 1.0, 1.1, 2 or 2-prior-knowledge, got '3'");
  assert.equal(bad.stderr.trim().split('\n').length, 1);
  const chunked = await runSling(['--http-version', '1.0', '--chunked', `http://127.0.0.1:${port}/`, 'a=1']);
  assertError(chunked, 1, /--chunked needs HTTP\/1\.1/);
  assert.equal(seen.length, 0);
});

test("--resolve HOST:PORT:ADDRESS and xh's HOST:ADDRESS connect to the address; Host and the TLS name stay the host", { skip: noCerts }, async (t) => {
  const seen: Seen[] = [];
  const port = await listen(t, http.createServer(record(seen)));
  const r = await runSling(['--resolve', `sling.test:${port}:127.0.0.1`, '-b', `http://sling.test:${port}/curl-form`]);
  assertExit(r, 0);
  assert.equal(seen[0]!.host, `sling.test:${port}`);
  const xh = await runSling(['--resolve', 'other.test:1.2.3.4', '--resolve=SLING.test:127.0.0.1', '-b', `http://sling.test:${port}/xh-form`]);
  assertExit(xh, 0);
  assert.equal(seen[1]!.line, 'GET /xh-form HTTP/1.1');
  // IPv6 in brackets is accepted (and checked); a malformed rule is one line, exit 1.
  const bad = await runSling(['--resolve', 'sling.test:80', `http://sling.test:${port}/`]);
  assertError(bad, 1, /--resolve 'sling\.test:80' has no IP address after the host/);
  assert.equal(bad.stderr.trim().split('\n').length, 1);

  // Over TLS the certificate is checked against the URL's host, which also goes as SNI.
  const tlsSeen: Seen[] = [];
  const tlsPort = await listen(t, https.createServer(tlsOptions(), record(tlsSeen)));
  const secure = await runSling(['--resolve', `sling.test:${tlsPort}:127.0.0.1`, '--verify', certs!.caCert, '-b', `https://sling.test:${tlsPort}/tls`]);
  assertExit(secure, 0);
  assert.equal(tlsSeen[0]!.sni, 'sling.test');
  // ... and with HTTP/2 (its own connection code).
  const h2Seen: Seen[] = [];
  const h2Port = await listen(t, http2.createSecureServer(tlsOptions(), record(h2Seen)));
  const h2 = await runSling(['--http-version', '2', '--resolve', `sling.test:127.0.0.1`, '--verify', certs!.caCert, '--print=p', `https://sling.test:${h2Port}/h2`]);
  assertExit(h2, 0);
  assert.equal(h2Seen[0]!.line, 'GET /h2 HTTP/2.0');
  assert.equal(h2Seen[0]!.sni, 'sling.test');
});

test('--unix-socket sends to the socket; the URL gives the Host header', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'sling-sock-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const seen: Seen[] = [];
  const server = http.createServer(record(seen));
  const path = join(dir, 's.sock');
  await new Promise<void>((r) => server.listen(path, r));
  t.after(() => void server.close());
  const r = await runSling(['--unix-socket', path, '-b', 'http://api.local/containers']);
  assertExit(r, 0);
  assert.equal(r.stdout.trim(), 'ok');
  assert.deepEqual([seen[0]!.line, seen[0]!.host], ['GET /containers HTTP/1.1', 'api.local']);
});

test('--unix-socket: a missing socket, a file that is no socket and a socket nobody listens on are one line each, exit 6', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'sling-sock-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const missing = join(dir, 'missing.sock');
  const r1 = await runSling(['--unix-socket', missing, 'http://api.local/x']);
  assertError(r1, 6, `sling: error: cannot connect to Unix socket ${missing} (for api.local:80): no such file`);
  const file = join(dir, 'plain.txt');
  writeFileSync(file, 'x');
  const r2 = await runSling(['--unix-socket', file, 'http://api.local/x']);
  assertError(r2, 6, `cannot connect to Unix socket ${file} (for api.local:80): a regular file, not a socket`);
  assert.equal(r2.stderr.split('\n').filter(Boolean).length, 1, r2.stderr);
  // A socket left behind by a process that ended without closing it.
  const dead = join(dir, 'dead.sock');
  spawnSync(process.execPath, ['-e', "require('net').createServer().listen(process.argv[1], () => process.exit(0))", dead]);
  const r3 = await runSling(['--unix-socket', dead, 'http://api.local/x']);
  assertError(r3, 6, `sling: error: cannot connect to Unix socket ${dead} (for api.local:80): nothing is listening on it`);
});

test('-4 resolves to IPv4 (the remote address in --print=p); -4 with -6 is a usage error', async (t) => {
  const seen: Seen[] = [];
  const port = await listen(t, http.createServer(record(seen)));
  const r = await runSling(['-4', '--print=p', `http://localhost:${port}/four`]);
  assertExit(r, 0);
  assert.match(r.stdout, new RegExp(`^Remote address: 127\\.0\\.0\\.1:${port}$`, 'm'));
  const both = await runSling(['--ipv4', '-6', `http://localhost:${port}/`]);
  assertError(both, 1, /-4 \(--ipv4\) and -6 \(--ipv6\) exclude each other/);
  assert.equal(seen.length, 1);
});

test('--interface binds the local address (an address, or an interface by name); a bad one is exit 1', async (t) => {
  const seen: Seen[] = [];
  const port = await listen(t, http.createServer(record(seen)));
  // Any 127.x address is this machine's on the loopback interface.
  const r = await runSling(['--interface', '127.0.0.2', '--print=bp', `http://127.0.0.1:${port}/bound`]);
  assertExit(r, 0);
  assert.equal(seen[0]!.remote, '127.0.0.2');
  const h2Seen: Seen[] = [];
  const h2port = await listen(t, http2.createServer(record(h2Seen)));
  const h2 = await runSling(['--interface', '127.0.0.3', '--http-version', '2-prior-knowledge', '-b', `http://127.0.0.1:${h2port}/bound`]);
  assertExit(h2, 0);
  assert.equal(h2Seen[0]!.remote, '127.0.0.3');
  const byName = await runSling(['--interface', 'lo', '-b', `http://127.0.0.1:${port}/lo`]);
  assertExit(byName, 0);
  assert.equal(seen[1]!.remote, '127.0.0.1');

  const unknown = await runSling(['--interface', 'nosuch9', `http://127.0.0.1:${port}/`]);
  assertError(unknown, 1, /--interface 'nosuch9' is neither an IP address nor a network interface of this machine/);
  // TEST-NET-1 (RFC 5737): never this machine's; binding fails before anything is sent.
  const foreign = await runSling(['--interface', '192.0.2.77', `http://127.0.0.1:${port}/`]);
  assertError(foreign, 1, /cannot connect from local address 192\.0\.2\.77 \(--interface\)/);
  assert.equal(seen.length, 2);
});

test('--ssl pins the TLS version and --ciphers the cipher; the server sees them, --print=p shows them', { skip: noCerts }, async (t) => {
  const seen: Seen[] = [];
  const port = await listen(t, https.createServer(tlsOptions(), record(seen)));
  const url = `https://localhost:${port}/tls`;
  const base = ['--verify', certs!.caCert, '--print=p', url];
  const r12 = await runSling(['--ssl', 'tls1.2', ...base]);
  assertExit(r12, 0);
  assert.equal(seen[0]!.tls, 'TLSv1.2');
  assert.match(r12.stdout, /^TLS: TLSv1\.2, /m);
  const r13 = await runSling(['--ssl=tls1.3', ...base]);
  assertExit(r13, 0);
  assert.equal(seen[1]!.tls, 'TLSv1.3');
  const cipher = await runSling(['--ssl', 'tls1.2', '--ciphers', 'ECDHE-ECDSA-AES128-GCM-SHA256', ...base]);
  assertExit(cipher, 0);
  assert.deepEqual([seen[2]!.tls, seen[2]!.cipher], ['TLSv1.2', 'ECDHE-ECDSA-AES128-GCM-SHA256']);
  assert.match(cipher.stdout, /^TLS: TLSv1\.2, ECDHE-ECDSA-AES128-GCM-SHA256$/m);
  const other = await runSling(['--ssl', 'tls1.2', '--ciphers', 'ECDHE-ECDSA-AES256-GCM-SHA384', ...base]);
  assertExit(other, 0);
  assert.equal(seen[3]!.cipher, 'ECDHE-ECDSA-AES256-GCM-SHA384');
  // HTTPie's name for "negotiate".
  const auto = await runSling(['--ssl', 'ssl2.3', ...base]);
  assertExit(auto, 0);
  assert.equal(seen[4]!.tls, 'TLSv1.3');

  // A server that has only TLS 1.2 refuses --ssl tls1.3: a TLS failure, exit 6.
  const old = await listen(t, https.createServer({ ...tlsOptions(), maxVersion: 'TLSv1.2' }, record(seen)));
  const refused = await runSling(['--ssl', 'tls1.3', '--verify', certs!.caCert, `https://localhost:${old}/`]);
  assertError(refused, 6, /TLS handshake with localhost:\d+ failed/);

  const badVersion = await runSling(['--ssl', 'tls2', url]);
  assertError(badVersion, 1, "--ssl must be auto, tls1, tls1.1, tls1.2 or tls1.3, got 'tls2'");
  const badCiphers = await runSling(['--ciphers', 'NO-SUCH-CIPHER', '--verify', certs!.caCert, url]);
  assertError(badCiphers, 1, /--ciphers 'NO-SUCH-CIPHER' names no cipher OpenSSL knows/);
  assert.equal(seen.length, 5);
});

test('--curl prints the transport flags as curl options', async () => {
  const r = await runSling([
    '--curl',
    '--http-version',
    '1.0',
    '--resolve',
    'a.test:127.0.0.1',
    '-4',
    '--interface',
    'lo',
    '--ssl',
    'tls1.2',
    '--ciphers',
    'ECDHE-ECDSA-AES128-GCM-SHA256',
    'https://a.test/x',
  ]);
  assertExit(r, 0);
  for (const opt of ['--http1.0', '--resolve a.test:443:127.0.0.1', '-4', '--interface lo', '--tlsv1.2', '--tls-max 1.2', '--ciphers ECDHE-ECDSA-AES128-GCM-SHA256']) {
    assert.ok(r.stdout.includes(` ${opt} `) || r.stdout.includes(` ${opt}\n`), `${opt} in ${r.stdout}`);
  }
});

test('completions offer the values of --http-version and --ssl', async () => {
  for (const shell of ['bash', 'zsh', 'fish', 'powershell']) {
    const r = await runSling(['completions', shell]);
    assertExit(r, 0);
    for (const v of ['2-prior-knowledge', 'tls1.3', 'resolve', 'interface', 'unix-socket', 'ciphers', 'http-version']) assert.ok(r.stdout.includes(v), `${shell}: ${v}`);
  }
});
