// Inputs nested thousands of levels deep (JSON in a response, an environment value or an item,
// shell expansions in a curl file, a nested-JSON path): sling's readers recurse once per level and
// JavaScript's stack runs out. Variables that double thirty times: the value outgrows the largest
// string JavaScript can hold. Those are limits, not bugs: one sentence naming the input, exit 1, no
// "unexpected failure ... report the stack trace"; in `sling exec` a response nested that deep
// fails only the request that uses it, and the run goes on.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runSling } from '../helpers/cli.js';
import { assertError, assertExit, assertNoStack, httpServer } from '../helpers/assert.js';

const DEPTH = 30000;
const deepArray = '['.repeat(DEPTH) + ']'.repeat(DEPTH);

function workdir(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'sling-deep-'));
  for (const [name, content] of Object.entries(files)) writeFileSync(join(dir, name), content);
  return dir;
}

const notABug = (stderr: string) => {
  assert.doesNotMatch(stderr, /unexpected failure|report the stack trace/, stderr.slice(0, 500));
  assertNoStack(stderr);
};

test('exec: a response nested too deeply fails the request that reads it; the rest of the file runs', async (t) => {
  const srv = await httpServer(t, (req, res) => {
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end(req.url === '/deep' ? `{"a": ${deepArray}}` : '{"ok": true}');
  });
  const dir = workdir({ 'api.http': `# @name r\nGET ${srv.url}/deep\n\n###\nGET ${srv.url}/use?v={{r.response.body.$.a}}\n\n###\nGET ${srv.url}/after\n` });
  const r = await runSling(['exec', '--print=b', join(dir, 'api.http')]);
  assertError(r, 1, /api\.http:5: nested too deeply to work through \(more than 1,000 levels of nesting\)/);
  notABug(r.stderr);
  assert.deepEqual(
    srv.requests.map((q) => q.url),
    ['/deep', '/after'],
  );
  assert.match(r.stdout, /### GET http:\/\/127\.0\.0\.1:\d+\/after {2}\(line 8\)\n\{"ok": true\}/);
});

test('exec: an environment value nested too deeply is named (file and variable); nothing is sent', async (t) => {
  const srv = await httpServer(t, (_req, res) => res.end('ok'));
  const dir = workdir({ 'api.http': `GET ${srv.url}/{{v}}\n`, 'http-client.env.json': `{"dev": {"v": ${deepArray}}}` });
  const r = await runSling(['exec', '--env', 'dev', join(dir, 'api.http')]);
  assertError(r, 1, /http-client\.env\.json: the value of v: nested too deeply to work through/);
  notABug(r.stderr);
  assert.equal(srv.requests.length, 0);
});

test('exec: a curl file with shell expansions nested too deeply is a failure of the file; nothing is sent', async (t) => {
  const srv = await httpServer(t, (_req, res) => res.end('ok'));
  const depth = 6000;
  const dir = workdir({ 'deep.curl': `curl ${srv.url}/\${A:-${'${A:-'.repeat(depth)}x${'}'.repeat(depth)}}\n` });
  const r = await runSling(['exec', join(dir, 'deep.curl')]);
  // Where the reader was when the stack ran out (parseShell, or walkScript for the expansion).
  assertError(r, 1, /deep\.curl:1:\d+: nested too deeply to work through/);
  notABug(r.stderr);
  assert.equal(srv.requests.length, 0);
});

test('exec: a variable doubled past the largest string fails its request, named by its line; the rest of the file runs', async (t) => {
  const srv = await httpServer(t, (_req, res) => res.end('ok'));
  const vars = ['@v0 = x', ...Array.from({ length: 30 }, (_, i) => `@v${i + 1} = {{v${i}}}{{v${i}}}`)].join('\n');
  const dir = workdir({ 'api.http': `${vars}\n\nPOST ${srv.url}/big\n\n{{v30}}\n\n###\nGET ${srv.url}/after\n` });
  const r = await runSling(['exec', '--print=b', join(dir, 'api.http')]);
  assertError(r, 1, /^sling: error: \S*api\.http:33: a value grows past the largest string Node\.js can hold \(Invalid string length\)$/m);
  notABug(r.stderr);
  assert.deepEqual(
    srv.requests.map((q) => q.url),
    ['/after'],
  );
  assert.match(r.stdout, /### GET http:\/\/127\.0\.0\.1:\d+\/after {2}\(line 38\)\nok/);
});

test('exec: a curl file whose shell variable doubles past the largest string names the line; nothing is sent', async (t) => {
  const srv = await httpServer(t, (_req, res) => res.end('ok'));
  const dir = workdir({ 'big.curl': `curl ${srv.url}/first\nA=x\n${'A=$A$A\n'.repeat(30)}curl -d "$A" ${srv.url}/big\n` });
  const r = await runSling(['exec', join(dir, 'big.curl')]);
  // A=x is line 2, doubling k is line 2 + k: the 29th (2^29 characters, line 31) is the first past
  // the largest string (2^29 - 24 characters).
  assertError(r, 1, /^sling: error: \S*big\.curl:31:1: a value grows past the largest string Node\.js can hold \(Invalid string length\)$/m);
  notABug(r.stderr);
  assert.equal(srv.requests.length, 0);
});

test('main command: a JSON item or a nested path too deep is one sentence, exit 1, the item shown by its start', async () => {
  const raw = await runSling(['--offline', 'POST', '127.0.0.1:9/x', `a:=${deepArray}`]);
  assertError(raw, 1, /^sling: error: item 'a:=\[{97}\.\.\.': the value is nested too deeply to work through \(more than 1,000 levels of nesting\)$/m);
  notABug(raw.stderr);
  assert.ok(raw.stderr.length < 300, raw.stderr.slice(0, 400));
  // Still a plain syntax error when the JSON is broken, with a short value quoted.
  const bad = await runSling(['--offline', 'POST', '127.0.0.1:9/x', 'a:={x']);
  assertError(bad, 1, /item 'a:=\{x': '\{x' is not valid JSON/);
  const path = await runSling(['--offline', 'POST', '127.0.0.1:9/x', `a${'[]'.repeat(DEPTH)}=1`]);
  assertExit(path, 1);
  assert.match(path.stderr, /^sling: error: item 'a(\[\]){49}\[\.\.\.': the JSON path is nested too deeply to work through \(more than 1,000 levels of nesting\)$/m);
  notABug(path.stderr);
  assert.equal(path.stdout, '');
});

test('the nesting limit is 1,000 levels on every Node: 1,000 go through, 1,001 are refused (items, paths, environment values, response values)', async (t) => {
  const nested = (n: number) => '['.repeat(n) + ']'.repeat(n);
  const item = await runSling(['--offline', '--print=B', 'POST', '127.0.0.1:9/x', `a:=${nested(1000)}`]);
  assert.equal(item.code, 0, item.stderr);
  assert.equal(item.stdout.trim(), `{"a": ${nested(1000)}}`);
  assertError(await runSling(['--offline', 'POST', '127.0.0.1:9/x', `a:=${nested(1001)}`]), 1, /the value is nested too deeply to work through \(more than 1,000 levels of nesting\)/);
  const path = await runSling(['--offline', '--print=B', 'POST', '127.0.0.1:9/x', `a${'[]'.repeat(999)}=1`]);
  assert.equal(path.code, 0, path.stderr);
  assert.equal(path.stdout.trim(), `{"a": ${'['.repeat(999)}"1"${']'.repeat(999)}}`);
  assertError(await runSling(['--offline', 'POST', '127.0.0.1:9/x', `a${'[]'.repeat(1000)}=1`]), 1, /the JSON path is nested too deeply/);

  const srv = await httpServer(t, (req, res) => {
    res.setHeader('Content-Type', 'application/json');
    res.end(req.url === '/deep1000' ? `{"a": ${nested(999)}}` : req.url === '/deep1001' ? `{"a": ${nested(1000)}}` : '{}');
  });
  const dir = workdir({
    'api.http': `# @name d1000\nGET ${srv.url}/deep1000\n\n###\nPOST ${srv.url}/use1000\n\n{{d1000.response.body.$.a}}\n\n###\n# @name d1001\nGET ${srv.url}/deep1001\n\n###\nPOST ${srv.url}/use1001\n\n{{d1001.response.body.$.a}}\n\n###\nPOST ${srv.url}/env\n\n{{v}}\n`,
    'http-client.env.json': `{"ok": {"v": ${nested(1000)}}, "deep": {"v": ${nested(1001)}}}`,
  });
  const r = await runSling(['exec', '--env', 'ok', join(dir, 'api.http')]);
  assertError(r, 1, /api\.http:14: nested too deeply to work through \(more than 1,000 levels of nesting\)/);
  notABug(r.stderr);
  const bodies = new Map(srv.requests.map((q) => [q.url, q.body.toString()]));
  assert.deepEqual([...bodies.keys()], ['/deep1000', '/use1000', '/deep1001', '/env']);
  assert.equal(bodies.get('/use1000'), nested(999));
  assert.equal(bodies.get('/env'), nested(1000));
  const env = await runSling(['exec', '--env', 'deep', join(dir, 'api.http')]);
  assertError(env, 1, /http-client\.env\.json: the value of v: nested too deeply to work through \(more than 1,000 levels of nesting\)/);
});
