// Files read whole as text are read with a limit (src/files.ts readLimited): an endless one (a link
// to /dev/zero, which a cloned repository can carry) or one past the limit stops with one line that
// names the file and the limit, exit 1, before anything is sent. Before, each grew sling's memory by
// gigabytes in seconds, --offline or not.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runSling, type RunResult } from '../helpers/cli.js';
import { assertNoStack, httpServer, okText, show } from '../helpers/assert.js';
import type { CaptureServer } from '../helpers/servers.js';

const noZero = process.platform === 'win32' ? 'no /dev/zero on Windows' : undefined;

function dir(t: TestContext): string {
  const d = mkdtempSync(join(tmpdir(), 'sling-limits-'));
  t.after(() => rmSync(d, { recursive: true, force: true }));
  return d;
}

/** Exit 1 with one line on stderr, the error, that names the file and the limit. */
function assertRefused(r: RunResult, shown: RegExp, limit: 10 | 64) {
  assert.equal(r.code, 1, show(r));
  assert.equal(r.timedOut, false, show(r));
  const errors = r.stderr.split('\n').filter((l) => l.startsWith('sling: error: '));
  assert.equal(errors.length, 1, show(r));
  assert.match(errors[0]!, shown, show(r));
  assert.match(errors[0]!, new RegExp(`is larger than ${limit} MiB, the most sling reads of `), show(r));
  assertNoStack(r.stderr);
}

function assertNothingSent(s: CaptureServer, r?: RunResult) {
  assert.equal(s.requests.length, 0, `nothing may be sent${r ? show(r) : ''}`);
}

test('files of settings that never end (links to /dev/zero) stop at 10 MiB with one line naming them, nothing sent: environment files, config.json, .env, .netrc, a session, -K, .curlrc, certificates', {
  skip: noZero,
}, async (t) => {
  const s = await httpServer(t, okText);
  const d = dir(t);
  const zero = (name: string) => symlinkSync('/dev/zero', join(d, name));
  writeFileSync(join(d, 'get.http'), `GET ${s.url}/a\n`);

  const env = join(d, 'env');
  mkdirSync(env);
  symlinkSync('/dev/zero', join(env, 'http-client.env.json'));
  writeFileSync(join(env, 'get.http'), `GET ${s.url}/a\n`);
  assertRefused(await runSling(['exec', '--env', 'dev', 'get.http'], { cwd: env }), /'.*http-client\.env\.json' .*an environment file$/, 10);
  assertRefused(await runSling(['exec', '--offline', '--env', 'dev', 'get.http'], { cwd: env }), /http-client\.env\.json/, 10);

  const dot = join(d, 'dot');
  mkdirSync(dot);
  symlinkSync('/dev/zero', join(dot, '.env'));
  writeFileSync(join(dot, 'get.http'), `GET ${s.url}/{{$dotenv X}}\n`);
  assertRefused(await runSling(['exec', 'get.http'], { cwd: dot }), /'.*\.env' .*a \.env file$/, 10);

  const cfg = join(d, 'cfg');
  mkdirSync(cfg);
  symlinkSync('/dev/zero', join(cfg, 'config.json'));
  assertRefused(await runSling(['--offline', 'GET', `${s.url}/a`], { env: { SLING_CONFIG_DIR: cfg } }), /config\.json' .*a config file$/, 10);

  zero('netrc');
  assertRefused(await runSling(['GET', `${s.url}/a`], { cwd: d, env: { NETRC: join(d, 'netrc') } }), /netrc' .*a \.netrc file$/, 10);

  zero('session.json');
  assertRefused(await runSling(['--session', './session.json', 'GET', `${s.url}/a`], { cwd: d }), /session\.json' .*a session file$/, 10);

  zero('conf');
  writeFileSync(join(d, 'k.curl'), `curl -K conf ${s.url}/a\n`);
  assertRefused(await runSling(['exec', 'k.curl'], { cwd: d }), /-K: cannot read config file 'conf': 'conf' is larger than 10 MiB/, 10);

  const home = join(d, 'home');
  mkdirSync(home);
  symlinkSync('/dev/zero', join(home, '.curlrc'));
  writeFileSync(join(d, 'rc.curl'), `curl ${s.url}/a\n`);
  assertRefused(await runSling(['exec', 'rc.curl'], { cwd: d, env: { HOME: home, CURL_HOME: home } }), /\.curlrc' .*a curl config file/, 10);

  zero('ca.pem');
  assertRefused(await runSling(['--verify', join(d, 'ca.pem'), 'GET', s.url.replace('http:', 'https:')], { cwd: d }), /ca\.pem' .*a CA bundle$/, 10);
  assertNothingSent(s);
});

test('a handler file that never ends fails its request with one line naming it and the 10 MiB limit', { skip: noZero }, async (t) => {
  const s = await httpServer(t, okText);
  const d = dir(t);
  symlinkSync('/dev/zero', join(d, 'h.js'));
  writeFileSync(join(d, 'h.http'), `GET ${s.url}/a\n\n> ./h.js\n`);
  const r = await runSling(['exec', 'h.http'], { cwd: d });
  assert.equal(r.code, 1, show(r));
  assert.equal(r.timedOut, false, show(r));
  assert.match(r.stderr, /h\.http:3: the response handler failed: '\.\/h\.js' is larger than 10 MiB, the most sling reads of a script file/, show(r));
  assertNoStack(r.stderr);
});

test('text read whole that never ends stops at 64 MiB with one line naming it, nothing sent: an import, `<@`, `<` of a device, items =@ and @, curl -H @, -d @, -F @, -b, -T, $(cat), the exec file (also on standard input)', {
  skip: noZero,
}, async (t) => {
  const s = await httpServer(t, okText);
  const d = dir(t);
  symlinkSync('/dev/zero', join(d, 'z'));
  const cases: [string, string, RegExp][] = [
    ['i.http', `import ./z\n\nGET ${s.url}/a\n`, /^sling: error: i\.http:1:1: import: '\.\/z' is larger than 64 MiB, the most sling reads of a request file$/m],
    ['v.http', `POST ${s.url}/a\n\n<@ ./z\n`, /^sling: error: v\.http:3:4: '\.\/z' is larger than 64 MiB, the most sling reads of a body file read as text to substitute its \{\{variables\}\}$/m],
    ['w.http', `POST ${s.url}/a\n\n< ./z\n`, /^sling: error: w\.http:3:3: '\.\/z' is larger than 64 MiB, the most sling reads of a device read as a body$/m],
  ];
  for (const o of ['-H @z', '-d @z', '--data-binary @z', '-F f=@z', '-b z', '-T z'])
    cases.push([`c${cases.length}.curl`, `curl -s ${o} ${s.url}/a\n`, /^sling: error: c\d+\.curl:1:1: 'z' is larger than 64 MiB, the most sling reads of a file a curl command reads whole/m]);
  cases.push(['cat.curl', `curl -s -d "$(cat z)" ${s.url}/a\n`, /^sling: error: cat\.curl:1:\d+: cat: 'z' is larger than 64 MiB/m]);
  for (const [name, text, expected] of cases) {
    writeFileSync(join(d, name), text);
    const r = await runSling(['exec', name], { cwd: d });
    assertRefused(r, expected, 64);
    assertNothingSent(s, r);
  }
  for (const item of ['@z', 'a=@z', 'a:=@z', 'f@z']) {
    const r = await runSling(['POST', `${s.url}/a`, item], { cwd: d });
    assertRefused(r, new RegExp(`^sling: error: item '${item}': 'z' is larger than 64 MiB`, 'm'), 64);
    assertNothingSent(s, r);
  }
  assertRefused(await runSling(['exec', 'z'], { cwd: d }), /^sling: error: 'z' is larger than 64 MiB, the most sling reads of a request file$/m, 64);
  // The file to run on standard input: the same limit.
  const piped = await runSling(['exec', '-'], { cwd: d, stdin: Buffer.alloc(64 * 1024 * 1024 + 1, '#') });
  assertRefused(piped, /^sling: error: 'standard input' is larger than 64 MiB, the most sling reads of a request file$/m, 64);
  assertNothingSent(s);
});

test('`<@ file` past 64 MiB is refused at its place with the limit (it is held as text to substitute its variables); the same file with `<` is sent as it is', async (t) => {
  const s = await httpServer(t, okText);
  const d = dir(t);
  writeFileSync(join(d, 'big.json'), '');
  truncateSync(join(d, 'big.json'), 64 * 1024 * 1024 + 1);
  writeFileSync(join(d, 'v.http'), `POST ${s.url}/a\n\n<@ ./big.json\n`);
  const r = await runSling(['exec', 'v.http'], { cwd: d });
  assertRefused(r, /^sling: error: v\.http:3:4: '\.\/big\.json' is larger than 64 MiB, the most sling reads of a body file read as text to substitute its \{\{variables\}\}$/m, 64);
  assertNothingSent(s, r);
  writeFileSync(join(d, 'p.http'), `POST ${s.url}/a\n\n< ./big.json\n`);
  const plain = await runSling(['exec', 'p.http'], { cwd: d, timeoutMs: 60000 });
  assert.equal(plain.code, 0, show(plain));
  assert.equal(s.requests.length, 1);
  assert.equal(s.requests[0]!.body.length, 64 * 1024 * 1024 + 1);
});
