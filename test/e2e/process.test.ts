// Process-level behaviour: --debug, the stdin hint, Ctrl-C, slings.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join, dirname } from 'node:path';
import { runSling, SLING_PATH, baseEnv } from '../helpers/cli.js';
import { makeCerts, certsUnavailableReason } from '../helpers/servers.js';
import { httpServer, httpsServer, okText, rawServer } from '../helpers/assert.js';

test('--debug shows the exchange, timings and hops on stderr, with credentials masked', async (t) => {
  let n = 0;
  const s = await httpServer(t, (req, res) => {
    if (n++ === 0) {
      res.writeHead(302, { Location: '/final' });
      res.end();
    } else okText(req, res, undefined as never);
  });
  const r = await runSling(['--debug', '--follow', '-a', 'ada:s3cret-pw', s.url + '/start', 'X-Token:abc']);
  assert.equal(r.code, 0, r.stderr);
  // Like -v, without the hops: the request that got the final answer.
  assert.match(r.stdout, /^GET \/final HTTP\/1\.1$/m, 'debug prints the request like -v');
  assert.match(r.stderr, /sling: debug: invocation /);
  assert.match(r.stderr, /sling: debug: GET http:\/\/127\.0\.0\.1:\d+\/start → 302 \(new connection\)/);
  assert.match(r.stderr, /sling: debug: GET http:\/\/127\.0\.0\.1:\d+\/final → 200 \(reused connection\)/);
  assert.match(r.stderr, /sling: debug: timings: dns .*, connect .*, tls .*, first byte .*, total /);
  assert.ok(!r.stderr.includes('s3cret-pw'), 'password leaked into debug output');
  const b64 = Buffer.from('ada:s3cret-pw').toString('base64');
  assert.ok(!r.stdout.includes(b64), 'credentials leaked into the printed request');
  assert.match(r.stdout, /^Authorization: Basic \*\*\*$/m);
  assert.match(r.stderr, /ada:\*\*\*/);
});

test('--debug masks every credential on the invocation line: the URL password, Authorization, Proxy-Authorization and Cookie items, -a, proxy passwords', async () => {
  const secrets = ['PASSurl', 'xyzcookie', 'abcproxyauth', 'tokauth', 'pwproxy', 'secretdash'];
  const r = await runSling([
    '--debug',
    '--offline',
    '--proxy',
    'http:http://pu:pwproxy@127.0.0.1:3',
    '-a',
    'bob:secretdash',
    'http://ada:PASSurl@127.0.0.1:9/p',
    'Cookie:sid=xyzcookie',
    'Proxy-Authorization:Basic abcproxyauth',
    'authorization:Bearer tokauth',
  ]);
  assert.equal(r.code, 0, r.stderr);
  const line = r.stderr.split('\n').find((l) => l.startsWith('sling: debug: invocation '));
  assert.ok(line, r.stderr);
  for (const s of secrets) assert.ok(!line.includes(s), `${s} shown on the invocation line: ${line}`);
  for (const s of secrets) assert.ok(!r.stdout.includes(s), `${s} shown in the printed request: ${r.stdout}`);
  const inv = JSON.parse(line.slice('sling: debug: invocation '.length));
  assert.equal(inv.url, 'http://ada:***@127.0.0.1:9/p');
  assert.deepEqual(inv.items, ['Cookie:***', 'Proxy-Authorization:Basic ***', 'authorization:Bearer ***']);
  assert.equal(inv.auth, 'bob:***');
  assert.deepEqual(inv.proxies, { http: 'http://pu:***@127.0.0.1:3' });
  // HTTPie's shorthand without a scheme, and a bearer token given with -a: all of it.
  const short = await runSling(['--debug', '--offline', '-A', 'bearer', '-a', 'tok3n', 'ada:PASSshort@localhost:9/']);
  assert.equal(short.code, 0, short.stderr);
  assert.ok(!short.stderr.includes('PASSshort') && !short.stderr.includes('tok3n'), short.stderr);
  assert.match(short.stderr, /"url":"ada:\*\*\*@localhost:9\/"/);
});

test('--debug prints a stack trace for an error, without --debug there is none', async () => {
  const plain = await runSling(['http://127.0.0.1:1/', '--timeout', 'abc']);
  assert.equal(plain.code, 1);
  assert.doesNotMatch(plain.stderr, /^\s+at /m);
  const debug = await runSling(['--debug', 'http://127.0.0.1:1/', '--timeout', 'abc']);
  assert.equal(debug.code, 1);
  assert.match(debug.stderr, /sling: error: --timeout needs a positive number of seconds, got 'abc'/);
  assert.match(debug.stderr, /^\s+at /m);
});

test('stdin that stays silent for 2 seconds gets a hint naming --ignore-stdin', async (t) => {
  const s = await httpServer(t, okText);
  const child = spawn(process.execPath, [SLING_PATH, s.url + '/'], { env: baseEnv(), stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  // The body comes once the hint is out (on a loaded machine, start-up alone can take a while);
  // without a hint, after 10 s, and the assertion below fails.
  const late = () => {
    if (!child.stdin.writableEnded) child.stdin.end('late body');
  };
  child.stderr.on('data', (c: Buffer) => {
    stderr += c;
    if (stderr.includes('--ignore-stdin')) late();
  });
  const timer = setTimeout(late, 120_000);
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  clearTimeout(timer);
  assert.equal(code, 0);
  assert.match(stderr, /sling: warning: waiting for the request body on standard input; use --ignore-stdin \(-I\) if there is none/);
  assert.equal(s.requests[0]!.body.toString(), 'late body');
});

test('Ctrl-C (SIGINT) exits 130', async (t) => {
  // Ctrl-C once the request has arrived (sling is running, its handler in place), not at a fixed
  // time: on a loaded machine, start-up alone can take longer than any fixed delay.
  let arrived!: () => void;
  const requested = new Promise<void>((r) => (arrived = r));
  const s = await rawServer(t, () => {
    arrived(); // accept and never answer
  });
  const child = spawn(process.execPath, [SLING_PATH, s.url + '/'], { env: baseEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => (stderr += c));
  const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
  void requested.then(() => child.kill('SIGINT'));
  t.after(() => clearTimeout(timer));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  assert.equal(code, 130);
  assert.match(stderr, /interrupted/);
});

const certs = makeCerts();
test('slings defaults to https://', { skip: certs ? undefined : certsUnavailableReason() }, async (t) => {
  const s = await httpsServer(t, okText, { cert: 'good' });
  const slings = join(dirname(SLING_PATH), 'slings.js');
  const child = spawn(process.execPath, [slings, `127.0.0.1:${s.port}/hello`, `--verify=${certs!.caCert}`], { env: baseEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (c: Buffer) => (out += c));
  child.stderr.on('data', (c: Buffer) => (err += c));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  assert.equal(code, 0, err);
  assert.match(out, /^HTTP\/1\.1 200/);
  assert.equal(s.requests[0]!.url, '/hello');
  // The same URL with sling speaks plain HTTP to the TLS port and fails as a network error.
  const plain = await runSling([`127.0.0.1:${s.port}/hello`, '--timeout', '3']);
  assert.notEqual(plain.code, 0);
});
