// httpyac's JavaScript in .http files: `{{ }}` blocks, exports, $global and
// JavaScript placeholders. Every expected request here is what httpyac 6.16.7 sent for the same
// file (`httpyac send FILE --all` against a loopback echo server), byte for byte in method,
// target, the file's headers and body.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { runSling } from '../helpers/cli.js';
import { assertError, assertExit, httpServer, show } from '../helpers/assert.js';
import type { CapturedRequest } from '../helpers/servers.js';

function workdir(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'sling-httpyac-js-'));
  for (const [name, content] of Object.entries(files)) writeFileSync(join(dir, name), content);
  return dir;
}

/** Answers JSON that echoes the request, plus fixed fields to read. */
function echo(req: IncomingMessage, res: ServerResponse, captured: CapturedRequest) {
  res.writeHead(200, { 'content-type': 'application/json', 'x-served': 'yes' });
  res.end(JSON.stringify({ method: req.method, url: req.url, body: captured.body.toString(), id: 42, name: 'ann', list: [1, 2, 3], nested: { token: 'tok-1' } }));
}

const header = (raw: string[], name: string) => {
  for (let i = 0; i < raw.length; i += 2) if (raw[i]!.toLowerCase() === name) return raw[i + 1];
  return undefined;
};

test('exec http: httpyac {{ }} blocks run (global, before, after the request), exports and $global become variables, {{ expressions }} are JavaScript', async (t) => {
  const srv = await httpServer(t, echo);
  const dir = workdir({
    'a.http': [
      '{{',
      "  exports.top = 'T' + (1 + 2);",
      "  console.log('global ran');",
      '}}',
      '',
      '###',
      '{{',
      "  exports.pre = 'P' + top;",
      '}}',
      `GET ${srv.url}/one?top={{top}}&pre={{pre}}&js={{ 1 + 2 }}&s={{ top.toLowerCase() }}`,
      '',
      '{{',
      '  exports.got = response.parsedBody.id;',
      '  $global.g = response.parsedBody.nested.token;',
      '  exports.sc = response.statusCode;',
      '}}',
      '',
      '###',
      '@fromjs = {{response.parsedBody.name}}',
      `GET ${srv.url}/two?got={{got}}&g={{$global.g}}&sc={{sc}}&fromjs={{fromjs}}&pre={{pre}}`,
    ].join('\n'),
  });
  const r = await runSling(['exec', 'a.http'], { cwd: dir });
  assertExit(r, 0);
  // httpyac 6.16.7 sent exactly these.
  assert.deepEqual(
    srv.requests.map((q) => q.url),
    ['/one?top=T3&pre=PT3&js=3&s=t3', '/two?got=42&g=tok-1&sc=200&fromjs=ann&pre=PT3'],
    show(r),
  );
  // The global block runs before every request; its console line is shown with the request.
  assert.equal(r.stdout.split('global ran').length - 1, 2, show(r));
  assert.doesNotMatch(r.stderr, /warning/, show(r));
});

test('exec http: httpyac JavaScript placeholders in headers, body and file variables; test() in a block after the response', async (t) => {
  const srv = await httpServer(t, echo);
  const dir = workdir({
    'd.http': [
      '{{',
      '  exports.arr = [1, 2, 3];',
      '  exports.n = 21;',
      '}}',
      `POST ${srv.url}/d1?q={{ n * 2 }}`,
      'Content-Type: application/json',
      'X-Len: {{arr.length}}',
      'X-Sum: {{ arr.reduce((a, b) => a + b, 0) }}',
      '',
      '{"double": {{ n * 2 }}, "list": {{arr}}, "s": "{{ [\'a\', \'b\'].join(\'-\') }}"}',
      '',
      '{{',
      '  const body = response.parsedBody;',
      '  exports.echoed = JSON.parse(body.body).double;',
      "  test('double is 42', () => { if (JSON.parse(body.body).double !== 42) throw new Error('got ' + body.body); });",
      "  test('fails', () => { throw new Error('nope'); });",
      '}}',
      '',
      '###',
      '@label = v{{echoed}}-{{ echoed + 1 }}',
      `GET ${srv.url}/d2?label={{label}}`,
    ].join('\n'),
  });
  const r = await runSling(['exec', 'd.http'], { cwd: dir });
  // A failed test is exit 1, after every request.
  assertExit(r, 1);
  assert.equal(srv.requests.length, 2, show(r));
  const [one, two] = srv.requests;
  assert.equal(one!.url, '/d1?q=42');
  assert.equal(header(one!.rawHeaders, 'x-len'), '3');
  assert.equal(header(one!.rawHeaders, 'x-sum'), '6');
  assert.equal(one!.body.toString(), '{"double": 42, "list": [1,2,3], "s": "a-b"}');
  assert.equal(two!.url, '/d2?label=v42-43');
  assert.match(r.stdout, /✓ double is 42/, show(r));
  assert.match(r.stdout, /✗ fails: nope/, show(r));
});

test('exec http: httpyac scripts run in the sandbox: no Node modules, process or code generation; a failing block fails its request with one line naming its line', async (t) => {
  const srv = await httpServer(t, echo);
  const dir = workdir({
    's.http': [
      '{{',
      "  exports.kinds = [typeof require, typeof process, typeof module].join(',');",
      '  try { exports.escape = this.constructor.constructor("return process")(); } catch (e) { exports.escape = "refused"; }',
      '  try { exports.escape2 = response.constructor.constructor("return process")(); } catch (e) { exports.escape2 = "refused"; }',
      '}}',
      `GET ${srv.url}/s1?k={{kinds}}&e={{escape}}&e2={{escape2}}`,
      '',
      '###',
      '{{',
      "  const fs = require('fs');",
      '}}',
      `GET ${srv.url}/never`,
      '',
      '###',
      `GET ${srv.url}/s3?x={{ nothing + 1 }}`,
      '',
      '###',
      `GET ${srv.url}/s4`,
    ].join('\n'),
  });
  const r = await runSling(['exec', 's.http'], { cwd: dir });
  assertError(r, 1, /s\.http:9: the pre-request script failed: require\('fs'\) is not available in \.http scripts: they run in a sandbox without files, processes or network; .* \(at .*s\.http:10\)/);
  assert.match(r.stderr, /s\.http:15:\d+: \{\{ nothing \+ 1 \}\}: nothing is not defined/, show(r));
  // The failing requests are not sent; the others are.
  assert.deepEqual(
    srv.requests.map((q) => q.url),
    ['/s1?k=function,undefined,undefined&e=refused&e2=refused', '/s4'],
    show(r),
  );
});

test('exec http: httpyac {{@response / {{+after / {{+response blocks run after the responses; {{@request is not run and a warning names its line', async (t) => {
  const srv = await httpServer(t, echo);
  const dir = workdir({
    'e.http': [
      '{{@response',
      "  exports.x = 'R' + response.statusCode;",
      '}}',
      `GET ${srv.url}/e1`,
      '',
      '###',
      '{{+after',
      "  exports.y = (typeof y === 'number' ? y : 0) + 1;",
      '}}',
      '',
      '###',
      '{{+response',
      '  exports.z = response.parsedBody.url.length;',
      '}}',
      '',
      '###',
      '{{@request',
      "  exports.w = 'no';",
      '}}',
      `GET ${srv.url}/e2?x={{x}}&y={{y}}&z={{z}}`,
      '',
      '###',
      `GET ${srv.url}/e3?x={{x}}&y={{y}}&z={{z}}`,
    ].join('\n'),
  });
  const r = await runSling(['exec', 'e.http'], { cwd: dir });
  assertExit(r, 0);
  assert.match(r.stderr, /e\.http:17:1: httpyac script events \('\{\{@request'\) are not run: skipped/, show(r));
  // httpyac 6.16.7 sent these (without the {{@request block).
  assert.deepEqual(
    srv.requests.map((q) => q.url),
    ['/e1', '/e2?x=R200&y=1&z=3', '/e3?x=R200&y=2&z=18'],
    show(r),
  );
});

test('exec http: an httpyac block that exports $cancel keeps its request from being sent (httpyac skips it too)', async (t) => {
  const srv = await httpServer(t, echo);
  const dir = workdir({
    'f.http': ['{{', '  exports.$cancel = true;', '}}', `GET ${srv.url}/f1`, '', '###', `GET ${srv.url}/f2`].join('\n'),
  });
  const r = await runSling(['exec', 'f.http'], { cwd: dir });
  assertExit(r, 0);
  assert.match(r.stderr, /^sling: warning: f\.http:1: the script exported \$cancel: not sent$/m, show(r));
  assert.deepEqual(
    srv.requests.map((q) => q.url),
    ['/f2'],
    show(r),
  );
});

test('exec http: httpyac # @loop for NAME of LIST / for N sends the request once per pass; # @disabled EXPRESSION is JavaScript', async (t) => {
  const srv = await httpServer(t, echo);
  const dir = workdir({
    'h.http': [
      '{{',
      "  exports.items = [{ id: 7, name: 'a b' }, { id: 8, name: 'c' }];",
      '}}',
      '###',
      '# @loop for item of items',
      `GET ${srv.url}/h1?id={{item.id}}&i={{$index}}&n={{item.name}}`,
      '',
      '###',
      '# @loop for 2',
      `GET ${srv.url}/h2?i={{$index}}`,
      '',
      '###',
      '# @disabled items.length > 1',
      `GET ${srv.url}/h3`,
      '',
      '###',
      '# @disabled items.length > 5',
      `GET ${srv.url}/h4`,
    ].join('\n'),
  });
  const r = await runSling(['exec', 'h.http'], { cwd: dir });
  assertExit(r, 0);
  // httpyac 6.16.7 sent these.
  assert.deepEqual(
    srv.requests.map((q) => q.url),
    ['/h1?id=7&i=0&n=a%20b', '/h1?id=8&i=1&n=c', '/h2?i=0', '/h2?i=1', '/h4'],
    show(r),
  );
  assert.match(r.stderr, /^sling: warning: h\.http:14: # @disabled items\.length > 1 is true: not sent$/m, show(r));
});

test("exec http: a global httpyac block run again does not see its own last exports, but sees what later blocks set (httpyac's region variables)", async (t) => {
  const srv = await httpServer(t, echo);
  const dir = workdir({
    'k.http': [
      '{{',
      "  exports.k = (typeof k === 'number' ? k : 0) + 1;",
      "  exports.seen = typeof seen === 'undefined' ? 'none' : seen;",
      '}}',
      '###',
      `GET ${srv.url}/k1?k={{k}}&seen={{seen}}`,
      '',
      '{{',
      "  exports.seen = 'after1';",
      '  exports.kk = k;',
      '}}',
      '###',
      `GET ${srv.url}/k2?k={{k}}&seen={{seen}}&kk={{kk}}`,
    ].join('\n'),
  });
  const r = await runSling(['exec', 'k.http'], { cwd: dir });
  assertExit(r, 0);
  // httpyac 6.16.7 sent these.
  assert.deepEqual(
    srv.requests.map((q) => q.url),
    ['/k1?k=1&seen=none', '/k2?k=1&seen=after1&kk=1'],
    show(r),
  );
});

test('exec http: JavaScript in the expected value of an httpyac ?? assertion is worked out after the response', async (t) => {
  const srv = await httpServer(t, echo);
  const dir = workdir({
    'm.http': ['{{', '  exports.n = 21;', '}}', `GET ${srv.url}/m1`, '?? body id == {{ n * 2 }}', '?? body name == {{ response.parsedBody.name }}', '?? status == {{ 200 + 1 }}'].join('\n'),
  });
  const r = await runSling(['exec', 'm.http'], { cwd: dir });
  assertExit(r, 1);
  // httpyac 6.16.7: the same three outcomes.
  assert.match(r.stdout, /^✓ id == 42$/m, show(r));
  assert.match(r.stdout, /^✓ name == ann$/m, show(r));
  assert.match(r.stdout, /^✗ status == 201: got 200$/m, show(r));
});

test("exec http: httpyac's request (URL as written before the request, as sent after) and response fields (statusMessage, httpVersion, contentType) as httpyac gives them", async (t) => {
  const srv = await httpServer(t, echo);
  const dir = workdir({
    'r.http': [
      `@host = ${srv.url}`,
      '@v = vv',
      '{{',
      '  exports.u = encodeURIComponent(request.url);',
      '  exports.m = request.method;',
      "  exports.h = request.headers['X-A'] || request.headers['x-a'];",
      '  exports.b = typeof request.body;',
      '}}',
      'POST {{host}}/r1?v={{v}}',
      'X-A: a-{{v}}',
      '',
      'text {{v}}',
      '',
      '{{',
      '  exports.u2 = encodeURIComponent(request.url);',
      '  exports.sm = response.statusMessage;',
      '  exports.hv = response.httpVersion;',
      '  exports.ct = encodeURIComponent(JSON.stringify(response.contentType));',
      '  exports.bt = typeof response.body;',
      '}}',
      '',
      '###',
      'POST {{host}}/r2?u={{u}}&m={{m}}&h={{h}}&b={{b}}',
      '',
      '###',
      'GET {{host}}/r3?u2={{u2}}&sm={{sm}}&hv={{hv}}&ct={{ct}}&bt={{bt}}',
    ].join('\n'),
  });
  const r = await runSling(['exec', 'r.http'], { cwd: dir });
  assertExit(r, 0);
  const at = encodeURIComponent(`${srv.url}/r1?v=vv`);
  // httpyac 6.16.7 sent these (with its own port in u2).
  assert.deepEqual(
    srv.requests.map((q) => q.url),
    [
      '/r1?v=vv',
      '/r2?u=%7B%7Bhost%7D%7D%2Fr1%3Fv%3D%7B%7Bv%7D%7D&m=POST&h=a-vv&b=string',
      `/r3?u2=${at}&sm=OK&hv=1.1&ct=%7B%22mimeType%22%3A%22application%2Fjson%22%2C%22contentType%22%3A%22application%2Fjson%22%7D&bt=string`,
    ],
    show(r),
  );
});

test('exec http: a # @name in httpyac JavaScript is its response body; true and null exported as text; an expression that is undefined is sent as written with a warning', async (t) => {
  const srv = await httpServer(t, echo);
  const dir = workdir({
    'n.http': [
      '# @name login',
      `POST ${srv.url}/login`,
      '',
      '{"a": 1}',
      '',
      '###',
      '{{',
      '  exports.nul = null;',
      '  exports.flag = true;',
      '  exports.obj = { a: 1 };',
      '}}',
      `GET ${srv.url}/n1?t={{ login.nested.token.toUpperCase() }}&n={{login.name}}&f={{flag}}&u={{ obj.missing }}&nl={{nul}}`,
    ].join('\n'),
  });
  const r = await runSling(['exec', 'n.http'], { cwd: dir });
  assertExit(r, 0);
  // httpyac 6.16.7 sent /n1?t=TOK-1&n=ann&f=true&u={{%20obj.missing%20}}&nl=null: the same, but for
  // the braces, which sling percent-encodes in a URL (docs/exec-http.md, Differences from httpyac).
  assert.deepEqual(
    srv.requests.map((q) => q.url),
    ['/login', '/n1?t=TOK-1&n=ann&f=true&u=%7B%7B%20obj.missing%20%7D%7D&nl=null'],
    show(r),
  );
  assert.match(r.stderr, /^sling: warning: n\.http:12:\d+: \{\{ obj\.missing \}\} is undefined: sent as written, as httpyac does$/m, show(r));
});

test('exec http: an httpyac block runs under the script process memory limit: one that fills it fails its request with one line, the next request and its expression still run', async (t) => {
  const srv = await httpServer(t, echo);
  const dir = workdir({
    'mem.http': ['{{', '  const a = [];', '  while (true) a.push(new Array(1e6).fill(1.5));', '}}', `GET ${srv.url}/t1`, '', '###', `GET ${srv.url}/t2?x={{ 1 + 1 }}`].join('\n'),
  });
  // The smallest limit: QuickJS fills a large heap slowly on a busy machine, and the size is not what is tested.
  const r = await runSling(['exec', 'mem.http'], { cwd: dir, timeoutMs: 120_000, env: { SLING_SCRIPT_MEMORY_MB: '16' } });
  assertError(r, 1, /^sling: error: mem\.http:1: the pre-request script failed: the script used more than 16 MB of memory \(SLING_SCRIPT_MEMORY_MB\)$/m);
  assert.deepEqual(
    srv.requests.map((q) => q.url),
    ['/t2?x=2'],
    show(r),
  );
});

test("exec http: an # @import'ed file's global httpyac blocks run before the importing file's requests (httpyac)", async (t) => {
  const srv = await httpServer(t, echo);
  const dir = workdir({
    'lib.http': ['@libvar = LV', '{{', '  exports.libv = "L" + 1;', '}}', ''].join('\n'),
    'imp.http': ['# @import ./lib.http', `GET ${srv.url}/i1?v={{libv}}&w={{libvar}}`, ''].join('\n'),
  });
  const r = await runSling(['exec', 'imp.http'], { cwd: dir });
  assertExit(r, 0);
  // httpyac 6.16.7 sent this.
  assert.deepEqual(
    srv.requests.map((q) => q.url),
    ['/i1?v=L1&w=LV'],
    show(r),
  );
});

test('exec http: JavaScript in an environment value (http-client.env.json) is worked out as httpyac does', async (t) => {
  const srv = await httpServer(t, echo);
  const dir = workdir({
    'http-client.env.json': JSON.stringify({ dev: { t: '{{ 20 + 1 }}', u: 'x{{ base.toUpperCase() }}', base: 'b' } }),
    'env.http': `GET ${srv.url}/e?t={{t}}&u={{u}}\n`,
  });
  const r = await runSling(['exec', 'env.http', '--env', 'dev'], { cwd: dir });
  assertExit(r, 0);
  // httpyac 6.16.7 (--env dev) sent this.
  assert.deepEqual(
    srv.requests.map((q) => q.url),
    ['/e?t=21&u=xB'],
    show(r),
  );
});

test("exec http: httpyac's sleep(ms) in a block resolves (the script process waits), and its constructor cannot make code", async (t) => {
  const srv = await httpServer(t, echo);
  const dir = workdir({
    'sl.http': [
      '{{',
      '  await sleep(20);',
      "  exports.after = 'slept';",
      '  try { sleep.constructor("return process")(); exports.c = "open"; } catch (e) { exports.c = "refused"; }',
      '}}',
      `GET ${srv.url}/s?a={{after}}&c={{c}}`,
    ].join('\n'),
  });
  const r = await runSling(['exec', 'sl.http'], { cwd: dir });
  assertExit(r, 0);
  assert.deepEqual(
    srv.requests.map((q) => q.url),
    ['/s?a=slept&c=refused'],
    show(r),
  );
});

test("exec http: \\{\\{name\\}\\} is the text {{name}}, never a placeholder (httpyac's variables.escape)", async (t) => {
  const srv = await httpServer(t, echo);
  const dir = workdir({
    'esc.http': ['@title = T', `POST ${srv.url}/esc?t={{title}}`, 'Content-Type: text/html', '', '<div>\\{\\{title\\}\\} {{title}}</div>'].join('\n'),
  });
  const r = await runSling(['exec', 'esc.http'], { cwd: dir });
  assertExit(r, 0);
  assert.equal(srv.requests.length, 1, show(r));
  assert.equal(srv.requests[0]!.url, '/esc?t=T');
  assert.equal(srv.requests[0]!.body.toString(), '<div>{{title}} T</div>');
  // An escape that is never closed is text as written.
  const open = workdir({ 'open.http': [`POST ${srv.url}/open`, 'Content-Type: text/plain', '', 'a \\{\\{b'].join('\n') });
  const ro = await runSling(['exec', 'open.http'], { cwd: open });
  assertExit(ro, 0);
  assert.equal(srv.requests[1]!.body.toString(), 'a \\{\\{b', show(ro));
});

test("exec http: a file variable holding an object is read with property access, {{slideshow.author}} (httpyac's variables.set 'set object variable')", async (t) => {
  const srv = await httpServer(t, echo);
  const dir = workdir({
    'obj.http': [
      '# @name first',
      `GET ${srv.url}/first`,
      '',
      '@nested = {{first.nested}}',
      '###',
      `GET ${srv.url}/use?t={{nested.token}}`,
      '###',
      `GET ${srv.url}/again`,
      '',
      '@fromJs = {{response.parsedBody.nested}}',
      '###',
      `GET ${srv.url}/js?t={{fromJs.token}}`,
    ].join('\n'),
  });
  const r = await runSling(['exec', 'obj.http'], { cwd: dir });
  assertExit(r, 0);
  assert.deepEqual(
    srv.requests.map((q) => q.url),
    ['/first', '/use?t=tok-1', '/again', '/js?t=tok-1'],
    show(r),
  );
});

test("exec http: httpyac's test.status(), test.header(), test.headerContains(), test.hasResponseBody() record one test each over the response", async (t) => {
  const srv = await httpServer(t, echo);
  const dir = workdir({
    'th.http': [
      `GET ${srv.url}/th`,
      '',
      '{{',
      '  test.status(200);',
      "  test.header('Content-Type', 'application/json');",
      "  test.headerContains('x-served', 'ye');",
      '  test.hasResponseBody();',
      '  test.status(201);',
      '}}',
    ].join('\n'),
  });
  const r = await runSling(['exec', 'th.http'], { cwd: dir });
  assertExit(r, 1);
  const marks = r.stdout.split('\n').filter((l) => /^[✓✗] /.test(l));
  assert.deepEqual(
    marks,
    [
      '✓ response status equals to 200',
      '✓ response header Content-Type equals application/json',
      '✓ response header x-served contains ye',
      '✓ response body exists',
      '✗ response status equals to 201: response status is 200 (expected: 201)',
    ],
    show(r),
  );
  assert.match(r.stderr, /^sling: test failed: th\.http:1: response status equals to 201: response status is 200 \(expected: 201\)$/m, show(r));
});

test("exec http: # @injectVariables substitutes the {{variables}} of a '< file' body, as '<@ file' (httpyac)", async (t) => {
  const srv = await httpServer(t, echo);
  const dir = workdir({
    'body.json': '{"who": "{{who}}"}\n',
    'inj.http': ['@who = Ada', '# @injectVariables', `POST ${srv.url}/inj`, 'Content-Type: application/json', '', '< ./body.json', '', '###', `POST ${srv.url}/raw`, '', '< ./body.json'].join('\n'),
  });
  const r = await runSling(['exec', 'inj.http'], { cwd: dir });
  assertExit(r, 0);
  assert.doesNotMatch(r.stderr, /unknown directive/, show(r));
  assert.deepEqual(
    srv.requests.map((q) => [q.url, q.body.toString()]),
    [
      ['/inj', '{"who": "Ada"}\n'],
      ['/raw', '{"who": "{{who}}"}\n'],
    ],
    show(r),
  );
});

test("exec http: a named # @loop request's responses are NAMEList, and NAME is its first pass's (httpyac's loop 'for item of fooList')", async (t) => {
  const srv = await httpServer(t, echo);
  const dir = workdir({
    'lp.http': [
      '# @name foo',
      '# @loop for 3',
      `GET ${srv.url}/p{{$index}}`,
      '',
      '###',
      '# @loop for item of fooList',
      `GET ${srv.url}/each?index={{$index}}&item={{item.parsedBody.url}}&first={{foo.url}}`,
    ].join('\n'),
  });
  const r = await runSling(['exec', 'lp.http'], { cwd: dir });
  assertExit(r, 0);
  assert.deepEqual(
    srv.requests.map((q) => q.url),
    ['/p0', '/p1', '/p2', '/each?index=0&item=/p0&first=/p0', '/each?index=1&item=/p1&first=/p0', '/each?index=2&item=/p2&first=/p0'],
    show(r),
  );
});
