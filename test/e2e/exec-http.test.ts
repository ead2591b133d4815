// `sling exec FILE.http` end to end: the built CLI against loopback servers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { runSling, type RunOptions } from '../helpers/cli.js';
import { header, unansweredPort } from '../helpers/servers.js';
import { assertError, assertExit, httpServer, rawServer, show } from '../helpers/assert.js';
import { curlMissing, diffRequests, startCurlCapture, type RawRequest } from '../helpers/curl-capture.js';
import { spawn } from 'node:child_process';

function workdir(files: Record<string, string | Buffer>): string {
  const dir = mkdtempSync(join(tmpdir(), 'sling-exec-http-'));
  for (const [name, content] of Object.entries(files)) writeFileSync(join(dir, name), content);
  return dir;
}

function exec(dir: string, args: string[], opts: RunOptions = {}) {
  return runSling(['exec', ...args], { cwd: dir, ...opts });
}

/** Answers JSON describing the request; /login also sets a cookie and gives a token. */
function api(req: IncomingMessage, res: ServerResponse) {
  if (req.url === '/login') {
    res.writeHead(200, { 'Content-Type': 'application/json', 'Set-Cookie': 'sid=s1; Path=/', Location: '/users/42' });
    res.end(JSON.stringify({ token: 'tok-123', user: { id: 42 } }));
  } else if (req.url === '/moved') {
    res.writeHead(302, { Location: '/final', 'Content-Length': '0' });
    res.end();
  } else {
    res.writeHead(req.url === '/missing' ? 404 : 200, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify({ path: req.url }));
  }
}

test('exec http: requests arrive as written, with variables, defaults, one connection', async (t) => {
  const srv = await httpServer(t, api);
  const dir = workdir({
    'api.http': [
      `@base = ${srv.url}`,
      '@who = ada',
      '',
      '### Create',
      'POST {{base}}/users?src={{%who}} lovelace',
      'Content-Type: application/json',
      'X-Trace: {{who}}-1',
      '',
      '{"name": "{{who}}"}',
      '',
      '###',
      'GET {{base}}/users',
      '    ?page=2',
      '    &size=10',
      'Accept: application/json',
    ].join('\r\n'),
  });
  const r = await exec(dir, ['api.http']);
  assertExit(r, 0);
  assert.deepEqual(
    srv.requests.map((q) => [q.method, q.url]),
    [
      ['POST', '/users?src=ada%20lovelace'],
      ['GET', '/users?page=2&size=10'],
    ],
  );
  const [post, get] = srv.requests;
  assert.deepEqual(post!.rawHeaders.filter((_, i) => i % 2 === 0).slice(0, 5), ['Host', 'Content-Type', 'X-Trace', 'User-Agent', 'Accept-Encoding']);
  assert.equal(header(post!, 'x-trace'), 'ada-1');
  assert.equal(header(post!, 'user-agent')?.startsWith('sling/'), true);
  assert.equal(post!.body.toString(), '{"name": "ada"}');
  assert.equal(header(get!, 'accept'), 'application/json');
  assert.equal(post!.socketId, get!.socketId, 'one connection for the run');
  assert.match(r.stdout, /^### Create: POST http:\/\/127\.0\.0\.1:\d+\/users\?src=ada%20lovelace {2}\(line 5\)$/m, show(r));
  assert.match(r.stdout, /^### GET http:\/\/127\.0\.0\.1:\d+\/users\?page=2&size=10 {2}\(line 12\)$/m, show(r));
  assert.match(r.stdout, /^HTTP\/1\.1 200 OK$/m, show(r));
});

test('exec http: references, client.global, one cookie jar; a failed test is exit 1 after all requests', async (t) => {
  const srv = await httpServer(t, api);
  const dir = workdir({
    'flow.rest': [
      '# @name login',
      `POST ${srv.url}/login`,
      '',
      '> {%',
      '  client.global.set("token", response.body.token);',
      '  client.test("logged in", () => client.assert(response.status === 200, "status " + response.status));',
      '%}',
      '',
      '###',
      `@loc = {{login.response.headers.Location}}`,
      `GET ${srv.url}{{loc}}?t={{login.response.body.$.token}}&id={{login.response.body.user.id}}`,
      'Authorization: Bearer {{token}}',
      '',
      '> {%',
      '  client.test("wants 201", () => client.assert(response.status === 201, "got " + response.status));',
      '  client.log("path was", response.body.path);',
      '%}',
      '',
      '###',
      `GET ${srv.url}/after`,
    ].join('\n'),
  });
  const r = await exec(dir, ['flow.rest']);
  assertExit(r, 1);
  assert.deepEqual(
    srv.requests.map((q) => q.url),
    ['/login', '/users/42?t=tok-123&id=42', '/after'],
  );
  assert.equal(header(srv.requests[1]!, 'authorization'), 'Bearer tok-123');
  assert.equal(header(srv.requests[1]!, 'cookie'), 'sid=s1');
  assert.equal(header(srv.requests[2]!, 'cookie'), 'sid=s1');
  assert.match(r.stdout, /^✓ logged in$/m, show(r));
  assert.match(r.stdout, /^✗ wants 201: got 200$/m, show(r));
  assert.match(r.stdout, /^path was \/users\/42\?t=tok-123&id=42$/m, show(r));
  assert.match(r.stderr, /test failed: .*wants 201: got 200/, show(r));
});

test('exec http: a malformed file names FILE:LINE:COL, sends nothing, exit 1', async (t) => {
  const srv = await httpServer(t, api);
  const dir = workdir({ 'bad.http': `GET ${srv.url}/one\n\n###\nPOST ${srv.url}/two\nX-Id: {{id\n\n{}` });
  const r = await exec(dir, ['bad.http']);
  assertError(r, 1, /sling: error: bad\.http:5:7: '\{\{' without its closing '\}\}'/);
  assert.equal(srv.requests.length, 0);
  const r2 = await exec(dir, ['bad.http']);
  assert.equal(r2.stdout, '');
  const dir2 = workdir({ 'script.http': `GET ${srv.url}/\n\n> {%\n client.log(1)\n` });
  assertError(await exec(dir2, ['script.http']), 1, /script\.http:3:3: a script block '\{%' without its closing '%\}'/);
  assert.equal(srv.requests.length, 0);
});

test('exec http: syntax of other runners is a warning naming the line, never sent, no crash', async (t) => {
  const srv = await httpServer(t, api);
  const dir = workdir({
    'mixed.http': [
      '{{@streaming',
      '  exports.x = 1;',
      '}}',
      `GET ${srv.url}/a`,
      '?? status == 200',
      '',
      '###',
      'MQTT mqtt://127.0.0.1:1/topic',
      '',
      '{"a": 1}',
      '###',
      '# @loop while x',
      `GET ${srv.url}/b`,
      '',
      '# @lang=lua',
      '> {%',
      'local x = 1',
      '%}',
      '',
      'HTTP/1.1 200 - OK',
      'content-type: text/plain',
    ].join('\n'),
  });
  const r = await exec(dir, ['mixed.http']);
  assertExit(r, 0);
  assert.deepEqual(
    srv.requests.map((q) => q.url),
    ['/a', '/b'],
  );
  for (const line of [1, 8, 12, 20]) assert.match(r.stderr, new RegExp(`^sling: warning: mixed\\.http:${line}:\\d+: `, 'm'), `line ${line}${show(r)}`);
  // httpyac's assertion is checked, not warned about.
  assert.doesNotMatch(r.stderr, /mixed\.http:5:/, show(r));
  assert.match(r.stdout, /^✓ status == 200$/m, show(r));
  assert.match(r.stderr, /Lua scripts/);
  assert.doesNotMatch(r.stderr, /error/);
});

test('exec http: --offline resolves what it can, shows the rest as written with a warning, sends nothing', async (t) => {
  const srv = await httpServer(t, api);
  const dir = workdir({
    'off.http': [`@base = ${srv.url}`, '# @name login', 'POST {{base}}/login', '', '###', 'GET {{base}}/x/{{login.response.body.token}}', 'X-Key: {{apiKey}}', 'X-Id: {{$randomInt 5 6}}'].join('\n'),
  });
  const r = await exec(dir, ['--offline', 'off.http']);
  assertExit(r, 0);
  assert.equal(srv.requests.length, 0);
  assert.match(r.stdout, /^GET \/x\/\{\{login\.response\.body\.token\}\} HTTP\/1\.1$/m, show(r));
  assert.match(r.stdout, /^X-Key: \{\{apiKey\}\}$/m, show(r));
  assert.match(r.stdout, /^X-Id: 5$/m, show(r));
  assert.match(r.stderr, /^sling: warning: off\.http:7:8: unknown variable \{\{apiKey\}\}; shown as written$/m, show(r));
  assert.match(r.stderr, /^sling: warning: off\.http:6:\d+: \{\{login\.response\.body\.token\}\}: request login has no response yet/m, show(r));
});

test('exec http: options may come before the word exec (sling --offline -p H exec FILE)', async (t) => {
  const srv = await httpServer(t, api);
  const dir = workdir({ 'pre.http': `POST ${srv.url}/{{p}}\nX-A: 1\n\nbody\n`, 'http-client.env.json': '{"dev": {"p": "pre"}}' });
  const r = await runSling(['--offline', '-p', 'H', '--timeout', '3', 'exec', '--env', 'dev', 'pre.http'], { cwd: dir });
  assertExit(r, 0);
  assert.equal(srv.requests.length, 0);
  assert.match(r.stdout, /^### POST http:\/\/127\.0\.0\.1:\d+\/pre  \(line 1\)\nPOST \/pre HTTP\/1\.1\n/, show(r));
  assert.doesNotMatch(r.stdout, /^body$/m, show(r)); // -p H: headers only
  // An exec-only option before exec.
  const s = await runSling(['--env', 'dev', '--timeout', '3', 'exec', 'pre.http'], { cwd: dir });
  assertExit(s, 0);
  assert.equal(srv.requests.length, 1);
  assert.equal(srv.requests[0]!.url, '/pre');
  // After the URL, exec is an item-less word of the main command, as before.
  const u = await runSling(['--offline', `${srv.url}/x`, 'exec'], { cwd: dir });
  assertError(u, 1, "'exec'");
});

test('exec http: an unknown variable fails that request only; the rest run; exit 1', async (t) => {
  const srv = await httpServer(t, api);
  const dir = workdir({ 'u.http': `GET ${srv.url}/1\n###\nGET ${srv.url}/{{nope}}\n###\nGET ${srv.url}/3` });
  const r = await exec(dir, ['u.http']);
  assertExit(r, 1);
  assert.deepEqual(
    srv.requests.map((q) => q.url),
    ['/1', '/3'],
  );
  assert.match(r.stderr, /^sling: error: u\.http:3:\d+: unknown variable \{\{nope\}\}$/m, show(r));
  const ff = await exec(dir, ['--fail-fast', '--report', 'junit', '--report-file', 'ff.xml', 'u.http']);
  assertExit(ff, 1);
  assert.deepEqual(
    srv.requests.map((q) => q.url),
    ['/1', '/3', '/1'],
  );
  // The report still lists the request --fail-fast did not run, as skipped.
  const xml = readFileSync(join(dir, 'ff.xml'), 'utf8');
  assert.match(xml, /tests="3" failures="0" errors="1" skipped="1"/, xml);
  assert.match(xml, /<skipped message="not run: the run stopped at an earlier failure \(--fail-fast\)"\/>/, xml);
});

test('exec http: environments (--env, private file, $shared, --env-file) and $dotenv / $processEnv', async (t) => {
  const srv = await httpServer(t, api);
  const dir = workdir({
    'http-client.env.json': JSON.stringify({ $shared: { path: 'shared' }, dev: { base: srv.url, user: 'dev-user' }, prod: { base: 'http://192.0.2.1' } }),
    'http-client.private.env.json': JSON.stringify({ dev: { secret: 's3cret', user: 'private-user' } }),
    '.env': 'DOT=from-dotenv\n',
    'e.http': 'GET {{base}}/{{path}}?u={{user}}&s={{secret}}&d={{$dotenv DOT}}&p={{$processEnv SLING_TEST_VAR}}',
    'ci.env.json': JSON.stringify({ ci: { base: srv.url, path: 'ci', user: 'c', secret: 'x' } }),
  });
  const r = await exec(dir, ['--env', 'dev', 'e.http'], { env: { SLING_TEST_VAR: 'pv' } });
  assertExit(r, 0);
  assert.equal(srv.requests[0]!.url, '/shared?u=dev-user&s=s3cret&d=from-dotenv&p=pv');
  const r2 = await exec(dir, ['--env-file', 'ci.env.json', '--env', 'ci', 'e.http'], { env: { SLING_TEST_VAR: 'pv' } });
  assertExit(r2, 0);
  assert.equal(srv.requests[1]!.url, '/ci?u=c&s=x&d=from-dotenv&p=pv');
  const r3 = await exec(dir, ['--env', 'qa', 'e.http']);
  assertError(r3, 1, /--env qa: no such environment/);
  const r4 = await exec(dir, ['e.http']);
  assertError(r4, 1, /e\.http:1:5: unknown variable \{\{base\}\}/);
  assert.match(r4.stderr, /hint: it is defined in the environments? dev, prod: choose one with --env NAME/, show(r4));
  assert.equal(srv.requests.length, 2);
});

test('exec http: --name runs a request and what it depends on; --line picks by line', async (t) => {
  const srv = await httpServer(t, api);
  const dir = workdir({
    'n.http': [`# @name login`, `POST ${srv.url}/login`, '', '###', `# @name other`, `GET ${srv.url}/other`, '', '###', '# @name me', `GET ${srv.url}/me?t={{login.response.body.token}}`].join('\n'),
  });
  const r = await exec(dir, ['--name', 'me', 'n.http']);
  assertExit(r, 0);
  assert.deepEqual(
    srv.requests.map((q) => q.url),
    ['/login', '/me?t=tok-123'],
  );
  const r2 = await exec(dir, ['--line', '6', 'n.http']);
  assertExit(r2, 0);
  assert.deepEqual(
    srv.requests.slice(2).map((q) => q.url),
    ['/other'],
  );
  // The last line is line 10 (no line break after it); line 11 is in no request's block.
  const last = await exec(dir, ['--line', '10', 'n.http']);
  assertExit(last, 0);
  assert.deepEqual(
    srv.requests.slice(3).map((q) => q.url),
    ['/login', '/me?t=tok-123'],
  );
  const past = await exec(dir, ['--line', '11', 'n.http']);
  assertError(past, 1, /^sling: error: --line: the file has 10 lines; there is no line 11$/m);
  assert.equal(srv.requests.length, 5);
});

test('exec http: --name and --line run first the request whose script sets a global the request uses (the nearest one above it)', async (t) => {
  const srv = await httpServer(t, api);
  const dir = workdir({
    'g.http': [
      '### login',
      `POST ${srv.url}/login`,
      '',
      '> {% client.global.set("token", response.body.token); %}',
      '',
      '### other',
      `GET ${srv.url}/other`,
      '',
      '### refresh',
      `POST ${srv.url}/login?again`,
      '',
      "> {% client.global.set('token', 'r-' + response.body.path); %}",
      '',
      '### me',
      `GET ${srv.url}/me`,
      'Authorization: Bearer {{token}}',
      '',
      '### later',
      `GET ${srv.url}/later`,
      '',
      '> {% client.global.set("late", "x"); %}',
      '',
      '### uses-late',
      `GET ${srv.url}/uses?v={{late}}`,
      '',
      '### before',
      `GET ${srv.url}/before?v={{token2}}`,
      '',
      '### sets-after',
      `GET ${srv.url}/after`,
      '',
      '> {% client.global.set("token2", "y"); %}',
    ].join('\n'),
  });
  const r = await exec(dir, ['--name', 'me', 'g.http']);
  assertExit(r, 0);
  assert.deepEqual(
    srv.requests.map((q) => [q.url, header(q, 'authorization')]),
    [
      ['/login?again', undefined],
      ['/me', 'Bearer r-/login?again'],
    ],
  );
  const byLine = await exec(dir, ['--line', '24', 'g.http']);
  assertExit(byLine, 0);
  assert.deepEqual(
    srv.requests.slice(2).map((q) => q.url),
    ['/later', '/uses?v=x'],
  );
  // A request below never moves up: the global is unknown, as in a run of the whole file.
  const below = await exec(dir, ['--name', 'before', 'g.http']);
  assertError(below, 1, /g\.http:27:\d+: unknown variable \{\{token2\}\}/);
  assert.equal(srv.requests.length, 4);
});

test('exec http: a request referred to from above runs first (once); --line picks the request whose block holds the line', async (t) => {
  const srv = await httpServer(t, api);
  const text = [
    '### use', // 1
    '# @ref login', // 2
    `GET ${srv.url}/use?t={{login.response.body.token}}`, // 3
    '', // 4
    '### other', // 5
    '< {% client.log("pre other") %}', // 6
    `GET ${srv.url}/other`, // 7
    '', // 8
    '> {% client.log("after other") %}', // 9
    '', // 10
    '### login', // 11
    '# @name login', // 12
    `POST ${srv.url}/login`, // 13
  ].join('\n');
  const dir = workdir({ 'd.http': text });
  const r = await exec(dir, ['d.http']);
  assertExit(r, 0);
  assert.deepEqual(
    srv.requests.map((q) => q.url),
    ['/login', '/use?t=tok-123', '/other'],
  );
  for (const [line, want] of [
    [1, ['/login', '/use?t=tok-123']],
    [5, ['/other']],
    [6, ['/other']],
    [9, ['/other']],
    [11, ['/login']],
  ] as const) {
    const before = srv.requests.length;
    const rl = await exec(dir, ['--line', String(line), 'd.http']);
    assertExit(rl, 0);
    assert.deepEqual(
      srv.requests.slice(before).map((q) => q.url),
      want,
      `--line ${line}`,
    );
  }
});

test('exec http: >> to a folder writes a file in it named by time, status and type', async (t) => {
  const srv = await httpServer(t, api);
  const dir = workdir({ 'o.http': `GET ${srv.url}/a\n\n>> saved/\n\n###\nGET ${srv.url}/missing\n\n>> {{$projectRoot}}/there\n` });
  mkdirSync(join(dir, 'there'));
  const r = await exec(dir, ['o.http']);
  assertExit(r, 0);
  const saved = readdirSync(join(dir, 'saved'));
  assert.equal(saved.length, 1, show(r));
  assert.match(saved[0]!, /^\d{4}-\d\d-\d\dT\d{6}\.200\.json$/);
  assert.equal(readFileSync(join(dir, 'saved', saved[0]!), 'utf8'), '{"path":"/a"}');
  const there = readdirSync(join(dir, 'there'));
  assert.match(there[0] ?? '', /^\d{4}-\d\d-\d\dT\d{6}\.404\.json$/, show(r));
});

test('exec http: redirects are followed unless # @no-redirect; directives apply per request', async (t) => {
  const srv = await httpServer(t, api);
  const dir = workdir({ 'r.http': `GET ${srv.url}/moved\n###\n# @no-redirect\nGET ${srv.url}/moved` });
  const r = await exec(dir, ['r.http']);
  assertExit(r, 0);
  assert.deepEqual(
    srv.requests.map((q) => q.url),
    ['/moved', '/final', '/moved'],
  );
  assert.match(r.stdout, /^HTTP\/1\.1 302 Found$/m, show(r));
});

test('exec http: multipart with a file part, form bodies over lines, GraphQL, >> output', async (t) => {
  const srv = await httpServer(t, api);
  const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 255]);
  const dir = workdir({
    'logo.png': png,
    'm.http': [
      `POST ${srv.url}/upload`,
      'Content-Type: multipart/form-data; boundary=WebAppBoundary',
      '',
      '--WebAppBoundary',
      'Content-Disposition: form-data; name="name"',
      '',
      'Ada',
      '--WebAppBoundary',
      'Content-Disposition: form-data; name="file"; filename="logo.png"',
      'Content-Type: image/png',
      '',
      '< ./logo.png',
      '--WebAppBoundary--',
      '',
      '###',
      `POST ${srv.url}/form`,
      'Content-Type: application/x-www-form-urlencoded',
      '',
      'a=1',
      '&b=two',
      '&name = hello world',
      '&city=Zürich&pct=50%25&raw=100%',
      '',
      '###',
      `GRAPHQL ${srv.url}/graphql`,
      '',
      'query Q { me { id } }',
      '',
      '{"x": 1}',
      '',
      '>> out/saved.json',
    ].join('\n'),
  });
  const r = await exec(dir, ['m.http']);
  assertExit(r, 0);
  const expected = Buffer.concat([
    Buffer.from(
      '--WebAppBoundary\r\nContent-Disposition: form-data; name="name"\r\n\r\nAda\r\n--WebAppBoundary\r\nContent-Disposition: form-data; name="file"; filename="logo.png"\r\nContent-Type: image/png\r\n\r\n',
    ),
    png,
    Buffer.from('\r\n--WebAppBoundary--\r\n'),
  ]);
  assert.deepEqual(srv.requests[0]!.body, expected);
  // As written (JetBrains): lines joined, spaces around = and & dropped, nothing encoded.
  assert.equal(srv.requests[1]!.body.toString(), 'a=1&b=two&name=hello world&city=Zürich&pct=50%25&raw=100%');
  assert.deepEqual(JSON.parse(srv.requests[2]!.body.toString()), { query: 'query Q { me { id } }', operationName: 'Q', variables: { x: 1 } });
  assert.equal(header(srv.requests[2]!, 'content-type'), 'application/json');
  assert.equal(readFileSync(join(dir, 'out', 'saved.json'), 'utf8'), '{"path":"/graphql"}');
  await exec(dir, ['m.http']);
  assert.ok(existsSync(join(dir, 'out', 'saved-1.json')), '>> keeps the existing file');
});

test('exec http: client.exit() ends only its script (JetBrains); a response handler file; a BOM and no final newline', async (t) => {
  const srv = await httpServer(t, api);
  const dir = workdir({
    'check.js': 'client.test("from a file", () => client.assert(response.body.path === "/a"));\nclient.exit();\nclient.log("never");\n',
    's.http': [`\uFEFFGET ${srv.url}/a\n\n> ./check.js\n\n###`, `< {% client.log("pre b"); client.exit(); client.log("never either"); %}\nGET ${srv.url}/b\n\n###`, `GET ${srv.url}/c`].join('\n'),
  });
  const r = await exec(dir, ['s.http']);
  assertExit(r, 0);
  assert.deepEqual(
    srv.requests.map((q) => q.url),
    ['/a', '/b', '/c'],
  );
  assert.match(r.stdout, /^✓ from a file$/m, show(r));
  assert.match(r.stdout, /^### GET .*\/b  \(line \d+\)\npre b$/m, show(r));
  assert.doesNotMatch(r.stdout, /never/);
});

test('exec http: tests run after the handler; request.url() / body() and header value() in handlers; client.global.headers.set; a body in its charset', async (t) => {
  const srv = await httpServer(t, (req, res) => {
    if (req.url === '/latin') {
      res.writeHead(200, { 'Content-Type': 'text/plain; charset=ISO-8859-1' });
      res.end(Buffer.from([0x63, 0x61, 0x66, 0xe9]));
      return;
    }
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify({ path: req.url, global: req.headers['x-global'] ?? null }));
  });
  const dir = workdir({
    's.http': [
      `POST ${srv.url}/a?q=1`,
      'X-One: one',
      '',
      'hello',
      '',
      '> {%',
      '  var x = 1;',
      '  client.test("sees the handler\'s end", function () { client.assert(x === 2, "x is " + x); });',
      '  client.log(request.url(), request.body(), request.headers.findByName("X-One").value());',
      '  client.global.headers.set("X-Global", "g1");',
      '  x = 2;',
      '%}',
      '',
      '###',
      `GET ${srv.url}/latin`,
      '',
      '> {% client.log("text", response.body, response.contentType.charset); %}',
      '',
      '###',
      `GET ${srv.url}/b`,
      '',
      '> {% client.test("global header", () => client.assert(response.body.global === "g1", String(response.body.global))); %}',
    ].join('\n'),
  });
  const r = await exec(dir, ['s.http']);
  assertExit(r, 0);
  assert.match(r.stdout, /^✓ sees the handler's end$/m, show(r));
  assert.match(r.stdout, new RegExp(`^${srv.url}/a\\?q=1 hello one$`, 'm'), show(r));
  assert.match(r.stdout, /^text café ISO-8859-1$/m, show(r));
  assert.match(r.stdout, /^✓ global header$/m, show(r));
});

test("exec http: ?? xpath assertions are checked over the XML body, with @xpath_ns prefixes (httpyac's assert.xpath and xpath_ns)", async (t) => {
  const srv = await httpServer(t, (_req, res) => {
    res.writeHead(200, { 'Content-Type': 'application/xml' });
    res.end('<bookstore xmlns:b="urn:books"><book><title>Everyday Italian</title></book><book><title>Harry Potter</title></book><b:price>30</b:price></bookstore>');
  });
  const dir = workdir({
    'x.http': [
      '@xpath_ns bk=urn:books',
      `GET ${srv.url}/books`,
      '',
      '?? xpath /bookstore/book[1]/title == Everyday Italian',
      '?? xpath count(//book) == 2',
      '?? xpath //title includes Harry Potter',
      '?? xpath /bookstore/bk:price == 30',
      '?? xpath //nothing isFalse',
      '?? xpath /bookstore/book[2]/title == Everyday Italian',
      // The expression is data for the XPath reader, never JavaScript.
      '?? xpath ")+globalThis.constructor.name+(" == Object',
    ].join('\n'),
  });
  const r = await exec(dir, ['x.http']);
  // The last assertion fails: the run fails, as in httpyac (before, xpath lines were skipped: exit 0).
  assertExit(r, 1);
  assert.doesNotMatch(r.stderr, /not a field|a file variable is written/, show(r));
  const passed = r.stdout.split('\n').filter((l) => l.startsWith('✓ '));
  assert.deepEqual(
    passed,
    ['✓ /bookstore/book[1]/title == Everyday Italian', '✓ count(//book) == 2', '✓ //title includes Harry Potter', '✓ /bookstore/bk:price == 30', '✓ //nothing isFalse'],
    show(r),
  );
  assert.match(r.stdout, /^✗ \/bookstore\/book\[2\]\/title == Everyday Italian: got "Harry Potter"$/m, show(r));
  assert.match(r.stderr, /^sling: test failed: \S*x\.http:\d+: \/bookstore\/book\[2\]\/title == Everyday Italian: got "Harry Potter"$/m, show(r));
  // (an XPath string literal: its own text, not what JavaScript would make of it)
  assert.match(r.stdout, /^✗ "\)\+globalThis\.constructor\.name\+\(" == Object: got "\)\+globalThis\.constructor\.name\+\("$/m, show(r));
});

test('exec http: httpyac ?? assertions are checked: a line per assertion, a failure is exit 1 after all requests', async (t) => {
  const srv = await httpServer(t, (req, res) => {
    if (req.url === '/text') {
      res.writeHead(403, { 'Content-Type': 'text/plain' });
      res.end('Token Expired');
      return;
    }
    res.writeHead(200, { 'Content-Type': 'application/json', 'Set-Cookie': ['a=1', 'b=2'] });
    res.end(JSON.stringify({ coins: [5, 10], user: { name: 'Ada', age: 36 }, items: [{ id: 1 }, { id: 2 }], ok: true }));
  });
  const dir = workdir({
    'a.http': [
      '@who = Ada',
      '# @name json',
      `GET ${srv.url}/json`,
      '',
      '?? status == 200',
      '?? header content-type includes json',
      '?? header set-cookie includes b=2',
      '?? body coins == [5, 10]',
      '?? body coins includes 10',
      '?? body user.name == {{who}}',
      '?? body user.age >= 36',
      '?? body items[1].id == 2',
      '?? body ok isBoolean',
      '?? body missing isFalse',
      '?? js response.parsedBody.items.map(i => i.id).join() == 1,2',
      '?? duration < 60000',
      '?? body user.name == Bob',
      '?? js nope.x == 1',
      '',
      '###',
      `GET ${srv.url}/text`,
      '',
      '?? status == 403',
      '?? body == Token Expired',
      '?? body sha256 ' + createHash('sha256').update('Token Expired').digest('base64'),
    ].join('\n'),
  });
  // The form ijhttp users write: the file after --report junit is the report's.
  const r = await exec(dir, ['--report', 'junit', 'j.xml', 'a.http']);
  assertExit(r, 1);
  assert.deepEqual(
    srv.requests.map((q) => q.url),
    ['/json', '/text'],
  );
  const passed = r.stdout.split('\n').filter((l) => l.startsWith('✓ '));
  assert.deepEqual(
    passed,
    [
      '✓ status == 200',
      '✓ content-type includes json',
      '✓ set-cookie includes b=2',
      '✓ coins == [5, 10]',
      '✓ coins includes 10',
      '✓ user.name == Ada',
      '✓ user.age >= 36',
      '✓ items[1].id == 2',
      '✓ ok isBoolean',
      '✓ missing isFalse',
      '✓ response.parsedBody.items.map(i => i.id).join() == 1,2',
      '✓ duration < 60000',
      '✓ status == 403',
      '✓ body == Token Expired',
      `✓ body sha256 ${createHash('sha256').update('Token Expired').digest('base64')}`,
    ],
    show(r),
  );
  assert.match(r.stdout, /^✗ user\.name == Bob: got "Ada"$/m, show(r));
  assert.match(r.stdout, /^✗ nope\.x == 1: the expression failed: nope is not defined$/m, show(r));
  assert.match(r.stderr, /^sling: test failed: \S*a\.http:\d+ \(json\): user\.name == Bob: got "Ada"$/m, show(r));
  assert.equal(r.stderr.split('\n').filter((l) => l.startsWith('sling: test failed')).length, 2, show(r));
  assert.doesNotMatch(r.stderr, /warning/, show(r));
  const xml = readFileSync(join(dir, 'j.xml'), 'utf8');
  assert.match(xml, /<testcase name="json: GET [^"]+ › user\.name == Bob" [^>]+>\n {6}<failure message="got &quot;Ada&quot;">/);
  // Nothing is checked under --offline (there is no response).
  const off = await exec(dir, ['--offline', 'a.http']);
  assertExit(off, 0);
  assert.doesNotMatch(off.stdout, /✓|✗/);
});

test('exec http: a file on standard input', async (t) => {
  const srv = await httpServer(t, api);
  const dir = workdir({});
  const r = await exec(dir, [], { stdin: `### from stdin\nGET ${srv.url}/in\n` });
  assertExit(r, 0);
  assert.deepEqual(
    srv.requests.map((q) => q.url),
    ['/in'],
  );
});

test('exec http: --report junit writes one testcase per request and per script test', async (t) => {
  const srv = await httpServer(t, api);
  const dir = workdir({
    'r.http': [
      '### Login <&>',
      `POST ${srv.url}/login`,
      '',
      '> {%',
      '  client.test("has a token", () => client.assert(response.body.token === "tok-123"));',
      '  client.test("is 201", () => client.assert(response.status === 201, "status was " + response.status));',
      '%}',
      '###',
      `GET ${srv.url}/{{missing}}`,
      '###',
      `GET ${srv.url}/fine`,
    ].join('\n'),
  });
  const r = await exec(dir, ['--report', 'junit', '--report-file', 'out/junit.xml', 'r.http']);
  assertExit(r, 1);
  const xml = readFileSync(join(dir, 'out', 'junit.xml'), 'utf8');
  assert.match(xml, /^<\?xml version="1\.0" encoding="UTF-8"\?>\n<testsuites name="sling exec" tests="5" failures="1" errors="1" skipped="0" time="[\d.]+">/);
  assert.match(xml, /<testsuite name="r\.http" tests="5"/);
  assert.match(xml, /<testcase name="Login &lt;&amp;&gt;: POST http:\/\/127\.0\.0\.1:\d+\/login {2}\(line 2\)" classname="r\.http" time="[\d.]+">/);
  assert.match(xml, /<testcase name="Login &lt;&amp;&gt;: POST [^"]+ › has a token" classname="r\.http" time="0\.000"\/>/);
  assert.match(xml, /<testcase name="[^"]+ › is 201" [^>]+>\n {6}<failure message="status was 200">status was 200<\/failure>/);
  assert.match(xml, /<error message="r\.http:9:\d+: unknown variable \{\{missing\}\}">/);
  assert.match(xml, /<testcase name="GET http:\/\/127\.0\.0\.1:\d+\/fine {2}\(line 11\)" classname="r\.http" time="[\d.]+"\/>/);
  assert.equal(srv.requests.length, 2);
});

test('# @timeout limits the wait for the response; # @connection-timeout only the connecting', async (t) => {
  const s = await httpServer(t, (_req, res) => {
    setTimeout(() => res.end('late'), 800);
  });
  const dir = workdir({
    'slow.http': `# @connection-timeout 0.3\nGET ${s.url}/a\n\n###\n# @timeout 0.3\nGET ${s.url}/b\n`,
  });
  const r = await exec(dir, ['slow.http']);
  assert.equal(r.code, 2, show(r));
  assert.match(r.stdout, /late/, 'the first request outlived its 0.3 s connection timeout');
  assert.match(r.stderr, /no answer from 127\.0\.0\.1:\d+ within 0\.3s \(# @timeout\)/, 'the message names the directive, not a flag that was not given');
});

test('exec http: bytes on the wire as REST Client / JetBrains send them (review of the syntax)', async (t) => {
  const { startCurlCapture } = await import('../helpers/curl-capture.js');
  const srv = await startCurlCapture();
  t.after(() => srv.close());
  const u = srv.url;
  const dir = workdir({
    'latin.txt': Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x20, 0x7b, 0x7b, 0x76, 0x7d, 0x7d]) as unknown as string,
    'w.http': [
      '@v = V',
      `POST ${u}/cl`, // 2: a Content-Length of the file's is not sent as written
      'Content-Length: 2',
      '',
      'abcdef',
      '',
      '###',
      `GET ${u}/a?q=a%20b&r=%&s=%41`, // 8: escapes as written, a lone % alone encoded
      '',
      '###',
      `POST ${u}/nd`,
      'Content-Type: application/x-ndjson',
      '',
      '{"a":1}',
      '{"b":2}',
      '',
      '###',
      `POST ${u}/form`,
      'Content-Type: application/x-www-form-urlencoded',
      '',
      'a=1',
      'b=2',
      '&c=3',
      '',
      '###',
      `POST ${u}/latin`,
      '',
      '<@latin1 ./latin.txt',
      '',
      '###',
      `POST ${u}/json`,
      'Content-Type: application/json',
      '',
      '{',
      '# "x": 1,',
      '  // "y": 2,',
      '"z": 3}',
      '',
      '# @name second',
      `GET ${u}/second`,
      '',
      '# @name third',
      '###',
      `GET ${u}/third?from={{second.response.body.$.n}}`,
    ].join('\n'),
  });
  const r = await exec(dir, ['w.http']);
  assertExit(r, 0);
  const q = srv.requests;
  assert.deepEqual(
    q.map((x) => x.target),
    ['/cl', '/a?q=a%20b&r=%25&s=%41', '/nd', '/form', '/latin', '/json', '/second', '/third?from=7'],
  );
  const h = (i: number, n: string) => q[i]!.headers.find(([k]) => k.toLowerCase() === n)?.[1];
  assert.equal(h(0, 'content-length'), '6');
  assert.equal(q[0]!.body.toString(), 'abcdef');
  assert.equal(q[2]!.body.toString(), '{"a":1}\n{"b":2}\n');
  assert.equal(q[3]!.body.toString(), 'a=1\nb=2&c=3');
  assert.equal(q[4]!.body.toString('utf8'), 'café V');
  assert.equal(q[5]!.body.toString(), '{\n"z": 3}');
  assert.match(r.stdout, /^### second: GET /m, show(r));
  assert.match(r.stdout, /^### third: GET /m, show(r));
});

test('exec http: a broken literal URL is a parse error: nothing is sent, also not the requests above it', async (t) => {
  const srv = await httpServer(t, api);
  const dir = workdir({ 'b.http': `GET ${srv.url}/first\n\n###\nGET http://127.0.0.1:99999/x\n` });
  const r = await exec(dir, ['b.http']);
  assertError(r, 1, /b\.http:4:5: invalid URL 'http:\/\/127\.0\.0\.1:99999\/x': '99999' is not a valid port/);
  assert.equal(srv.requests.length, 0);
  const off = await exec(dir, ['--offline', 'b.http']);
  assertError(off, 1, /b\.http:4:5: invalid URL/);
});

test('exec http: origin-form with Host on port 8443 goes to https (REST Client)', async () => {
  const dir = workdir({ 'h.http': 'GET /x\nHost: example.test:8443\n' });
  const r = await exec(dir, ['--offline', 'h.http']);
  assertExit(r, 0);
  assert.match(r.stdout, /^### GET https:\/\/example\.test:8443\/x  \(line 1\)$/m, show(r));
});

test('exec http: httpyac directives: camelCase spellings, @forceRef runs again, @import, {{name}} is the body, @disabled false, @sleep {{var}}; @no-auto-encoding', async (t) => {
  const { startCurlCapture } = await import('../helpers/curl-capture.js');
  const srv = await startCurlCapture();
  t.after(() => srv.close());
  const u = srv.url;
  const dir = workdir({
    'lib.http': `@libvar = from-lib\n\n###\n# @name lib\nGET ${u}/lib\n`,
    'h.http': [
      '# @import ./lib.http',
      '@delay = 10',
      '# @name login',
      '# @noRedirect',
      `GET ${u}/redirect/1`,
      '',
      '###',
      '# @forceRef login',
      '# @sleep {{delay}}',
      `POST ${u}/use?v={{libvar}}`,
      'Content-Type: application/json',
      '',
      '{{login}}',
      '',
      '###',
      '# @disabled false',
      '# @no-auto-encoding',
      `GET ${u}/raw?j={"a":1}&p=%zz`,
    ].join('\n'),
  });
  const r = await exec(dir, ['h.http']);
  assertExit(r, 0);
  assert.deepEqual(
    srv.requests.map((q) => q.target),
    ['/redirect/1', '/redirect/1', '/use?v=from-lib', '/raw?j={"a":1}&p=%zz'],
    show(r),
  );
  assert.match(srv.requests[2]!.body.toString(), /^\{"ok":true,"n":2\}/);
  assert.doesNotMatch(r.stderr, /unknown directive/, show(r));
  const bad = workdir({ 'r.http': `# @ref nothere\nGET ${u}/never\n` });
  const rb = await exec(bad, ['r.http']);
  assertError(rb, 1, /r\.http:2: # @ref nothere: no request is named 'nothere'/);
});

test("exec http: # @ref / # @forceRef of an # @import'ed file's request run it first (httpyac's metaData/import.http: the response is the ref'd request's)", async (t) => {
  const srv = await httpServer(t, api);
  const u = srv.url;
  const dir = workdir({
    // `one` refers to `zero` in its own file: that one comes along too.
    'lib.http': [`# @name zero`, `GET ${u}/zero`, '', '###', '# @name one', '# @ref zero', `POST ${u}/login`, '', '###', '# @name other', `GET ${u}/never`, ''].join('\n'),
    'main.http': [
      '# @import ./lib.http',
      '',
      '###',
      '# @ref one',
      `GET ${u}/a?t={{one.token}}`,
      '',
      '###',
      '# @ref one',
      `GET ${u}/b?t={{one.token}}`,
      '',
      '###',
      '# @forceRef one',
      `GET ${u}/c?t={{one.token}}`,
      '',
    ].join('\n'),
  });
  const r = await exec(dir, ['main.http']);
  assertExit(r, 0);
  // @ref: once, before the first request that needs it; @forceRef: again, right before its request.
  assert.deepEqual(
    srv.requests.map((q) => q.url),
    ['/zero', '/login', '/a?t=tok-123', '/b?t=tok-123', '/login', '/c?t=tok-123'],
    show(r),
  );
  assert.doesNotMatch(r.stderr, /no response yet/, show(r));
});

test('exec http: a placeholder that cannot be resolved is named where it is written (an <@ include, an environment value, a run line); $shared NAME', async (t) => {
  const srv = await httpServer(t, api);
  const dir = workdir({
    'inc.txt': 'line 1\nline 2\n{"a": 1, "c": {{nope}}}\n',
    'http-client.env.json': JSON.stringify({ $shared: { prodToken: 'foo' }, dev: { e: 'pre-{{nopeE}}', token: '{{$shared prodToken}}', bad: '{{$shared gone}}' } }),
    'lib.http': `# @name Login\nPOST ${srv.url}/login?u={{user}}\n`,
    'a.http': [
      `POST ${srv.url}/inc`, // 1
      'Content-Type: text/plain',
      '',
      '<@ ./inc.txt',
      '',
      '###',
      `GET ${srv.url}/shared?t={{token}}`, // 7
      '',
      '###',
      `GET ${srv.url}/env?q={{e}}`, // 10
      '',
      '###',
      `GET ${srv.url}/bad?q={{bad}}`, // 13
      '',
      '###',
      `GET ${srv.url}/p?q={{$processEnv SLING_TEST_UNSET}}`, // 16
      '',
      '###',
      'import ./lib.http',
      '@who = ada',
      'run #Login (@user={{nopeR}})', // 21
      '###',
      'run #Login (@user={{who}})', // 23
      '###',
      `GET ${srv.url}/h`, // 25
      '',
      '> ./h.js',
    ].join('\n'),
    'h.js': '// a handler\n\nthrow new Error("from the file");\n',
  });
  const r = await exec(dir, ['--env', 'dev', 'a.http']);
  assertExit(r, 1);
  assert.deepEqual(
    srv.requests.map((q) => q.url),
    ['/shared?t=foo', '/p?q=', '/login?u=ada', '/h'],
  );
  const lines = r.stderr.split('\n').filter((l) => l !== '');
  const envFile = join(dir, 'http-client.env.json');
  assert.deepEqual(
    lines,
    [
      'sling: error: a.http:1: ./inc.txt:3:15: unknown variable {{nope}}',
      `sling: error: a.http:10: ${envFile} (the value of e): unknown variable {{nopeE}}`,
      `sling: error: a.http:13: ${envFile} (the value of bad): {{$shared gone}}: gone is not in $shared`,
      'sling: warning: a.http:16:32: the environment variable SLING_TEST_UNSET is not set: {{$processEnv SLING_TEST_UNSET}} is empty',
      'sling: error: lib.http:2: a.http:21:19: unknown variable {{nopeR}}',
      'sling: test failed: a.http:25: a.http:27: the response handler failed: from the file (at ./h.js:3)',
    ],
    r.stderr,
  );
  // The title of a `run` that could not be built shows its request as written, as one that ran does.
  assert.match(r.stdout, /^### Login: POST http:\/\/127\.0\.0\.1:\d+\/login\?u=\{\{user\}\}  \(lib\.http line 2\)$/m, r.stdout);
  assert.doesNotMatch(r.stdout, /run #Login/, r.stdout);
});

test('exec http: --report junit to a folder (reports/, or one that exists) writes report.xml in it; a file that cannot be written is one line', async (t) => {
  const srv = await httpServer(t, api);
  const dir = workdir({ 'r.http': `GET ${srv.url}/a\n` });
  mkdirSync(join(dir, 'existing'));
  for (const [target, written] of [
    ['reports/', join('reports', 'report.xml')],
    ['existing', join('existing', 'report.xml')],
    ['out.xml', 'out.xml'],
  ]) {
    const r = await exec(dir, ['--report', 'junit', target!, 'r.http']);
    assertExit(r, 0);
    assert.match(readFileSync(join(dir, written!), 'utf8'), /<testsuites name="sling exec" tests="1" failures="0" errors="0"/, target);
  }
  writeFileSync(join(dir, 'a-file'), 'x');
  const bad = await exec(dir, ['--report', 'junit', join('a-file', 'x.xml'), 'r.http']);
  assertError(bad, 1, /^sling: error: --report: cannot write the report to '[^']*a-file[/\\]x\.xml': (a part of the path is a file, not a folder|it exists)$/m);
});

test('exec http: HTTP/2 gives up on a server that never accepts the connection (# @connection-timeout, else --timeout), and the run goes on and ends', async (t) => {
  const srv = await httpServer(t, api);
  const hole = await unansweredPort();
  t.after(() => hole.close());
  const dir = workdir({
    'c.http': `# @connection-timeout 0.5\nGET http://127.0.0.1:${hole.port}/x HTTP/2 (Prior Knowledge)\n\n###\n# @connection-timeout 0.5\nGET https://127.0.0.1:${hole.port}/y HTTP/2\n\n###\nGET ${srv.url}/after\n`,
    't.http': `GET http://127.0.0.1:${hole.port}/x HTTP/2 (Prior Knowledge)\n\n###\nGET ${srv.url}/after\n`,
  });
  const r = await exec(dir, ['--print=b', 'c.http']);
  assert.equal(r.timedOut, false, 'the run ended');
  assertExit(r, 2);
  assert.match(
    r.stderr,
    new RegExp(
      `^sling: error: c\\.http:2: could not connect to 127\\.0\\.0\\.1:${hole.port} within 0\\.5s \\(# @connection-timeout\\)\\nsling: error: c\\.http:6: could not connect to 127\\.0\\.0\\.1:${hole.port} within 0\\.5s \\(# @connection-timeout\\)\\n$`,
    ),
    show(r),
  );
  assert.match(r.stdout, /\/after {2}\(line 9\)\n\{"path":"\/after"\}/);
  // --timeout alone: the same, and nothing keeps the process alive afterwards (it took minutes).
  const r2 = await exec(dir, ['--print=b', '--timeout', '0.5', 't.http']);
  assert.equal(r2.timedOut, false, 'the run ended');
  assertExit(r2, 2);
  assert.match(r2.stderr, /t\.http:1: could not connect to 127\.0\.0\.1:\d+ within 0\.5s \(--timeout\)/);
  assert.deepEqual(
    srv.requests.map((q) => q.url),
    ['/after', '/after'],
  );
  // The h2c upgrade (HTTP/2 on http://) under --timeout, and a TLS handshake that never finishes
  // under # @connection-timeout: given up on too (curl's --connect-timeout counts the handshake).
  const silent = await rawServer(t, () => {});
  writeFileSync(
    join(dir, 'u.http'),
    `GET http://127.0.0.1:${hole.port}/u HTTP/2

###
# @connection-timeout 0.5
GET https://127.0.0.1:${silent.url.split(':').pop()}/tls
`,
  );
  const r3 = await exec(dir, ['--print=b', '--timeout', '0.5', 'u.http']);
  assert.equal(r3.timedOut, false, 'the run ended');
  assertExit(r3, 2);
  assert.match(
    r3.stderr,
    /u\.http:1: could not connect to 127\.0\.0\.1:\d+ within 0\.5s \(--timeout\)\n[\s\S]*u\.http:5: connected to 127\.0\.0\.1:\d+, but the TLS handshake did not finish within 0\.5s \(# @connection-timeout\)/,
    show(r3),
  );
});

test('exec http: scripts as JetBrains runs them: a ### title named like a global runs in file order; request variables keep their type in handlers; async tests count; a test that calls client.exit() passes', async (t) => {
  const srv = await httpServer(t, (req, res) => {
    if (req.url === '/login') {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      return res.end('{"t": "ABC"}');
    }
    res.writeHead(200, { 'Content-Type': 'text/plain; charset="iso-8859-1"' });
    res.end(`${req.url} ${req.headers.authorization ?? '-'}`);
  });
  const dir = workdir({
    'tok.http': [
      '### login',
      `POST ${srv.url}/login`,
      '> {% client.global.set("token", response.body.t); %}',
      '### me',
      `GET ${srv.url}/me`,
      'Authorization: Bearer {{token}}',
      '### token',
      `POST ${srv.url}/token/revoke`,
    ].join('\n'),
    'it.http': [
      '< {% request.variables.set("clients", [{"id": 1}, {"id": 2}]); request.variables.set("n", 5); %}',
      `GET ${srv.url}/it/{{$.clients..id}}`,
      '',
      '> {% client.test("Account " + request.variables.get("clients")[request.iteration()].id + " n+1=" + (request.variables.get("n") + 1), () => {}); %}',
      '###',
      `GET ${srv.url}/cs`,
      '',
      '> {%',
      '  client.log("charset", response.contentType.charset);',
      '  client.test("async fails", async function () { await null; client.assert(false, "async fail"); });',
      '  client.test("async passes", async () => { await Promise.resolve(1); });',
      '  client.test("exits", () => { client.exit(); });',
      '%}',
    ].join('\n'),
  });
  const r = await exec(dir, ['--print=b', 'tok.http']);
  assertExit(r, 0);
  assert.deepEqual(
    srv.requests.map((q) => q.url),
    ['/login', '/me', '/token/revoke'],
  );
  assert.equal(header(srv.requests[1]!, 'authorization'), 'Bearer ABC');
  const i = await exec(dir, ['--print=b', '--report', 'junit', 'it.xml', 'it.http']);
  assertExit(i, 1);
  assert.match(i.stdout, /✓ Account 1 n\+1=6\n[\s\S]*✓ Account 2 n\+1=6\n/);
  assert.match(i.stdout, /\ncharset iso-8859-1\n✗ async fails: async fail\n✓ async passes\n✓ exits\n/, show(i));
  assert.match(i.stderr, /sling: test failed: it\.http:6: async fails: async fail/);
  assert.match(readFileSync(join(dir, 'it.xml'), 'utf8'), /tests="8" failures="1"/);
});

test('exec http: GraphQL variables that are not JSON fail the request (not sent as query text); a script syntax error names its line; --offline reports sane times', async (t) => {
  const srv = await httpServer(t, api);
  const dir = workdir({
    'g.http': [
      `POST ${srv.url}/g`,
      'X-REQUEST-TYPE: GraphQL',
      '',
      'query Q($id: ID) { a(id: $id) }',
      '',
      '{ "id": 1,, }',
      '',
      '###',
      `GRAPHQL ${srv.url}/g2`,
      '',
      'query {',
      '',
      '  a { b }',
      '}',
      '',
      '{"x": 1}',
    ].join('\n'),
    'bad.js': 'client.log(1);\nclient.log(2;\n',
    's.http': [`GET ${srv.url}/a`, '', '> ./bad.js', '', '###', `GET ${srv.url}/b`, '', '> {%', 'client.log(1);', 'client.log(2;', '%}'].join('\n'),
  });
  const g = await exec(dir, ['--print=b', 'g.http']);
  assertExit(g, 1);
  assert.match(g.stderr, /^sling: error: g\.http:1:1: the GraphQL variables after the blank line are not valid JSON: /m);
  assert.deepEqual(
    srv.requests.map((q) => q.url),
    ['/g2'],
  );
  assert.deepEqual(JSON.parse(srv.requests[0]!.body.toString()), { query: 'query {\n\n  a { b }\n}', variables: { x: 1 } });
  const s = await exec(dir, ['--print=b', 's.http']);
  assertExit(s, 1);
  // The engine's words for the mistake (QuickJS: "expecting ','"), then the line of the file it is on.
  assert.match(s.stderr, /s\.http:3: the response handler failed: syntax error: [^\n]+ \(at \.\/bad\.js:2\)/);
  assert.match(s.stderr, /s\.http:8: the response handler failed: syntax error: [^\n]+ \(at s\.http:10\)/);
  const o = await exec(dir, ['--offline', '--report', 'junit', 'o.xml', 's.http']);
  assertExit(o, 0);
  const times = [...readFileSync(join(dir, 'o.xml'), 'utf8').matchAll(/<testcase [^>]*time="([\d.]+)"/g)].map((m) => Number(m[1]));
  assert.equal(times.length, 2);
  for (const time of times) assert.ok(time < 60, `a case's time is its own, not the machine's uptime: ${time}`);
});

test('exec http: --follow / --no-follow leave a request with # @no-redirect alone; --report junit FILE with the requests on stdin', async (t) => {
  const srv = await httpServer(t, api);
  const dir = workdir({ 'r.http': `# @no-redirect\nGET ${srv.url}/moved\n\n###\nGET ${srv.url}/moved\n` });
  const f = await exec(dir, ['--print=h', '--follow', 'r.http']);
  assertExit(f, 0);
  assert.deepEqual(
    srv.requests.map((q) => q.url),
    ['/moved', '/moved', '/final'],
  );
  const n = await exec(dir, ['--print=h', '--no-follow', 'r.http']);
  assertExit(n, 0);
  assert.deepEqual(
    srv.requests.slice(3).map((q) => q.url),
    ['/moved', '/moved'],
  );
  // A curl command's own -L is its own too.
  writeFileSync(join(dir, 'l.curl'), `curl -sL ${srv.url}/moved\n`);
  const c = await exec(dir, ['--no-follow', 'l.curl']);
  assertExit(c, 0);
  assert.deepEqual(
    srv.requests.slice(5).map((q) => q.url),
    ['/moved', '/final'],
  );
  // The requests on standard input: r1.xml (a report by its name) is not taken for them.
  writeFileSync(join(dir, 'r1.xml'), '<old report/>');
  const s = await exec(dir, ['-q', '--report', 'junit', 'r1.xml'], { stdin: `GET ${srv.url}/in\n` });
  assertExit(s, 0);
  assert.equal(srv.requests.at(-1)!.url, '/in');
  assert.match(readFileSync(join(dir, 'r1.xml'), 'utf8'), /<testsuite name="&lt;stdin&gt;" tests="1"/);
});

test('exec http: --line on a run line runs what it runs; --name finds a request reached through run; an absolute import path is shown as written; {{host}}/path unresolved stays as written in --to http', async (t) => {
  const srv = await httpServer(t, api);
  const dir = workdir({
    'lib.http': `### Login\nGET ${srv.url}/login-lib?u={{nope}}\n`,
    'm.http': `### First\nGET ${srv.url}/first\n\n###\nrun ./lib.http\n\n### Third\nGET ${srv.url}/third\n`,
    'e.http': 'GET {{h}}/env\n',
  });
  writeFileSync(join(dir, 'abs.http'), `run ${join(dir, 'lib.http')}\n`);
  const l = await exec(dir, ['--print=b', '--line', '5', 'm.http']);
  assert.match(l.stdout, /^### Login: GET [^\n]*\/login-lib\?u=\{\{nope\}\} {2}\(lib\.http line 2\)$/m, show(l));
  assert.doesNotMatch(l.stdout, /first|third/);
  const n = await exec(dir, ['--print=b', '--name', 'Login', 'm.http']);
  assert.match(n.stdout, /\(lib\.http line 2\)/);
  assert.doesNotMatch(n.stdout, /first|third/);
  const a = await exec(dir, ['abs.http']);
  assertExit(a, 1);
  assert.match(a.stderr, new RegExp(`${join(dir, 'lib.http').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:2:\\d+: unknown variable \\{\\{nope\\}\\}`));
  const c = await exec(dir, ['--to', 'http', 'e.http']);
  assertExit(c, 0);
  assert.match(c.stdout, /^GET \{\{h\}\}\/env$/m);
  writeFileSync(join(dir, 's.http'), 'GET {{scheme}}://{{host}}/x\n');
  const o = await exec(dir, ['--offline', 's.http']);
  assertExit(o, 0);
  assert.match(o.stdout, /^### GET \{\{scheme\}\}:\/\/\{\{host\}\}\/x {2}\(line 1\)\nGET \/x HTTP\/1\.1\nHost: \{\{host\}\}\n/);
});

test('exec http: a --session name that cannot be a file is one error before anything is sent', async (t) => {
  const srv = await httpServer(t, api);
  const dir = workdir({ 's.http': `GET ${srv.url}/a\n\n###\nGET ${srv.url}/b\n` });
  const r = await exec(dir, ['--session', 'a b', 's.http'], { env: { HOME: dir } });
  assertError(r, 1, /^sling: error: --session 'a b': a session name may use letters, digits, '_', '-' and '\.' \(or give a path\)\n$/);
  assert.equal(srv.requests.length, 0);
});

test('exec http: {{foo}} alone never means the request titled ### foo (only a # @name): unknown variable, wherever the title stands', async (t) => {
  const srv = await httpServer(t, api);
  const dir = workdir({
    'a.http': `### foo\nGET ${srv.url}/foo\n\n### A\nGET ${srv.url}/a?f={{foo}}\n`,
    'b.http': `### A\nGET ${srv.url}/a?f={{foo}}\n\n### foo\nGET ${srv.url}/foo\n`,
  });
  for (const f of ['a.http', 'b.http']) {
    const r = await exec(dir, ['--print=b', f]);
    assertError(r, 1, new RegExp(`^sling: error: ${f.replace('.', '\\.')}:\\d+:\\d+: unknown variable \\{\\{foo\\}\\}$`, 'm'));
  }
  assert.deepEqual(
    srv.requests.map((q) => q.url),
    ['/foo', '/foo'],
  );
});

test('exec http: a response that cannot be saved (>> through a file) is one error line naming the line and why (exit 1), a JUnit error, not a failed test', async (t) => {
  const srv = await httpServer(t, api);
  const dir = workdir({ blocker: 'a file', 's.http': `### save\nGET ${srv.url}/a\n\n>> blocker/sub/out.json\n` });
  const r = await exec(dir, ['--report', 'junit', 'r.xml', 's.http']);
  assertExit(r, 1);
  assert.deepEqual(
    r.stderr.split('\n').filter((l) => l.startsWith('sling:')),
    ["sling: error: s.http:4: cannot save the response to 'blocker/sub/out.json': a part of the path is a file, not a folder"],
  );
  const xml = readFileSync(join(dir, 'r.xml'), 'utf8');
  assert.match(xml, /<error message="s\.http:4: cannot save the response to/);
  assert.doesNotMatch(xml, /<failure/);
});

test('exec http: >>! onto a named pipe is one error line at once, not a write that waits for a reader', { skip: process.platform === 'win32' ? 'no mkfifo on Windows' : undefined }, async (t) => {
  const srv = await httpServer(t, api);
  const dir = workdir({ 'p.http': `GET ${srv.url}/a\n\n>>! pipe\n` });
  const { spawnSync } = await import('node:child_process');
  const made = spawnSync('mkfifo', [join(dir, 'pipe')]);
  if (made.status !== 0) return t.skip('mkfifo is not available');
  const r = await exec(dir, ['p.http']);
  assert.equal(r.timedOut, false);
  assertExit(r, 1);
  assert.match(r.stderr, /^sling: error: p\.http:3: cannot save the response to 'pipe': it is not a regular file/m);
  // A device takes the body as it is: `>> /dev/null` makes no /dev/null-1 beside it.
  writeFileSync(join(dir, 'n.http'), `GET ${srv.url}/a\n\n>> /dev/null\n`);
  const n = await exec(dir, ['n.http']);
  assertExit(n, 0);
  assert.match(n.stderr, /response saved to \/dev\/null$/m);
  assert.equal(existsSync('/dev/null-1'), false);
});

test('exec http: piped, script output keeps its bytes; every line on stderr shows C1 and bidirectional controls as escapes', async (t) => {
  const evil = 'esc:\x1b[2J csi:\x9b2J rlo:\u202e gnp.exe lrm:\u200e alm:\u061c pdi:\u2069';
  const srv = await httpServer(t, (_req, res) => {
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify({ k: evil }));
  });
  const dir = workdir({
    'e.http': [
      '@v = {{first.response.body.k}}',
      '',
      '# @name first',
      `GET ${srv.url}/one`,
      '',
      '> {%',
      '  client.log(response.body.k);',
      '  client.test("t " + response.body.k, () => client.assert(false, response.body.k));',
      '  Promise.reject(new Error(response.body.k));',
      '%}',
      '',
      '###',
      `GET ${srv.url}/two?{{v}}`,
      '',
      '> {% client.log(request.variables.get("v")); %}',
      '',
    ].join('\n'),
  });
  const r = await exec(dir, ['--print=h', '--debug', 'e.http']);
  assertExit(r, 1);
  // stdout is a pipe: what the script logged is data, byte for byte (as a body is).
  assert.ok(r.stdout.includes(`\n${evil}\n`), show(r));
  assert.ok(r.stdout.includes(`\n✗ t ${evil}: ${evil}\n`), show(r));
  const shown = 'esc:\\x1b[2J csi:\\x9b2J rlo:\\u202e gnp.exe lrm:\\u200e alm:\\u061c pdi:\\u2069';
  assert.ok(!/[\x1b\x9b\u202e\u200e\u061c\u2069]/.test(r.stderr), show(r));
  assert.ok(r.stderr.includes(`sling: test failed: e.http:4 (first): t ${shown}: ${shown}\n`), show(r));
  assert.ok(r.stderr.includes(`sling: warning: a script left a rejected promise that nothing handled: ${shown}\n`), show(r));
  // --debug shows a variable's value: on one line, escaped like any message.
  assert.ok(r.stderr.includes(`= ${shown}\n`), show(r));
});

test('exec http: rest-client.env.json and rest-client.private.env.json (the older names) are read where http-client.env.json would be, in a parent folder too; the current names win', async (t) => {
  const srv = await httpServer(t, api);
  const dir = workdir({
    'rest-client.env.json': JSON.stringify({ dev: { host: 'old-public', secret: '' } }),
    'rest-client.private.env.json': JSON.stringify({ dev: { secret: 'old-private' } }),
  });
  mkdirSync(join(dir, 'api'));
  writeFileSync(join(dir, 'api', 'a.http'), `GET ${srv.url}/{{host}}/{{secret}}\n`);
  const r = await exec(dir, ['--env', 'dev', 'api/a.http']);
  assertExit(r, 0);
  assert.equal(srv.requests.at(-1)!.url, '/old-public/old-private');
  // Beside the current names, only the missing one is taken from the older name.
  writeFileSync(join(dir, 'http-client.env.json'), JSON.stringify({ dev: { host: 'new-public', secret: '' } }));
  assertExit(await exec(dir, ['--env', 'dev', 'api/a.http']), 0);
  assert.equal(srv.requests.at(-1)!.url, '/new-public/old-private');
  // Neither name: the message names both.
  const none = workdir({ 'a.http': `GET ${srv.url}/x\n` });
  assertError(
    await exec(none, ['--env', 'dev', 'a.http']),
    1,
    /--env dev: no http-client\.env\.json or http-client\.private\.env\.json \(or their older names, rest-client\.env\.json and rest-client\.private\.env\.json\)/,
  );
});

test('exec http: a file variable after a body is a variable, not body; {{host}}/path is a GET; an unknown $name fails its request only', async (t) => {
  const srv = await httpServer(t, api);
  const u = srv.url;
  const dir = workdir({
    'a.http': `POST ${u}/sign-in\nContent-Type: application/json\n\n{"a":1}\n\n@token = Bearer abc\n\n###\nGET ${u}/check\nAuthorization: {{token}}\n`,
    'b.http': `GET ${u}/get\n\n# log in first\n@code=REPLACE\n\n###\nGET ${u}/c?code={{code}}\n`,
    'c.http': `@host = ${u}\n###\n{{host}}/nomethod\n`,
    'd.http': `GET ${u}/1\n###\nGET ${u}/2\n###\nGET ${u}/3\nAuthorization: Bearer {{$global.accessToken}}\n###\nGET ${u}/4\n###\nGET ${u}/5?x={{$nope}}\n`,
  });
  const a = await exec(dir, ['a.http']);
  assertExit(a, 0);
  assert.deepEqual(
    srv.requests.map((q) => [q.method, q.url, q.body.toString(), header(q, 'authorization') ?? '']),
    [
      ['POST', '/sign-in', '{"a":1}', ''],
      ['GET', '/check', '', 'Bearer abc'],
    ],
  );
  srv.requests.length = 0;
  const b = await exec(dir, ['b.http']);
  assertExit(b, 0);
  assert.deepEqual(
    srv.requests.map((q) => [q.method, q.url, q.body.length, header(q, 'content-length') ?? '']),
    [
      ['GET', '/get', 0, ''],
      ['GET', '/c?code=REPLACE', 0, ''],
    ],
  );
  srv.requests.length = 0;
  const c = await exec(dir, ['c.http']);
  assertExit(c, 0);
  assert.doesNotMatch(c.stderr, /warning/, show(c));
  assert.deepEqual(
    srv.requests.map((q) => [q.method, q.url]),
    [['GET', '/nomethod']],
  );
  srv.requests.length = 0;
  const d = await exec(dir, ['d.http']);
  assertExit(d, 1);
  // httpyac's $global is known: unset, it is sent as written with a warning, as httpyac sends it.
  assert.deepEqual(
    srv.requests.map((q) => q.url),
    ['/1', '/2', '/3', '/4'],
  );
  assert.equal(header(srv.requests[2]!, 'authorization'), 'Bearer {{$global.accessToken}}');
  assert.match(d.stderr, /^sling: warning: d\.http:6:23: \{\{\$global\.accessToken\}\} is undefined: sent as written, as httpyac does$/m, show(d));
  assert.match(d.stderr, /^sling: error: d\.http:10:\d+: \{\{\$nope\}\}: unknown dynamic variable$/m, show(d));
});

test('exec http: curl command lines in a .http file send what the curl source (and curl) sends for the same line; {{variables}} are put in its arguments', async (t) => {
  const srv = await startCurlCapture();
  t.after(() => srv.close());
  const u = srv.url;
  const home = mkdtempSync(join(tmpdir(), 'sling-curl-home-'));
  // The same commands as a shell script (what the curl source and real curl run) and in a .http file.
  const commands = [
    `curl ${u}/a -H 'X-A: 1'`,
    `curl -X PUT ${u}/b \\\n  -H 'Content-Type: application/json' \\\n  -d '{\n  "a": 1,\n  "b": "x y"\n}'`,
    `curl ${u}/c -d @body.json -H "Authorization: Bearer a b" --compressed`,
  ];
  const dir = workdir({ 'body.json': '{"from": "file"}\n' });
  writeFileSync(join(dir, 'c.sh'), commands.join('\n') + '\n');
  const sub = join(dir, 'sub');
  mkdirSync(sub);
  writeFileSync(join(sub, 'body.json'), '{"from": "file"}\n');
  writeFileSync(join(sub, 'c.http'), `### one\n${commands[0]}\n\n###\n# a comment\n${commands[1]}\n# after it\n\n###\n${commands[2]}\n`);
  const viaSh = await exec(dir, ['c.sh'], { env: { HOME: home } });
  assertExit(viaSh, 0);
  const fromSh: RawRequest[] = srv.requests.splice(0);
  assert.equal(fromSh.length, 3);
  // Run from another folder: -d @body.json is the .http file's folder's.
  const viaHttp = await exec(dir, ['sub/c.http'], { env: { HOME: home } });
  assertExit(viaHttp, 0);
  assert.deepEqual(diffRequests(fromSh, srv.requests.splice(0)), [], show(viaHttp));
  assert.equal(fromSh[1]!.method, 'PUT');
  assert.equal(fromSh[1]!.body.toString(), '{\n  "a": 1,\n  "b": "x y"\n}');
  assert.equal(fromSh[2]!.body.toString(), '{"from": "file"}');
  if (!curlMissing()) {
    // Not spawnSync: the capture server answers from this process.
    const code = await new Promise((resolve, reject) => {
      const child = spawn('bash', ['c.sh'], { cwd: dir, env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home }, stdio: 'ignore' });
      child.on('error', reject);
      child.on('close', resolve);
    });
    assert.equal(code, 0);
    assert.deepEqual(diffRequests(srv.requests.splice(0), fromSh), []);
  }

  // Variables: in each argument after the shell read it (a value with blanks or quotes stays one
  // argument); a reference to an earlier response; a request after the curl line as usual.
  writeFileSync(
    join(dir, 'v.http'),
    `@host = ${u}\n@auth = Bearer it's "x"\n###\n# @name first\ncurl {{host}}/v?q={{$randomInt 5 6}} \\\n  -H "Authorization: {{auth}}"\n\n###\nGET {{host}}/after?n={{first.response.body.$.n}}\n###\ncurl {{host}}/w -H 'X-T: {{first.response.body.$.ok}}'\n`,
  );
  writeFileSync(join(dir, 'v.sh'), `curl ${u}/v?q=5 -H "Authorization: Bearer it's \\"x\\""\n`);
  const v = await exec(dir, ['v.http'], { env: { HOME: home } });
  assertExit(v, 0);
  const got = srv.requests.splice(0);
  assert.deepEqual(
    got.map((q) => q.target),
    ['/v?q=5', '/after?n=1', '/w'],
  );
  assert.equal(got[2]!.headers.find(([n]) => n === 'X-T')?.[1], 'true');
  const vs = await exec(dir, ['v.sh'], { env: { HOME: home } });
  assertExit(vs, 0);
  assert.deepEqual(diffRequests(srv.requests.splice(0), got.slice(0, 1)), []);

  // A malformed curl line without placeholders is a parse error: nothing is sent. One whose
  // placeholder cannot be worked out fails alone, with its place; the rest run; exit 1.
  writeFileSync(join(dir, 'bad.http'), `GET ${u}/x\n###\ncurl ${u}/y --no-such-option\n`);
  const bad = await exec(dir, ['bad.http'], { env: { HOME: home } });
  assertExit(bad, 1);
  assert.match(bad.stderr, /^sling: error: bad\.http:3:\d+: .*--no-such-option/m, show(bad));
  assert.equal(srv.requests.length, 0);
  writeFileSync(join(dir, 'unk.http'), `curl ${u}/1\n###\ncurl ${u}/2 -H 'A: {{nope}}'\n###\nGET ${u}/3\n`);
  const unk = await exec(dir, ['unk.http'], { env: { HOME: home } });
  assertExit(unk, 1);
  assert.deepEqual(
    srv.requests.splice(0).map((q) => q.target),
    ['/1', '/3'],
  );
  assert.match(unk.stderr, /^sling: error: unk\.http:3:\d+: unknown variable \{\{nope\}\}$/m, show(unk));
});

test('exec http: a curl line in a file reached through run is titled with its file and picked by --line on the run line', async (t) => {
  const srv = await httpServer(t, api);
  const dir = workdir({ 'other.http': `curl ${srv.url}/other\n`, 'main.http': `GET ${srv.url}/main\n###\nrun ./other.http\n` });
  const all = await exec(dir, ['main.http']);
  assertExit(all, 0);
  assert.match(all.stdout, /^### GET http:\/\/127\.0\.0\.1:\d+\/other {2}\(other\.http line 1\)$/m, show(all));
  const one = await exec(dir, ['--line', '1', 'main.http']);
  assertExit(one, 0);
  const two = await exec(dir, ['--line', '3', 'main.http']);
  assertExit(two, 0);
  assert.deepEqual(
    srv.requests.map((q) => q.url),
    ['/main', '/other', '/main', '/other'],
  );
});

test("exec http: a curl line's own cookie engine (-b FILE, -c) sends its file's cookies and keeps what a -L hop sets, as in a file of curl commands", async (t) => {
  const srv = await httpServer(t, (q, res) => {
    if (q.url === '/login') return void res.writeHead(302, { Location: '/home', 'Set-Cookie': 'sid=new; Path=/' }).end();
    res.end('ok\n');
  });
  const dir = workdir({
    'jar.txt': `127.0.0.1\tFALSE\t/\tFALSE\t0\told\tkept\n`,
    'a.http': `curl -s -L -b jar.txt -c out.txt ${srv.url}/login\n`,
  });
  assertExit(await exec(dir, ['a.http']), 0);
  assert.deepEqual(
    srv.requests.map((q) => [q.url, header(q, 'cookie') ?? '-']),
    [
      ['/login', 'old=kept'],
      ['/home', 'old=kept; sid=new'],
    ],
  );
  assert.match(readFileSync(join(dir, 'out.txt'), 'utf8'), /\tsid\tnew$/m);
});
