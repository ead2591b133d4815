// `sling exec` behaviours found in a black-box review: a kept-alive connection the server closed is
// retried on a new one (as curl does), a control character in a header is a parse error (plain
// HTTP and HTTPS alike), pre-request script logs print before the response, requests reached
// through `run ./other.http` keep their name and file in the title, and a timeout message names
// the setting that gave the limit.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type net from 'node:net';
import { runSling } from '../helpers/cli.js';
import { makeCerts, certsUnavailableReason } from '../helpers/servers.js';
import { assertError, assertExit, httpServer, httpsServer, rawServer, show } from '../helpers/assert.js';

function workdir(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'sling-exec-review-'));
  for (const [name, content] of Object.entries(files)) writeFileSync(join(dir, name), content);
  return dir;
}

/**
 * A server that answers each request and then closes the connection without saying so (no
 * `Connection: close`): the client's next request finds the kept-alive connection dead.
 */
function closingAfterEachAnswer(seen: string[]) {
  return (socket: net.Socket, first: Buffer) => {
    let got = first.toString('latin1');
    const answer = () => {
      const end = got.indexOf('\r\n\r\n');
      if (end === -1) return false;
      const length = Number(/\r\ncontent-length:\s*(\d+)/i.exec(got.slice(0, end))?.[1] ?? 0);
      if (got.length < end + 4 + length) return false;
      seen.push(got.slice(0, got.indexOf('\r\n')));
      socket.end('HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\nok');
      return true;
    };
    if (!answer()) {
      socket.on('data', (d: Buffer) => {
        got += d.toString('latin1');
        answer();
      });
    }
  };
}

test('a kept-alive connection the server closed after its answer: the next request goes on a new connection (.http and curl files)', async (t) => {
  const seen: string[] = [];
  const srv = await rawServer(t, closingAfterEachAnswer(seen));
  const dir = workdir({
    'four.http': `GET ${srv.url}/1\n\n###\nGET ${srv.url}/2\n\n###\nPOST ${srv.url}/3\nContent-Type: text/plain\n\nbody\n\n###\nDELETE ${srv.url}/4\n`,
    // A GET finds the first kept-alive connection dead (and goes again): from then on a POST to
    // that server takes a new connection. (A POST written on a connection the server has just
    // closed fails, exit 6, and is never sent again: test 'a POST is never sent twice'.)
    'two.curl': `curl ${srv.url}/5\ncurl ${srv.url}/5b\ncurl -d x=1 ${srv.url}/6\n`,
  });
  const r = await runSling(['exec', 'four.http'], { cwd: dir });
  assertExit(r, 0);
  assert.equal(r.stdout.match(/^HTTP\/1\.1 200 OK$/gm)?.length, 4, show(r));
  const c = await runSling(['exec', '--type', 'curl', 'two.curl'], { cwd: dir });
  assertExit(c, 0);
  assert.equal(c.stdout.match(/^HTTP\/1\.1 200 OK$/gm)?.length, 3, show(c));
  assert.deepEqual(seen, ['GET /1 HTTP/1.1', 'GET /2 HTTP/1.1', 'POST /3 HTTP/1.1', 'DELETE /4 HTTP/1.1', 'GET /5 HTTP/1.1', 'GET /5b HTTP/1.1', 'POST /6 HTTP/1.1'], 'each request arrives once');
});

test('a server that answers nothing on a new connection is still an error (no retry loop), exit 6', async (t) => {
  const srv = await rawServer(t, (socket) => socket.destroy());
  const dir = workdir({ 'one.http': `GET ${srv.url}/x\n` });
  const r = await runSling(['exec', 'one.http'], { cwd: dir });
  assertError(r, 6, /127\.0\.0\.1/);
  assert.ok(srv.connections() <= 1, `one connection, not a retry loop (${srv.connections()})`);
});

const certs = makeCerts();
test('HTTPS: a kept-alive connection the server closed is retried too', { skip: certs ? undefined : certsUnavailableReason() }, async (t) => {
  const srv = await httpsServer(
    t,
    (req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Length': '2' });
      res.end('ok', () => setImmediate(() => req.socket.destroy()));
    },
    { cert: 'good' },
  );
  const dir = workdir({ 'tls.http': `GET ${srv.url}/1\n\n###\nGET ${srv.url}/2\n\n###\nGET ${srv.url}/3\n` });
  const r = await runSling(['exec', '--verify', certs!.caCert, 'tls.http'], { cwd: dir });
  assertExit(r, 0);
  assert.deepEqual(
    srv.requests.map((q) => q.url),
    ['/1', '/2', '/3'],
  );
});

test('a control character in a header value is a parse error naming the place; nothing is sent', async (t) => {
  const srv = await httpServer(t, (_q, res) => res.end('ok'));
  const dir = workdir({
    'ctl.http': `GET ${srv.url}/fine\n\n###\nGET ${srv.url}/bad\nX-Ok: a\tb\nX-Ctl: a\x01b\n`,
    'cr.http': `GET ${srv.url}/bad\nX-Cr: c\rd\n`,
  });
  const r = await runSling(['exec', 'ctl.http'], { cwd: dir });
  assertError(r, 1, /ctl\.http:6:9: the value of X-Ctl contains a control character \(U\+0001\)/);
  const c = await runSling(['exec', 'cr.http'], { cwd: dir });
  assertError(c, 1, /cr\.http:2:8: the value of X-Cr contains a line break/);
  assert.equal(srv.requests.length, 0, 'a malformed file sends nothing');
});

test('pre-request script logs print under the title, before the response; handler logs after it', async (t) => {
  const srv = await httpServer(t, (_q, res) => {
    res.writeHead(200, { 'Content-Type': 'text/plain' });
    res.end('body\n');
  });
  const dir = workdir({
    'logs.http': `< {% client.log("before", request.url.tryGetSubstituted()) %}\nGET ${srv.url}/p\n\n> {% client.log("after", response.status) %}\n`,
  });
  const r = await runSling(['exec', '-b', 'logs.http'], { cwd: dir });
  assertExit(r, 0);
  assert.equal(r.stdout, `### GET ${srv.url}/p  (line 2)\nbefore ${srv.url}/p\nbody\nafter 200\n`);
});

test('requests reached through `run ./other.http` keep their name and their file in the title', async (t) => {
  const srv = await httpServer(t, (_q, res) => res.end('ok'));
  const dir = workdir({
    'main.http': `run ./other.http (@who=carol)\n`,
    'other.http': `### First\n# @name first\nGET ${srv.url}/a?u={{who}}\n\n###\nGET ${srv.url}/b\n`,
  });
  const r = await runSling(['exec', '-h', 'main.http'], { cwd: dir });
  assertExit(r, 0);
  const titles = r.stdout.split('\n').filter((l) => l.startsWith('###'));
  assert.deepEqual(titles, [`### first: GET ${srv.url}/a?u=carol  (other.http line 3)`, `### GET ${srv.url}/b  (other.http line 6)`]);
});

test('a timeout names where its limit came from: # @timeout, curl --max-time, sling --timeout', async (t) => {
  const srv = await httpServer(t, (_q, res) => {
    setTimeout(() => res.end('late'), 1500);
  });
  const dir = workdir({
    'slow.http': `# @timeout 0.3\nGET ${srv.url}/a\n`,
    'slow.curl': `curl --max-time 0.3 ${srv.url}/b\n`,
    'plain.http': `GET ${srv.url}/c\n`,
    'patient.http': `# @timeout 5\nGET ${srv.url}/d\n\n###\nGET ${srv.url}/e\n`,
  });
  const a = await runSling(['exec', 'slow.http'], { cwd: dir });
  assertError(a, 2, /within 0\.3s \(# @timeout\)/);
  const b = await runSling(['exec', 'slow.curl'], { cwd: dir });
  assertError(b, 2, /within 0\.3s \(--max-time\)/);
  const c = await runSling(['exec', '--timeout', '0.3', 'plain.http'], { cwd: dir });
  assertError(c, 2, /within 0\.3s \(--timeout\)/);
  // A request's own # @timeout wins over --timeout, which limits the others.
  const d = await runSling(['exec', '--print=b', '--timeout', '0.3', 'patient.http'], { cwd: dir });
  assertError(d, 2, /patient\.http:5: no answer from 127\.0\.0\.1:\d+ within 0\.3s \(--timeout\)/);
  assert.match(d.stdout, /\(line 2\)\nlate\n/);
});

/** A raw server answering every request on a connection with `head` + `body` (kept alive). */
function answering(head: string, body = 'ok') {
  return (socket: net.Socket) => {
    const reply = () => socket.write(`${head}\r\n\r\n${body}`);
    reply();
    socket.on('data', reply);
  };
}

test('a Content-Length that is not a number, or two that disagree, is a malformed response (exit 6), not a hang: exec and -o', async (t) => {
  const bad = await rawServer(t, answering('HTTP/1.1 200 OK\r\nContent-Length: abc'));
  const two = await rawServer(t, answering('HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 5'));
  const list = await rawServer(t, answering('HTTP/1.1 200 OK\r\nContent-Length: 2, 2'));
  const dir = workdir({ 'cl.http': `GET ${bad.url}/a\n\n###\nGET ${two.url}/b\n\n###\nGET ${list.url}/c\n` });
  const r = await runSling(['exec', 'cl.http'], { cwd: dir, timeoutMs: 120_000 });
  assertError(r, 6);
  assert.match(r.stderr, /^sling: error: cl\.http:1: 127\.0\.0\.1:\d+ sent a malformed HTTP response \(Content-Length 'abc'\)$/m);
  assert.match(r.stderr, /^sling: error: cl\.http:4: 127\.0\.0\.1:\d+ sent a malformed HTTP response \(Content-Length 2 and 5 disagree\)$/m);
  assert.equal(r.stdout.match(/^HTTP\/1\.1 200 OK$/gm)?.length, 1, `only the third (a list of equal lengths) is an answer${show(r)}`);
  const d = await runSling(['-o', 'x.out', `${bad.url}/a`], { cwd: dir, timeoutMs: 120_000 });
  assertError(d, 6, /malformed HTTP response \(Content-Length 'abc'\)/);
  assert.equal(existsSync(join(dir, 'x.out')), false, 'no file that looks complete');
});

test('curl files: set -e stops after a command that failed on the network, as bash does', async (t) => {
  const ok = await httpServer(t, (_q, res) => res.end('ok'));
  const dead = await rawServer(t, (socket) => socket.destroy());
  const dir = workdir({ 'sete.sh': `set -e\ncurl ${ok.url}/first\ncurl ${dead.url}/dies\ncurl ${ok.url}/never\n` });
  const r = await runSling(['exec', 'sete.sh'], { cwd: dir });
  assertError(r, 6, /sete\.sh:3: (connection reset by 127\.0\.0\.1|127\.0\.0\.1:\d+ closed the connection without answering)/);
  assert.match(r.stderr, /sete\.sh:4:1: skipped: set -e, and a command before it failed/);
  assert.deepEqual(
    ok.requests.map((q) => q.url),
    ['/first'],
  );
});

test('curl files: a number option that is not a number is an error naming the place, as curl refuses it; nothing is sent', async (t) => {
  const srv = await httpServer(t, (_q, res) => res.end('ok'));
  for (const [opt, v] of [
    ['-m', 'abc'],
    ['--max-time', '1x'],
    ['--connect-timeout', 'x'],
    ['--retry', '2.5'],
    ['--retry-delay', 'x'],
    ['--max-redirs', 'many'],
  ]) {
    const dir = workdir({ 'n.sh': `curl ${srv.url}/a\ncurl ${opt} ${v} ${srv.url}/b\n` });
    const r = await runSling(['exec', 'n.sh'], { cwd: dir });
    assertError(r, 1, new RegExp(`n\\.sh:2:6: option ${opt === '-m' ? '--max-time' : opt}: expected a proper numerical parameter, got '${v}'`));
  }
  const negative = workdir({ 'n.sh': `curl -m -1 ${srv.url}/b\n` });
  assertError(await runSling(['exec', 'n.sh'], { cwd: negative }), 1, /n\.sh:1:6: option --max-time: expected a positive numerical parameter, got '-1'/);
  // What curl's strtod reads: an exponent, hexadecimal.
  const fine = workdir({ 'n.sh': `curl -m 2.5 --connect-timeout .5 --retry 0 --max-redirs -1 ${srv.url}/c\ncurl -m 1e1 --connect-timeout 0x10 ${srv.url}/d\n` });
  assertExit(await runSling(['exec', 'n.sh'], { cwd: fine }), 0);
  assert.deepEqual(
    srv.requests.map((q) => q.url),
    ['/c', '/d'],
  );
});

test('curl files: -f on an HTTP error and an -o file that cannot be written are error lines, also under -qq', async (t) => {
  const srv = await httpServer(t, (q, res) => {
    res.writeHead(q.url === '/404' ? 404 : 200);
    res.end('body');
  });
  const dir = workdir({ 'f.sh': `curl -f ${srv.url}/404\n`, 'o.sh': `curl -o nodir/x ${srv.url}/ok\n` });
  const f = await runSling(['exec', 'f.sh'], { cwd: dir });
  assertError(f, 4, /^sling: error: f\.sh:1:1: the requested URL returned error: 404 Not Found \(-f\)$/m);
  const o = await runSling(['exec', '-qq', 'o.sh'], { cwd: dir });
  assertError(o, 1, /^sling: error: o\.sh:1:1: cannot write 'nodir\/x': no such file or folder$/m);
});

test('exec: --max-headers applies to every request of the file', async (t) => {
  const srv = await httpServer(t, (_q, res) => {
    for (let i = 0; i < 20; i++) res.setHeader(`X-H${i}`, 'v');
    res.end('ok');
  });
  const dir = workdir({ 'h.http': `GET ${srv.url}/a\n` });
  assertError(await runSling(['exec', '--max-headers', '10', 'h.http'], { cwd: dir }), 6, /sent \d+ headers, more than --max-headers 10/);
  assertExit(await runSling(['exec', 'h.http'], { cwd: dir }), 0);
});

test('a header line without a colon is a malformed response (exit 6), as curl ("Header without colon") and the main command treat it', async (t) => {
  const srv = await rawServer(t, answering('HTTP/1.1 200 OK\r\nContent-Length: 2\r\nBadHeaderLine'));
  const folded = await rawServer(t, answering('HTTP/1.1 200 OK\r\nContent-Length: 2\r\nX-A: one\r\n  folded'));
  const dir = workdir({ 'h.http': `GET ${srv.url}/a\n\n###\nGET ${folded.url}/b\n` });
  const r = await runSling(['exec', 'h.http'], { cwd: dir });
  assertError(r, 6, /^sling: error: h\.http:1: 127\.0\.0\.1:\d+ sent a malformed HTTP response \(a header line without a colon: 'BadHeaderLine'\)$/m);
  assert.equal(r.stdout.match(/^HTTP\/1\.1 200 OK$/gm)?.length, 1, `an obsolete folded line is not an error${show(r)}`);
  const d = await runSling(['-o', 'x.out', `${srv.url}/a`], { cwd: dir });
  assertError(d, 6, /a header line without a colon/);
  assert.equal(existsSync(join(dir, 'x.out')), false);
});

test('exec: a body that stalls after its head under --timeout prints the head and the bytes that came, then exit 2', async (t) => {
  const srv = await httpServer(t, (_req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Length': '100' });
    res.write('start\n');
  });
  const dir = workdir({ 't.http': `GET ${srv.url}/stall\n` });
  const r = await runSling(['exec', '--timeout', '0.5', 't.http'], { cwd: dir });
  assertError(r, 2, /t\.http:1: 127\.0\.0\.1:\d+ stopped sending the response body for longer than 0\.5s \(--timeout\) after 6 bytes/);
  assert.match(r.stdout, /^HTTP\/1\.1 200 OK$/m, show(r));
  assert.match(r.stdout, /^start$/m, show(r));
});

test('exec: over HTTPS and HTTP/2 too, a body that stalls or is cut prints the bytes that came before the error', { skip: certs ? undefined : certsUnavailableReason() }, async (t) => {
  const tlsSrv = await httpsServer(
    t,
    (req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Length': '100' });
      // Cut as soon as the bytes are out (a cut after a delay would race the 0.5 s --timeout of /stall's run).
      res.write('tls-partial-', () => req.url === '/cut' && req.socket.destroy());
    },
    { cert: 'good' },
  );
  const http2 = await import('node:http2');
  const h2 = http2.createServer();
  h2.on('stream', (stream, headers) => {
    stream.on('error', () => {});
    stream.respond({ ':status': 200, 'content-type': 'text/plain', 'content-length': '100' });
    stream.write('h2c-partial-', () => headers[':path'] === '/reset' && stream.close(http2.constants.NGHTTP2_INTERNAL_ERROR));
  });
  await new Promise<void>((r) => h2.listen(0, '127.0.0.1', () => r()));
  t.after(() => new Promise<void>((r) => h2.close(() => r())));
  const h2url = `http://127.0.0.1:${(h2.address() as net.AddressInfo).port}`;
  const dir = workdir({
    'p.http': [`GET ${tlsSrv.url}/stall`, '', '###', `GET ${tlsSrv.url}/cut`, '', '###', `GET ${h2url}/stall HTTP/2 (Prior Knowledge)`, '', '###', `GET ${h2url}/reset HTTP/2 (Prior Knowledge)`].join(
      '\n',
    ),
  });
  const r = await runSling(['exec', '--verify', certs!.caCert, '--timeout', '0.5', '--print=b', 'p.http'], { cwd: dir });
  assertExit(r, 2);
  assert.equal(r.stdout.match(/^tls-partial-$/gm)?.length, 2, show(r));
  assert.equal(r.stdout.match(/^h2c-partial-$/gm)?.length, 2, show(r));
  assert.match(r.stderr, /p\.http:1: 127\.0\.0\.1:\d+ stopped sending the response body for longer than 0\.5s \(--timeout\) after 12 bytes/);
  assert.match(r.stderr, /p\.http:4: the response body from 127\.0\.0\.1:\d+ was cut short \(Content-Length was 100\)/);
  assert.match(r.stderr, /p\.http:10: the response body from 127\.0\.0\.1:\d+ was cut short/);
});

test('exec: # @no-cookie-jar holds with --session too (neither sends nor stores cookies)', async (t) => {
  const seen: (string | undefined)[] = [];
  const srv = await httpServer(t, (req, res) => {
    seen.push(req.headers.cookie);
    const v = /v=(\w+)/.exec(req.url ?? '')?.[1];
    res.writeHead(200, v ? { 'Set-Cookie': `sid=${v}; Path=/` } : {});
    res.end('ok');
  });
  const home = mkdtempSync(join(tmpdir(), 'sling-session-home-'));
  const dir = workdir({ 's.http': [`GET ${srv.url}/set?v=j1`, '###', '# @no-cookie-jar', `GET ${srv.url}/nojar?v=j2`, '###', `GET ${srv.url}/after`].join('\n') });
  const r = await runSling(['exec', '--session', 'work', 's.http'], { cwd: dir, env: { HOME: home, SLING_CONFIG_DIR: join(home, 'cfg') } });
  assertExit(r, 0);
  assert.deepEqual(seen, [undefined, undefined, 'sid=j1']);
});

test('exec: --check-status warnings and failed tests name FILE:LINE; a message after a body without a final newline starts its own line', async (t) => {
  const srv = await httpServer(t, (req, res) => {
    res.writeHead(req.url === '/missing' ? 404 : 200, { 'Content-Type': 'text/plain' });
    res.end('no newline');
  });
  const dir = workdir({
    'c.http': [
      `GET ${srv.url}/missing`,
      '',
      '###',
      '# @name checked',
      `GET ${srv.url}/ok`,
      '',
      '> {% client.test("wants 201", () => client.assert(response.status === 201, "got " + response.status)); %}',
    ].join('\n'),
  });
  const out = join(dir, 'merged.txt');
  const { openSync, closeSync, readFileSync } = await import('node:fs');
  const { spawn } = await import('node:child_process');
  const { baseEnv, SLING_PATH } = await import('../helpers/cli.js');
  const fd = openSync(out, 'w');
  const code = await new Promise<number | null>((resolve) => {
    const child = spawn(process.execPath, [SLING_PATH, 'exec', '--check-status', '--print=b', 'c.http'], { cwd: dir, env: baseEnv(), stdio: ['ignore', fd, fd] });
    child.on('close', resolve);
  });
  closeSync(fd);
  const text = readFileSync(out, 'utf8');
  assert.equal(code, 4, text);
  assert.match(text, /^no newline\nsling: warning: c\.http:1: HTTP 404 Not Found$/m, text);
  assert.match(text, /^sling: test failed: c\.http:5 \(checked\): wants 201: got 200$/m, text);
});

test('exec: a request that cannot be built still gets its title (as written); an unknown variable in the URL is the one named', async (t) => {
  const srv = await httpServer(t, (_req, res) => res.end('ok'));
  const dir = workdir({ 'u.http': [`GET ${srv.url}/first`, '', '###', `POST ${srv.url}/{{zero}}`, 'X-A: {{first}}', '', '###', `GET ${srv.url}/last`].join('\n') });
  const r = await runSling(['exec', '--print=b', 'u.http'], { cwd: dir });
  assertError(r, 1, /^sling: error: u\.http:4:\d+: unknown variable \{\{zero\}\}$/m);
  assert.match(r.stdout, /^### POST http:\/\/127\.0\.0\.1:\d+\/\{\{zero\}\}  \(line 4\)$/m, show(r));
  assert.match(r.stdout, /^### GET http:\/\/127\.0\.0\.1:\d+\/last  \(line 8\)\nok/m, show(r));
});

test('exec: a refused connection through a proxy names the proxy', async () => {
  const { closedPort } = await import('../helpers/servers.js');
  const dead = await closedPort();
  const dir = workdir({ 'p.http': 'GET http://127.0.0.1:9/x\n' });
  const r = await runSling(['exec', '--proxy', `http:http://127.0.0.1:${dead}`, 'p.http'], { cwd: dir });
  assertError(r, 6, new RegExp(`connection refused by proxy http://127\\.0\\.0\\.1:${dead} \\(sending to 127\\.0\\.0\\.1:9\\)`));
  assert.match(r.stderr, /hint: is the proxy running on that port\?/);
});

test('exec: --verify=no warns once that certificates are not checked', { skip: certs ? undefined : certsUnavailableReason() }, async (t) => {
  const srv = await httpsServer(t, (_req, res) => res.end('ok'), { cert: 'bad' });
  const dir = workdir({ 'v.http': `GET ${srv.url}/a\n\n###\nGET ${srv.url}/b\n` });
  const r = await runSling(['exec', '--verify=no', 'v.http'], { cwd: dir });
  assertExit(r, 0);
  assert.equal((r.stderr.match(/--verify=no: server certificates are not checked/g) ?? []).length, 1, show(r));
  // The setting as each kind of file writes it: a curl command's -k, a .http directive.
  writeFileSync(join(dir, 'k.curl'), `curl -sk ${srv.url}/c\ncurl -sk ${srv.url}/d\n`);
  const k = await runSling(['exec', 'k.curl'], { cwd: dir });
  assertExit(k, 0);
  assert.equal((k.stderr.match(/^sling: warning: -k: server certificates are not checked$/gm) ?? []).length, 1, show(k));
  writeFileSync(join(dir, 'n.http'), `# @no-reject-unauthorized\nGET ${srv.url}/e\n`);
  const n = await runSling(['exec', 'n.http'], { cwd: dir });
  assert.match(n.stderr, /^sling: warning: # @no-reject-unauthorized: server certificates are not checked$/m, show(n));
});

test('exec: robustness: a rejected promise in a script is a warning (the run goes on); $env.toString is no variable; a giant $random text is refused; a chain of 40 variables is no loop', async (t) => {
  const srv = await httpServer(t, (_req, res) => res.end('ok'));
  const chain = Array.from({ length: 40 }, (_, i) => `@v${i} = {{v${i + 1}}}`).join('\n') + '\n@v40 = end\n';
  const dir = workdir({
    'r.http': [`GET ${srv.url}/one`, '', '> {% Promise.reject(new Error("nobody catches me")) %}', '', '###', `GET ${srv.url}/two`].join('\n'),
    'o.http': `GET ${srv.url}/{{$env.toString}}/{{$random.alphabetic(300000000)}}\n`,
    'c.http': `${chain}GET ${srv.url}/{{v0}}\n`,
  });
  const r = await runSling(['exec', '--print=b', 'r.http'], { cwd: dir });
  assertExit(r, 0);
  assert.deepEqual(
    srv.requests.map((q) => q.url),
    ['/one', '/two'],
  );
  assert.match(r.stderr, /sling: warning: a script left a rejected promise that nothing handled: nobody catches me/);
  const o = await runSling(['exec', '--offline', 'o.http'], { cwd: dir });
  assertExit(o, 0);
  assert.match(o.stderr, /\{\{\$env\.toString\}\}: the environment variable toString is not set/);
  assert.match(o.stderr, /a random text of 300000000 characters is more than sling makes/);
  const c = await runSling(['exec', '--print=b', 'c.http'], { cwd: dir });
  assertExit(c, 0);
  assert.equal(srv.requests.at(-1)!.url, '/end');
});

test('curl files: a --retry-delay or Retry-After beyond what a timer holds waits (capped at 24.8 days), not at once', async (t) => {
  let n = 0;
  let first = () => {};
  const srv = await httpServer(t, (req, res) => {
    if (++n === 1) first();
    res.writeHead(503, req.url === '/after' ? { 'Retry-After': '9999999999' } : {});
    res.end('busy');
  });
  for (const cmd of [`curl -s --retry 2 --retry-delay 9999999999 ${srv.url}/delay`, `curl -s --retry 2 ${srv.url}/after`]) {
    n = 0;
    const arrived = new Promise<void>((r) => (first = r));
    const dir = workdir({ 'calls.sh': cmd + '\n' });
    let pid = 0;
    const run = runSling(['exec', join(dir, 'calls.sh')], { timeoutMs: 120_000, onSpawn: (p) => (pid = p) });
    // Node's timers fire at once beyond 2^31-1 ms: the second try came 1 ms after the first. Counted
    // from the first try (not from the start, which a busy machine delays), a second passes without one.
    await arrived;
    await new Promise((r) => setTimeout(r, 1000));
    process.kill(pid, 'SIGKILL');
    const r = await run;
    assert.equal(r.signal, 'SIGKILL', `still waiting a second after the first try${show(r)}`);
    assert.equal(n, 1, cmd);
  }
});

test('exec: transport failures are plain sentences: an HTTP/2-only TLS server, a GOAWAY mid-body, prior knowledge to an HTTP/1.1 server, a reset mid-body', {
  skip: certs ? undefined : certsUnavailableReason(),
}, async (t) => {
  const http2 = await import('node:http2');
  const h2 = http2.createSecureServer({ key: readFileSync(certs!.serverKey), cert: readFileSync(certs!.serverCert) });
  h2.on('stream', (stream, headers) => {
    stream.on('error', () => {});
    stream.respond({ ':status': 200, 'content-length': '100' });
    stream.write('part-');
    if (headers[':path'] === '/goaway') setTimeout(() => stream.session?.goaway(2), 100);
  });
  await new Promise<void>((r) => h2.listen(0, '127.0.0.1', () => r()));
  t.after(() => new Promise<void>((r) => h2.close(() => r())));
  const h2port = (h2.address() as net.AddressInfo).port;
  const plain = await httpServer(t, (_q, res) => res.end('ok'));
  const rst = await rawServer(t, (socket) => {
    socket.write('HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nrst-');
    setTimeout(() => socket.resetAndDestroy(), 100);
  });
  const https = await import('node:https');
  const h1 = https.createServer({ key: readFileSync(certs!.serverKey), cert: readFileSync(certs!.serverCert), ALPNProtocols: ['http/1.1'] }, (_q, res) => res.end('h1'));
  await new Promise<void>((r) => h1.listen(0, '127.0.0.1', () => r()));
  t.after(() => new Promise<void>((r) => h1.close(() => r())));
  const h1port = (h1.address() as net.AddressInfo).port;
  const dir = workdir({
    'm.http': [
      `GET https://127.0.0.1:${h2port}/a`,
      '',
      '###',
      `GET https://127.0.0.1:${h2port}/goaway HTTP/2`,
      '',
      '###',
      `GET ${plain.url}/x HTTP/2 (Prior Knowledge)`,
      '',
      '###',
      `GET ${rst.url}/r`,
    ].join('\n'),
    'pk.http': `GET https://127.0.0.1:${h1port}/pk HTTP/2 (Prior Knowledge)\n`,
  });
  // Prior knowledge over TLS offers h2 and http/1.1, as curl 7.88 does, and an HTTP/1.1-only server answers in HTTP/1.1.
  const pk = await runSling(['exec', '--verify', certs!.caCert, '--print=hb', 'pk.http'], { cwd: dir });
  assertExit(pk, 0);
  assert.match(pk.stdout, /^HTTP\/1\.1 200 OK\n[\s\S]*\nh1$/m);
  const r = await runSling(['exec', '--verify', certs!.caCert, '--print=b', 'm.http'], { cwd: dir });
  assertExit(r, 6);
  const err = r.stderr.split('\n').filter((l) => l !== '');
  assert.deepEqual(err, [
    `sling: error: m.http:1: TLS handshake with 127.0.0.1:${h2port} failed: the server sent TLS alert no_application_protocol (120; tlsv1 alert no application protocol)`,
    '  hint: the server speaks only HTTP/2: end the .http request line with HTTP/2 (curl files: --http2)',
    `sling: error: m.http:4: the response body from 127.0.0.1:${h2port} was cut short: the server closed the HTTP/2 connection (INTERNAL_ERROR)`,
    `sling: error: m.http:7: ${plain.url.slice(7)} did not answer in HTTP/2 (Protocol error)`,
    '  hint: is it an HTTP/1.1 server? then leave out HTTP/2 (Prior Knowledge)',
    `sling: error: m.http:10: the response body from ${rst.url.slice(7)} was cut short (Content-Length was 100): connection reset`,
  ]);
  assert.match(r.stdout, /\(line 4\)\npart-\n/);
  assert.match(r.stdout, /\(line 10\)\nrst-/);
});

test('HTTPS: answers polled for (the default) and slept for (SLING_NO_POLL=1) print the same, fast or slow', { skip: certs ? undefined : certsUnavailableReason() }, async (t) => {
  // Answer k comes after delays[k] ms: inside the 0.25 ms poll window or long after it.
  const delays = [0, 40, 0, 3, 0];
  const srv = await httpsServer(
    t,
    (req, res) => {
      const k = Number(req.url!.slice(1));
      setTimeout(() => {
        res.writeHead(200, { 'Content-Type': 'text/plain' });
        res.end(`answer ${k}\n`);
      }, delays[k]);
    },
    { cert: 'good' },
  );
  const dir = workdir({ 'poll.http': delays.map((_, k) => `GET ${srv.url}/${k}`).join('\n\n###\n') + '\n' });
  const outputs: string[] = [];
  const envs: Record<string, string>[] = [{}, { SLING_NO_POLL: '1' }];
  for (const env of envs) {
    const r = await runSling(['exec', '--print=b', '--verify', certs!.caCert, 'poll.http'], { cwd: dir, env });
    assertExit(r, 0);
    outputs.push(r.stdout);
  }
  assert.equal(srv.requests.length, 2 * delays.length);
  assert.match(outputs[0]!, /answer 0\n[\s\S]*answer 1\n[\s\S]*answer 2\n[\s\S]*answer 3\n[\s\S]*answer 4\n/, outputs[0]);
  assert.equal(outputs[0], outputs[1]);
});

/**
 * A server that answers each request, then closes the connection 30 ms later without having said
 * so: a request written on it in between is received (and logged) but never answered.
 */
function closingSoonAfterEachAnswer(seen: string[]) {
  return (socket: net.Socket, first: Buffer) => {
    let got = first.toString('latin1');
    const pump = () => {
      for (;;) {
        const end = got.indexOf('\r\n\r\n');
        if (end === -1) return;
        const length = Number(/\r\ncontent-length:\s*(\d+)/i.exec(got.slice(0, end))?.[1] ?? 0);
        if (got.length < end + 4 + length) return;
        const line = got.slice(0, got.indexOf('\r\n'));
        got = got.slice(end + 4 + length);
        seen.push(line);
        if (seen.filter((l) => l === line).length > 0 && (socket as net.Socket & { answered?: boolean }).answered) continue; // received, never answered
        (socket as net.Socket & { answered?: boolean }).answered = true;
        socket.write('HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\nok');
        setTimeout(() => socket.end(), 30);
      }
    };
    pump();
    socket.on('data', (d: Buffer) => {
      got += d.toString('latin1');
      pump();
    });
    socket.on('error', () => {});
  };
}

test('a POST is never sent twice: a kept-alive connection that dies after the POST was written is an error for that request, a GET goes again', async (t) => {
  const seen: string[] = [];
  const srv = await rawServer(t, closingSoonAfterEachAnswer(seen));
  const dir = workdir({
    'posts.http': `GET ${srv.url}/1\n\n###\nPOST ${srv.url}/2\nContent-Type: text/plain\n\ntwo\n\n###\nGET ${srv.url}/3\n\n###\nGET ${srv.url}/4\n`,
  });
  const r = await runSling(['exec', 'posts.http'], { cwd: dir });
  assertError(r, 6, /posts\.http:4: 127\.0\.0\.1:\d+ closed the kept-alive connection without answering: the POST request is not sent again, as the server may have received it/);
  assert.deepEqual(
    seen.filter((l) => l.startsWith('POST')),
    ['POST /2 HTTP/1.1'],
    'the POST arrived once',
  );
  // The GET that met a dead connection went again on a new one and was answered.
  assert.equal(seen.filter((l) => l === 'GET /4 HTTP/1.1').length, 2, seen.join(', '));
  assert.equal(r.stdout.match(/^HTTP\/1\.1 200 OK$/gm)?.length, 3, show(r));
});
