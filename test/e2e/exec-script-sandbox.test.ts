// JetBrains scripts in `sling exec` run in a process of their own (src/sources/http/script.ts,
// sandbox.ts): a script that takes all the memory it can, or never ends, fails its request only.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runSling } from '../helpers/cli.js';
import { assertExit, assertNoStack, httpServer, show } from '../helpers/assert.js';

function workdir(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'sling-exec-script-'));
  for (const [name, content] of Object.entries(files)) writeFileSync(join(dir, name), content);
  return dir;
}

const HOG = 'const a=[]; while(true) a.push(new Array(1e7).fill(1.5));';

test('exec scripts: a handler that takes all the memory fails its request only: one line, exit 1, the output before and after kept', async (t) => {
  const srv = await httpServer(t, (req, res) => {
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify({ path: req.url }));
  });
  const dir = workdir({
    'oom.http': [
      '### first',
      `GET ${srv.url}/first`,
      '',
      '> {% client.global.set("seen", "yes") %}',
      '',
      '### boom',
      `GET ${srv.url}/boom`,
      '',
      `> {% ${HOG} %}`,
      '',
      '### after',
      `GET ${srv.url}/after`,
      '',
      '> {% client.log("after: " + response.status + " seen=" + client.global.get("seen")) %}',
      '',
    ].join('\n'),
    'pre.http': [`< {% ${HOG} %}`, `GET ${srv.url}/never`, '', '###', `GET ${srv.url}/later`, '', '> {% client.log("later ran") %}', ''].join('\n'),
  });
  // The default limit (256 MB) takes QuickJS a while to fill on a busy machine: a wide margin.
  const r = await runSling(['exec', '--print=b', 'oom.http'], { cwd: dir, timeoutMs: 120_000 });
  assertExit(r, 1);
  assert.deepEqual(
    srv.requests.map((q) => q.url),
    ['/first', '/boom', '/after'],
  );
  // Every response printed, in order; the handler after the failed one ran, with the globals kept.
  assert.match(r.stdout, /\{"path":"\/first"\}[\s\S]*\{"path":"\/boom"\}[\s\S]*\{"path":"\/after"\}\nafter: 200 seen=yes\n/, show(r));
  assert.equal(r.stderr, 'sling: test failed: oom.http:7 (boom): oom.http:9: the response handler failed: the script used more than 256 MB of memory (SLING_SCRIPT_MEMORY_MB)\n', show(r));
  assertNoStack(r.stderr);

  // A pre-request script: its request is not sent, and the next one is (with a smaller heap).
  const p = await runSling(['exec', '--print=b', 'pre.http'], { cwd: dir, timeoutMs: 120_000, env: { SLING_SCRIPT_MEMORY_MB: '16' } });
  assertExit(p, 1);
  assert.deepEqual(
    srv.requests.slice(3).map((q) => q.url),
    ['/later'],
  );
  assert.match(p.stdout, /\{"path":"\/later"\}\nlater ran\n/, show(p));
  assert.match(p.stderr, /^sling: error: pre\.http:1: the pre-request script failed: the script used more than 16 MB of memory \(SLING_SCRIPT_MEMORY_MB\)$/m, show(p));
  assertNoStack(p.stderr);

  // A limit that is no number of megabytes is said, by the script that needs it.
  const bad = await runSling(['exec', '--print=b', 'oom.http'], { cwd: dir, env: { SLING_SCRIPT_MEMORY_MB: 'lots' } });
  assertExit(bad, 1);
  assert.match(bad.stderr, /oom\.http:4: the response handler failed: SLING_SCRIPT_MEMORY_MB must be a whole number of megabytes, 16 or more, not 'lots'/, show(bad));
});

test('exec scripts: an endless loop (or endless promise jobs) still stops at 10 s, and the next script runs with the globals kept', async (t) => {
  const srv = await httpServer(t, (_req, res) => res.end('ok'));
  const file = (loop: string) =>
    [
      `GET ${srv.url}/a`,
      '',
      '> {% client.global.set("n", 7) %}',
      '',
      '###',
      `GET ${srv.url}/b`,
      '',
      `> {% ${loop} %}`,
      '',
      '###',
      `GET ${srv.url}/c`,
      '',
      '> {% client.log("n=" + client.global.get("n")) %}',
      '',
    ].join('\n');
  const dir = workdir({ 'sync.http': file('while (true) {}'), 'async.http': file('(async () => { for (;;) await null; })()') });
  const [s, a] = await Promise.all(['sync.http', 'async.http'].map((f) => runSling(['exec', '--print=b', f], { cwd: dir, timeoutMs: 120_000 })));
  for (const [r, name] of [
    [s!, 'sync.http'],
    [a!, 'async.http'],
  ] as const) {
    assertExit(r, 1);
    assert.match(r.stdout, /^### GET .*\/a {2}\(line 1\)\nok\n### GET .*\/b {2}\(line 6\)\nok\n### GET .*\/c {2}\(line 11\)\nok\nn=7\n$/, show(r));
    assert.equal(r.stderr, `sling: test failed: ${name}:6: ${name}:8: the response handler failed: the script ran longer than 10 s\n`, show(r));
  }
});

test('exec httpyac assertions: a `?? js` expression runs in the script process, in a context with nothing to climb out of, under its memory limit', async (t) => {
  const srv = await httpServer(t, (req, res) => {
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify({ path: req.url }));
  });
  const dir = workdir({
    'a.http': [
      `GET ${srv.url}/a`,
      '?? js response.parsedBody.path == /a',
      '?? js this.constructor.constructor("return process")().exit(7) == 1',
      `?? js (() => { ${HOG} })() == 1`,
      '?? body path == /a',
      '',
      '###',
      `GET ${srv.url}/b`,
      '?? js response.parsedBody.path == /b',
      '',
    ].join('\n'),
  });
  const r = await runSling(['exec', '--print=b', 'a.http'], { cwd: dir, timeoutMs: 120_000, env: { SLING_SCRIPT_MEMORY_MB: '32' } });
  assertExit(r, 1);
  assert.deepEqual(
    srv.requests.map((q) => q.url),
    ['/a', '/b'],
  );
  assert.match(
    r.stdout,
    /✓ response\.parsedBody\.path == \/a\n✗ this\.constructor.*: the expression failed: Code generation from strings disallowed for this context\n✗ \(\(\) => .*: the script used more than 32 MB of memory \(SLING_SCRIPT_MEMORY_MB\)\n✓ path == \/a\n[\s\S]*✓ response\.parsedBody\.path == \/b\n/,
    show(r),
  );
  assert.equal((r.stderr.match(/^sling: test failed: /gm) ?? []).length, 2, show(r));
  assertNoStack(r.stderr);
});

test('exec scripts: a response body larger than a quarter of the script memory is refused in one line before it is copied for the script; a smaller one is handed over whole', async (t) => {
  const srv = await httpServer(t, (req, res) => {
    const mb = Number(req.url!.slice(1));
    res.writeHead(200, { 'Content-Type': 'text/plain' });
    res.end(Buffer.alloc(mb * 1048576, 120));
  });
  const dir = workdir({
    'big.http': [`GET ${srv.url}/5`, '', '> {% client.log("len " + response.body.length) %}', '', '###', `GET ${srv.url}/3`, '', '> {% client.log("len " + response.body.length) %}', ''].join('\n'),
  });
  const r = await runSling(['exec', '--print=h', 'big.http'], { cwd: dir, timeoutMs: 120_000, env: { SLING_SCRIPT_MEMORY_MB: '16' } });
  assertExit(r, 1);
  assert.equal(
    r.stderr,
    'sling: test failed: big.http:1: big.http:3: the response handler failed: the response body (5 MB) is more than a script is handed: at most 4 MB, a quarter of the script memory (SLING_SCRIPT_MEMORY_MB=16)\n',
    show(r),
  );
  assert.match(r.stdout, new RegExp(`^len ${3 * 1048576}$`, 'm'), show(r));
  assert.doesNotMatch(r.stdout, new RegExp(`len ${5 * 1048576}`), show(r));
});

test('exec scripts: calling what is not a function names it, as Node does (QuickJS itself says only "not a function")', async (t) => {
  const srv = await httpServer(t, (_req, res) => {
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end('{"a":1}');
  });
  const dir = workdir({
    'nf.http': [
      `GET ${srv.url}/a`,
      '',
      '> {%',
      '  const x = 1;',
      '  response.body.trim();',
      '%}',
      '',
      '###',
      `GET ${srv.url}/b`,
      '',
      '> {% client.assert(true); client.global . nothing(1) %}',
      '',
    ].join('\n'),
  });
  const r = await runSling(['exec', '--print=h', 'nf.http'], { cwd: dir });
  assertExit(r, 1);
  assert.equal(
    r.stderr,
    'sling: test failed: nf.http:1: nf.http:3: the response handler failed: response.body.trim is not a function (at nf.http:5)\n' +
      'sling: test failed: nf.http:9: nf.http:11: the response handler failed: client.global.nothing is not a function (at nf.http:11)\n',
    show(r),
  );
});
