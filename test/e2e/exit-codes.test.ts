// Exit codes and error reporting: bad arguments (1), timeouts (2), redirects (3),
// --check-status (4/5), network failures (6), plus --version / --help.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { baseEnv, runSling, SLING_PATH, VERSION } from '../helpers/cli.js';
import { closedPort } from '../helpers/servers.js';
import { assertError, assertExit, assertNoStack, assertWarning, httpServer, okText, rawServer, show } from '../helpers/assert.js';

test('--version prints "sling X.Y.Z" and exits 0', async () => {
  const r = await runSling(['--version']);
  assertExit(r, 0);
  assert.equal(r.stdout.trim(), `sling ${VERSION}`, show(r));
});

test('--help prints usage and exits 0', async () => {
  const r = await runSling(['--help']);
  assertExit(r, 0);
  assert.match(r.stdout, /Usage:/, show(r));
});

test('-h alone prints usage and exits 0', async () => {
  const r = await runSling(['-h']);
  assertExit(r, 0);
  assert.match(r.stdout, /Usage:/, show(r));
});

// ---- bad arguments: exit 1, nothing sent -------------------------------------------------------

test('unknown flag --bogus: exit 1, error names the flag, nothing sent', async (t) => {
  const srv = await httpServer(t, okText);
  const r = await runSling(['--bogus', `${srv.url}/`]);
  assertError(r, 1, '--bogus');
  assert.equal(srv.requests.length, 0);
});

test('a message quoting a value with line breaks stays on one line (escaped), exit 1', async (t) => {
  const srv = await httpServer(t, okText);
  const r = await runSling([`${srv.url}/`, 'X-Bad:one\ntwo\x1b[2J']);
  assertError(r, 1, "item 'X-Bad:one\\ntwo\\x1b[2J'");
  assert.deepEqual(r.stderr.trimEnd().split('\n').length, 1, show(r));
  assert.equal(srv.requests.length, 0);
  // A curl file whose unknown command holds a quoted line break: FILE:LINE:COL, one line.
  const dir = mkdtempSync(join(tmpdir(), 'sling-oneline-'));
  writeFileSync(join(dir, 'cmds.curl'), `curl ${srv.url}/a\n' -: -A\n' -:\n`);
  const c = await runSling(['exec', join(dir, 'cmds.curl')]);
  assertError(c, 1, /cmds\.curl:2:1: ' -: -A\\n' is not curl/);
  assert.equal(c.stderr.trimEnd().split('\n').length, 1, show(c));
  assert.equal(srv.requests.length, 0);
});

test('item without separator: exit 1, error names the item, nothing sent', async (t) => {
  const srv = await httpServer(t, okText);
  const r = await runSling([`${srv.url}/`, 'foo']);
  assertError(r, 1, 'foo');
  assert.equal(srv.requests.length, 0);
});

test('invalid raw JSON item a:=4x: exit 1, error names it, nothing sent', async (t) => {
  const srv = await httpServer(t, okText);
  const r = await runSling(['POST', `${srv.url}/`, 'a:=4x']);
  assertError(r, 1, '4x');
  assert.equal(srv.requests.length, 0);
});

test('missing body file @nope.txt: exit 1, error names the file', async (t) => {
  const srv = await httpServer(t, okText);
  const r = await runSling(['POST', `${srv.url}/`, '@nope-does-not-exist.txt']);
  assertError(r, 1, 'nope-does-not-exist.txt');
  assert.equal(srv.requests.length, 0);
});

test('missing field file a=@nope.txt: exit 1, error names the file', async (t) => {
  const srv = await httpServer(t, okText);
  const r = await runSling(['POST', `${srv.url}/`, 'a=@nope-field-missing.txt']);
  assertError(r, 1, 'nope-field-missing.txt');
  assert.equal(srv.requests.length, 0);
});

test('missing upload file f@nope.bin: exit 1, error names the file', async (t) => {
  const srv = await httpServer(t, okText);
  const r = await runSling(['POST', `${srv.url}/`, 'f@nope-upload-missing.bin']);
  assertError(r, 1, 'nope-upload-missing.bin');
  assert.equal(srv.requests.length, 0);
});

test('bad URL "http://": exit 1 with an error', async () => {
  const r = await runSling(['http://']);
  assertError(r, 1);
});

test('a host name with a % that is not a percent escape is an invalid URL (exit 1, as HTTPie), not a name looked up', async () => {
  for (const url of ['http://%zz/', 'http://a%4/x', 'http://%ff.example/']) {
    const r = await runSling([url]);
    assertError(r, 1, new RegExp(`^sling: error: invalid URL '${url.replace(/[.]/g, '\\.')}': '[^']+' is not a valid host name`));
    assert.doesNotMatch(r.stderr, /resolve/, show(r));
  }
});

test('percent escapes in a host name are decoded, as curl does: %31%32%37.0.0.1 is 127.0.0.1', async (t) => {
  const srv = await httpServer(t, okText);
  const r = await runSling(['--print=h', `http://%31%32%37.0.0.1:${srv.port}/x`]);
  assertExit(r, 0);
  assert.equal(srv.requests.length, 1);
  assert.match(srv.requests[0]!.rawHeaders.join('\n'), new RegExp(`^Host\\n127\\.0\\.0\\.1:${srv.port}$`, 'm'));
});

test('a method alone (sling GET) says no URL was given after it: exit 1, nothing looked up', async () => {
  for (const args of [['GET'], ['POST'], ['--offline', 'DELETE'], ['--curl', 'GET']]) {
    const r = await runSling(args);
    assertError(r, 1, new RegExp(`^sling: error: no URL given after the method ${args.at(-1)}$`, 'm'));
    assert.doesNotMatch(r.stderr, /resolve/, show(r));
  }
});

test('--timeout abc: exit 1, error mentions the value or the flag', async (t) => {
  const srv = await httpServer(t, okText);
  const r = await runSling(['--timeout', 'abc', `${srv.url}/`]);
  assertError(r, 1, /abc|--timeout/);
  assert.equal(srv.requests.length, 0);
});

test('--verify=maybe: exit 1, error mentions the value or the flag', async (t) => {
  const srv = await httpServer(t, okText);
  const r = await runSling(['--verify=maybe', `${srv.url}/`]);
  assertError(r, 1, /maybe|--verify/);
  assert.equal(srv.requests.length, 0);
});

test('no URL at all: exit 1 with an error', async () => {
  const r = await runSling(['--print=b']);
  assertError(r, 1);
});

// ---- statuses -----------------------------------------------------------------------------------

function statusHandler(status: number) {
  return (_req: IncomingMessage, res: ServerResponse) => {
    res.writeHead(status, { 'Content-Type': 'text/plain' });
    res.end(`status ${status}`);
  };
}

for (const status of [404, 500]) {
  test(`${status} without --check-status exits 0 and prints the response`, async (t) => {
    const srv = await httpServer(t, statusHandler(status));
    const r = await runSling([`${srv.url}/`]);
    assertExit(r, 0);
    assert.match(r.stdout, new RegExp(`^HTTP/1\\.1 ${status} `), show(r));
    assert.match(r.stdout, new RegExp(`status ${status}`), show(r));
    assert.doesNotMatch(r.stderr, /sling: (error|warning):/, show(r));
  });
}

for (const [status, code] of [
  [400, 4],
  [451, 4],
  [500, 5],
  [503, 5],
] as const) {
  test(`--check-status with ${status} exits ${code}, prints the response and warns`, async (t) => {
    const srv = await httpServer(t, statusHandler(status));
    const r = await runSling(['--check-status', `${srv.url}/`]);
    assertExit(r, code);
    assert.match(r.stdout, new RegExp(`^HTTP/1\\.1 ${status} `), show(r));
    assertWarning(r);
    assertNoStack(r.stderr);
  });
}

test('--check-status with 200 exits 0 and prints no warning', async (t) => {
  const srv = await httpServer(t, okText);
  const r = await runSling(['--check-status', `${srv.url}/`]);
  assertExit(r, 0);
  assert.equal(r.stderr, '', show(r));
});

test('--check-status with an unfollowed 302 exits 3', async (t) => {
  const srv = await httpServer(t, (_req, res) => {
    res.writeHead(302, { Location: '/elsewhere' });
    res.end();
  });
  const r = await runSling(['--check-status', `${srv.url}/`]);
  assertExit(r, 3);
  assert.equal(srv.requests.length, 1, 'redirect must not be followed without --follow');
});

// ---- redirects -----------------------------------------------------------------------------------

test('--follow with --max-redirects 3 on an endless redirect: exit 3 after 3 hops', async (t) => {
  const srv = await httpServer(t, (req, res) => {
    res.writeHead(302, { Location: req.url ?? '/' });
    res.end();
  });
  const r = await runSling(['--follow', '--max-redirects', '3', `${srv.url}/loop`]);
  assertError(r, 3, /redirect/i);
  // The original request plus the 3 allowed redirects; the 4th redirect is the error.
  assert.equal(srv.requests.length, 4, show(r));
});

test('--max-redirects N allows exactly N redirects', async (t) => {
  const srv = await httpServer(t, (req, res) => {
    const n = Number((req.url ?? '/0').slice(1));
    if (n > 0) {
      res.writeHead(302, { Location: `/${n - 1}` });
      res.end();
    } else {
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      res.end('arrived');
    }
  });
  const r = await runSling(['--follow', '--max-redirects', '2', '--body', `${srv.url}/2`]);
  assertExit(r, 0);
  assert.equal(r.stdout, 'arrived', show(r));
  assert.deepEqual(
    srv.requests.map((q) => q.url),
    ['/2', '/1', '/0'],
  );
});

test('endless redirect without --follow exits 0 after one request', async (t) => {
  const srv = await httpServer(t, (req, res) => {
    res.writeHead(302, { Location: req.url ?? '/' });
    res.end();
  });
  const r = await runSling([`${srv.url}/loop`]);
  assertExit(r, 0);
  assert.match(r.stdout, /^HTTP\/1\.1 302 /, show(r));
  assert.equal(srv.requests.length, 1);
});

// ---- network failures: exit 6 (and 2 for timeouts) -----------------------------------------------

test('connection refused: exit 6 with an error, no stack trace', async () => {
  const port = await closedPort();
  const r = await runSling([`http://127.0.0.1:${port}/`]);
  assertError(r, 6);
});

test('connection reset by the server: exit 6', async (t) => {
  const srv = await rawServer(t, (socket) => socket.resetAndDestroy());
  const r = await runSling([`${srv.url}/`]);
  assertError(r, 6);
  assert.equal(srv.connections() >= 1, true);
});

test('server closes the socket without answering: exit 6', async (t) => {
  const srv = await rawServer(t, (socket) => socket.destroy());
  const r = await runSling([`${srv.url}/`]);
  assertError(r, 6);
});

test('body shorter than Content-Length: exit 6', async (t) => {
  const srv = await rawServer(t, (socket) => {
    socket.end('HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 100\r\n\r\nonly a few bytes');
  });
  const r = await runSling([`${srv.url}/`]);
  assertError(r, 6);
});

test('--timeout 0.5 against a server that never answers: exit 2', async (t) => {
  const srv = await rawServer(t, () => {
    /* accept, read, never answer */
  });
  const r = await runSling(['--timeout', '0.5', `${srv.url}/`]);
  assertError(r, 2, /time/i);
});

test('--timeout 0.5 when the body stalls after the headers: exit 2', async (t) => {
  const srv = await rawServer(t, (socket) => {
    socket.write('HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 10\r\n\r\nabc');
  });
  const r = await runSling(['--timeout', '0.5', `${srv.url}/`]);
  assertError(r, 2, /time/i);
  // The head came: the message says the body stalled (it said "no answer"), and what came is shown.
  assert.match(r.stderr, /^sling: error: 127\.0\.0\.1:\d+ stopped sending the response body for longer than 0\.5s \(--timeout\) after 3 bytes$/m);
  assert.doesNotMatch(r.stderr, /no answer/);
  assert.match(r.stdout, /\n\nabc\n?$/);
});

test('--timeout that is not reached does not affect a normal response', async (t) => {
  const srv = await httpServer(t, okText);
  const r = await runSling(['--timeout', '10', '--body', `${srv.url}/`]);
  assertExit(r, 0);
  assert.equal(r.stdout, 'ok', show(r));
});

test('a body without a final newline, then an error, with stdout and stderr in one file (`> out 2>&1`): the error starts its own line', async (t) => {
  const srv = await rawServer(t, (socket) => {
    socket.end('HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 100\r\n\r\nonly a few bytes');
  });
  const out = join(mkdtempSync(join(tmpdir(), 'sling-merged-')), 'out.txt');
  const fd = openSync(out, 'w');
  const code = await new Promise<number | null>((resolve, reject) => {
    const child = spawn(process.execPath, [SLING_PATH, '--print=b', `${srv.url}/`], { env: baseEnv(), stdio: ['ignore', fd, fd] });
    child.on('error', reject);
    child.on('close', resolve);
  });
  closeSync(fd);
  assert.equal(code, 6);
  assert.match(readFileSync(out, 'utf8'), /^only a few bytes\nsling: error: the response body from 127\.0\.0\.1:\d+ was cut short/);
});
