// `sling exec` with stdout on a pipe or a file prints response N while request N+1 is on the wire
// (src/commands/exec/runner.ts). What a user sees must not change: the same order on stdout, stderr lines in
// their place when both streams go to one file, and no response held back until the next answer.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { baseEnv, SLING_PATH } from '../helpers/cli.js';
import { closedPort } from '../helpers/servers.js';
import { httpServer, rawServer } from '../helpers/assert.js';
import { textOf, until } from '../helpers/wait.js';

function httpFile(text: string): { dir: string; path: string } {
  const dir = mkdtempSync(join(tmpdir(), 'sling-overlap-'));
  writeFileSync(join(dir, 't.http'), text);
  return { dir, path: join(dir, 't.http') };
}

/** Runs sling with stdout and stderr both going to one file (`> out 2>&1`); returns the file and exit code. */
function runMerged(args: string[], dir: string): Promise<{ code: number | null; text: string }> {
  const out = join(dir, 'merged.txt');
  const fd = openSync(out, 'w');
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [SLING_PATH, ...args], { env: baseEnv(), stdio: ['ignore', fd, fd] });
    child.on('error', reject);
    child.on('close', (code) => {
      closeSync(fd);
      resolve({ code, text: readFileSync(out, 'utf8') });
    });
  });
}

/** Runs sling with stdout to a file and sends it Ctrl-C once `when` settles (given that file's path); returns the exit code, the file and stderr. */
async function interruptedToFile(args: string[], dir: string, when: Promise<void> | ((out: string) => Promise<void>)): Promise<{ code: number | null; text: string; err: string }> {
  const out = join(dir, 'out.txt');
  const fd = openSync(out, 'w');
  const child = spawn(process.execPath, [SLING_PATH, ...args], { env: baseEnv(), stdio: ['ignore', fd, 'pipe'] });
  let err = '';
  child.stderr!.on('data', (d: Buffer) => (err += d.toString('utf8')));
  const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
  await (typeof when === 'function' ? when(out) : when);
  child.kill('SIGINT');
  const code = await new Promise<number | null>((r) => child.on('close', r));
  clearTimeout(timer);
  closeSync(fd);
  return { code, text: readFileSync(out, 'utf8'), err };
}

/** Runs sling with stdout and stderr on pipes; returns what came out. */
function runPiped(args: string[]): Promise<{ code: number | null; out: Buffer; err: string }> {
  const child = spawn(process.execPath, [SLING_PATH, ...args], { env: baseEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
  const chunks: Buffer[] = [];
  let err = '';
  child.stdout.on('data', (d: Buffer) => chunks.push(d));
  child.stderr.on('data', (d: Buffer) => (err += d.toString('utf8')));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, out: Buffer.concat(chunks), err }));
  });
}

test('exec to a file with 2>&1: statuses, failed tests and errors stay next to their responses', async (t) => {
  const srv = await httpServer(t, (req, res) => {
    const status = req.url === '/two' ? 500 : 200;
    res.writeHead(status, { 'Content-Type': 'text/plain' });
    res.end(`body ${req.url!.slice(1)}\n`);
  });
  const dead = await closedPort();
  const { dir, path } = httpFile(
    [
      `GET ${srv.url}/one`,
      '',
      '###',
      `GET ${srv.url}/two`,
      '',
      '###',
      `GET ${srv.url}/three`,
      '',
      '> {%',
      '  client.log("checked three");',
      '  client.test("wants 201", () => client.assert(response.status === 201, "got " + response.status));',
      '%}',
      '',
      '###',
      `GET ${srv.url}/four`,
      '',
      '###',
      `GET http://127.0.0.1:${dead}/five`,
      '',
      '###',
      `GET ${srv.url}/six`,
      '',
    ].join('\n'),
  );
  const r = await runMerged(['exec', '--print=b', '--check-status', path], dir);
  assert.equal(r.code, 5, r.text); // the first failure decides: HTTP 500
  const lines = r.text.split('\n').filter((l) => l !== '');
  const expected = [
    /^### GET http:\/\/127\.0\.0\.1:\d+\/one  \(line 1\)$/,
    /^body one$/,
    /^### GET http:\/\/127\.0\.0\.1:\d+\/two  \(line 4\)$/,
    /^body two$/,
    /^sling: warning: \S*t\.http:4: HTTP 500 Internal Server Error$/,
    /^### GET http:\/\/127\.0\.0\.1:\d+\/three  \(line 7\)$/,
    /^body three$/,
    /^checked three$/,
    /^✗ wants 201: got 200$/,
    /^sling: test failed: \S*t\.http:7: wants 201: got 200$/,
    /^### GET http:\/\/127\.0\.0\.1:\d+\/four  \(line 15\)$/,
    /^body four$/,
    /^### GET http:\/\/127\.0\.0\.1:\d+\/five  \(line 18\)$/,
    /^sling: error: \S*t\.http:18: connection refused by 127\.0\.0\.1:\d+$/,
    /^  hint: /,
    /^### GET http:\/\/127\.0\.0\.1:\d+\/six  \(line 21\)$/,
    /^body six$/,
  ];
  assert.equal(lines.length, expected.length, r.text);
  expected.forEach((re, i) => assert.match(lines[i]!, re, `line ${i + 1} of:\n${r.text}`));
  assert.deepEqual(
    srv.requests.map((q) => q.url),
    ['/one', '/two', '/three', '/four', '/six'],
  );
});

test('exec to a pipe: a response is printed before the next request is answered', async (t) => {
  // The server holds the answer to /second until the client has printed the first response. A
  // client that printed response N only after N+1's answer would never finish.
  let release!: () => void;
  const printed = new Promise<void>((r) => (release = r));
  const srv = await httpServer(t, (req, res) => {
    const answer = () => {
      res.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Length': String(`${req.url}\n`.length) });
      res.end(`${req.url}\n`);
    };
    if (req.url === '/second') void printed.then(answer);
    else answer();
  });
  const { path } = httpFile(`GET ${srv.url}/first\n\n###\nGET ${srv.url}/second\n\n###\nGET ${srv.url}/third\n`);
  const child = spawn(process.execPath, [SLING_PATH, 'exec', '--print=b', path], { env: baseEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
  child.stdout.on('data', (d: Buffer) => {
    out += d.toString('utf8');
    if (out.includes('/first\n')) release();
  });
  child.stderr.on('data', (d: Buffer) => (err += d.toString('utf8')));
  const code = await new Promise<number | null>((r) => child.on('close', r));
  clearTimeout(timer);
  assert.equal(code, 0, `exit ${code}\nstdout:\n${out}\nstderr:\n${err}`);
  assert.equal(err, '');
  assert.deepEqual(
    out.split('\n').filter((l) => l && !l.startsWith('###')),
    ['/first', '/second', '/third'],
  );
});

test('exec to a pipe: output is the same as on the one-request-at-a-time path (-v prints requests in order)', async (t) => {
  const srv = await httpServer(t, (req, res) => {
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify({ path: req.url }));
  });
  const { path, dir } = httpFile(Array.from({ length: 5 }, (_, i) => `POST ${srv.url}/n${i}\nContent-Type: application/json\n\n{"i": ${i}}\n`).join('\n###\n'));
  const r = await runMerged(['exec', '-v', path], dir);
  assert.equal(r.code, 0, r.text);
  const order = r.text.split('\n').filter((l) => /^(### |POST |\{"path)/.test(l));
  const expected: string[] = [];
  for (let i = 0; i < 5; i++) expected.push(`### POST ${srv.url}/n${i}`, `POST /n${i} HTTP/1.1`, `{"path":"/n${i}"}`);
  assert.deepEqual(
    order.map((l) => l.replace(/  \(line \d+\)$/, '')),
    expected,
  );
});

test('exec to a pipe: many responses (more than one batch of output) arrive whole and in order', async (t) => {
  // stdout is written in batches of about 64 kB; 40 responses of 3 kB make several.
  const srv = await httpServer(t, (req, res) => {
    const n = req.url!.slice(2);
    res.writeHead(200, { 'Content-Type': 'text/plain' });
    res.end(`<${n}>` + 'x'.repeat(3000) + `</${n}>\n`);
  });
  const { path } = httpFile(Array.from({ length: 40 }, (_, i) => `GET ${srv.url}/n${i}`).join('\n\n###\n') + '\n');
  const { code, out, err } = await runPiped(['exec', '--print=b', path]);
  assert.equal(code, 0, err);
  assert.equal(err, '');
  const lines = out
    .toString('utf8')
    .split('\n')
    .filter((l) => l !== '');
  assert.equal(lines.length, 80);
  for (let i = 0; i < 40; i++) {
    assert.match(lines[2 * i]!, new RegExp(`^### GET http://127\\.0\\.0\\.1:\\d+/n${i}  \\(line ${3 * i + 1}\\)$`));
    assert.equal(lines[2 * i + 1], `<${i}>` + 'x'.repeat(3000) + `</${i}>`);
  }
});

test('exec to a file, Ctrl-C while a request waits: the responses before it are in the file', async (t) => {
  // The answer to /first arrives, /second never gets one: Ctrl-C comes right as /second is
  // received, before stdout's batch would be written on its own.
  let second!: () => void;
  const secondArrived = new Promise<void>((r) => (second = r));
  const srv = await httpServer(t, (req, res) => {
    if (req.url === '/second') {
      second();
      return; // never answered
    }
    res.writeHead(200, { 'Content-Type': 'text/plain' });
    res.end(`answer ${req.url}\n`);
  });
  const { dir, path } = httpFile(`GET ${srv.url}/first\n\n###\nGET ${srv.url}/second\n`);
  const { code, text, err } = await interruptedToFile(['exec', '--print=b', path], dir, secondArrived);
  assert.equal(code, 130, err);
  // The waiting request's title is there too, as on a terminal; nothing of an answer it never got.
  assert.match(text, /^### GET http:\/\/127\.0\.0\.1:\d+\/first  \(line 1\)\nanswer \/first\n\n### GET http:\/\/127\.0\.0\.1:\d+\/second  \(line 4\)\n$/);
  assert.match(err, /interrupted/);
});

test('exec to a file, Ctrl-C while a body streams in: the head and the lines that arrived are in the file', async (t) => {
  const srv = await httpServer(t, (req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/plain' });
    res.write('line 1\n');
    res.write('line 2\n');
    // never ended
  });
  const { dir, path } = httpFile(`GET ${srv.url}/stream\n`);
  // Ctrl-C once the two lines are in the file (a body that streams is written as it comes).
  const { code, text, err } = await interruptedToFile(['exec', path], dir, (out) => until('the two lines in the file', () => textOf(out).includes('line 2\n')));
  assert.equal(code, 130, err);
  assert.match(text, /^### GET http:\/\/127\.0\.0\.1:\d+\/stream  \(line 1\)\nHTTP\/1\.1 200 OK\n/);
  assert.match(text, /\n\nline 1\nline 2\n$/);
  assert.match(err, /interrupted/);
});

test('exec to a pipe: a body of several megabytes comes whole, after its title and before the next', async (t) => {
  const big = Buffer.alloc(3 * 1024 * 1024);
  for (let i = 0; i < big.length; i++) big[i] = 97 + ((i * 31 + (i >> 12)) % 26);
  const srv = await httpServer(t, (req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/plain' });
    res.end(req.url === '/big' ? Buffer.concat([big, Buffer.from('\n')]) : `small ${req.url}\n`);
  });
  const { path } = httpFile(`GET ${srv.url}/a\n\n###\nGET ${srv.url}/big\n\n###\nGET ${srv.url}/b\n`);
  const { code, out, err } = await runPiped(['exec', '--print=b', path]);
  assert.equal(code, 0, err);
  const lines = out
    .toString('latin1')
    .split('\n')
    .filter((l) => l !== '');
  assert.equal(lines.length, 6);
  assert.match(lines[0]!, /\/a  \(line 1\)$/);
  assert.equal(lines[1], 'small /a');
  assert.match(lines[2]!, /\/big  \(line 4\)$/);
  assert.ok(lines[3] === big.toString('latin1'), `the big body differs (length ${lines[3]!.length})`);
  assert.match(lines[4]!, /\/b  \(line 7\)$/);
  assert.equal(lines[5], 'small /b');
});

test('exec --offline to a file with 2>&1: a warning about a request is under its title, after the requests before it', async () => {
  const { dir, path } = httpFile(['GET http://127.0.0.1:9/one', '', '###', 'GET http://127.0.0.1:9/two', '', '###', 'GET http://127.0.0.1:9/three?x={{missing}}', ''].join('\n'));
  const r = await runMerged(['exec', '--offline', path], dir);
  assert.equal(r.code, 0);
  const lines = r.text.split('\n');
  const warning = lines.findIndex((l) => l.startsWith('sling: warning:'));
  assert.match(lines[warning]!, /t\.http:7:\d+: unknown variable \{\{missing\}\}; shown as written/);
  assert.match(lines[warning - 1]!, /^### GET http:\/\/127\.0\.0\.1:9\/three\?x=\{\{missing\}\}  \(line 7\)$/);
  assert.equal(lines[warning + 1], 'GET /three?x={{missing}} HTTP/1.1');
  assert.equal(lines.filter((l) => l.startsWith('sling: warning:')).length, 1);
});

test('exec --debug to a file with 2>&1: variable resolution and the exchange line are under their request title', async (t) => {
  const srv = await httpServer(t, (req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/plain' });
    res.end(`body ${req.url!.slice(1)}\n`);
  });
  const { dir, path } = httpFile([`@base = ${srv.url}`, '', '### first', 'GET {{base}}/one', '', '### second', 'GET {{base}}/two', ''].join('\n'));
  const r = await runMerged(['exec', '--debug', '--print=b', path], dir);
  assert.equal(r.code, 0, r.text);
  const lines = r.text.split('\n').filter((l) => !l.includes('debug: invocation') && !l.includes('debug: exec:'));
  const at = (re: RegExp) => {
    const i = lines.findIndex((l) => re.test(l));
    assert.notEqual(i, -1, `no line ${re} in:\n${r.text}`);
    return i;
  };
  const title2 = at(/^### second: GET /);
  const resolved2 = at(/^sling: debug: .*t\.http:7:\d+: \{\{base\}\} = http/);
  const sent2 = at(/^sling: debug: GET .*\/two → 200 \(reused connection\)$/);
  const body1 = at(/^body one$/);
  const body2 = at(/^body two$/);
  assert.ok(at(/^### first: GET /) < at(/^sling: debug: .*t\.http:4:\d+: \{\{base\}\}/), r.text);
  assert.ok(at(/^sling: debug: GET .*\/one → 200/) < body1, r.text);
  assert.ok(body1 < title2 && title2 < resolved2 && resolved2 < sent2 && sent2 < body2, r.text);
});

test('exec to a pipe: the title of a request still waiting for its answer is out (a killed run shows which request hung)', async (t) => {
  let second!: () => void;
  const secondArrived = new Promise<void>((r) => (second = r));
  const srv = await httpServer(t, (req, res) => {
    if (req.url === '/hang') {
      second();
      return; // never answered
    }
    res.end(`answer ${req.url}\n`);
  });
  const { path } = httpFile(`GET ${srv.url}/ok\n\n###\n# @name slow\nGET ${srv.url}/hang\n`);
  const child = spawn(process.execPath, [SLING_PATH, 'exec', '--print=b', path], { env: baseEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString('utf8')));
  t.after(() => child.kill('SIGKILL'));
  await secondArrived;
  // Within the batch's delay, not when an answer comes (none does).
  await until("the waiting request's title on stdout", () => out.includes('/hang'));
  assert.match(out, /^### GET http:\/\/127\.0\.0\.1:\d+\/ok {2}\(line 1\)\nanswer \/ok\n\n### slow: GET http:\/\/127\.0\.0\.1:\d+\/hang {2}\(line 5\)\n$/);
});

test('exec to a file with 2>&1, Ctrl-C after a body without its last newline: the message starts its own line and names the request', async (t) => {
  const srv = await httpServer(t, (req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/plain' });
    if (req.url === '/ok') return res.end('ok /ok\n');
    res.write('partial-body-'); // never ended
  });
  const { dir, path } = httpFile(`GET ${srv.url}/ok\n\n###\n# @name stall\nGET ${srv.url}/stall\n`);
  const out = join(dir, 'merged.txt');
  const fd = openSync(out, 'w');
  const child = spawn(process.execPath, [SLING_PATH, 'exec', '--print=b', path], { env: baseEnv(), stdio: ['ignore', fd, fd] });
  const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
  await until('the part of the body that came, in the file', () => textOf(out).includes('partial-body-'));
  child.kill('SIGINT');
  const code = await new Promise<number | null>((r) => child.on('close', r));
  clearTimeout(timer);
  closeSync(fd);
  assert.equal(code, 130);
  assert.match(
    readFileSync(out, 'utf8'),
    /^### GET http:\/\/127\.0\.0\.1:\d+\/ok {2}\(line 1\)\nok \/ok\n\n### stall: GET http:\/\/127\.0\.0\.1:\d+\/stall {2}\(line 5\)\npartial-body-\nsling: interrupted at \S*t\.http:5 \(stall\)\n$/,
  );
});

test('exec, Ctrl-C during a # @sleep (the request is being built): the message names that request', async (t) => {
  // The first answer says `Connection: close`: sling ends the connection once it has read it, and
  // then the run sleeps for 20 s before the second request. Ctrl-C comes when the server sees that end.
  let read!: () => void;
  const answerRead = new Promise<void>((r) => (read = r));
  const srv = await rawServer(t, (socket) => {
    socket.write('HTTP/1.1 200 OK\r\nContent-Length: 14\r\nConnection: close\r\n\r\nanswer /first\n');
    socket.on('end', () => {
      socket.end();
      read();
    });
  });
  const { dir, path } = httpFile(`GET ${srv.url}/first\n\n###\n# @name later\n# @sleep 20000\nGET ${srv.url}/later\n`);
  const { code, err } = await interruptedToFile(['exec', '--print=b', path], dir, answerRead);
  assert.equal(code, 130, err);
  assert.match(err, /^sling: interrupted at \S*t\.http:6 \(later\)$/m);
});
