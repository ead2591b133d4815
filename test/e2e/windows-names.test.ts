// Names that mean something else on Windows: a named pipe given to --unix-socket, a session name
// that is a device (CON, NUL, COM1, ...), and the null device written in a .http file as `/dev/null`
// or `NUL`. `npm run test:windows` (scripts/test-windows.mjs) runs the same under Windows Node.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runSling } from '../helpers/cli.js';
import { assertError, assertExit, httpServer, okText, show } from '../helpers/assert.js';

function box(): string {
  return mkdtempSync(join(tmpdir(), 'sling-windows-names-'));
}

test('--unix-socket naming a Windows named pipe nobody serves is one line that names the named pipe', async (t) => {
  const s = await httpServer(t, okText);
  const d = box();
  const r = await runSling(['--unix-socket', '\\\\.\\pipe\\nobody', `${s.url}/x`], { cwd: d });
  // The exit code of a connection that failed (exit-codes.md), as for a Unix socket.
  assertError(r, 6);
  assert.match(r.stderr, /^sling: error: cannot connect to named pipe \\\\\.\\pipe\\nobody \(for [^)]+\): no such named pipe\n$/, show(r));
  assert.equal(s.requests.length, 0);
});

test('a session name that is a Windows device name (con, NUL, com1, aux.work) is refused before anything is sent', async (t) => {
  const s = await httpServer(t, okText);
  const d = box();
  for (const name of ['con', 'NUL', 'com1', 'aux.work']) {
    for (const flag of ['--session', '--session-read-only']) {
      const r = await runSling([flag, name, `${s.url}/x`], { env: { SLING_CONFIG_DIR: d } });
      assertError(r, 1, new RegExp(`^sling: error: ${flag} '${name.replace('.', '\\.')}': ${name.split('.')[0]!.toUpperCase()} is the name of a device on Windows`));
    }
  }
  assert.equal(s.requests.length, 0, 'nothing sent');
  assert.deepEqual(readdirSync(d), [], 'no session file or folder made');
  // A name that only starts like one is a name like any other.
  const ok = await runSling(['--session', 'console', `${s.url}/x`], { env: { SLING_CONFIG_DIR: d } });
  assertExit(ok, 0);
});

test('>> NUL and >> /dev/null in a .http file throw the answer away; no file named NUL is written', async (t) => {
  const s = await httpServer(t, okText);
  const d = box();
  writeFileSync(join(d, 'n.http'), `GET ${s.url}/a\r\n\r\n>> NUL\r\n\r\n###\r\nGET ${s.url}/b\r\n\r\n>>! nul\r\n\r\n###\r\nGET ${s.url}/c\r\n\r\n>> /dev/null\r\n`);
  const r = await runSling(['exec', 'n.http'], { cwd: d });
  assertExit(r, 0);
  assert.equal(s.requests.length, 3, show(r));
  assert.deepEqual(readdirSync(d), ['n.http'], show(r));
  assert.equal(existsSync('/dev/null-1'), false);
});

test('a cmd-style curl file: >NUL and 1>nul write no file, 2>&1 and 2>NUL are accepted, > and >> write the body to a file', async (t) => {
  const s = await httpServer(t, (req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/plain' });
    res.end(`${req.url}\n`);
  });
  const d = box();
  const cmd = [`curl.exe -s ^`, `  "${s.url}/a" >NUL 2>&1`, `curl.exe "${s.url}/b" > out.txt`, `curl.exe "${s.url}/c" 2>NUL >>out.txt`, `curl.exe "${s.url}/d" 1>nul`, `curl.exe "${s.url}/e"`];
  writeFileSync(join(d, 'calls.curl'), cmd.join('\r\n') + '\r\n');
  const r = await runSling(['exec', 'calls.curl'], { cwd: d });
  assertExit(r, 0);
  assert.deepEqual(
    s.requests.map((q) => q.url),
    ['/a', '/b', '/c', '/d', '/e'],
    show(r),
  );
  assert.equal(readFileSync(join(d, 'out.txt'), 'utf8'), '/b\n/c\n');
  assert.deepEqual(readdirSync(d).sort(), ['calls.curl', 'out.txt']);
});
