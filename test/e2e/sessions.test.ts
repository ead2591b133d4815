// Sessions, config.json and credentials: safe by default. Real loopback servers; every
// test has its own SLING_CONFIG_DIR and HOME.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runSling, SLING_PATH, baseEnv } from '../helpers/cli.js';
import { header } from '../helpers/servers.js';
import { httpServer, okText } from '../helpers/assert.js';
import { comparisonToolMissing } from '../helpers/tools.js';

function sandbox() {
  const home = mkdtempSync(join(tmpdir(), 'sling-home-'));
  const config = join(home, 'cfg');
  return { home, config, env: { HOME: home, SLING_CONFIG_DIR: config } };
}

const cookieServer = (_req: IncomingMessage, res: ServerResponse) => {
  if (_req.url === '/login') {
    res.writeHead(200, { 'Set-Cookie': ['sid=abc; Path=/; HttpOnly', 'theme=dark; Path=/settings'], 'Content-Type': 'text/plain' });
    res.end('welcome');
  } else okText(_req, res, undefined as never);
};

test('a session keeps headers and cookies in a 0600 file in a 0700 folder, and sends them back', async (t) => {
  const s = await httpServer(t, cookieServer);
  const box = sandbox();
  const first = await runSling(['--session', 'work', `${s.url}/login`, 'X-Team:blue', 'Content-Type:text/plain', 'If-None-Match:x'], { env: box.env });
  assert.equal(first.code, 0, first.stderr);
  const dir = join(box.config, 'sessions', `127.0.0.1_${s.port}`);
  const file = join(dir, 'work.json');
  assert.equal(statSync(file).mode & 0o777, 0o600);
  assert.equal(statSync(dir).mode & 0o777, 0o700);
  const saved = JSON.parse(readFileSync(file, 'utf8'));
  assert.deepEqual(saved.headers, [{ name: 'X-Team', value: 'blue' }], 'Content-* and If-* headers are not kept');
  assert.deepEqual(saved.cookies.map((c: { name: string }) => c.name).sort(), ['sid', 'theme']);
  assert.deepEqual(readdirSync(dir), ['work.json'], 'no temporary files left behind');

  const second = await runSling(['--session', 'work', `${s.url}/me`], { env: box.env });
  assert.equal(second.code, 0);
  assert.equal(header(s.requests[1]!, 'cookie'), 'sid=abc', 'theme=dark is bound to /settings');
  assert.equal(header(s.requests[1]!, 'x-team'), 'blue');
  assert.equal(header(s.requests[1]!, 'content-type'), undefined);
  await runSling(['--session', 'work', `${s.url}/settings/x`], { env: box.env });
  assert.equal(header(s.requests[2]!, 'cookie'), 'theme=dark; sid=abc');
});

test('session cookies never go to another host or another port', async (t) => {
  const a = await httpServer(t, cookieServer);
  const b = await httpServer(t, okText);
  const box = sandbox();
  assert.equal((await runSling(['--session', 's', `${a.url}/login`], { env: box.env })).code, 0);
  // Same session name, other host name (localhost) on the same port: another session file.
  assert.equal((await runSling(['--session', 's', `http://localhost:${a.port}/me`], { env: box.env })).code, 0);
  assert.equal(header(a.requests[1]!, 'cookie'), undefined);
  // Other port: another session.
  assert.equal((await runSling(['--session', 's', `${b.url}/me`], { env: box.env })).code, 0);
  assert.equal(header(b.requests[0]!, 'cookie'), undefined);
});

test('after a redirect to another host, session cookies stay behind', async (t) => {
  const target = await httpServer(t, okText);
  const s = await httpServer(t, (req, res) => {
    if (req.url === '/login') return cookieServer(req, res);
    res.writeHead(302, { Location: `http://localhost:${target.port}/landing` });
    res.end();
  });
  const box = sandbox();
  await runSling(['--session', 's', `${s.url}/login`], { env: box.env });
  const r = await runSling(['--session', 's', '--follow', `${s.url}/go`, 'Cookie:extra=1', '-a', 'u:p'], { env: box.env });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(header(s.requests[1]!, 'cookie'), 'sid=abc; extra=1');
  assert.equal(target.requests.length, 1);
  assert.equal(header(target.requests[0]!, 'cookie'), undefined);
  assert.equal(header(target.requests[0]!, 'authorization'), undefined);
});

test('expired cookies are dropped from the session and not sent', async (t) => {
  const s = await httpServer(t, okText);
  const box = sandbox();
  const dir = join(box.config, 'sessions', `127.0.0.1_${s.port}`);
  mkdirSync(dir, { recursive: true });
  const past = Math.floor(Date.now() / 1000) - 60;
  const future = Math.floor(Date.now() / 1000) + 3600;
  writeFileSync(
    join(dir, 'old.json'),
    JSON.stringify({
      headers: [],
      cookies: [
        { name: 'gone', value: '1', domain: '127.0.0.1', hostOnly: true, path: '/', expires: past },
        { name: 'kept', value: '2', domain: '127.0.0.1', hostOnly: true, path: '/', expires: future },
      ],
    }),
  );
  assert.equal((await runSling(['--session', 'old', `${s.url}/`], { env: box.env })).code, 0);
  assert.equal(header(s.requests[0]!, 'cookie'), 'kept=2');
  const saved = JSON.parse(readFileSync(join(dir, 'old.json'), 'utf8'));
  assert.deepEqual(
    saved.cookies.map((c: { name: string }) => c.name),
    ['kept'],
  );
});

test('--session-read-only uses the session without changing it; sessions work with --offline', async (t) => {
  const s = await httpServer(t, cookieServer);
  const box = sandbox();
  await runSling(['--session', 'ro', `${s.url}/login`, 'X-A:1'], { env: box.env });
  const file = join(box.config, 'sessions', `127.0.0.1_${s.port}`, 'ro.json');
  const before = readFileSync(file, 'utf8');
  const r = await runSling(['--session-read-only', 'ro', `${s.url}/login`, 'X-B:2'], { env: box.env });
  assert.equal(r.code, 0);
  assert.equal(header(s.requests[1]!, 'x-a'), '1');
  assert.equal(readFileSync(file, 'utf8'), before);
  const off = await runSling(['--offline', '--session', 'ro', `${s.url}/x`], { env: box.env });
  assert.equal(off.code, 0);
  assert.match(off.stdout, /^X-A: 1$/m);
  assert.match(off.stdout, /^Cookie: sid=abc$/m);
  assert.equal(s.requests.length, 2, '--offline sent nothing');
});

test('a session path instead of a name; credentials are kept and reused', async (t) => {
  const s = await httpServer(t, okText);
  const box = sandbox();
  const path = join(box.home, 'my-session.json');
  assert.equal((await runSling(['--session', path, '-a', 'ada:pw', `${s.url}/`], { env: box.env })).code, 0);
  assert.equal((await runSling(['--session', path, `${s.url}/`], { env: box.env })).code, 0);
  assert.equal(header(s.requests[1]!, 'authorization'), 'Basic ' + Buffer.from('ada:pw').toString('base64'));
  assert.equal(statSync(path).mode & 0o777, 0o600);
});

test('a session path keeps the folder the user gave as it was; folders sling creates for it are 0700', async () => {
  const box = sandbox();
  const shared = join(box.home, 'project');
  mkdirSync(shared, { mode: 0o755 });
  chmodSync(shared, 0o755);
  const r = await runSling(['--offline', '--session', join(shared, 'team.json'), 'example.org', 'X-Team:blue'], { env: box.env });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(statSync(shared).mode & 0o777, 0o755, 'an existing folder is not made private');
  assert.equal(statSync(join(shared, 'team.json')).mode & 0o777, 0o600);
  const r2 = await runSling(['--offline', '--session', join(shared, 'new', 'deeper', 'team.json'), 'example.org', 'X-Team:blue'], { env: box.env });
  assert.equal(r2.code, 0, r2.stderr);
  assert.equal(statSync(join(shared, 'new')).mode & 0o777, 0o700);
  assert.equal(statSync(join(shared, 'new', 'deeper')).mode & 0o777, 0o700);
  assert.equal(statSync(shared).mode & 0o777, 0o755);
});

test('a session that cannot be written is one clear line naming it, exit 1', { skip: process.platform === 'win32' ? 'symbolic links need privileges on Windows' : false }, async () => {
  const box = sandbox();
  // The folder is a link to nowhere: nothing to read (a new session), and no folder to write in.
  const dangling = join(box.home, 'gone');
  symlinkSync(join(box.home, 'no', 'such', 'folder'), dangling);
  const path = join(dangling, 'team.json');
  const r = await runSling(['--offline', '--session', path, 'example.org'], { env: box.env });
  assert.equal(r.code, 1);
  assert.match(r.stderr, new RegExp(`^sling: error: cannot write the session ${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: [^\n]+\n$`));
});

test('a session file is replaced atomically: concurrent writers never leave a torn file', async (t) => {
  const s = await httpServer(t, (req, res) => {
    res.writeHead(200, { 'Set-Cookie': `c${Math.random().toString(36).slice(2, 8)}=${'x'.repeat(2000)}; Path=/` });
    res.end('ok');
  });
  const box = sandbox();
  const file = join(box.config, 'sessions', `127.0.0.1_${s.port}`, 'busy.json');
  let reads = 0;
  let stop = false;
  const reader = (async () => {
    while (!stop) {
      if (existsSync(file)) {
        JSON.parse(readFileSync(file, 'utf8')); // throws on a torn file
        reads++;
      }
      await new Promise((r) => setTimeout(r, 2));
    }
  })();
  const runs = Array.from(
    { length: 8 },
    () =>
      new Promise<number | null>((resolve) => {
        const c = spawn(process.execPath, [SLING_PATH, '--session', 'busy', `${s.url}/`, 'X-N:1'], { env: { ...baseEnv(), ...box.env }, stdio: 'ignore' });
        c.on('close', resolve);
      }),
  );
  const codes = await Promise.all(runs);
  stop = true;
  await reader;
  assert.deepEqual(codes, Array(8).fill(0));
  assert.ok(reads > 0);
  JSON.parse(readFileSync(file, 'utf8'));
  assert.deepEqual(readdirSync(join(box.config, 'sessions', `127.0.0.1_${s.port}`)), ['busy.json']);
});

test('a malformed session file is a clear error naming it', async () => {
  const box = sandbox();
  const path = join(box.home, 'bad.json');
  writeFileSync(path, '{"headers": [');
  const r = await runSling(['--session', path, 'http://127.0.0.1:1/'], { env: box.env });
  assert.equal(r.code, 1);
  assert.match(r.stderr, /bad\.json: the session file is not valid JSON/);
});

test('config.json default_options apply, --no-FLAG undoes them, a malformed config names file and position', async (t) => {
  const s = await httpServer(t, (_req, res) => {
    res.writeHead(404);
    res.end();
  });
  const box = sandbox();
  mkdirSync(box.config, { recursive: true });
  writeFileSync(join(box.config, 'config.json'), JSON.stringify({ default_options: ['--check-status'] }));
  assert.equal((await runSling([`${s.url}/`], { env: box.env })).code, 4);
  assert.equal((await runSling(['--no-check-status', `${s.url}/`], { env: box.env })).code, 0);
  writeFileSync(join(box.config, 'config.json'), '{\n  "default_options": [\n    "--follow",\n  ]\n}\n');
  const bad = await runSling([`${s.url}/`], { env: box.env });
  assert.equal(bad.code, 1);
  assert.match(bad.stderr, /config\.json:4:\d+: the config file is not valid JSON/);
  // An option of default_options that sling does not know: the error says where it comes from;
  // the user's own unknown option is theirs.
  writeFileSync(join(box.config, 'config.json'), JSON.stringify({ default_options: ['--folow'] }));
  const unknown = await runSling([`${s.url}/`], { env: box.env });
  assert.equal(unknown.code, 1);
  assert.equal(unknown.stderr, `sling: error: unknown option '--folow' (did you mean --follow?)\n  hint: the option comes from "default_options" in ${join(box.config, 'config.json')}\n`);
  writeFileSync(join(box.config, 'config.json'), JSON.stringify({ default_options: ['--follow'] }));
  const own = await runSling(['--bogus', `${s.url}/`], { env: box.env });
  assert.equal(own.code, 1);
  assert.match(own.stderr, /unknown option '--bogus'\n  hint: see sling --help/);
  // XDG_CONFIG_HOME is honoured when SLING_CONFIG_DIR is not set.
  const xdg = mkdtempSync(join(tmpdir(), 'sling-xdg-'));
  mkdirSync(join(xdg, 'sling'));
  writeFileSync(join(xdg, 'sling', 'config.json'), JSON.stringify({ default_options: ['--check-status'] }));
  assert.equal((await runSling([`${s.url}/`], { env: { HOME: box.home, XDG_CONFIG_HOME: xdg } })).code, 4);
});

// ---------------------------------------------------------------- auth --

/** A server that checks digest credentials for real (MD5 or SHA-256, qop=auth). */
function digestServer(algorithm: 'MD5' | 'SHA-256', user: string, password: string) {
  const realm = 'sling-test';
  const nonce = 'n' + Math.random().toString(36).slice(2);
  const H = (s: string) =>
    createHash(algorithm === 'MD5' ? 'md5' : 'sha256')
      .update(s)
      .digest('hex');
  return (req: IncomingMessage, res: ServerResponse) => {
    const auth = req.headers.authorization ?? '';
    const p: Record<string, string> = {};
    for (const m of auth.matchAll(/(\w+)=(?:"([^"]*)"|([^,\s]+))/g)) p[m[1]!] = m[2] ?? m[3]!;
    if (auth.startsWith('Digest ') && p.username === user && p.nonce === nonce) {
      const ha1 = H(`${user}:${realm}:${password}`);
      const ha2 = H(`${req.method}:${p.uri}`);
      const want = H(`${ha1}:${nonce}:${p.nc}:${p.cnonce}:${p.qop}:${ha2}`);
      if (p.response === want && p.uri === req.url) {
        res.writeHead(200, { 'Content-Type': 'text/plain' });
        res.end('digest ok');
        return;
      }
    }
    res.writeHead(401, { 'WWW-Authenticate': `Digest realm="${realm}", qop="auth", nonce="${nonce}", opaque="op", algorithm=${algorithm}` });
    res.end('no');
  };
}

for (const algorithm of ['MD5', 'SHA-256'] as const) {
  test(`digest authentication (${algorithm}, qop=auth) against a checking server`, async (t) => {
    const s = await httpServer(t, digestServer(algorithm, 'ada', 's3cret'));
    const ok = await runSling(['--check-status', '-A', 'digest', '-a', 'ada:s3cret', `${s.url}/private?x=1`]);
    assert.equal(ok.code, 0, ok.stderr);
    assert.match(ok.stdout, /digest ok/);
    assert.equal(s.requests.length, 2);
    assert.equal(header(s.requests[0]!, 'authorization'), undefined, 'the first request carries no credentials');
    const wrong = await runSling(['--check-status', '-A', 'digest', '-a', 'ada:nope', `${s.url}/private`]);
    assert.equal(wrong.code, 4);
  });
}

test('digest is not answered for another origin after a redirect', async (t) => {
  const other = await httpServer(t, digestServer('MD5', 'ada', 's3cret'));
  const s = await httpServer(t, (_req, res) => {
    res.writeHead(302, { Location: `http://localhost:${other.port}/x` });
    res.end();
  });
  const r = await runSling(['--follow', '-A', 'digest', '-a', 'ada:s3cret', `${s.url}/`]);
  assert.equal(r.code, 0);
  assert.equal(other.requests.length, 1);
  assert.equal(header(other.requests[0]!, 'authorization'), undefined);
});

test('~/.netrc and NETRC supply credentials; -a and --ignore-netrc win', async (t) => {
  const s = await httpServer(t, okText);
  const box = sandbox();
  writeFileSync(join(box.home, '.netrc'), `machine 127.0.0.1 login net password rc\n`);
  const b64 = (x: string) => 'Basic ' + Buffer.from(x).toString('base64');
  await runSling([`${s.url}/`], { env: box.env });
  assert.equal(header(s.requests[0]!, 'authorization'), b64('net:rc'));
  await runSling(['-a', 'me:pw', `${s.url}/`], { env: box.env });
  assert.equal(header(s.requests[1]!, 'authorization'), b64('me:pw'));
  await runSling(['--ignore-netrc', `${s.url}/`], { env: box.env });
  assert.equal(header(s.requests[2]!, 'authorization'), undefined);
  const other = join(box.home, 'other-netrc');
  writeFileSync(other, 'default login dflt password x\n');
  await runSling([`${s.url}/`], { env: { ...box.env, NETRC: other } });
  assert.equal(header(s.requests[3]!, 'authorization'), b64('dflt:x'));
  // localhost is another machine: no credentials from the 127.0.0.1 entry.
  await runSling([`http://localhost:${s.port}/`], { env: box.env });
  assert.equal(header(s.requests[4]!, 'authorization'), undefined);
});

test('credentials never appear in error messages (proxy URL)', async () => {
  const r = await runSling(['--proxy', 'http://user:hunter2@127.0.0.1:1', 'http://127.0.0.1:2/']);
  assert.equal(r.code, 6);
  assert.ok(!r.stderr.includes('hunter2'), r.stderr);
  assert.match(r.stderr, /user:\*\*\*@127\.0\.0\.1:1/);
});

test('-a USER without a terminal to ask on is a clear error, nothing sent', async (t) => {
  const s = await httpServer(t, okText);
  const r = await runSling(['-a', 'ada', `${s.url}/`]);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /no password given for user 'ada' and no terminal to ask for it/);
  assert.equal(s.requests.length, 0);
});

test('sling exec --session starts from and updates the session of each host', async (t) => {
  const s = await httpServer(t, cookieServer);
  const box = sandbox();
  const file = join(box.home, 'flow.http');
  writeFileSync(file, `GET ${s.url}/login\n\n###\nGET ${s.url}/me\n`);
  const first = await runSling(['exec', '--session', 'flow', file], { env: box.env });
  assert.equal(first.code, 0, first.stderr);
  assert.equal(header(s.requests[1]!, 'cookie'), 'sid=abc');
  const saved = JSON.parse(readFileSync(join(box.config, 'sessions', `127.0.0.1_${s.port}`, 'flow.json'), 'utf8'));
  assert.deepEqual(saved.cookies.map((c: { name: string }) => c.name).sort(), ['sid', 'theme']);
  // A later run starts with the session's cookies, even for its first request.
  writeFileSync(file, `GET ${s.url}/me\n`);
  assert.equal((await runSling(['exec', '--session', 'flow', file], { env: box.env })).code, 0);
  assert.equal(header(s.requests[2]!, 'cookie'), 'sid=abc');
});

// `--session PATH` must never turn a JSON file that is not a session into one.
const notSessions: [string, RegExp][] = [
  ['{"notes":"my important file"}', /"notes" is not a session field/],
  ['[1,2]', /it holds a list, not an object/],
  ['{"cookies":"x","headers":5}', /"cookies" is a string, not a list or an object of cookies/],
  ['{"headers":{"X-A":1}}', /"headers"\."X-A" is a number, not a string/],
  ['{"headers":[["X-A","1"],{"name":"X-B"}]}', /"headers"\[1\] is neither \["name", "value"\] nor \{"name": \.\.\., "value": \.\.\.\}/],
  ['{"cookies":[{"name":"a","value":"1","expires":"soon"}]}', /"cookies"\[0\]\."expires" is a string, not a number or null/],
  ['{"auth":"ada:pw"}', /"auth" is a string, not an object or null/],
  ['null', /it holds null, not an object/],
];

test('a JSON file that is not a session is an error naming it (exit 1): nothing sent, the file never written', async (t) => {
  const s = await httpServer(t, okText);
  const box = sandbox();
  for (const [text, why] of notSessions) {
    const path = join(box.home, 'important.json');
    writeFileSync(path, text);
    for (const flag of ['--session', '--session-read-only']) {
      const r = await runSling([flag, path, `${s.url}/`, 'X-Team:blue'], { env: box.env });
      assert.equal(r.code, 1, `${text}: ${r.stderr}`);
      assert.equal(r.stderr.split('\n').length, 2, `one line: ${r.stderr}`);
      assert.match(r.stderr, new RegExp(`^sling: error: ${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: not a session file: `));
      assert.match(r.stderr, why);
      assert.equal(readFileSync(path, 'utf8'), text, 'the file is never written');
    }
    // Also when the request is only printed.
    const off = await runSling(['--offline', '--session', path, `${s.url}/`], { env: box.env });
    assert.equal(off.code, 1, off.stderr);
    assert.equal(readFileSync(path, 'utf8'), text);
  }
  assert.equal(s.requests.length, 0, 'nothing was sent');
});

test('sling exec --session: a session path that is not a session stops the run before anything is sent; a named one fails its host', async (t) => {
  const s = await httpServer(t, okText);
  const box = sandbox();
  const http = join(box.home, 'flow.http');
  writeFileSync(http, `GET ${s.url}/a\n\n###\nGET ${s.url}/b\n`);
  const path = join(box.home, 'notes.json');
  writeFileSync(path, '{"notes":"my important file"}');
  const r = await runSling(['exec', '--session', path, http], { env: box.env });
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stderr, /notes\.json: not a session file: "notes" is not a session field/);
  assert.equal(s.requests.length, 0);
  assert.equal(readFileSync(path, 'utf8'), '{"notes":"my important file"}');
  // A named session lives in sling's folder, one file per host: the requests to that host fail.
  const dir = join(box.config, 'sessions', `127.0.0.1_${s.port}`);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'flow.json'), '[1,2]');
  const named = await runSling(['exec', '--session', 'flow', http], { env: box.env });
  assert.equal(named.code, 1, named.stderr);
  assert.match(named.stderr, /flow\.json: not a session file: it holds a list, not an object/);
  assert.equal(s.requests.length, 0);
  assert.equal(readFileSync(join(dir, 'flow.json'), 'utf8'), '[1,2]');
});

test('HTTPie session files (3.2 layout, and older ones with headers and cookies as objects) are read, sent and kept', async (t) => {
  const s = await httpServer(t, okText);
  const box = sandbox();
  const future = Math.floor(Date.now() / 1000) + 3600;
  const files: Record<string, unknown> = {
    // HTTPie 3.2: lists of {name, value}; auth as raw_auth; an unbound cookie (domain "").
    new: {
      __meta__: { about: 'HTTPie session file', help: 'https://httpie.io/docs#sessions', httpie: '3.2.1' },
      auth: { type: 'basic', raw_auth: 'ada:pw' },
      cookies: [
        { domain: '', expires: null, name: 'sid', path: '/', secure: false, value: 'abc' },
        { domain: '127.0.0.1', expires: future, name: 'theme', path: '/', secure: false, value: 'dark' },
      ],
      headers: [{ name: 'X-Team', value: 'blue' }],
    },
    // HTTPie before 3.1/3.2: objects keyed by name; auth with username and password.
    old: {
      __meta__: { about: 'HTTPie session file', help: 'https://httpie.org/doc#sessions', httpie: '2.6.0' },
      auth: { type: 'basic', username: 'ada', password: 'pw' },
      cookies: { sid: { expires: null, path: '/', secure: false, value: 'abc' }, theme: { expires: future, path: '/', secure: false, value: 'dark' } },
      headers: { 'X-Team': 'blue' },
    },
    // HTTPie's defaults for a session that holds nothing yet.
    empty: { headers: [], cookies: [], auth: { type: null, username: null, password: null } },
  };
  for (const [name, data] of Object.entries(files)) {
    const path = join(box.home, `${name}.json`);
    writeFileSync(path, JSON.stringify(data, null, 4));
    const r = await runSling(['--session', path, `${s.url}/me`], { env: box.env });
    assert.equal(r.code, 0, `${name}: ${r.stderr}`);
    const sent = s.requests.at(-1)!;
    if (name === 'empty') {
      assert.equal(header(sent, 'cookie'), undefined);
      continue;
    }
    assert.equal(header(sent, 'x-team'), 'blue', name);
    assert.equal(header(sent, 'cookie'), 'sid=abc; theme=dark', name);
    assert.equal(header(sent, 'authorization'), 'Basic ' + Buffer.from('ada:pw').toString('base64'), name);
    // Saved again with nothing lost: the next run sends the same.
    const again = await runSling(['--session', path, `${s.url}/me`], { env: box.env });
    assert.equal(again.code, 0, again.stderr);
    const next = s.requests.at(-1)!;
    assert.equal(header(next, 'x-team'), 'blue', name);
    assert.equal(header(next, 'cookie'), 'sid=abc; theme=dark', name);
    assert.equal(header(next, 'authorization'), header(sent, 'authorization'), name);
  }
});

test('an HTTPie session whose auth sling does not speak (a plugin type) keeps it when saved', async (t) => {
  const s = await httpServer(t, okText);
  const box = sandbox();
  const path = join(box.home, 'plugin.json');
  const auth = { type: 'jwt', raw_auth: 'token-123' };
  writeFileSync(path, JSON.stringify({ headers: [], cookies: [], auth }));
  const r = await runSling(['--session', path, `${s.url}/`, 'X-A:1'], { env: box.env });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(header(s.requests[0]!, 'authorization'), undefined);
  const saved = JSON.parse(readFileSync(path, 'utf8'));
  assert.deepEqual(saved.auth, auth);
  assert.deepEqual(saved.headers, [{ name: 'X-A', value: '1' }]);
});

/** Why HTTPie itself (3.2 is `http`) cannot be compared with here; under CI=true a missing HTTPie fails this file instead. */
const noHttpie = comparisonToolMissing('http');

test('a session written by HTTPie is read (a note, once), and HTTPie reads the file sling saves', { skip: noHttpie }, async (t) => {
  const s = await httpServer(t, (req, res) => {
    if (req.url === '/login') res.setHeader('Set-Cookie', ['sid=abc; Path=/; HttpOnly', 'theme=dark; Path=/; Max-Age=3600']);
    res.end('ok');
  });
  const box = sandbox();
  const path = join(box.home, 'pie.json');
  // Not spawnSync: the server answers from this process.
  const pie = async (args: string[]) => {
    const child = spawn('http', ['--ignore-stdin', `--session=${path}`, ...args], { env: { ...process.env, HOME: box.home, HTTPIE_CONFIG_DIR: join(box.home, 'httpie') } });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    child.stdout.resume();
    const code = await new Promise((done) => child.on('close', done));
    assert.equal(code, 0, stderr);
  };
  await pie(['-a', 'ada:pw', `${s.url}/login`, 'X-Team:blue']);
  const written = JSON.parse(readFileSync(path, 'utf8'));
  assert.ok(Array.isArray(written.cookies) && written.__meta__.httpie, 'HTTPie 3.2 wrote its own layout');
  // The old layout too (cookies and headers as objects), as HTTPie before 3.1 wrote it.
  const oldPath = join(box.home, 'old.json');
  writeFileSync(oldPath, JSON.stringify({ ...written, cookies: Object.fromEntries(written.cookies.map(({ name, ...c }: { name: string }) => [name, c])), headers: { 'X-Team': 'blue' } }));

  const basic = 'Basic ' + Buffer.from('ada:pw').toString('base64');
  for (const file of [oldPath, path]) {
    const r = await runSling(['--session', file, `${s.url}/me`, 'X-Extra:1'], { env: box.env });
    assert.equal(r.code, 0, r.stderr);
    const sent = s.requests.at(-1)!;
    assert.equal(header(sent, 'cookie'), 'sid=abc; theme=dark', file);
    assert.equal(header(sent, 'x-team'), 'blue', file);
    assert.equal(header(sent, 'authorization'), basic, file);
    assert.equal(r.stderr, `sling: note: ${file} is an HTTPie session: its headers, cookies and credentials are used; it is saved in HTTPie's layout, so HTTPie still reads it\n`);
    // Saved by sling: the next run says nothing.
    const again = await runSling(['--session', file, `${s.url}/me`], { env: box.env });
    assert.equal(again.stderr, '');
  }
  const saved = JSON.parse(readFileSync(path, 'utf8'));
  assert.deepEqual(
    saved.headers.map((h: { name: string }) => h.name),
    ['X-Team', 'X-Extra'],
  );
  assert.deepEqual(saved.auth, { type: 'basic', raw_auth: 'ada:pw' });

  // HTTPie reads what sling wrote: the cookies, headers and credentials on its request.
  await pie([`${s.url}/back`]);
  const back = s.requests.at(-1)!;
  assert.equal(back.url, '/back');
  assert.equal(header(back, 'cookie'), 'sid=abc; theme=dark');
  assert.equal(header(back, 'x-team'), 'blue');
  assert.equal(header(back, 'x-extra'), '1');
  assert.equal(header(back, 'authorization'), basic);
  // -q: no note.
  writeFileSync(oldPath, JSON.stringify(written));
  const quiet = await runSling(['-q', '--session-read-only', oldPath, `${s.url}/q`], { env: box.env });
  assert.equal(quiet.stderr, '');
});

test('a session named for a host of dots (http://../, http://./) stays in the sessions folder; other hosts keep their folder names', async () => {
  const box = sandbox();
  for (const url of ['http://../', 'http://./', 'http://localhost:3000/', 'https://example.org/']) {
    const r = await runSling(['--offline', '--session', 'NAME', url, 'X-Team:blue'], { env: box.env });
    assert.equal(r.code, 0, r.stderr);
  }
  // Nothing beside the sessions folder, nothing directly in it.
  assert.deepEqual(readdirSync(box.config), ['sessions']);
  const sessions = join(box.config, 'sessions');
  assert.deepEqual(readdirSync(sessions).sort(), ['_', '__', 'example.org', 'localhost_3000']);
  for (const folder of readdirSync(sessions)) assert.deepEqual(readdirSync(join(sessions, folder)), ['NAME.json'], folder);
  // The session of '..' is read back: its header is sent again.
  const again = await runSling(['--offline', '--session', 'NAME', 'http://../'], { env: box.env });
  assert.equal(again.code, 0, again.stderr);
  assert.match(again.stdout, /^X-Team: blue$/m);
});

test("Cookie: items with --session are sent and kept as the user wrote them, a __Host- name too (the prefix rules are for servers' Set-Cookie)", async (t) => {
  const s = await httpServer(t, okText);
  const box = sandbox();
  const r = await runSling(['--session', './s.json', `${s.url}/x`, 'Cookie:__Host-id=1; b="2"'], { env: box.env, cwd: box.home });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(header(s.requests[0]!, 'cookie'), '__Host-id=1; b=2');
  const saved = JSON.parse(readFileSync(join(box.home, 's.json'), 'utf8')).cookies;
  assert.deepEqual(
    saved.map((c: { name: string; value: string; domain: string; path: string }) => [c.name, c.value, c.domain, c.path]),
    [
      ['__Host-id', '1', '127.0.0.1', '/'],
      ['b', '2', '127.0.0.1', '/'],
    ],
  );
});

/** Runs HTTPie (`http`) with a session file; the server answers from this process, so not spawnSync. */
async function httpieRun(home: string, path: string, args: string[]) {
  const child = spawn('http', ['--ignore-stdin', `--session=${path}`, ...args], { env: { ...process.env, HOME: home, HTTPIE_CONFIG_DIR: join(home, 'httpie') } });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  child.stdout.resume();
  const code = await new Promise((done) => child.on('close', done));
  assert.equal(code, 0, stderr);
}

const localhostCookies = (req: IncomingMessage, res: ServerResponse) => {
  if (req.url === '/cookie') res.setHeader('Set-Cookie', ['sid=abc; Path=/', 'theme=dark; Path=/; HttpOnly']);
  res.end('ok');
};

test('an HTTPie session made for localhost (its localhost.local cookies) is sent by sling, read-only too, and HTTPie still sends them after sling saved it', {
  skip: noHttpie,
}, async (t) => {
  const s = await httpServer(t, localhostCookies);
  const box = sandbox();
  const path = join(box.home, 's.json');
  const local = `http://localhost:${s.port}`;
  await httpieRun(box.home, path, [`${local}/cookie`]);
  assert.deepEqual(
    JSON.parse(readFileSync(path, 'utf8')).cookies.map((c: { domain: string }) => c.domain),
    ['localhost.local', 'localhost.local'],
    'HTTPie keeps localhost cookies as localhost.local',
  );
  const readOnly = await runSling(['--session-read-only', path, `${local}/ro`], { env: box.env });
  assert.equal(readOnly.code, 0, readOnly.stderr);
  assert.equal(header(s.requests.at(-1)!, 'cookie'), 'sid=abc; theme=dark');
  const r = await runSling(['--session', path, `${local}/get`], { env: box.env });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(header(s.requests.at(-1)!, 'cookie'), 'sid=abc; theme=dark');
  assert.equal(JSON.parse(readFileSync(path, 'utf8')).cookies.length, 2, 'saved with its cookies');
  // And again from the file sling saved: by sling, then by HTTPie.
  const again = await runSling(['--session', path, `${local}/again`], { env: box.env });
  assert.equal(again.code, 0, again.stderr);
  assert.equal(header(s.requests.at(-1)!, 'cookie'), 'sid=abc; theme=dark');
  await httpieRun(box.home, path, [`${local}/pie`]);
  assert.equal(s.requests.at(-1)!.url, '/pie');
  assert.equal(header(s.requests.at(-1)!, 'cookie'), 'sid=abc; theme=dark');
});

test('cookies sling saves in a session for localhost are sent by HTTPie, and by sling again', { skip: noHttpie }, async (t) => {
  const s = await httpServer(t, localhostCookies);
  const box = sandbox();
  const path = join(box.home, 's.json');
  const local = `http://localhost:${s.port}`;
  const r = await runSling(['--session', path, `${local}/cookie`], { env: box.env });
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(
    JSON.parse(readFileSync(path, 'utf8')).cookies.map((c: { domain: string }) => c.domain),
    ['localhost.local', 'localhost.local'],
    "saved in HTTPie's form",
  );
  await httpieRun(box.home, path, [`${local}/pie`]);
  assert.equal(s.requests.at(-1)!.url, '/pie');
  assert.equal(header(s.requests.at(-1)!, 'cookie'), 'sid=abc; theme=dark');
  const again = await runSling(['--session', path, `${local}/again`], { env: box.env });
  assert.equal(again.code, 0, again.stderr);
  assert.equal(header(s.requests.at(-1)!, 'cookie'), 'sid=abc; theme=dark');
});

test('a session file keeps the cookies sling does not send to this host (another domain, another path, attributes sling does not know) as they were', async (t) => {
  const s = await httpServer(t, (req, res) => {
    res.setHeader('Set-Cookie', 'fresh=1; Path=/');
    res.end('ok');
  });
  const box = sandbox();
  const path = join(box.home, 's.json');
  const future = Math.floor(Date.now() / 1000) + 3600;
  const kept = [
    { domain: 'example.com', expires: null, name: 'elsewhere', path: '/', secure: false, value: 'x' },
    { domain: '.example.org', expires: future, name: 'wide', path: '/', secure: true, value: 'y' },
    { domain: 'localhost.local', expires: null, name: 'pie', path: '/', secure: false, value: 'z' },
    { domain: '127.0.0.1', expires: null, name: 'admin', path: '/admin', secure: false, value: 'a' },
    {
      comment: 'kept',
      comment_url: null,
      discard: false,
      domain: '127.0.0.1',
      expires: future,
      name: 'odd',
      path: '/',
      port: null,
      rest: { SameSite: 'Lax', HttpOnly: null },
      rfc2109: false,
      secure: false,
      value: 'o',
      version: 0,
    },
  ];
  writeFileSync(path, JSON.stringify({ __meta__: { about: 'HTTPie session file', httpie: '3.2.1' }, headers: [], cookies: kept, auth: { type: null, raw_auth: null } }));
  const r = await runSling(['--session', path, `${s.url}/get`], { env: box.env });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(header(s.requests[0]!, 'cookie'), 'odd=o', 'only the cookie for this host and path is sent');
  const saved = JSON.parse(readFileSync(path, 'utf8'));
  assert.deepEqual(
    saved.cookies.filter((c: { name: string }) => c.name !== 'fresh'),
    kept,
  );
  assert.ok(
    saved.cookies.some((c: { name: string }) => c.name === 'fresh'),
    'and the new cookie',
  );
});
