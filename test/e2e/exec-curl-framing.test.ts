// A curl file's request goes out as curl writes it on every route, not only over plain HTTP:
// HTTPS, a plain-HTTP proxy, a CONNECT tunnel to HTTPS, a Unix socket. sling writes those request
// heads itself (client.ts); node:http would upper-case the method, add `Connection:
// keep-alive`, write `X-Empty: ` with a space, and frame a body-less POST as chunked. Each head is
// captured byte for byte on a raw server and compared with what real curl sent to the same server.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import tls from 'node:tls';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runSling } from '../helpers/cli.js';
import { curlMissing } from '../helpers/curl-capture.js';
import { proxyServer } from '../helpers/assert.js';
import { certsUnavailableReason, makeCerts } from '../helpers/servers.js';

const certs = makeCerts();
const noCurl = curlMissing();

/** A server that keeps each request head (and body) as bytes and answers 200 `ok`, keeping the connection. */
function headServer(make: (onSocket: (s: net.Socket) => void) => net.Server) {
  const heads: string[] = [];
  const server = make((socket) => {
    socket.on('error', () => {});
    let buf = Buffer.alloc(0);
    socket.on('data', (d: Buffer) => {
      buf = Buffer.concat([buf, d]);
      for (;;) {
        const end = buf.indexOf('\r\n\r\n');
        if (end === -1) return;
        const head = buf.subarray(0, end + 4).toString('latin1');
        const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? 0);
        if (buf.length < end + 4 + length) return;
        heads.push(head + buf.subarray(end + 4, end + 4 + length).toString('latin1'));
        buf = buf.subarray(end + 4 + length);
        socket.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok');
      }
    });
  });
  return { heads, server };
}

async function listen(server: net.Server, where: number | string = 0): Promise<number> {
  await new Promise<void>((r) => (typeof where === 'string' ? server.listen(where, r) : server.listen(where, '127.0.0.1', r)));
  const a = server.address();
  return typeof a === 'object' && a ? a.port : 0;
}

/** Runs one command line with bash, asynchronously (the servers live in this process). */
function shell(line: string, dir: string, home: string): Promise<{ status: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['-c', line], { cwd: dir, env: { ...process.env, HOME: home }, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr!.on('data', (d: Buffer) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stderr });
    });
  });
}

/** The same command lines through real curl (when installed, one process each, first) and then through `sling exec` (one file). */
async function both(dir: string, lines: string[]) {
  const home = mkdtempSync(join(tmpdir(), 'sling-framing-home-'));
  const curl = [];
  if (!noCurl) for (const l of lines) curl.push(await shell(l, dir, home));
  writeFileSync(join(dir, 'c.sh'), lines.join('\n') + '\n');
  return { curl, sling: await runSling(['exec', 'c.sh'], { cwd: dir, env: { HOME: home } }) };
}

const LINES = (url: string, extra: string) => [`curl -s ${extra} -X wHat -H 'X-Empty;' -H 'X-A: 1' ${url}/one`, `curl -s ${extra} -X POST ${url}/two`, `curl -s ${extra} -d 'a=1' ${url}/three`];

/** What must hold whatever curl is installed: the method as written, `X-Empty:` bare, no Connection, no chunked framing. */
function assertCurlFraming(heads: string[], target: (path: string) => string) {
  assert.equal(heads.length, 3, heads.join('\n---\n'));
  assert.ok(heads[0]!.startsWith(`wHat ${target('/one')} HTTP/1.1\r\n`), heads[0]);
  assert.match(heads[0]!, /\r\nX-Empty:\r\n/);
  assert.ok(heads[1]!.startsWith(`POST ${target('/two')} HTTP/1.1\r\n`), heads[1]);
  assert.match(heads[2]!, /\r\nContent-Length: 3\r\n[\s\S]*\r\n\r\na=1$/);
  for (const h of heads) {
    assert.doesNotMatch(h, /\r\nConnection:/i, h);
    assert.doesNotMatch(h, /\r\nTransfer-Encoding:/i, h);
  }
  assert.doesNotMatch(heads[1]!, /\r\nContent-Length:/i, heads[1]);
}

/** sling's heads against curl's, with the User-Agent line left out (it names curl's version). */
function assertSameAsCurl(curlHeads: string[], slingHeads: string[]) {
  const ua = (h: string) => h.replace(/\r\nUser-Agent: [^\r]*/i, '');
  assert.deepEqual(slingHeads.map(ua), curlHeads.map(ua));
}

test('curl framing over HTTPS: the method as written, `Name:` bare, no Connection line, no chunked POST', { skip: certs ? false : certsUnavailableReason() }, async (t) => {
  const { heads, server } = headServer((on) => tls.createServer({ key: readFileSync(certs!.serverKey), cert: readFileSync(certs!.serverCert) }, on));
  const port = await listen(server);
  t.after(() => server.close());
  const dir = mkdtempSync(join(tmpdir(), 'sling-framing-'));
  const url = `https://127.0.0.1:${port}`;
  const { curl, sling: r } = await both(dir, LINES(url, `--cacert ${certs!.caCert}`));
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stderr, '');
  if (noCurl) return assertCurlFraming(heads, (p) => p);
  assert.ok(
    curl.every((c) => c.status === 0),
    curl.map((c) => c.stderr).join(''),
  );
  assertCurlFraming(heads.slice(3), (p) => p);
  assertSameAsCurl(heads.slice(0, 3), heads.slice(3));
});

test('curl framing through a plain-HTTP proxy: absolute target, Proxy-Connection as curl sends it', async (t) => {
  const { heads, server } = headServer((on) => net.createServer(on));
  const port = await listen(server);
  t.after(() => server.close());
  const dir = mkdtempSync(join(tmpdir(), 'sling-framing-'));
  // The "proxy" is the head server itself: what it receives is what a proxy would.
  const { curl, sling: r } = await both(dir, LINES('http://origin.test:8080', `-x http://127.0.0.1:${port}`));
  assert.equal(r.code, 0, r.stderr);
  const own = noCurl ? heads : heads.slice(3);
  assertCurlFraming(own, (p) => `http://origin.test:8080${p}`);
  for (const h of own) assert.match(h, /\r\nProxy-Connection: Keep-Alive\r\n/);
  if (!noCurl) {
    assert.ok(
      curl.every((c) => c.status === 0),
      curl.map((c) => c.stderr).join(''),
    );
    assertSameAsCurl(heads.slice(0, 3), own);
  }
});

test('curl framing in a CONNECT tunnel to HTTPS and on a Unix socket', { skip: certs ? false : certsUnavailableReason() }, async (t) => {
  const tlsHeads = headServer((on) => tls.createServer({ key: readFileSync(certs!.serverKey), cert: readFileSync(certs!.serverCert) }, on));
  const tlsPort = await listen(tlsHeads.server);
  t.after(() => tlsHeads.server.close());
  const proxy = await proxyServer(t);
  const dir = mkdtempSync(join(tmpdir(), 'sling-framing-'));
  const tunnel = await both(dir, LINES(`https://127.0.0.1:${tlsPort}`, `--cacert ${certs!.caCert} -x ${proxy.url}`));
  const r = tunnel.sling;
  assert.equal(r.code, 0, r.stderr);
  const own = noCurl ? tlsHeads.heads : tlsHeads.heads.slice(3);
  assertCurlFraming(own, (p) => p);
  if (!noCurl) assertSameAsCurl(tlsHeads.heads.slice(0, 3), own);
  assert.ok(proxy.connects.length >= 1);

  const unixHeads = headServer((on) => net.createServer(on));
  const path = join(dir, 's.sock');
  await listen(unixHeads.server, path);
  t.after(() => unixHeads.server.close());
  const unix = await both(dir, LINES('http://api.local', `--unix-socket ${path}`));
  const u = unix.sling;
  assert.equal(u.code, 0, u.stderr);
  const ownUnix = noCurl ? unixHeads.heads : unixHeads.heads.slice(3);
  assertCurlFraming(ownUnix, (p) => p);
  assert.match(ownUnix[0]!, /\r\nHost: api\.local\r\n/);
  if (!noCurl) assertSameAsCurl(unixHeads.heads.slice(0, 3), ownUnix);
});
