// Large uploads are read as they are sent, by every route: the main command's
// @file, name@file and stdin, a .http file's `< file` (whole body and multipart part), a curl
// file's -d/--data-binary @file, -T and -F name=@file. Each is checked against a loopback server
// that hashes what it receives: the SHA-256 and the framing (Content-Length from the file's size),
// and that the file is read while the request goes out, not before: a file cut short while it is
// being sent ends with one line and exit 1, the request cut off, never a shorter body sent as
// complete; a 307, a digest challenge or a retry sends the file as it is then. No memory or time
// is measured here (bench/README.md, "Large uploads", has the 1 GiB figures).
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import http2 from 'node:http2';
import { createHash, randomBytes } from 'node:crypto';
import { closeSync, constants as fsConstants, createWriteStream, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { canMeasurePeak, runSling, type RunResult } from '../helpers/cli.js';
import { closedPort, makeCerts, certsUnavailableReason } from '../helpers/servers.js';
import { assertNoStack, show } from '../helpers/assert.js';
import { textLines } from '../../src/sources/curl/body.js';

/** Over the 1 MiB threshold, and over what loopback socket buffers take in before the server reads. */
const SIZE = 24 * 1024 * 1024 + 123;

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

interface Seen {
  method: string;
  url: string;
  version: string;
  headers: http.IncomingHttpHeaders;
  sha: string;
  bytes: number;
  complete: boolean;
}

interface Sink {
  url: string;
  seen: Seen[];
}

interface Plan {
  /** An answer other than 200 (a redirect, a challenge), given once the body has been read. */
  answer?(s: Seen, i: number): { status: number; headers?: Record<string, string> } | undefined;
  /** Called at the request's first body bytes. */
  firstData?(s: Seen, i: number): void;
}

type Req = http.IncomingMessage | http2.Http2ServerRequest;
type Res = http.ServerResponse | http2.Http2ServerResponse;

function handler(seen: Seen[], plan: Plan) {
  return (req: Req, res: Res) => {
    const i = seen.length;
    const s: Seen = { method: req.method!, url: req.url!, version: req.httpVersion, headers: req.headers, sha: '', bytes: 0, complete: false };
    seen.push(s);
    const h = createHash('sha256');
    // node:http2's compatibility layer ends a reset stream's request as if it were complete.
    let aborted = false;
    req.on('aborted', () => (aborted = true));
    req.on('data', (c: Buffer) => {
      if (s.bytes === 0) plan.firstData?.(s, i);
      h.update(c);
      s.bytes += c.length;
    });
    req.on('end', () => {
      s.sha = h.digest('hex');
      s.complete = !aborted;
      if (aborted) return;
      const a = plan.answer?.(s, i);
      (res as http.ServerResponse).writeHead(a?.status ?? 200, a?.headers ?? { 'Content-Type': 'text/plain' });
      res.end(a ? '' : `${s.sha} ${s.bytes}\n`);
    });
  };
}

async function sink(t: TestContext, plan: Plan = {}): Promise<Sink> {
  const seen: Seen[] = [];
  const server = http.createServer(handler(seen, plan));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.after(() => {
    server.closeAllConnections();
    server.close();
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

const certs = makeCerts();
const noCerts = certs ? undefined : certsUnavailableReason();

/** HTTPS with HTTP/2 (ALPN) and HTTP/1.1. */
async function tlsSink(t: TestContext, plan: Plan = {}): Promise<Sink> {
  const seen: Seen[] = [];
  const server = http2.createSecureServer({ key: readFileSync(certs!.serverKey), cert: readFileSync(certs!.serverCert), allowHTTP1: true }, handler(seen, plan));
  const sessions = new Set<http2.ServerHttp2Session>();
  const sockets = new Set<import('node:net').Socket>();
  server.on('session', (s) => sessions.add(s));
  server.on('secureConnection', (s) => sockets.add(s));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.after(() => {
    for (const s of sessions) s.destroy();
    for (const s of sockets) s.destroy();
    server.close();
  });
  return { url: `https://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

function dir(t: TestContext): string {
  const d = mkdtempSync(join(tmpdir(), 'sling-uploads-'));
  t.after(() => rmSync(d, { recursive: true, force: true }));
  return d;
}

/** A file of random bytes; returns its content. */
function file(path: string, size = SIZE): Buffer {
  const data = randomBytes(size);
  writeFileSync(path, data);
  return data;
}

/** The file is cut short at the request's first body bytes (the server goes on reading). */
const cutAtFirstBytes = (path: string): Plan => ({ firstData: () => truncateSync(path, 1024 * 1024) });

/** The run ended with one line naming the file, exit 1, and the server never got a complete body. */
function assertCutOff(r: RunResult, s: Sink, name: string) {
  assert.equal(r.code, 1, show(r));
  const lines = r.stderr.trim().split('\n');
  assert.equal(lines.length, 1, show(r));
  assert.match(
    lines[0]!,
    new RegExp(`'${name.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}' changed while it was being sent \\(${SIZE} bytes when the request was made, 1048576 now\\): the request was cut off`),
    show(r),
  );
  assertNoStack(r.stderr);
  assert.equal(s.seen.length, 1, show(r));
  assert.equal(s.seen[0]!.complete, false, 'the server must not get a complete body');
  assert.ok(s.seen[0]!.bytes < SIZE);
}

/** The body a -f/--multipart request makes of one file field, with the boundary it announced. */
function multipart(contentType: string | undefined, head: string, data: Buffer): Buffer {
  const boundary = /boundary=(\S+)/.exec(contentType ?? '')?.[1];
  assert.ok(boundary, `boundary in ${contentType}`);
  return Buffer.concat([Buffer.from(`--${boundary}\r\n${head}\r\n\r\n`), data, Buffer.from(`\r\n--${boundary}--\r\n`)]);
}

test('main command, @file: sent as read, Content-Length from its size; --offline prints it; a file cut short mid-send is cut off', async (t) => {
  const d = dir(t);
  const data = file(join(d, 'big.bin'));
  const s = await sink(t);
  const r = await runSling(['PUT', `${s.url}/put`, '@big.bin'], { cwd: d, timeoutMs: 60000 });
  assert.equal(r.code, 0, show(r));
  assert.equal(s.seen[0]!.sha, sha(data));
  assert.equal(s.seen[0]!.headers['content-length'], String(SIZE));
  assert.equal(s.seen[0]!.headers['transfer-encoding'], undefined);
  assert.equal(s.seen[0]!.headers['content-type'], 'application/octet-stream');

  // --offline --print=B: the body's bytes, as they are.
  const off = await runSling(['--offline', '--print=B', 'PUT', `${s.url}/put`, '@big.bin'], { cwd: d, timeoutMs: 60000 });
  assert.equal(off.code, 0, show(off));
  assert.equal(sha(off.stdoutBytes), sha(data));

  const cut = await sink(t, cutAtFirstBytes(join(d, 'big.bin')));
  assertCutOff(await runSling(['PUT', `${cut.url}/put`, '@big.bin'], { cwd: d, timeoutMs: 60000 }), cut, 'big.bin');
});

test('main command, name@file (-f and --multipart): the multipart body streams, with its exact Content-Length', async (t) => {
  const d = dir(t);
  const data = file(join(d, 'big.bin'));
  const s = await sink(t);
  for (const flag of ['-f', '--multipart']) {
    const r = await runSling([flag, 'POST', `${s.url}/form`, 'f@big.bin', 'a=b'], { cwd: d, timeoutMs: 60000 });
    assert.equal(r.code, 0, show(r));
  }
  for (const seen of s.seen) {
    const boundary = /boundary=(\S+)/.exec(seen.headers['content-type'] ?? '')![1];
    const expected = Buffer.concat([
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="f"; filename="big.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`),
      data,
      Buffer.from(`\r\n--${boundary}\r\nContent-Disposition: form-data; name="a"\r\n\r\nb\r\n--${boundary}--\r\n`),
    ]);
    assert.equal(seen.headers['content-length'], String(expected.length));
    assert.equal(seen.sha, sha(expected));
  }
  const cut = await sink(t, cutAtFirstBytes(join(d, 'big.bin')));
  assertCutOff(await runSling(['-f', 'POST', `${cut.url}/form`, 'f@big.bin'], { cwd: d, timeoutMs: 60000 }), cut, 'big.bin');
});

test('main command, a large body on stdin: kept in a 0600 temporary file while it is sent (Content-Length known), removed afterwards', async (t) => {
  const d = dir(t);
  const tmp = join(d, 'tmp');
  mkdirSync(tmp);
  const data = randomBytes(SIZE);
  const spooled: { size: number; mode: number }[] = [];
  const s = await sink(t, {
    firstData: () => {
      for (const sub of readdirSync(tmp))
        for (const f of readdirSync(join(tmp, sub))) {
          const st = statSync(join(tmp, sub, f));
          spooled.push({ size: st.size, mode: st.mode & 0o777 });
        }
    },
  });
  const r = await runSling(['PUT', `${s.url}/stdin`], { stdin: data, env: { TMPDIR: tmp }, timeoutMs: 60000 });
  assert.equal(r.code, 0, show(r));
  assert.equal(s.seen[0]!.sha, sha(data));
  assert.equal(s.seen[0]!.headers['content-length'], String(SIZE));
  assert.deepEqual(spooled, [{ size: SIZE, mode: 0o600 }]);
  assert.deepEqual(readdirSync(tmp), [], 'the temporary file is removed when sling exits');
  // A small body stays in memory: no file.
  const small = await runSling(['PUT', `${s.url}/stdin`], { stdin: 'hi', env: { TMPDIR: tmp } });
  assert.equal(small.code, 0, show(small));
  assert.equal(s.seen[1]!.sha, sha(Buffer.from('hi')));
  assert.equal(spooled.length, 1);
});

test('a large body on stdin: its temporary file is removed however sling ends (a failure, Ctrl-C, a curl file)', async (t) => {
  const d = dir(t);
  const tmp = join(d, 'tmp');
  mkdirSync(tmp);
  const data = randomBytes(4 << 20);
  const spooled = () => readdirSync(tmp).flatMap((sub) => readdirSync(join(tmp, sub)));
  // A failure: nobody listens.
  const url = `http://127.0.0.1:${await closedPort()}/x`;
  const refused = await runSling(['PUT', url], { stdin: data, env: { TMPDIR: tmp } });
  assert.equal(refused.code, 6, show(refused));
  assert.deepEqual(readdirSync(tmp), [], 'removed after a failure');
  // `curl -T -` in a curl file reads stdin into a temporary file too.
  writeFileSync(join(d, 'up.sh'), `curl -s -T - ${url}\n`);
  const curl = await runSling(['exec', 'up.sh'], { cwd: d, stdin: data, env: { TMPDIR: tmp } });
  assert.notEqual(curl.code, 0, show(curl));
  assert.deepEqual(readdirSync(tmp), [], 'removed after a curl file failed');
  // Ctrl-C while the body goes to a server that never reads it.
  let connected!: () => void;
  const accepted = new Promise<void>((r) => (connected = r));
  const sockets: Socket[] = [];
  const server = createServer((socket) => {
    sockets.push(socket);
    socket.pause();
    connected();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.after(() => {
    for (const s of sockets) s.destroy();
    server.close();
  });
  let pid = 0;
  const run = runSling(['PUT', `http://127.0.0.1:${(server.address() as AddressInfo).port}/x`], { stdin: data, env: { TMPDIR: tmp }, onSpawn: (p) => (pid = p) });
  await accepted;
  const during = spooled();
  process.kill(pid, 'SIGINT');
  const interrupted = await run;
  assert.equal(interrupted.code, 130, show(interrupted));
  assert.equal(during.length, 1, 'the body was in a temporary file while it was sent');
  assert.deepEqual(readdirSync(tmp), [], 'removed after Ctrl-C');
});

test('main command: a 307 and a digest challenge send the file again as it is then (read anew, not held)', async (t) => {
  const d = dir(t);
  const path = join(d, 'big.bin');
  file(path);
  let second: Buffer = Buffer.alloc(0);
  const s = await sink(t, {
    answer: (_s, i) => {
      if (i !== 0) return undefined;
      // The file changes (same size) before the redirect: the next hop sends what it holds now.
      second = file(path);
      return { status: 307, headers: { Location: '/again' } };
    },
  });
  const r = await runSling(['--follow', 'PUT', `${s.url}/first`, '@big.bin'], { cwd: d, timeoutMs: 60000 });
  assert.equal(r.code, 0, show(r));
  assert.equal(s.seen.length, 2);
  assert.equal(s.seen[1]!.url, '/again');
  assert.equal(s.seen[1]!.headers['content-length'], String(SIZE));
  assert.equal(s.seen[1]!.sha, sha(second));

  // Digest over HTTPS (node:http's TLS lane): the 401 round trip.
  if (noCerts) return;
  let third: Buffer = Buffer.alloc(0);
  const tls = await tlsSink(t, {
    answer: (seen) => {
      if (seen.headers.authorization) return undefined;
      third = file(path);
      return { status: 401, headers: { 'WWW-Authenticate': 'Digest realm="r", nonce="abc", qop="auth"' } };
    },
  });
  const dg = await runSling(['--verify', certs!.caCert, '-A', 'digest', '-a', 'u:p', 'PUT', `${tls.url}/digest`, '@big.bin'], { cwd: d, timeoutMs: 60000 });
  assert.equal(dg.code, 0, show(dg));
  assert.equal(tls.seen.length, 2, show(dg));
  assert.match(String(tls.seen[1]!.headers.authorization), /^Digest /);
  assert.equal(tls.seen[1]!.sha, sha(third));
  assert.equal(tls.seen[1]!.headers['content-length'], String(SIZE));
});

test('sling exec, .http: `< file` as the body and as a multipart part stream; a 307 on the keep-alive lane reads it again', async (t) => {
  const d = dir(t);
  const path = join(d, 'big.bin');
  const data = file(path);
  let second: Buffer = Buffer.alloc(0);
  const s = await sink(t, {
    answer: (seen) => {
      if (seen.url !== '/moved') return undefined;
      second = file(path);
      return { status: 307, headers: { Location: '/moved-here' } };
    },
  });
  writeFileSync(
    join(d, 'up.http'),
    `PUT ${s.url}/body\nContent-Type: application/octet-stream\n\n< ./big.bin\n\n###\nPOST ${s.url}/form\nContent-Type: multipart/form-data; boundary=XyZ\n\n--XyZ\nContent-Disposition: form-data; name="f"; filename="big.bin"\n\n< ./big.bin\n--XyZ--\n\n###\nPOST ${s.url}/moved\n\n< ./big.bin\n`,
  );
  const r = await runSling(['exec', 'up.http'], { cwd: d, timeoutMs: 60000 });
  assert.equal(r.code, 0, show(r));
  const [body, form, moved, here] = s.seen;
  assert.equal(body!.sha, sha(data));
  assert.equal(body!.headers['content-length'], String(SIZE));
  const expected = multipart('boundary=XyZ', 'Content-Disposition: form-data; name="f"; filename="big.bin"', data);
  assert.equal(form!.sha, sha(expected));
  assert.equal(form!.headers['content-length'], String(expected.length));
  assert.equal(moved!.sha, sha(data));
  assert.equal(here!.url, '/moved-here');
  assert.equal(here!.sha, sha(second));

  file(path);
  const cut = await sink(t, cutAtFirstBytes(path));
  writeFileSync(join(d, 'cut.http'), `PUT ${cut.url}/body\n\n< ./big.bin\n`);
  const c = await runSling(['exec', 'cut.http'], { cwd: d, timeoutMs: 60000 });
  assert.match(c.stderr, /^sling: error: cut\.http:1: '\.\/big\.bin' changed while it was being sent/m, show(c));
  assert.equal(c.code, 1, show(c));
  assert.equal(cut.seen[0]!.complete, false);
});

test('sling exec, curl: -d @file (read as curl reads text), --data-binary @file, -T file and -F name=@file stream with their exact lengths', async (t) => {
  const d = dir(t);
  const path = join(d, 'big.bin');
  const data = file(path);
  // Text lines with CR, NUL and lines longer than 255 bytes: -d @file's reading runs a piece at a time.
  const lines: Buffer[] = [];
  for (let n = 0; n < 6 * 1024 * 1024; ) {
    const line = Buffer.from(
      randomBytes(1 + (n % 700))
        .toString('base64')
        .replace(/[+]/g, '\r')
        .replace(/[/]/g, '\0'),
      'latin1',
    );
    lines.push(line, Buffer.from('\n'));
    n += line.length + 1;
  }
  const text = Buffer.concat(lines);
  writeFileSync(join(d, 'text.txt'), text);
  const s = await sink(t);
  writeFileSync(
    join(d, 'up.curl'),
    [`curl -s -d @text.txt ${s.url}/d`, `curl -s -d a=1 --data-binary @big.bin -d z ${s.url}/bin`, `curl -s -T big.bin ${s.url}/t/`, `curl -s -F f=@big.bin -F 'g=<text.txt' ${s.url}/form`, ''].join(
      '\n',
    ),
  );
  const r = await runSling(['exec', 'up.curl'], { cwd: d, timeoutMs: 120000 });
  assert.equal(r.code, 0, show(r));
  const [dd, bin, put, form] = s.seen;
  const lined = Buffer.from(textLines(text.toString('latin1')), 'latin1');
  assert.ok(lined.length < text.length);
  assert.equal(dd!.sha, sha(lined));
  assert.equal(dd!.headers['content-length'], String(lined.length));
  const joined = Buffer.concat([Buffer.from('a=1&'), data, Buffer.from('&z')]);
  assert.equal(bin!.sha, sha(joined));
  assert.equal(bin!.headers['content-length'], String(joined.length));
  assert.equal(put!.method, 'PUT');
  assert.equal(put!.url, '/t/big.bin');
  assert.equal(put!.sha, sha(data));
  assert.equal(put!.headers['content-length'], String(SIZE));
  assert.equal(put!.headers.expect, '100-continue');
  const boundary = /boundary=(\S+)/.exec(form!.headers['content-type'] ?? '')![1];
  const expected = Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="f"; filename="big.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`),
    data,
    Buffer.from(`\r\n--${boundary}\r\nContent-Disposition: form-data; name="g"\r\n\r\n`),
    text,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  assert.equal(form!.sha, sha(expected));
  assert.equal(form!.headers['content-length'], String(expected.length));

  const cut = await sink(t, cutAtFirstBytes(path));
  writeFileSync(join(d, 'cut.curl'), `curl -s --data-binary @big.bin ${cut.url}/cut\n`);
  const c = await runSling(['exec', 'cut.curl'], { cwd: d, timeoutMs: 60000 });
  assert.match(c.stderr, /^sling: error: cut\.curl:1: 'big\.bin' changed while it was being sent/m, show(c));
  assert.equal(c.code, 1, show(c));
  assert.equal(cut.seen[0]!.complete, false);
});

test('sling exec, curl: --retry sends the file again as it is then', async (t) => {
  const d = dir(t);
  const path = join(d, 'big.bin');
  file(path);
  let second: Buffer = Buffer.alloc(0);
  const s = await sink(t, {
    answer: (_s, i) => {
      if (i !== 0) return undefined;
      second = file(path);
      return { status: 503, headers: { 'Retry-After': '0' } };
    },
  });
  writeFileSync(join(d, 'retry.curl'), `curl -s --retry 1 -T big.bin ${s.url}/r\n`);
  const r = await runSling(['exec', 'retry.curl'], { cwd: d, timeoutMs: 60000 });
  assert.equal(r.code, 0, show(r));
  assert.equal(s.seen.length, 2, show(r));
  assert.equal(s.seen[1]!.sha, sha(second));
  assert.equal(s.seen[1]!.headers['content-length'], String(SIZE));
});

test('sling exec, curl --http2 over TLS: the HTTP/2 lane streams the file too', { skip: noCerts }, async (t) => {
  const d = dir(t);
  const path = join(d, 'big.bin');
  const data = file(path);
  const s = await tlsSink(t);
  writeFileSync(join(d, 'h2.curl'), `curl -s --http2 --cacert ${certs!.caCert} --data-binary @big.bin ${s.url}/h2\n`);
  const r = await runSling(['exec', 'h2.curl'], { cwd: d, timeoutMs: 60000 });
  assert.equal(r.code, 0, show(r));
  assert.equal(s.seen[0]!.version, '2.0');
  assert.equal(s.seen[0]!.sha, sha(data));
  assert.equal(s.seen[0]!.headers['content-length'], String(SIZE));

  const cut = await tlsSink(t, cutAtFirstBytes(path));
  writeFileSync(join(d, 'cut.curl'), `curl -s --http2 --cacert ${certs!.caCert} --data-binary @big.bin ${cut.url}/h2\n`);
  const c = await runSling(['exec', 'cut.curl'], { cwd: d, timeoutMs: 60000 });
  assert.match(c.stderr, /^sling: error: cut\.curl:1: 'big\.bin' changed while it was being sent/m, show(c));
  assert.equal(c.code, 1, show(c));
  assert.equal(cut.seen[0]!.complete, false);
});

test('sling exec, curl -T -, --data-binary @-, -d @-: a body piped in arrives whole (-T - went out empty when the pipe was not full at once)', async (t) => {
  const d = dir(t);
  const data = randomBytes(3 * 1024 * 1024);
  const s = await sink(t);
  writeFileSync(join(d, 'stdin.curl'), `curl -s -T - ${s.url}/in\n`);
  const r = await runSling(['exec', 'stdin.curl'], { cwd: d, stdin: data, timeoutMs: 60000 });
  assert.equal(r.code, 0, show(r));
  assert.equal(s.seen[0]!.sha, sha(data));
  assert.equal(s.seen[0]!.headers['transfer-encoding'], 'chunked');
  // Past 1 MiB, standard input is kept in a temporary file and sent from there: --data-binary @-
  // with its Content-Length, -d @- read as curl reads text.
  writeFileSync(join(d, 'data.curl'), `curl -s --data-binary @- ${s.url}/bin\n`);
  const b = await runSling(['exec', 'data.curl'], { cwd: d, stdin: data, timeoutMs: 60000 });
  assert.equal(b.code, 0, show(b));
  assert.equal(s.seen[1]!.sha, sha(data));
  assert.equal(s.seen[1]!.headers['content-length'], String(data.length));
  const text = Buffer.from('a\r\nb\0c\n'.repeat(300000), 'latin1');
  writeFileSync(join(d, 'text.curl'), `curl -s -d @- ${s.url}/text\n`);
  const tx = await runSling(['exec', 'text.curl'], { cwd: d, stdin: text, timeoutMs: 60000 });
  assert.equal(tx.code, 0, show(tx));
  assert.equal(s.seen[2]!.sha, sha(Buffer.from('ab'.repeat(300000))));
  assert.equal(s.seen[2]!.headers['content-length'], '600000');
});

// Named pipes (mkfifo): read once, size known at their end. A body from one is kept in a 0600
// temporary file while it is read (upload.ts spoolPipe) and sent from there, never held in memory:
// each run's peak resident memory (VmHWM, written by a preload at exit) stays below the body's size.
// Read whole, as before, it took more than twice the body's size.

/** Larger than sling's own resident memory, so that holding it once shows. */
const PIPED = 128 * 1024 * 1024;

/** A named pipe in `d`; undefined (the test skipped) without mkfifo. */
async function namedPipe(t: TestContext, d: string, name: string): Promise<string | undefined> {
  const { spawnSync } = await import('node:child_process');
  const path = join(d, name);
  if (spawnSync('mkfifo', [path]).status !== 0) {
    t.skip('mkfifo is not available');
    return undefined;
  }
  return path;
}

/** Writes `data` into the pipe once a reader opens it; unblock() lets a writer that nobody read go. */
function feed(path: string, data: Buffer): { done: Promise<void>; unblock(): void } {
  const ws = createWriteStream(path);
  const done = new Promise<void>((resolve) => {
    ws.on('close', resolve);
    ws.on('error', () => resolve());
  });
  ws.end(data);
  return {
    done,
    unblock: () => {
      try {
        closeSync(openSync(path, fsConstants.O_RDONLY | fsConstants.O_NONBLOCK));
      } catch {
        // no writer waiting
      }
    },
  };
}

/** A sling run with its peak resident memory in bytes; the pipes' writers are let go once it ends. */
async function runMeasured(d: string, args: string[], feeds: { done: Promise<void>; unblock(): void }[], env: Record<string, string> = {}): Promise<{ r: RunResult; peak: number }> {
  const r = await runSling(args, { cwd: d, timeoutMs: 120000, env, measurePeak: true });
  for (const f of feeds) f.unblock();
  await Promise.all(feeds.map((f) => f.done));
  assert.ok(r.peakBytes !== undefined, `no peak memory measured${show(r)}`);
  return { r, peak: r.peakBytes };
}

function assertBelowBody(peak: number, r: RunResult) {
  assert.ok(peak < PIPED, `peak resident memory ${Math.round(peak / 1048576)} MiB, not below the ${PIPED / 1048576} MiB body; ${show(r)}`);
}

const noProcStatus = canMeasurePeak ? undefined : 'no /proc/self/status to read the peak memory from';

test('main command, @fifo and --download with @fifo: a named pipe is kept in a temporary file and sent whole with its Content-Length, memory below its size', { skip: noProcStatus }, async (t) => {
  const d = dir(t);
  const pipe = await namedPipe(t, d, 'fifo');
  if (!pipe) return;
  const data = randomBytes(PIPED);
  const tmp = join(d, 'tmp');
  mkdirSync(tmp);
  const spooled: { size: number; mode: number }[] = [];
  const s = await sink(t, {
    firstData: () => {
      for (const sub of readdirSync(tmp))
        for (const f of readdirSync(join(tmp, sub))) {
          const st = statSync(join(tmp, sub, f));
          spooled.push({ size: st.size, mode: st.mode & 0o777 });
        }
    },
  });
  for (const args of [
    ['PUT', `${s.url}/put`, '@fifo'],
    ['--download', '--output', 'saved', 'PUT', `${s.url}/download`, '@fifo'],
  ]) {
    const { r, peak } = await runMeasured(d, args, [feed(pipe, data)], { TMPDIR: tmp });
    assert.equal(r.code, 0, show(r));
    const seen = s.seen[s.seen.length - 1]!;
    assert.equal(seen.sha, sha(data), show(r));
    assert.equal(seen.headers['content-length'], String(PIPED));
    assertBelowBody(peak, r);
    assert.deepEqual(readdirSync(tmp), [], 'the temporary file is removed when sling exits');
  }
  assert.deepEqual(spooled, [
    { size: PIPED, mode: 0o600 },
    { size: PIPED, mode: 0o600 },
  ]);
});

test('sling exec, .http: `< ./fifo` on the keep-alive lane is sent whole, memory below its size', { skip: noProcStatus }, async (t) => {
  const d = dir(t);
  const pipe = await namedPipe(t, d, 'fifo');
  if (!pipe) return;
  const data = randomBytes(PIPED);
  const s = await sink(t);
  writeFileSync(join(d, 'up.http'), `PUT ${s.url}/body\nContent-Type: application/octet-stream\n\n< ./fifo\n`);
  const { r, peak } = await runMeasured(d, ['exec', 'up.http'], [feed(pipe, data)]);
  assert.equal(r.code, 0, show(r));
  assert.equal(s.seen[0]!.sha, sha(data));
  assert.equal(s.seen[0]!.headers['content-length'], String(PIPED));
  assertBelowBody(peak, r);
});

test('sling exec, curl: -T fifo, --data-binary @fifo and -d @fifo (read as curl reads text) are sent whole, memory below their size', { skip: noProcStatus }, async (t) => {
  const d = dir(t);
  const pipes: string[] = [];
  for (const n of ['t', 'b', 'd']) {
    const p = await namedPipe(t, d, n);
    if (!p) return;
    pipes.push(p);
  }
  const data = randomBytes(PIPED);
  const s = await sink(t);
  // One pipe each: commands run one after the other, and each opens its own.
  writeFileSync(join(d, 'up.curl'), `curl -s -T t ${s.url}/t\ncurl -s --data-binary @b ${s.url}/b\ncurl -s -d @d ${s.url}/d\n`);
  const { r, peak } = await runMeasured(
    d,
    ['exec', 'up.curl'],
    pipes.map((p) => feed(p, data)),
  );
  assert.equal(r.code, 0, show(r));
  const [put, binary, text] = s.seen;
  assert.equal(put!.method, 'PUT');
  assert.equal(put!.sha, sha(data));
  assert.equal(binary!.sha, sha(data));
  assert.equal(binary!.headers['content-length'], String(PIPED));
  assert.equal(text!.sha, sha(Buffer.from(textLines(data.toString('latin1')), 'latin1')));
  assertBelowBody(peak, r);
});

test('sling exec, curl --http2 over TLS: --data-binary @fifo goes out whole on the HTTP/2 lane, memory below its size', { skip: noCerts ?? noProcStatus }, async (t) => {
  const d = dir(t);
  const pipe = await namedPipe(t, d, 'fifo');
  if (!pipe) return;
  const data = randomBytes(PIPED);
  const s = await tlsSink(t);
  writeFileSync(join(d, 'h2.curl'), `curl -s --http2 --cacert ${certs!.caCert} --data-binary @fifo ${s.url}/h2\n`);
  const { r, peak } = await runMeasured(d, ['exec', 'h2.curl'], [feed(pipe, data)]);
  assert.equal(r.code, 0, show(r));
  assert.equal(s.seen[0]!.version, '2.0');
  assert.equal(s.seen[0]!.sha, sha(data));
  assertBelowBody(peak, r);
});
