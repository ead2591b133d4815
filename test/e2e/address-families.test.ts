// Address families and sockets, as curl treats them: -6 reaches localhost over ::1 whatever the
// hosts file lists; an address of the other family than -4/-6 or --interface ask for is one line,
// exit 6 (curl fails to connect, exit 7), never a connection in the other family; a --unix-socket
// path that is a regular file is said to be no socket; HTTP/2 with prior knowledge is spoken over
// a Unix socket. On the main command, `sling exec` of a .http file and of a curl file (against
// real curl where it runs here).
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import http2 from 'node:http2';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runSling } from '../helpers/cli.js';
import { curlMissing } from '../helpers/curl-capture.js';
import { assertError, assertExit } from '../helpers/assert.js';

const noCurl = curlMissing();
const home = mkdtempSync(join(tmpdir(), 'sling-af-home-'));

function dir(t: TestContext): string {
  const d = mkdtempSync(join(tmpdir(), 'sling-af-'));
  t.after(() => rmSync(d, { recursive: true, force: true }));
  return d;
}

/** A server on the address (127.0.0.1 or ::1) recording the remote address and HTTP version of each request; undefined when the address cannot be bound here. */
async function serverOn(t: TestContext, address: string, seen: string[]): Promise<number | undefined> {
  const server = http.createServer((req, res) => {
    seen.push(`${req.socket.remoteAddress} HTTP/${req.httpVersion}`);
    res.end('ok\n');
  });
  const ok = await new Promise<boolean>((resolve) => {
    server.once('error', () => resolve(false));
    server.listen(0, address, () => resolve(true));
  });
  if (!ok) return undefined;
  t.after(() => void server.close());
  return (server.address() as { port: number }).port;
}

/** Real curl's exit code for one command line (bash -c), run while the servers of this process keep answering. */
async function curlExit(line: string, cwd: string): Promise<number | null> {
  return await new Promise((resolve) => {
    const child = spawn('bash', ['-c', line], { cwd, env: { ...process.env, HOME: home }, stdio: 'ignore' });
    child.on('close', (code) => resolve(code));
  });
}

const noIpv6 = spawnSync(process.execPath, ['-e', "require('net').createServer().once('error',()=>process.exit(1)).listen(0,'::1',function(){this.close()})"]).status !== 0;

test('-6 reaches localhost over ::1 even when the hosts file lists localhost as 127.0.0.1 only (as curl does); -4 over 127.0.0.1', { skip: noIpv6 && 'no IPv6 loopback (::1) here' }, async (t) => {
  const six: string[] = [];
  const port = await serverOn(t, '::1', six);
  assert.ok(port);
  const r = await runSling(['-6', '-b', `http://localhost:${port}/`]);
  assertExit(r, 0);
  assert.deepEqual(six, ['::1 HTTP/1.1']);
  // --interface ::1 asks for IPv6 the same way.
  const bound = await runSling(['--interface', '::1', '-b', `http://localhost:${port}/`]);
  assertExit(bound, 0);
  assert.equal(six.length, 2);
  const four: string[] = [];
  const port4 = await serverOn(t, '127.0.0.1', four);
  assertExit(await runSling(['-4', '-b', `http://localhost:${port4}/`]), 0);
  assert.deepEqual(four, ['127.0.0.1 HTTP/1.1']);
});

test("sling exec: a curl file's -6 and a .http file run with -6 reach localhost over ::1, as real curl does", { skip: noIpv6 && 'no IPv6 loopback (::1) here' }, async (t) => {
  const six: string[] = [];
  const port = await serverOn(t, '::1', six);
  const d = dir(t);
  writeFileSync(join(d, 'c.sh'), `curl -s -6 http://localhost:${port}/\n`);
  writeFileSync(join(d, 'a.http'), `GET http://localhost:${port}/\n`);
  assertExit(await runSling(['exec', '-b', 'c.sh'], { cwd: d, env: { HOME: home } }), 0);
  assertExit(await runSling(['exec', '-b', '-6', 'a.http'], { cwd: d, env: { HOME: home } }), 0);
  assert.deepEqual(six, ['::1 HTTP/1.1', '::1 HTTP/1.1']);
  if (!noCurl) assert.equal(await curlExit(`curl -s -o /dev/null -6 http://localhost:${port}/`, d), 0);
});

test('-4 to an IPv6 address and -6 to an IPv4 address are one line each naming the address and its family, exit 6; nothing is sent in the other family', {
  skip: noIpv6 && 'no IPv6 loopback (::1) here',
}, async (t) => {
  const seen: string[] = [];
  const port6 = await serverOn(t, '::1', seen);
  const port4 = await serverOn(t, '127.0.0.1', seen);
  const r4 = await runSling(['-4', `http://[::1]:${port6}/`]);
  assertError(r4, 6, `sling: error: cannot connect to [::1]:${port6}: ::1 is an IPv6 address, and -4 (--ipv4) connects over IPv4 only`);
  assert.equal(r4.stderr.trim().split('\n').length, 1, r4.stderr);
  const r6 = await runSling(['-6', `http://127.0.0.1:${port4}/`]);
  assertError(r6, 6, `sling: error: cannot connect to 127.0.0.1:${port4}: 127.0.0.1 is an IPv4 address, and -6 (--ipv6) connects over IPv6 only`);
  // The address --resolve gives is checked the same way.
  const resolved = await runSling(['-6', '--resolve', `api.test:${port4}:127.0.0.1`, `http://api.test:${port4}/`]);
  assertError(resolved, 6, /127\.0\.0\.1 is an IPv4 address, and -6 \(--ipv6\)/);
  // Over HTTP/2 (its own connection code) too.
  const h2 = await runSling(['-6', '--http-version', '2-prior-knowledge', `http://127.0.0.1:${port4}/`]);
  assertError(h2, 6, /127\.0\.0\.1 is an IPv4 address, and -6 \(--ipv6\)/);
  assert.deepEqual(seen, []);
});

test("sling exec: a curl file's -4 to [::1] and a .http file run with -6 to 127.0.0.1 fail in one line naming the file and line, exit 6 (curl: exit 7)", {
  skip: noIpv6 && 'no IPv6 loopback (::1) here',
}, async (t) => {
  const seen: string[] = [];
  const port6 = await serverOn(t, '::1', seen);
  const port4 = await serverOn(t, '127.0.0.1', seen);
  const d = dir(t);
  const line = `curl -s -g -4 http://[::1]:${port6}/`;
  writeFileSync(join(d, 'c.sh'), `${line}\n`);
  writeFileSync(join(d, 'a.http'), `GET http://127.0.0.1:${port4}/\n`);
  const c = await runSling(['exec', 'c.sh'], { cwd: d, env: { HOME: home } });
  assertError(c, 6, /^sling: error: c\.sh:1: .*::1 is an IPv6 address, and -4 \(--ipv4\) connects over IPv4 only/m);
  const h = await runSling(['exec', '-6', 'a.http'], { cwd: d, env: { HOME: home } });
  assert.equal(h.code, 6, h.stderr);
  assert.match(h.stderr, /a\.http:1.*127\.0\.0\.1 is an IPv4 address, and -6 \(--ipv6\) connects over IPv6 only/);
  assert.deepEqual(seen, []);
  if (!noCurl) assert.equal(await curlExit(line, d), 7);
});

test('--interface ::1 to an IPv4 address is one line saying the families differ, exit 6; with -4 it is a usage error, exit 1', async (t) => {
  const seen: string[] = [];
  const port = await serverOn(t, '127.0.0.1', seen);
  const r = await runSling(['--interface', '::1', `http://127.0.0.1:${port}/`]);
  assertError(r, 6, `sling: error: cannot connect to 127.0.0.1:${port}: 127.0.0.1 is an IPv4 address, and the local address ::1 (--interface) is IPv6`);
  assert.doesNotMatch(r.stderr, /EINVAL/);
  const both = await runSling(['-4', '--interface', '::1', `http://localhost:${port}/`]);
  assertError(both, 1, 'sling: error: --interface ::1 is an IPv6 address, and -4 (--ipv4) connects over IPv4 only');
  const d = dir(t);
  const line = `curl -s --interface ::1 http://127.0.0.1:${port}/`;
  writeFileSync(join(d, 'c.sh'), `${line}\n`);
  const c = await runSling(['exec', 'c.sh'], { cwd: d, env: { HOME: home } });
  assertError(c, 6, /^sling: error: c\.sh:1: .*the local address ::1 \(--interface\) is IPv6/m);
  assert.deepEqual(seen, []);
  if (!noCurl) assert.equal(await curlExit(line, d), 7);
});

test('--unix-socket naming a regular file or a directory says it is not a socket, exit 6, on the main command and in a curl file', async (t) => {
  const d = dir(t);
  const file = join(d, 'a.txt');
  writeFileSync(file, 'x');
  const r = await runSling(['--unix-socket', file, 'http://api.local/x']);
  assertError(r, 6, `sling: error: cannot connect to Unix socket ${file} (for api.local:80): a regular file, not a socket`);
  assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
  const inDir = await runSling(['--unix-socket', d, 'http://api.local/x']);
  assertError(inDir, 6, `cannot connect to Unix socket ${d} (for api.local:80): a directory, not a socket`);
  writeFileSync(join(d, 'c.sh'), 'curl -s --unix-socket ./a.txt http://api.local/x\n');
  const c = await runSling(['exec', 'c.sh'], { cwd: d, env: { HOME: home } });
  assertError(c, 6, /^sling: error: c\.sh:1: .*a\.txt.*a regular file, not a socket/m);
  if (!noCurl) assert.equal(await curlExit('curl -s --unix-socket ./a.txt http://api.local/x', d), 7);
});

test("HTTP/2 with prior knowledge goes over a Unix socket: --http-version 2-prior-knowledge, a curl file's --http2-prior-knowledge (as real curl) and a .http request line", async (t) => {
  const d = dir(t);
  const path = join(d, 'h2.sock');
  const seen: string[] = [];
  const server = http2.createServer((req, res) => {
    seen.push(`${req.method} ${req.url} HTTP/${req.httpVersion} ${req.headers[':authority']}`);
    res.end('ok\n');
  });
  await new Promise<void>((r) => server.listen(path, r));
  t.after(() => void server.close());
  const r = await runSling(['--http-version', '2-prior-knowledge', '--unix-socket', path, '-b', 'http://api.local/v1']);
  assertExit(r, 0);
  assert.equal(r.stdout, 'ok\n');
  assert.deepEqual(seen.splice(0), ['GET /v1 HTTP/2.0 api.local']);
  const line = `curl -s --http2-prior-knowledge --unix-socket ${path} http://api.local/c`;
  writeFileSync(join(d, 'c.sh'), `${line}\n`);
  assertExit(await runSling(['exec', '-b', 'c.sh'], { cwd: d, env: { HOME: home } }), 0);
  writeFileSync(join(d, 'a.http'), 'GET http://api.local/h HTTP/2 (Prior Knowledge)\n');
  assertExit(await runSling(['exec', '-b', '--unix-socket', path, 'a.http'], { cwd: d, env: { HOME: home } }), 0);
  assert.deepEqual(seen.splice(0), ['GET /c HTTP/2.0 api.local', 'GET /h HTTP/2.0 api.local']);
  if (!noCurl) {
    assert.equal(await curlExit(line, d), 0);
    assert.deepEqual(seen, ['GET /c HTTP/2.0 api.local']);
  }
});
