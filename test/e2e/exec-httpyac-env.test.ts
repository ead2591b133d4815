// `sling exec` and httpyac's environments: `.env` files (`.env` always, `NAME.env` and `.env.NAME`
// for --env NAME, from the project root down to the file's folder and their env/ folders) and the
// `environments` of `.httpyac.json` / `httpyac.config.js`, read as data and never run; and the
// JetBrains env files read as JSONC. The built CLI against an echo server on 127.0.0.1.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { runSling } from '../helpers/cli.js';
import { header } from '../helpers/servers.js';
import { assertError, assertExit, httpServer, show } from '../helpers/assert.js';

/** A folder with these files (paths with '/' make their folders). */
function project(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'sling-yac-env-'));
  for (const [name, content] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), content);
  }
  return dir;
}

const echo = (t: import('node:test').TestContext) => httpServer(t, (req, res) => res.end(`${req.url}\n`));

test('exec http: env/dev.env with --env dev gives {{host}} (httpyac dotenv environments); .env is read always, NAME.env over it, the nearer folder over the project root', async (t) => {
  const srv = await echo(t);
  const dir = project({
    'package.json': '{}',
    'env/dev.env': `host=${srv.url}\n`,
    '.env': 'who=root\nwhat=root\nwhere=root\n',
    'api/.env': 'what=api\nwhere=api\n',
    'api/.env.dev': 'where=api-dev\n',
    'api/a.http': 'GET {{host}}/json?who={{who}}&what={{what}}&where={{where}}\n',
  });
  const r = await runSling(['exec', '--env', 'dev', 'api/a.http'], { cwd: dir });
  assertExit(r, 0);
  assert.deepEqual(
    srv.requests.map((q) => q.url),
    ['/json?who=root&what=api&where=api-dev'],
    show(r),
  );
  // Without --env: .env alone, so {{host}} is unknown (one line, exit 1).
  const none = await runSling(['exec', 'api/a.http'], { cwd: dir });
  assertError(none, 1, /unknown variable \{\{host\}\}/);
  // An environment no source has is refused, naming the ones there are.
  assertError(await runSling(['exec', '--env', 'qa', 'api/a.http'], { cwd: dir }), 1, /--env qa: no such environment/);
  assert.equal(srv.requests.length, 1);
});

test("exec http: .httpyac.json 'environments' ($shared, the selected one, $default without --env) give the file's variables (httpyac configVariableProvider)", async (t) => {
  const srv = await echo(t);
  const dir = project({
    '.httpyac.json': JSON.stringify({ environments: { $shared: { host: srv.url, v: 'shared' }, $default: { v: 'default' }, dev: { v: 'dev', n: 2 } } }),
    'sub/a.http': 'GET {{host}}/x?v={{v}}\n',
  });
  assertExit(await runSling(['exec', 'sub/a.http'], { cwd: dir }), 0);
  assertExit(await runSling(['exec', '--env', 'dev', 'sub/a.http'], { cwd: dir }), 0);
  assert.deepEqual(
    srv.requests.map((q) => q.url),
    ['/x?v=default', '/x?v=dev'],
  );
});

test('exec http: httpyac.config.js that exports a plain object literal is read as data (comments, unquoted keys, single quotes, trailing commas)', async (t) => {
  const srv = await echo(t);
  const dir = project({
    'httpyac.config.js': `// settings\nmodule.exports = {\n  log: { level: 10 },\n  environments: {\n    /* the API */\n    dev: { host: '${srv.url}', "token": 'a\\'b', list: [1, 2,], },\n  },\n};\n`,
    'a.http': 'GET {{host}}/t\nX-Token: {{token}}\n',
  });
  const r = await runSling(['exec', '--env', 'dev', 'a.http'], { cwd: dir });
  assertExit(r, 0);
  assert.equal(srv.requests[0]?.url, '/t', show(r));
  assert.equal(header(srv.requests[0]!, 'x-token'), "a'b");
});

test('exec http: an httpyac.config.js that is code is never run: one warning names it, its environments are not used', async (t) => {
  const srv = await echo(t);
  const dir = project({
    'httpyac.config.js': `require('node:fs').writeFileSync(__dirname + '/ran', 'x');\nmodule.exports = { environments: { dev: { host: process.env.HOST } } };\n`,
    'a.http': `GET ${srv.url}/plain\n`,
  });
  const r = await runSling(['exec', 'a.http'], { cwd: dir });
  assertExit(r, 0);
  const warnings = r.stderr.split('\n').filter((l) => l.startsWith('sling: warning: '));
  assert.equal(warnings.length, 1, show(r));
  assert.match(warnings[0]!, /httpyac\.config\.js:1:1: .*never runs it/);
  assert.equal(existsSync(join(dir, 'ran')), false);
  assert.equal(srv.requests.length, 1);
  // A value that is code, inside a literal: refused at its place, nothing run.
  writeFileSync(join(dir, 'httpyac.config.js'), 'module.exports = {\n  environments: { dev: { host: process.env.HOST } },\n};\n');
  const code = await runSling(['exec', '--env', 'dev', 'a.http'], { cwd: dir });
  assertError(code, 1, /--env dev: no http-client\.env\.json .* and no httpyac environment/);
  assert.match(code.stderr, /httpyac\.config\.js:2:32: 'process\.env\.HOST' is not a literal/);
});

test('exec http: http-client.env.json with // comments and trailing commas is read as JSONC (as IntelliJ and VS Code read their JSON files)', async (t) => {
  const srv = await echo(t);
  const dir = project({
    'http-client.env.json': `{\n  // the local server\n  "dev": {\n    "host": "${srv.url}", /* no proxy */\n    "q": "a//b",\n  },\n}\n`,
    'a.http': 'GET {{host}}/c?q={{q}}\n',
  });
  const r = await runSling(['exec', '--env', 'dev', 'a.http'], { cwd: dir });
  assertExit(r, 0);
  assert.equal(srv.requests[0]?.url, '/c?q=a//b', show(r));
});

test('exec http: an env file that cannot be read is a warning when no environment is selected, and an error before anything is sent when one is', async (t) => {
  const srv = await echo(t);
  const dir = project({
    'http-client.env.json': '{\n  "dev": {"host": "x"\n',
    'a.http': `GET ${srv.url}/still\n`,
  });
  const r = await runSling(['exec', 'a.http'], { cwd: dir });
  assertExit(r, 0);
  assert.match(r.stderr, /^sling: warning: .*http-client\.env\.json:3:1: not valid JSON: .*; its variables are not used/m, show(r));
  assert.equal(srv.requests.length, 1);
  assertError(await runSling(['exec', '--env', 'dev', 'a.http'], { cwd: dir }), 1, /http-client\.env\.json:3:1: not valid JSON/);
  assert.equal(srv.requests.length, 1);
});
