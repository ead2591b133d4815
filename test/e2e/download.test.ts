// Downloads (-d, -o, -C): the file on disk is complete, or a prefix that -C resumes. Real loopback
// servers that honour Range, ignore it, lie about it, close early, stall, and send hostile names.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, closeSync, existsSync, lstatSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { runSling, SLING_PATH, baseEnv } from '../helpers/cli.js';
import { assertError, httpServer, httpsServer, proxyServer, rawServer } from '../helpers/assert.js';
import { certsUnavailableReason, makeCerts } from '../helpers/servers.js';
import { until } from '../helpers/wait.js';

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const tmp = () => mkdtempSync(join(tmpdir(), 'sling-dl-'));

/** Serves `data` with Range support (206 + Content-Range), optionally throttled. */
function rangeHandler(data: Buffer, opts: { chunk?: number; delayMs?: number; headers?: Record<string, string> } = {}) {
  return (req: IncomingMessage, res: ServerResponse) => {
    let start = 0;
    const m = /^bytes=(\d+)-$/.exec(req.headers.range ?? '');
    const base = { 'Content-Type': 'application/octet-stream', ...(opts.headers ?? {}) };
    if (m) {
      start = Number(m[1]);
      if (start >= data.length) {
        res.writeHead(416, { 'Content-Range': `bytes */${data.length}` });
        res.end();
        return;
      }
      res.writeHead(206, { ...base, 'Content-Length': String(data.length - start), 'Content-Range': `bytes ${start}-${data.length - 1}/${data.length}` });
    } else {
      res.writeHead(200, { ...base, 'Content-Length': String(data.length) });
    }
    const chunk = opts.chunk ?? 64 * 1024;
    let at = start;
    const pump = () => {
      while (at < data.length) {
        const ok = res.write(data.subarray(at, Math.min(at + chunk, data.length)));
        at += chunk;
        if (opts.delayMs) {
          if (at < data.length) setTimeout(pump, opts.delayMs);
          else res.end();
          return;
        }
        if (!ok) {
          res.once('drain', pump);
          return;
        }
      }
      res.end();
    };
    res.on('close', () => (at = data.length + 1));
    pump();
  };
}

test('the download summary gives sizes in decimal units, as HTTPie does: 200,000 bytes is 200 kB, 1,500,000 is 1.50 MB', async (t) => {
  const dir = tmp();
  for (const [size, shown] of [
    [200_000, '200 kB'],
    [1_500_000, '1.50 MB'],
  ] as const) {
    const s = await httpServer(t, rangeHandler(Buffer.alloc(size, 7)));
    const r = await runSling(['-d', '-o', `f${size}.bin`, `${s.url}/f`], { cwd: dir });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, new RegExp(`^Saved ${shown.replace('.', '\\.')} to 'f${size}\\.bin' in `, 'm'));
    assert.equal(statSync(join(dir, `f${size}.bin`)).size, size);
  }
});

test('-d saves under the URL name; headers on stderr, nothing on stdout', async (t) => {
  const data = randomBytes(3000);
  const s = await httpServer(t, rangeHandler(data));
  const dir = tmp();
  const r = await runSling(['-d', `${s.url}/files/report.bin`], { cwd: dir });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, '');
  assert.match(r.stderr, /^HTTP\/1\.1 200 OK$/m);
  assert.match(r.stderr, /Saved 3\.00 kB to 'report\.bin'/);
  assert.equal(sha(readFileSync(join(dir, 'report.bin'))), sha(data));
  assert.equal(s.requests[0]!.rawHeaders.join('\n').includes('Accept-Encoding\nidentity'), true);
});

test('-d: extension from Content-Type, index for an empty path, never overwrites', async (t) => {
  const s = await httpServer(t, (_req, res) => {
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end('{"a":1}');
  });
  const dir = tmp();
  for (let i = 0; i < 3; i++) assert.equal((await runSling(['-d', `${s.url}/data`], { cwd: dir })).code, 0);
  assert.equal((await runSling(['-d', `${s.url}/`], { cwd: dir })).code, 0);
  assert.deepEqual(readdirSync(dir).sort(), ['data-1.json', 'data-2.json', 'data.json', 'index.json']);
});

test('-d: a dangling link at the suggested name is left alone and the body goes to name-1', { skip: process.platform === 'win32' ? 'symbolic links need privileges on Windows' : false }, async (t) => {
  const s = await httpServer(t, (_req, res) => {
    res.writeHead(200, { 'Content-Disposition': 'attachment; filename="report.pdf"' });
    res.end('%PDF');
  });
  const dir = tmp();
  symlinkSync(join(dir, 'gone', 'report.pdf'), join(dir, 'report.pdf'));
  const r = await runSling(['-d', `${s.url}/x`], { cwd: dir });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /Saved 4 B to 'report-1\.pdf'/);
  assert.equal(readFileSync(join(dir, 'report-1.pdf'), 'utf8'), '%PDF');
  assert.ok(lstatSync(join(dir, 'report.pdf')).isSymbolicLink(), 'the link is still there');
  assert.deepEqual(readdirSync(dir).sort(), ['report-1.pdf', 'report.pdf']);
});

test('Content-Disposition names: RFC 5987 filename*, and hostile names reduced to safe bare names', async (t) => {
  const cases: [string, string][] = [
    [`attachment; filename="plain.txt"; filename*=UTF-8''%C3%BCber%20n%C3%A4me.txt`, 'über näme.txt'],
    ['attachment; filename="../../etc/passwd"', 'passwd'],
    ['attachment; filename="..\\\\..\\\\x.txt"', 'x.txt'],
    ['attachment; filename=".bashrc"', 'bashrc'],
    ['attachment; filename="CON"', '_CON'],
    ['attachment; filename="nul.txt"', '_nul.txt'],
  ];
  for (const [cd, want] of cases) {
    const s = await httpServer(t, (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Disposition': Buffer.from(cd, 'utf8').toString('latin1') });
      res.end('x');
    });
    const dir = tmp();
    const r = await runSling(['-d', `${s.url}/dl`], { cwd: dir });
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(readdirSync(dir), [want], cd);
  }
  // Control characters (node:http will not send them, so a raw socket does).
  const raw = await rawServer(t, (socket) => {
    socket.end('HTTP/1.1 200 OK\r\nContent-Disposition: attachment; filename="a\x07b\x1b[2J.txt"\r\nContent-Length: 1\r\nConnection: close\r\n\r\nx');
  });
  const rawDir = tmp();
  const rr = await runSling(['-d', `${raw.url}/dl`], { cwd: rawDir });
  assert.equal(rr.code, 0, rr.stderr);
  assert.deepEqual(readdirSync(rawDir), ['ab[2J.txt']);
  const long = 'a'.repeat(300) + '.txt';
  const s = await httpServer(t, (_req, res) => {
    res.writeHead(200, { 'Content-Disposition': `attachment; filename="${long}"` });
    res.end('x');
  });
  const dir = tmp();
  assert.equal((await runSling(['-d', `${s.url}/dl`], { cwd: dir })).code, 0);
  const [name] = readdirSync(dir);
  assert.ok(Buffer.byteLength(name!) <= 255 && name!.endsWith('.txt') && name!.startsWith('aaa'), name);
});

test('a server-supplied name loses its bidirectional controls (no "gnp.exe" that reads as "exe.png")', async (t) => {
  const s = await httpServer(t, (_req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Disposition': "attachment; filename*=UTF-8''invoice%E2%80%AEgnp.exe%E2%81%A6%E2%80%8F" });
    res.end('x');
  });
  const dir = tmp();
  const r = await runSling(['-d', `${s.url}/dl`], { cwd: dir });
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(readdirSync(dir), ['invoicegnp.exe']);
  assert.match(r.stderr, /Saved 1 B to 'invoicegnp\.exe'/);
});

test('-o FILE and -o - (bytes on stdout, headers on stderr)', async (t) => {
  const data = randomBytes(5000);
  const s = await httpServer(t, rangeHandler(data));
  const dir = tmp();
  const r = await runSling(['-o', 'out.bin', `${s.url}/x`], { cwd: dir });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(sha(readFileSync(join(dir, 'out.bin'))), sha(data));
  const p = await runSling(['-o', '-', `${s.url}/x`], { cwd: dir });
  assert.equal(p.code, 0);
  assert.equal(sha(p.stdoutBytes), sha(data));
  assert.match(p.stderr, /^HTTP\/1\.1 200 OK$/m);
});

test('4xx/5xx write no file and exit 4/5', async (t) => {
  const s = await httpServer(t, (req, res) => {
    res.writeHead(req.url === '/missing' ? 404 : 503, { 'Content-Type': 'text/plain' });
    res.end('no');
  });
  const dir = tmp();
  const a = await runSling(['-d', `${s.url}/missing`], { cwd: dir });
  assert.equal(a.code, 4);
  assert.match(a.stderr, /sling: error: HTTP 404 Not Found: nothing was saved/);
  const b = await runSling(['-o', 'x.bin', `${s.url}/down`], { cwd: dir });
  assert.equal(b.code, 5);
  assert.deepEqual(readdirSync(dir), []);
});

test('downloads follow redirects', async (t) => {
  const data = randomBytes(1000);
  const s = await httpServer(t, (req, res) => {
    if (req.url === '/start') {
      res.writeHead(302, { Location: '/real/file.bin' });
      res.end();
    } else rangeHandler(data)(req, res);
  });
  const dir = tmp();
  const r = await runSling(['-d', `${s.url}/start`], { cwd: dir });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(sha(readFileSync(join(dir, 'file.bin'))), sha(data));
});

test('-C resumes with Range and appends a matching 206', async (t) => {
  const data = randomBytes(100_000);
  const s = await httpServer(t, rangeHandler(data));
  const dir = tmp();
  writeFileSync(join(dir, 'f.bin'), data.subarray(0, 40_000));
  const r = await runSling(['-d', '-C', '-o', 'f.bin', `${s.url}/f`], { cwd: dir });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(s.requests[0]!.rawHeaders.join('\n').includes('Range\nbytes=40000-'), true);
  assert.equal(sha(readFileSync(join(dir, 'f.bin'))), sha(data));
  // Complete already: 416 is success and the file is untouched.
  const again = await runSling(['-dc', '-o', 'f.bin', `${s.url}/f`], { cwd: dir });
  assert.equal(again.code, 0, again.stderr);
  assert.match(again.stderr, /already complete/);
  assert.equal(sha(readFileSync(join(dir, 'f.bin'))), sha(data));
});

test('a server that ignores Range: warning, and the file starts over', async (t) => {
  const data = randomBytes(10_000);
  const s = await httpServer(t, (_req, res) => {
    res.writeHead(200, { 'Content-Length': String(data.length) });
    res.end(data);
  });
  const dir = tmp();
  writeFileSync(join(dir, 'f.bin'), Buffer.from('stale bytes that must go'));
  const r = await runSling(['-d', '-C', '-o', 'f.bin', `${s.url}/f`], { cwd: dir });
  assert.equal(r.code, 0);
  assert.match(r.stderr, /sling: warning: the server ignored the Range request/);
  assert.equal(sha(readFileSync(join(dir, 'f.bin'))), sha(data));
});

// A 200 to a resume is a new copy of the whole resource; the partial file is
// replaced only once that copy is complete.
const partial = randomBytes(1_000_000);
/** A server that ignores Range: 200 with Content-Length 100, then 5 bytes, then (`how`) it closes or stalls. */
const restartServer = (t: TestContext, how: 'close' | 'stall') =>
  rawServer(t, (socket) => {
    socket.write('HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nhello');
    if (how === 'close') setTimeout(() => socket.end(), 50);
  });

test('a resume answered with 200 and cut short leaves the partial file as it was (exit 6), no temporary file left', async (t) => {
  const s = await restartServer(t, 'close');
  const dir = tmp();
  writeFileSync(join(dir, 'e.bin'), partial);
  const r = await runSling(['-d', '-C', '-o', 'e.bin', `${s.url}/e.bin`], { cwd: dir });
  assertError(r, 6, /cut short/);
  assert.match(r.stderr, /sling: warning: the server ignored the Range request \(HTTP 200\)/);
  assert.match(r.stderr, /; 'e\.bin' was left as it was, 1000000 bytes \(1\.00 MB\); the new copy begun beside it \(5 bytes\) was discarded$/m);
  assert.match(r.stderr, /^  hint: try again with: sling -d -C -o e\.bin http:\/\/127\.0\.0\.1:\d+\/e\.bin$/m);
  assert.equal(statSync(join(dir, 'e.bin')).size, 1_000_000);
  assert.equal(sha(readFileSync(join(dir, 'e.bin'))), sha(partial));
  assert.deepEqual(readdirSync(dir), ['e.bin']);
});

test('a resume answered with 200 that stalls past --timeout, or is stopped by Ctrl-C, leaves the partial file as it was', async (t) => {
  const s = await restartServer(t, 'stall');
  const dir = tmp();
  writeFileSync(join(dir, 'e.bin'), partial);
  const r = await runSling(['--timeout', '0.5', '-d', '-C', '-o', 'e.bin', `${s.url}/e.bin`], { cwd: dir });
  assertError(r, 2, /'e\.bin' was left as it was, 1000000 bytes/);
  assert.equal(sha(readFileSync(join(dir, 'e.bin'))), sha(partial));
  assert.deepEqual(readdirSync(dir), ['e.bin']);

  const child = spawn(process.execPath, [SLING_PATH, '-d', '-C', '-o', 'e.bin', `${s.url}/e.bin`], { cwd: dir, env: baseEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => (stderr += c));
  const closed = new Promise<number | null>((resolve) => child.on('close', resolve));
  // Ctrl-C once the new copy beside the file holds the 5 bytes that came.
  const part = () => readdirSync(dir).find((n) => n.endsWith('.part'));
  await until('the 5 bytes in the new copy', () => {
    const p = part();
    return p !== undefined && existsSync(join(dir, p)) && statSync(join(dir, p)).size === 5;
  });
  child.kill('SIGINT');
  const code = await closed;
  assert.equal(code, 130, stderr);
  assert.match(stderr, /^sling: interrupted; 'e\.bin' was left as it was, 1000000 bytes \(1\.00 MB\); the new copy begun beside it \(5 bytes\) was discarded$/m);
  assert.equal(sha(readFileSync(join(dir, 'e.bin'))), sha(partial));
  assert.deepEqual(readdirSync(dir), ['e.bin']);
});

test('a resume answered with 200: the partial file stays whole while the new copy comes, then is replaced (same mode, through a link)', {
  skip: process.platform === 'win32' ? 'file modes and links differ on Windows' : false,
}, async (t) => {
  const data = randomBytes(300_000);
  let release = () => {};
  const s = await httpServer(t, (_req, res) => {
    res.writeHead(200, { 'Content-Length': String(data.length) });
    res.write(data.subarray(0, 100_000));
    release = () => res.end(data.subarray(100_000));
  });
  const dir = tmp();
  const real = join(dir, 'real');
  mkdirSync(real);
  writeFileSync(join(real, 'f.bin'), partial);
  chmodSync(join(real, 'f.bin'), 0o640);
  symlinkSync(join('real', 'f.bin'), join(dir, 'link.bin'));
  let pid = 0;
  const run = runSling(['-d', '-C', '-o', 'link.bin', `${s.url}/f`], { cwd: dir, onSpawn: (p) => (pid = p) });
  // A third of the new copy has come (it is written beside the file): the file is still the partial one.
  await until('the first 100,000 bytes in the new copy beside the file', () => readdirSync(real).some((n) => n !== 'f.bin' && existsSync(join(real, n)) && statSync(join(real, n)).size === 100_000));
  assert.equal(sha(readFileSync(join(real, 'f.bin'))), sha(partial), 'the partial file is untouched until the new copy is complete');
  // The new copy's name (docs/usage.md): `.NAME.sling-PID-XXXXXX.part`, PID sling's process id.
  const beside = readdirSync(real).filter((n) => n !== 'f.bin');
  release();
  assert.equal(beside.length, 1, beside.join(', '));
  assert.match(beside[0]!, new RegExp(`^\\.f\\.bin\\.sling-${pid}-[0-9a-z]*\\.part$`));
  const r = await run;
  assert.equal(r.code, 0, r.stderr);
  assert.ok(lstatSync(join(dir, 'link.bin')).isSymbolicLink(), 'the link is still a link');
  assert.equal(sha(readFileSync(join(real, 'f.bin'))), sha(data));
  assert.equal(statSync(join(real, 'f.bin')).mode & 0o777, 0o640);
  assert.deepEqual(readdirSync(real), ['f.bin']);
});

test('a Content-Range that does not start where the file ends is refused, file untouched', async (t) => {
  const s = await httpServer(t, (_req, res) => {
    res.writeHead(206, { 'Content-Range': 'bytes 0-9/10', 'Content-Length': '10' });
    res.end('0123456789');
  });
  const dir = tmp();
  writeFileSync(join(dir, 'f.bin'), 'abc');
  const r = await runSling(['-d', '-C', '-o', 'f.bin', `${s.url}/f`], { cwd: dir });
  assert.equal(r.code, 1);
  assert.match(r.stderr, /Content-Range 'bytes 0-9\/10', which does not start at byte 3/);
  assert.equal(readFileSync(join(dir, 'f.bin'), 'utf8'), 'abc');
});

test('a body cut short keeps the partial file, prints the resume command, exits 6; resuming completes it', async (t) => {
  const data = randomBytes(50_000);
  let first = true;
  const s = await rawServer(t, (socket, head) => {
    const m = /range: bytes=(\d+)-/i.exec(head.toString());
    if (first) {
      first = false;
      socket.write(`HTTP/1.1 200 OK\r\nContent-Length: ${data.length}\r\nAccept-Ranges: bytes\r\n\r\n`);
      socket.end(data.subarray(0, 20_000));
      return;
    }
    const start = Number(m?.[1] ?? 0);
    socket.write(`HTTP/1.1 206 Partial Content\r\nContent-Length: ${data.length - start}\r\nContent-Range: bytes ${start}-${data.length - 1}/${data.length}\r\nConnection: close\r\n\r\n`);
    socket.end(data.subarray(start));
  });
  const dir = tmp();
  const r = await runSling(['-d', `${s.url}/big.bin`], { cwd: dir });
  assert.equal(r.code, 6);
  assert.match(r.stderr, /cut short/);
  assert.equal(statSync(join(dir, 'big.bin')).size, 20_000);
  const hint = /resume with: (sling .*)$/m.exec(r.stderr);
  assert.ok(hint, r.stderr);
  assert.match(hint[1]!, /--output big\.bin --continue/);
  const args = hint[1]!
    .split(' ')
    .slice(1)
    .map((a) => a.replace(/^'|'$/g, ''));
  const again = await runSling(args, { cwd: dir });
  assert.equal(again.code, 0, again.stderr);
  assert.equal(sha(readFileSync(join(dir, 'big.bin'))), sha(data));
});

test('--timeout during a download keeps the partial file and exits 2', async (t) => {
  const s = await rawServer(t, (socket) => {
    socket.write('HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n');
    socket.write(Buffer.alloc(300, 1)); // then stall
  });
  const dir = tmp();
  const r = await runSling(['-d', '--timeout', '0.5', `${s.url}/slow.bin`], { cwd: dir });
  assert.equal(r.code, 2, r.stderr);
  assert.equal(statSync(join(dir, 'slow.bin')).size, 300);
  assert.match(r.stderr, /resume with: sling .*--continue/);
});

test('Ctrl-C during a download keeps the partial file, prints the resume command, exits 130', async (t) => {
  const s = await rawServer(t, (socket) => {
    socket.write('HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n');
    socket.write(Buffer.alloc(4000, 2)); // then stall
  });
  const dir = tmp();
  const child = spawn(process.execPath, [SLING_PATH, '-d', `${s.url}/c.bin`], { cwd: dir, env: baseEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => (stderr += c));
  const poll = setInterval(() => {
    if (existsSync(join(dir, 'c.bin')) && statSync(join(dir, 'c.bin')).size >= 4000) child.kill('SIGINT');
  }, 20);
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  clearInterval(poll);
  assert.equal(code, 130);
  assert.equal(statSync(join(dir, 'c.bin')).size, 4000);
  assert.match(stderr, /resume with: sling .*c\.bin.*--continue/);
  assert.equal(stderr.match(/interrupted/g)?.length, 1, `one line says it was interrupted: ${stderr}`);
  assert.match(stderr, /^sling: interrupted; 'c\.bin' keeps 4000 bytes \(4\.00 kB\)$/m);
});

test('gzip: decoded when only the transfer was compressed, kept for a .gz file', async (t) => {
  const json = Buffer.from(JSON.stringify({ big: 'x'.repeat(5000) }));
  const gz = gzipSync(json);
  const s = await httpServer(t, (req, res) => {
    if (req.url === '/data.json') res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip', 'Content-Length': String(gz.length) });
    else res.writeHead(200, { 'Content-Type': 'application/gzip', 'Content-Encoding': 'gzip', 'Content-Length': String(gz.length) });
    res.end(gz);
  });
  const dir = tmp();
  assert.equal((await runSling(['-d', `${s.url}/data.json`], { cwd: dir })).code, 0);
  assert.equal(sha(readFileSync(join(dir, 'data.json'))), sha(json));
  assert.equal((await runSling(['-d', `${s.url}/archive.json.gz`], { cwd: dir })).code, 0);
  assert.equal(sha(readFileSync(join(dir, 'archive.json.gz'))), sha(gz));
});

test('-o - whose reader goes away mid-transfer ends quietly with exit 0', async (t) => {
  const data = randomBytes(8 * 1024 * 1024);
  const srv = await httpServer(t, rangeHandler(data, { chunk: 64 * 1024 }));
  const child = spawn(process.execPath, [SLING_PATH, '-d', '-o', '-', `${srv.url}/big.bin`], { env: baseEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  child.stdout.once('data', () => child.stdout.destroy());
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  assert.equal(code, 0, stderr);
  assert.doesNotMatch(stderr, /error|at .*\.js/);
});

test('a file that cannot be written (a full device) is exit 1 naming it, not a network failure', { skip: existsSync('/dev/full') ? false : 'this system has no /dev/full' }, async (t) => {
  const srv = await httpServer(t, rangeHandler(randomBytes(256 * 1024)));
  const r = await runSling(['--download', '--output', '/dev/full', `${srv.url}/f.bin`]);
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stderr, /^sling: error: cannot write '\/dev\/full': ENOSPC: no space left on device$/m);
  assert.doesNotMatch(r.stderr, /keeps|resume with/, 'a device keeps nothing to resume');
  assert.doesNotMatch(r.stderr, /reading the response body/);
});

// A file that cannot take more says exactly how many bytes it keeps, as the disk has them.
/** Runs sling under `sh` with its file size limit (`ulimit -f`) lowered: writes past it fail with EFBIG. */
function runLimited(blocks: number, args: string[], cwd: string): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn('sh', ['-c', `ulimit -f ${blocks} && exec "$@"`, 'sh', process.execPath, SLING_PATH, ...args], { cwd, env: baseEnv(), stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c));
    child.on('close', (code) => resolve({ code, stderr }));
  });
}

/** The byte count in `'NAME' keeps N bytes`, which must be the file's size. */
function keptBytes(stderr: string, name: string): number {
  const m = new RegExp(`'${name.replace(/\./g, '\\.')}' keeps (\\d+) bytes( \\([\\d.]+ [kMG]B\\))?`).exec(stderr);
  assert.ok(m, `no exact count of the bytes kept: ${stderr}`);
  return Number(m[1]);
}

test('a file that reaches its size limit (EFBIG) keeps what was written, and the message names that exact count', {
  skip: process.platform === 'win32' ? 'no ulimit on Windows' : false,
}, async (t) => {
  const data = randomBytes(3_000_000);
  const s = await httpServer(t, rangeHandler(data, { chunk: 100_000 }));
  const dir = tmp();
  const r = await runLimited(2048, ['-o', 'big.bin', `${s.url}/big.bin`], dir);
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stderr, /^sling: error: cannot write 'big\.bin': EFBIG: file too large; 'big\.bin' keeps \d+ bytes/m);
  const size = statSync(join(dir, 'big.bin')).size;
  assert.ok(size > 0 && size < data.length, `size ${size}`);
  assert.equal(keptBytes(r.stderr, 'big.bin'), size);
  assert.ok(readFileSync(join(dir, 'big.bin')).equals(data.subarray(0, size)), 'what is kept is a prefix');
  assert.match(r.stderr, /hint: resume with: sling -o big\.bin http:\S+ --continue$/m);
  // Resumed (206, appended): the count is the whole file's, the bytes it had before included.
  const resumed = tmp();
  writeFileSync(join(resumed, 'big.bin'), data.subarray(0, 300_000));
  const again = await runLimited(2048, ['-C', '-o', 'big.bin', `${s.url}/big.bin`], resumed);
  assert.equal(again.code, 1, again.stderr);
  const kept = statSync(join(resumed, 'big.bin')).size;
  assert.ok(kept > 300_000 && kept < data.length, `size ${kept}`);
  assert.equal(keptBytes(again.stderr, 'big.bin'), kept);
  assert.ok(readFileSync(join(resumed, 'big.bin')).equals(data.subarray(0, kept)));
});

/** A 1 MiB tmpfs of this test's own, or why there is none. */
function smallDisk(t: TestContext): string | undefined {
  if (process.platform !== 'linux') return 'a tmpfs is Linux only';
  if (process.getuid?.() !== 0) return 'mounting a tmpfs needs root';
  const where = tmp();
  const m = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', where], { encoding: 'utf8' });
  if (m.status !== 0) return `mount -t tmpfs failed here: ${(m.stderr || m.error?.message || '').trim()}`;
  t.after(() => void spawnSync('umount', [where]));
  return where;
}

test('on a full disk (a 1 MiB tmpfs) the message names the exact bytes the file keeps', async (t) => {
  const disk = smallDisk(t);
  if (!disk?.startsWith('/')) return t.skip(disk);
  const data = randomBytes(3_000_000);
  const s = await httpServer(t, rangeHandler(data, { chunk: 100_000 }));
  const r = await runSling(['-o', 'full.bin', `${s.url}/full.bin`], { cwd: disk });
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stderr, /^sling: error: cannot write 'full\.bin': ENOSPC: no space left on device; 'full\.bin' keeps \d+ bytes/m);
  const size = statSync(join(disk, 'full.bin')).size;
  assert.ok(size > 0 && size < data.length, `size ${size}`);
  assert.equal(keptBytes(r.stderr, 'full.bin'), size);
  assert.ok(readFileSync(join(disk, 'full.bin')).equals(data.subarray(0, size)));
});

test('-o naming a directory (with or without -C) is exit 1 before anything is sent', async (t) => {
  const srv = await httpServer(t, rangeHandler(randomBytes(1024)));
  const dir = tmp();
  mkdirSync(join(dir, 'adir'));
  for (const extra of [[], ['-C']]) {
    const r = await runSling(['-o', 'adir', ...extra, `${srv.url}/f.bin`], { cwd: dir });
    assertError(r, 1, /^sling: error: cannot write 'adir': it is a directory$/m);
  }
  assert.equal(srv.requests.length, 0);
});

test('-C without a file to write is exit 1', async () => {
  const r = await runSling(['-C', 'http://127.0.0.1:1/x']);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /--continue resumes a download/);
  const d = await runSling(['-d', '-C', 'http://127.0.0.1:1/x']);
  assert.equal(d.code, 1);
  assert.match(d.stderr, /--continue needs --output FILE/);
});

test('SIGKILL at 20 random points of a 50 MB download, resumed with -C each time: sha256 matches', async (t) => {
  const data = randomBytes(50 * 1024 * 1024);
  const s = await httpServer(t, rangeHandler(data, { chunk: 256 * 1024, delayMs: 2 }));
  const dir = tmp();
  const file = join(dir, 'big.bin');
  const size = () => (existsSync(file) ? statSync(file).size : 0);
  let kills = 0;
  for (let attempt = 0; attempt < 60 && size() < data.length; attempt++) {
    const target = kills < 20 ? size() + 256 * 1024 + Math.floor(Math.random() * 1.5 * 1024 * 1024) : Infinity;
    const child = spawn(process.execPath, [SLING_PATH, '-d', '-C', '-o', 'big.bin', '-q', `${s.url}/big.bin`], { cwd: dir, env: baseEnv(), stdio: 'ignore' });
    const poll = setInterval(() => {
      if (size() >= target) {
        child.kill('SIGKILL');
        clearInterval(poll);
      }
    }, 3);
    const [code, signal] = await new Promise<[number | null, string | null]>((resolve) => child.on('close', (c, sg) => resolve([c, sg])));
    clearInterval(poll);
    if (signal === 'SIGKILL') kills++;
    else assert.equal(code, 0);
  }
  assert.ok(kills >= 20, `only ${kills} kills happened`);
  assert.equal(size(), data.length);
  assert.equal(sha(readFileSync(file)), sha(data));
});

test('chunked bodies (with extensions and trailers) are decoded by the download fast lane', async (t) => {
  const s = await rawServer(t, (socket) => {
    socket.end('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n' + '5;ext=1\r\nhello\r\n' + '1\r\n \r\n' + '5\r\nworld\r\n' + '0\r\nX-Trailer: yes\r\n\r\n');
  });
  const dir = tmp();
  const r = await runSling(['-o', 'c.txt', `${s.url}/c`], { cwd: dir });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(readFileSync(join(dir, 'c.txt'), 'utf8'), 'hello world');
});

test('a body delimited by the connection closing is saved whole', async (t) => {
  const s = await rawServer(t, (socket) => {
    socket.end('HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n' + 'z'.repeat(70_000));
  });
  const dir = tmp();
  const r = await runSling(['-o', 'z.txt', `${s.url}/z`], { cwd: dir });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(statSync(join(dir, 'z.txt')).size, 70_000);
});

test('downloads through an HTTP proxy (the general transport) save the same bytes', async (t) => {
  const data = randomBytes(20_000);
  const s = await httpServer(t, rangeHandler(data));
  const proxy = await proxyServer(t);
  const dir = tmp();
  const r = await runSling(['-o', 'p.bin', `${s.url}/p.bin`], { cwd: dir, env: { HTTP_PROXY: proxy.url } });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(proxy.plainRequests.length, 1);
  assert.equal(sha(readFileSync(join(dir, 'p.bin'))), sha(data));
});

test('download (-o FILE, -o -): a reset and a clean close are told apart; a body that stalls after the head says so, with the bytes that came', async (t) => {
  const srv = await rawServer(t, (socket, first) => {
    const path = /^GET (\S+)/.exec(first.toString('latin1'))![1];
    socket.write('HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\nhello\npart');
    if (path === '/reset') setTimeout(() => socket.resetAndDestroy(), 100);
    else if (path === '/close') setTimeout(() => socket.end(), 100);
  });
  const dir = mkdtempSync(join(tmpdir(), 'sling-dl-cut-'));
  const reset = await runSling(['-o', '-', `${srv.url}/reset`], { cwd: dir });
  assertError(reset, 6, /was cut short \(Content-Length was 1000\): connection reset/);
  const closed = await runSling(['-o', join(dir, 'c.txt'), `${srv.url}/close`], { cwd: dir });
  assertError(closed, 6, /was cut short \(Content-Length was 1000\): connection closed/);
  const stalled = await runSling(['--timeout', '0.5', '-o', join(dir, 's.txt'), `${srv.url}/stall`], { cwd: dir });
  assertError(stalled, 2, /stopped sending the response body for longer than 0\.5s \(--timeout\) after 10 bytes; '.*s\.txt' keeps 10 bytes$/m);
  // `-o - > out 2>&1`: the error starts a line of its own after the body's open last line.
  const merged = join(dir, 'merged.txt');
  const fd = openSync(merged, 'w');
  await new Promise<void>((resolve) =>
    spawn(process.execPath, [SLING_PATH, '--timeout', '0.5', '-o', '-', `${srv.url}/stall`], { env: baseEnv(), stdio: ['ignore', fd, fd] }).on('close', () => resolve()),
  );
  closeSync(fd);
  assert.match(readFileSync(merged, 'utf8'), /^hello\npart\nsling: error: /m);
});

test('download over HTTPS: a body that stalls after the head names the bytes that came', { skip: makeCerts() ? undefined : certsUnavailableReason() }, async (t) => {
  const srv = await httpsServer(
    t,
    (_req, res) => {
      res.writeHead(200, { 'Content-Length': '1000' });
      res.write('hello\npart');
    },
    { cert: 'good' },
  );
  const dir = mkdtempSync(join(tmpdir(), 'sling-dl-tls-stall-'));
  const r = await runSling(['--verify=no', '--timeout', '0.5', '-o', join(dir, 's.txt'), `${srv.url}/stall`], { cwd: dir });
  assertError(r, 2, /stopped sending the response body for longer than 0\.5s \(--timeout\) after 10 bytes; '.*s\.txt' keeps 10 bytes$/m);
  assert.equal(readFileSync(join(dir, 's.txt'), 'utf8'), 'hello\npart');
});

test("-d -o FILE through a redirect whose body never ends: the target is saved, exit 0, and the redirect's connection is closed (not read on)", async (t) => {
  let served = 0;
  let redirectClosed: () => void;
  const closed = new Promise<void>((resolve) => (redirectClosed = resolve));
  const srv = await httpServer(t, (req: IncomingMessage, res: ServerResponse) => {
    if (req.url === '/target') return void res.end('the target\n');
    res.writeHead(302, { Location: '/target', 'Content-Type': 'application/octet-stream' });
    // Endless: chunks for as long as the client reads (stops when the socket goes).
    const chunk = Buffer.alloc(64 << 10, 'x');
    const pump = () => {
      while (!res.destroyed && res.write(chunk)) served += chunk.length;
      if (!res.destroyed) res.once('drain', pump);
    };
    res.on('close', () => {
      res.removeAllListeners('drain');
      redirectClosed();
    });
    pump();
  });
  const dir = tmp();
  const r = await runSling(['-d', '-o', 'out.bin', `${srv.url}/r`], { cwd: dir, timeoutMs: 120_000 });
  assert.equal(r.timedOut, false, `sling did not end: ${r.stderr}`);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(readFileSync(join(dir, 'out.bin'), 'utf8'), 'the target\n');
  assert.match(r.stderr, /the body of the 302 answer from 127\.0\.0\.1:\d+ is over 1 MiB: the rest is not read/);
  await closed;
  assert.ok(served < 64 << 20, `${served} bytes of the redirect's body were served`);
});
