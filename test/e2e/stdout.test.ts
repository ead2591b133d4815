// How sling writes its standard output (Node's process.stdout, src/bin.ts; `-o -` too,
// src/commands/download.ts): what a user can observe is that every byte arrives in order whatever
// the reader does, a reader that stops early ends sling quietly (exit 0), a socket that another
// program made non-blocking still gets the whole body (sling waits for the reader), a reader that
// stops reading never keeps Ctrl-C from ending sling, and an output that cannot be written (a full
// disk, a descriptor not open for writing) is one line on stderr and exit 1, never a stack trace.
// The last test needs python3 (to set O_NONBLOCK) and is skipped, saying so, without it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, openSync, closeSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { baseEnv, SLING_PATH } from '../helpers/cli.js';
import { httpServer } from '../helpers/assert.js';

const BIG = 16 * 1024 * 1024;
// A body whose every 16-byte line says where it is, so a lost or repeated piece shows.
function body(size: number): Buffer {
  const buf = Buffer.alloc(size);
  for (let at = 0; at < size; at += 16) buf.write(`${String(at).padStart(15, '0')}\n`, at, 'latin1');
  return buf;
}

function exitOf(child: import('node:child_process').ChildProcess): Promise<{ code: number | null; stderr: string }> {
  let stderr = '';
  child.stderr?.on('data', (d) => (stderr += d));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stderr })));
}

test('stdout: a file gets the whole body and the text around it, multi-byte characters intact', async (t) => {
  const text = 'naïve café ✓ 🚀\n'.repeat(5000);
  const srv = await httpServer(t, (_req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8' });
    res.end(text);
  });
  const file = join(mkdtempSync(join(tmpdir(), 'sling-stdout-')), 'out.txt');
  const fd = openSync(file, 'w');
  const child = spawn(process.execPath, [SLING_PATH, '--print=hb', `${srv.url}/t`], { env: baseEnv(), stdio: ['ignore', fd, 'pipe'] });
  closeSync(fd);
  const r = await exitOf(child);
  assert.equal(r.code, 0, r.stderr);
  const out = readFileSync(file, 'utf8');
  assert.match(out, /^HTTP\/1\.1 200 OK\n/);
  assert.ok(out.endsWith(`\n\n${text}`), `the body follows the head whole (${out.length} characters)`);
});

test('stdout: a reader that goes away early ends sling quietly with exit 0', async (t) => {
  const big = body(BIG);
  const srv = await httpServer(t, (_req, res) => {
    res.writeHead(200, { 'Content-Type': 'application/octet-stream' });
    res.end(big);
  });
  const child = spawn(process.execPath, [SLING_PATH, '--print=b', `${srv.url}/big`], { env: baseEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
  let got = 0;
  child.stdout!.once('data', (d: Buffer) => {
    got = d.length;
    child.stdout!.destroy();
  });
  const r = await exitOf(child);
  assert.ok(got > 0, 'some output arrived before the reader left');
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stderr, '');
});

const PYTHON = ['python3', 'python'].find((p) => spawnSync(p, ['-c', 'import fcntl'], { stdio: 'ignore' }).status === 0);

for (const [what, args] of [
  ['', ['--print=b']],
  [' (-d -o -: the download lane reads on only once stdout took the bytes)', ['-d', '-o', '-']],
] as const) {
  test(`stdout: a non-blocking socket whose reader is slow still gets every byte in order${what}`, {
    skip: PYTHON ? false : 'python3 is not installed (it sets O_NONBLOCK on the socket)',
  }, async (t) => {
    const big = body(BIG);
    const srv = await httpServer(t, (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/octet-stream' });
      res.end(big);
    });
    // The child's stdout is our end of a loopback TCP connection: Node made it non-blocking, so
    // once the socket buffers are full a write answers EAGAIN.
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    t.after(() => server.close());
    const far = new Promise<Socket>((resolve) => server.once('connection', resolve));
    const near = connect((server.address() as import('node:net').AddressInfo).port, '127.0.0.1');
    await new Promise<void>((resolve) => near.once('connect', resolve));
    const reader = await far;
    reader.pause();
    // Node's spawn makes a child's stdio blocking again; python3 puts O_NONBLOCK back on before it
    // becomes sling (the flag belongs to the shared socket, so it outlives the exec).
    const nonblocking = 'import fcntl, os, sys; fcntl.fcntl(1, fcntl.F_SETFL, fcntl.fcntl(1, fcntl.F_GETFL) | os.O_NONBLOCK); os.execv(sys.argv[1], sys.argv[1:])';
    const child = spawn(PYTHON!, ['-c', nonblocking, process.execPath, SLING_PATH, ...args, `${srv.url}/big`], { env: baseEnv(), stdio: ['ignore', near, 'pipe'] });
    near.destroy();
    const done = exitOf(child);
    // Read nothing for a while, so that sling's writes fill the buffers and have to wait.
    await new Promise((resolve) => setTimeout(resolve, 400));
    const chunks: Buffer[] = [];
    reader.on('data', (d: Buffer) => chunks.push(d));
    const ended = new Promise((resolve) => reader.once('end', resolve));
    reader.resume();
    const r = await done;
    await ended;
    assert.equal(r.code, 0, r.stderr);
    if (args[0] === '--print=b') assert.equal(r.stderr, '');
    const out = Buffer.concat(chunks);
    assert.equal(out.length, BIG);
    assert.ok(out.equals(big), 'every byte, in order');
  });
}

async function runTo(fd: number, args: string[]) {
  const child = spawn(process.execPath, [SLING_PATH, ...args], { env: baseEnv(), stdio: ['ignore', fd, 'pipe'] });
  closeSync(fd);
  return exitOf(child);
}

test('stdout: a descriptor not open for writing is one line on stderr and exit 1 (main command and exec)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sling-stdout-'));
  const file = join(dir, 'read-only.txt');
  writeFileSync(file, '');
  const main = await runTo(openSync(file, 'r'), ['--offline', 'POST', 'example.org', 'a=1']);
  assert.equal(main.code, 1, main.stderr);
  assert.equal(main.stderr, 'sling: error: writing to standard output failed: EBADF: bad file descriptor\n');
  const http = join(dir, 'one.http');
  writeFileSync(http, 'POST http://example.org/x\nContent-Type: application/json\n\n{"a": 1}\n');
  const exec = await runTo(openSync(file, 'r'), ['exec', '--offline', http]);
  assert.equal(exec.code, 1, exec.stderr);
  assert.equal(exec.stderr, 'sling: error: writing to standard output failed: EBADF: bad file descriptor\n');
  assert.equal(readFileSync(file, 'utf8'), '');
});

test('stdout: a full device (/dev/full) is one line on stderr and exit 1', { skip: existsSync('/dev/full') ? false : 'this system has no /dev/full' }, async () => {
  const r = await runTo(openSync('/dev/full', 'w'), ['--offline', 'POST', 'example.org', 'a=1']);
  assert.equal(r.code, 1, r.stderr);
  assert.equal(r.stderr, 'sling: error: writing to standard output failed: ENOSPC: no space left on device\n');
});

test('stdout: a file and a pipe get the same bytes', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sling-stdout-'));
  const args = ['--offline', 'POST', 'example.org', 'a=1'];
  const file = join(dir, 'out.txt');
  const r = await runTo(openSync(file, 'w'), args);
  assert.equal(r.code, 0, r.stderr);
  const expected = readFileSync(file, 'utf8');
  assert.match(expected, /^POST \/ HTTP\/1\.1\n/);
  const piped = spawnSync(process.execPath, [SLING_PATH, ...args], { env: baseEnv(), encoding: 'utf8' });
  assert.equal(piped.status, 0, piped.stderr);
  assert.equal(piped.stdout, expected);
});

for (const [what, args] of [
  ['the main command', ['--print=b']],
  ['a download to stdout (-d -o -)', ['-d', '-o', '-']],
] as const) {
  test(`stdout: Ctrl-C ends ${what} with 130 while its reader has stopped reading`, async (t) => {
    const big = body(BIG);
    const srv = await httpServer(t, (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/octet-stream' });
      res.end(big);
    });
    const child = spawn(process.execPath, [SLING_PATH, ...args, `${srv.url}/big`], { env: baseEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    // Never read: the pipe fills and sling's writes have to wait for a reader that does not come.
    child.stdout!.pause();
    const done = exitOf(child);
    const killer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    t.after(() => clearTimeout(killer));
    await new Promise((resolve) => child.stdout!.once('readable', resolve));
    // Let the writes run into the full pipe (a pause, not a measurement: the result is the same either way).
    await new Promise((resolve) => setTimeout(resolve, 300));
    child.kill('SIGINT');
    const r = await done;
    assert.equal(r.code, 130, `exit code (null: it had to be killed) ${r.stderr}`);
    assert.match(r.stderr, /^sling: interrupted\n$/m);
  });
}

test('stdout: Ctrl-C after a body without its last newline, stdout and stderr in one file (`> out 2>&1`): the message starts a line of its own', async (t) => {
  let started!: () => void;
  const sent = new Promise<void>((resolve) => (started = resolve));
  const srv = await httpServer(t, (_req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/plain' });
    res.write('partial-body');
    started();
    // never ends
  });
  const file = join(mkdtempSync(join(tmpdir(), 'sling-stdout-')), 'merged.txt');
  const fd = openSync(file, 'w');
  const child = spawn(process.execPath, [SLING_PATH, '--print=b', `${srv.url}/stall`], { env: baseEnv(), stdio: ['ignore', fd, fd] });
  closeSync(fd);
  const done = exitOf(child);
  const killer = setTimeout(() => child.kill('SIGKILL'), 15_000);
  t.after(() => clearTimeout(killer));
  await sent;
  // Until the body's first bytes are in the file: then sling is printing it.
  while (child.exitCode === null && !readFileSync(file, 'utf8').includes('partial-body')) await new Promise((resolve) => setTimeout(resolve, 20));
  child.kill('SIGINT');
  const r = await done;
  assert.equal(r.code, 130);
  assert.equal(readFileSync(file, 'utf8'), 'partial-body\nsling: interrupted\n');
});
