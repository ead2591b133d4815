import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseHttpFile } from '../../src/sources/http/index.js';
import { prepareRequest } from '../../src/model/prepare.js';
import { formatUrl } from '../../src/model/url.js';
import { USER_AGENT } from '../../src/version.js';
import type { Completed, ExecEntry } from '../../src/model/exec.js';
import type { RequestSpec } from '../../src/model/spec.js';
import { curlOutput } from '../../src/commands/exec/curl-output.js';

interface Setup {
  files?: Record<string, string | Buffer>;
  envName?: string;
  env?: Record<string, string>;
  offline?: boolean;
}

async function load(text: string, s: Setup = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'sling-http-build-'));
  for (const [name, content] of Object.entries(s.files ?? {})) writeFileSync(join(dir, name), content);
  const warnings: string[] = [];
  const script = await parseHttpFile(text, { file: 't.http', dir, cwd: dir, pid: process.pid, env: s.env ?? {}, envName: s.envName, warn: (m) => warnings.push(m), debug: () => {}, curlOutput });
  const ctx = { offline: s.offline ?? false, cwd: dir, warn: (m: string) => warnings.push(m), debug: () => {} };
  return { dir, warnings, entries: script.entries, ctx };
}

/** Every request of the file on the wire: "METHOD URL", headers, body (text). */
async function wire(text: string, s: Setup = {}) {
  const { entries, ctx, warnings } = await load(text, s);
  const out: { line: string; headers: [string, string][]; body: string; spec: RequestSpec }[] = [];
  for (const e of entries) {
    const built = await e.build(ctx);
    if (built === null) continue;
    for (const spec of Array.isArray(built) ? built : [built]) {
      const p = await prepareRequest(spec);
      out.push({ line: `${p.method} ${formatUrl(spec.url)}`, headers: p.headers, body: p.body.toString('utf8'), spec });
    }
  }
  return { out, warnings };
}

const headerOf = (h: [string, string][], name: string) => h.find(([n]) => n.toLowerCase() === name.toLowerCase())?.[1];

/** A response as the runner hands it to `after`. */
function done(spec: RequestSpec, status: number, headers: Record<string, string>, body: string, requestBody = ''): Completed {
  return {
    spec,
    request: { method: spec.method, target: spec.url.path, headers: spec.headers, body: Buffer.from(requestBody) },
    url: spec.url,
    response: { httpVersion: '1.1', status, reason: 'OK', rawHeaders: Object.entries(headers).flat() },
    body: Buffer.from(body),
    info: { reused: false, timings: { start: 0 } },
  };
}

test('build: defaults added after the file headers, the file wins over them', async () => {
  const { out } = await wire('GET http://h/a\nAccept: text/plain\n###\nGET http://h/b\nuser-agent: mine\nAccept-Encoding: identity');
  assert.deepEqual(out[0]!.headers, [
    ['Host', 'h'],
    ['Accept', 'text/plain'],
    ['User-Agent', USER_AGENT],
    ['Accept-Encoding', 'gzip, deflate, br'],
  ]);
  assert.deepEqual(
    out[1]!.headers.map(([n]) => n),
    ['Host', 'user-agent', 'Accept-Encoding'],
  );
  assert.equal(out[0]!.spec.settings.follow, true, 'JetBrains and REST Client follow redirects');
  assert.equal(out[0]!.spec.settings.noCookies, undefined, "the run's cookie jar (the runner hands it to the exchange)");
  assert.ok(!JSON.stringify(out[0]!.spec.settings).includes('function'), 'the settings are data');
});

test('build: file variables, in order, last definition above the request', async () => {
  const { out } = await wire('@h = one.example\nGET http://{{h}}/1\n###\n@h=two.example\nGET http://{{ h }}/2\n###\nGET http://{{h}}/3?q={{%q}}\n###\n@q = a b&c');
  assert.deepEqual(
    out.map((o) => o.line),
    ['GET http://one.example/1', 'GET http://two.example/2', 'GET http://two.example/3?q=a%20b%26c'],
  );
});

test('build: a file variable has one value per request, variables nest', async () => {
  const { out } = await wire('@id = {{$uuid}}\n@url = http://h/{{id}}\nPOST {{url}}\n\n{{id}}');
  const id = out[0]!.body;
  assert.match(id, /^[0-9a-f-]{36}$/);
  assert.equal(out[0]!.line, `POST http://h/${id}`);
});

test('build: the environment wins over file variables (JetBrains precedence)', async () => {
  const { out } = await wire('@host = file.example\nGET http://{{host}}/{{only}}', {
    envName: 'dev',
    files: { 'http-client.env.json': JSON.stringify({ dev: { host: 'env.example', only: 'x' } }) },
  });
  assert.equal(out[0]!.line, 'GET http://env.example/x');
});

test('build: an unknown variable names FILE:LINE:COL and hints at the environment', async () => {
  const { entries, ctx } = await load('GET http://h/\n###\nGET http://h/{{token}}', { files: { 'http-client.env.json': JSON.stringify({ dev: { token: 't' } }) } });
  await entries[0]!.build(ctx);
  await assert.rejects(
    async () => entries[1]!.build(ctx),
    (e: Error & { hint?: string }) => /^t\.http:3:14: unknown variable \{\{token\}\}$/.test(e.message) && /--env/.test(e.hint ?? ''),
  );
});

test('build: --offline shows what it cannot resolve as written, with one warning each', async () => {
  const { out, warnings } = await wire('GET http://{{host}}/{{a}}/{{a}}\nAuthorization: Basic {{u}} {{p}}\n\n{{login.response.body.token}}', { offline: true });
  assert.equal(out[0]!.line, 'GET http://{{host}}/{{a}}/{{a}}');
  assert.equal(headerOf(out[0]!.headers, 'host'), '{{host}}');
  assert.equal(headerOf(out[0]!.headers, 'authorization'), 'Basic {{u}} {{p}}');
  assert.equal(out[0]!.body, '{{login.response.body.token}}');
  assert.equal(warnings.filter((w) => /\{\{a\}\}/.test(w)).length, 1);
  assert.ok(
    warnings.every((w) => /^t\.http:\d+:\d+: /.test(w)),
    warnings.join('\n'),
  );
});

test('build: origin-form URLs take the Host header (with or without a scheme) or the host variable', async () => {
  const { out } = await wire('GET /a\nHost: h:8080\n###\nGET /b\nHOST: https://s.example\n###\nGET /c\nHost: p.example:443\n###\n@host = http://v.example:81/api\nGET /d');
  assert.deepEqual(
    out.map((o) => o.line),
    ['GET http://h:8080/a', 'GET https://s.example/b', 'GET https://p.example/c', 'GET http://v.example:81/api/d'],
  );
  assert.equal(headerOf(out[1]!.headers, 'host'), 's.example');
  // A base path in the Host header goes in front of the request's; the header keeps host[:port] only.
  const base = await wire('GET /q\nHost: h:8080/extra\n###\nGET /q\nHost: http://h:8080/extra/');
  assert.deepEqual(
    base.out.map((o) => [o.line, headerOf(o.headers, 'host')]),
    [
      ['GET http://h:8080/extra/q', 'h:8080'],
      ['GET http://h:8080/extra/q', 'h:8080'],
    ],
  );
  const { entries, ctx } = await load('GET /x');
  await assert.rejects(async () => entries[0]!.build(ctx), /t\.http:1:5: '\/x' has no host/);
});

test('build: Basic credentials are encoded, Digest goes to the transport', async () => {
  const { out } = await wire(
    'GET http://h/1\nAuthorization: Basic user pass word\n###\nGET http://h/2\nAuthorization: Basic u:\n###\nGET http://h/3\nAuthorization: Basic dTpw\n###\nGET http://h/4\nAuthorization: Digest ann secret',
  );
  assert.deepEqual(
    out.slice(0, 3).map((o) => headerOf(o.headers, 'authorization')),
    ['Basic ' + Buffer.from('user:pass word').toString('base64'), 'Basic ' + Buffer.from('u:').toString('base64'), 'Basic dTpw'],
  );
  assert.equal(headerOf(out[3]!.headers, 'authorization'), undefined);
  assert.deepEqual(out[3]!.spec.settings.digest, { user: 'ann', password: 'secret' });
});

test('build: bodies from files, raw and with variables', async () => {
  const files = { 'raw.bin': Buffer.from([0, 1, 2, 255]), 'tpl.json': '{"who": "{{who}}"}' };
  const { out } = await wire('@who = ada\nPOST http://h/1\n\n< ./raw.bin\n###\nPOST http://h/2\n\n<@ ./tpl.json\n###\nPOST http://h/3\n\n< ./tpl.json', { files });
  assert.deepEqual(out[0]!.spec.body.kind === 'bytes' && [...out[0]!.spec.body.data], [0, 1, 2, 255]);
  assert.equal(out[1]!.body, '{"who": "ada"}');
  assert.equal(out[2]!.body, '{"who": "{{who}}"}');
  const { entries, ctx } = await load('POST http://h/\n\n< ./missing.json');
  await assert.rejects(async () => entries[0]!.build(ctx), /t\.http:3:3: cannot read '\.\/missing\.json': no such file/);
});

test('build: multipart bodies get CRLF, file parts, a boundary from a variable', async () => {
  const text = [
    'POST http://h/up',
    'Content-Type: multipart/form-data; boundary=B{{n}}',
    '',
    '--B{{n}}',
    'Content-Disposition: form-data; name="title"',
    '',
    'Hello {{n}}',
    '',
    '--B{{n}}',
    'Content-Disposition: form-data; name="f"; filename="a.txt"',
    'Content-Type: text/plain',
    '',
    '< ./a.txt',
    '--B{{n}}--',
  ].join('\n');
  const { out } = await wire(`@n = 42\n${text}`, { files: { 'a.txt': 'file\ncontent' } });
  assert.equal(headerOf(out[0]!.headers, 'content-type'), 'multipart/form-data; boundary=B42');
  assert.equal(
    out[0]!.body,
    '--B42\r\nContent-Disposition: form-data; name="title"\r\n\r\nHello 42\r\n--B42\r\nContent-Disposition: form-data; name="f"; filename="a.txt"\r\nContent-Type: text/plain\r\n\r\nfile\ncontent\r\n--B42--\r\n',
  );
});

test('build: url-encoded forms over several lines', async () => {
  const { out } = await wire('POST http://h/\nContent-Type: application/x-www-form-urlencoded\n\nkey1 = value1 &\nkey2 = {{v}}\n&key3=3\n\n###\n@v = two');
  assert.equal(out[0]!.body, 'key1=value1&key2=two&key3=3');
});

test('build: GraphQL query, variables and operation name', async () => {
  const { out } = await wire('GRAPHQL http://h/g\n\nquery Q($n: Int) {\n  a(n: $n)\n\n}\n\n{"n": {{n}}}\n###\n@n = 5');
  assert.equal(headerOf(out[0]!.headers, 'content-type'), 'application/json');
  assert.deepEqual(JSON.parse(out[0]!.body), { query: 'query Q($n: Int) {\n  a(n: $n)\n\n}', operationName: 'Q', variables: { n: 5 } });
});

test('build: httpyac fragments are added to the queries that spread them, in file order', async () => {
  const text = [
    'fragment Parts on Repo {',
    '  name',
    '  ...Owner',
    '}',
    '',
    '###',
    'POST http://h/g',
    'Content-Type: application/json',
    '',
    'query Q { repo { ...Parts } }',
    '',
    '{"a": 1}',
    '###',
    'POST http://h/g',
    'Content-Type: application/json',
    '',
    'query R { repo { ...PartsMore id } }',
    '###',
    'fragment Owner on Repo {',
    '  owner',
    '}',
  ].join('\n');
  const { out, warnings } = await wire(text);
  assert.deepEqual(warnings, []);
  assert.deepEqual(JSON.parse(out[0]!.body), {
    query: 'query Q { repo { ...Parts } }\nfragment Parts on Repo {\n  name\n  ...Owner\n}\nfragment Owner on Repo {\n  owner\n}',
    operationName: 'Q',
    variables: { a: 1 },
  });
  // `...PartsMore` is not a spread of Parts.
  assert.deepEqual(JSON.parse(out[1]!.body), { query: 'query R { repo { ...PartsMore id } }', operationName: 'R' });
});

test('build: httpyac gql imports read the query from a file, with the operation name and variables', async () => {
  const files = { 'q.gql': 'query Repo($n: String) {\n  repo(n: $n) { id ...Parts }\n}\n' };
  const text = 'fragment Parts on R {\n  name\n}\n\n###\nPOST http://h/g\n\ngql Repo < ./q.gql\n\n{"n": "{{n}}"}\n###\nPOST http://h/g\n\ngql < ./q.gql\n###\n@n = x';
  const { out, warnings } = await wire(text, { files });
  assert.deepEqual(warnings, []);
  assert.equal(headerOf(out[0]!.headers, 'content-type'), 'application/json');
  const query = 'query Repo($n: String) {\n  repo(n: $n) { id ...Parts }\n}\nfragment Parts on R {\n  name\n}';
  assert.deepEqual(JSON.parse(out[0]!.body), { query, operationName: 'Repo', variables: { n: 'x' } });
  // Without a name the operation name is read from the query.
  assert.deepEqual(JSON.parse(out[1]!.body), { query, operationName: 'Repo' });
});

test('build: directives reach the settings', async () => {
  const { out } = await wire('# @no-redirect\n# @no-cookie-jar\n# @timeout 3\n# @connection-timeout 1\n# @no-reject-unauthorized\nGET https://h/');
  const s = out[0]!.spec.settings;
  assert.deepEqual([s.follow, s.noCookies, s.timeoutMs, s.tls.verify], [false, true, 3000, false]);
});

test('build: # @disabled is not sent, with a warning', async () => {
  const { out, warnings } = await wire('# @disabled\nGET http://h/1\n###\nGET http://h/2');
  assert.deepEqual(
    out.map((o) => o.line),
    ['GET http://h/2'],
  );
  assert.match(warnings.join('\n'), /t\.http:2: # @disabled/);
});

test('references: response body (JSONPath, bare path, whole), headers, request body', async () => {
  const { entries, ctx } = await load(
    '# @name login\nPOST http://h/login\n\n{"user": "ada"}\n###\n@tok = {{login.response.body.$.token}}\nGET http://h/x?a={{tok}}&b={{login.response.body.items[1]}}&c={{login.response.headers.location}}&d={{login.request.body.$.user}}&e={{login.response.body.*}}',
  );
  assert.deepEqual(entries[1]!.dependsOn, ['login']);
  const spec = (await entries[0]!.build(ctx)) as RequestSpec;
  await assert.rejects(async () => entries[1]!.build(ctx), /t\.http:6:8: \{\{login\.response\.body\.\$\.token\}\}: request login has no response yet/);
  await entries[0]!.after!(done(spec, 200, { Location: '/l' }, '{"token":"T","items":[1,2]}', '{"user": "ada"}'), ctx);
  const next = (await entries[1]!.build(ctx)) as RequestSpec;
  assert.equal(formatUrl(next.url), 'http://h/x?a=T&b=2&c=/l&d=ada&e=%7B%22token%22:%22T%22,%22items%22:[1,2]%7D');
});

test('references: httpyac {{name.path}} into a named response, and what is wrong when it cannot', async () => {
  const { entries, ctx } = await load('# @name json\nGET http://h/\n###\nGET http://h/{{json.args.id}}\n###\nGET http://h/{{json.missing}}');
  await assert.rejects(async () => entries[1]!.build(ctx), /t\.http:4:14: \{\{json\.args\.id\}\}: request json has no response yet/);
  const spec = (await entries[0]!.build(ctx)) as RequestSpec;
  await entries[0]!.after!(done(spec, 200, { 'Content-Type': 'application/json' }, '{"args": {"id": "7"}}'), ctx);
  assert.equal(formatUrl(((await entries[1]!.build(ctx)) as RequestSpec).url), 'http://h/7');
  await assert.rejects(async () => entries[2]!.build(ctx), /t\.http:6:14: \{\{json\.missing\}\}: the response body of json has no missing$/);
  await entries[0]!.after!(done(spec, 200, { 'Content-Type': 'text/plain' }, 'plain'), ctx);
  await assert.rejects(async () => entries[2]!.build(ctx), /\{\{json\.missing\}\}: the response body of json is not JSON$/);
});

test('scripts: client.global, tests, log, request variables, exit', async () => {
  const { entries, ctx } = await load(
    [
      'POST http://h/a',
      '',
      '> {%',
      '  client.global.set("tok", response.body.token);',
      '  client.global.set("obj", {n: 1});',
      '  client.test("ok", () => client.assert(response.status === 200));',
      '  client.test("bad", () => client.assert(response.headers.valueOf("X-A") === "2", "X-A is " + response.headers.valueOf("x-a")));',
      '  client.log("got", response.body.token, response.contentType.mimeType);',
      '%}',
      '###',
      '@fv = file-value',
      '< {% request.variables.set("rv", client.global.get("obj").n + client.variables.global.get("obj").n); client.log(client.variables.file.get("fv")) %}',
      'GET http://h/{{tok}}/{{rv}}/{{obj}}',
      '',
      '> {% client.exit(); client.log("never") %}',
    ].join('\n'),
  );
  const spec = (await entries[0]!.build(ctx)) as RequestSpec;
  const r = await entries[0]!.after!(done(spec, 200, { 'Content-Type': 'application/json', 'X-A': '1' }, '{"token":"T"}'), ctx);
  assert.deepEqual(r.failures, ['bad: X-A is 1']);
  assert.deepEqual(r.log, ['got T application/json', '✓ ok', '✗ bad: X-A is 1']);
  const spec2 = (await entries[1]!.build(ctx)) as RequestSpec;
  assert.equal(formatUrl(spec2.url), 'http://h/T/2/%7B%22n%22:1%7D');
  assert.deepEqual(entries[1]!.before!(spec2), ['file-value'], 'pre-request logs go under the title, before the request');
  const r2 = await entries[1]!.after!(done(spec2, 200, {}, ''), ctx);
  assert.equal(r2.stop, undefined, 'client.exit() ends the handler, not the run');
  assert.deepEqual(r2.log, [], 'and are not printed again with the response');
});

test('scripts: a pre-request script sees the request: URL, headers and body, substituted as far as known', async () => {
  const { entries, ctx, warnings } = await load(
    [
      '@base = http://h',
      '@who = ada',
      '< {%',
      '  client.log("url", request.url.getRaw(), request.url.tryGetSubstituted());',
      '  client.log("body", request.body.getRaw(), request.body.tryGetSubstituted());',
      '  const h = request.headers.findByName("x-who");',
      '  client.log("header", h.name, h.getRawValue(), h.tryGetSubstitutedValue(), request.headers.all().length);',
      '  client.log("later", request.headers.findByName("X-Sig").tryGetSubstitutedValue());',
      '  request.variables.set("sig", "S1");',
      '%}',
      'POST {{base}}/p?who={{who}}',
      'X-Who: {{who}}',
      'X-Sig: {{sig}}',
      '',
      '{"who": "{{who}}"}',
    ].join('\n'),
  );
  const spec = (await entries[0]!.build(ctx)) as RequestSpec;
  assert.deepEqual(entries[0]!.before!(spec), ['url {{base}}/p?who={{who}} http://h/p?who=ada', 'body {"who": "{{who}}"} {"who": "ada"}', 'header X-Who {{who}} ada 2', 'later {{sig}}']);
  assert.equal(headerOf(spec.headers, 'X-Sig'), 'S1');
  assert.deepEqual(warnings, [], 'what only the script sets is not warned about');
});

test('scripts: the sandbox has no Node modules, process or host constructors', async () => {
  const probes = [
    [
      'require',
      'require("fs")',
      /require\('fs'\) is not available in \.http scripts: they run in a sandbox without files, processes or network; the modules there are assert, assert\/strict and crypto \(hashes, HMAC, random bytes\) \(at t\.http:3\)$/,
    ],
    ['process', 'process.exit(3)', /process is not defined: scripts run in a sandbox/],
    ['constructor escape', 'client.log.constructor("return process")()', /Code generation from strings disallowed|not defined/],
    ['host function escape', 'jsonPath.constructor.constructor("return process")()', /Code generation from strings disallowed|not defined/],
  ] as const;
  for (const [name, code, re] of probes) {
    const { entries, ctx } = await load(`GET http://h/\n\n> {% ${code} %}`);
    const spec = (await entries[0]!.build(ctx)) as RequestSpec;
    const r = await entries[0]!.after!(done(spec, 200, {}, ''), ctx);
    assert.equal(r.failures.length, 1, name);
    assert.match(r.failures[0]!, re, name);
  }
  const { entries, ctx } = await load('GET http://h/\n\n> {% const x = response.body.length; client.test("t", () => { throw new Error("boom " + x); }) %}');
  const spec = (await entries[0]!.build(ctx)) as RequestSpec;
  assert.deepEqual((await entries[0]!.after!(done(spec, 200, {}, 'abc'), ctx)).failures, ['t: boom 3']);
});

test("scripts: the sandbox's functions have the names Node gives them (require, assert, btoa, atob)", async () => {
  // The sandbox's code is bundled (scripts/build.mjs), which may rename a function whose name is used elsewhere in the bundle.
  const { entries, ctx } = await load('GET http://h/\n\n> {% client.log([require.name, require("assert").name, require("assert/strict").name, btoa.name, atob.name].join()) %}');
  const spec = (await entries[0]!.build(ctx)) as RequestSpec;
  const r = await entries[0]!.after!(done(spec, 200, {}, ''), ctx);
  assert.deepEqual([r.failures, r.log], [[], ['require,assert,assert,btoa,atob']]);
});

test('scripts: JetBrains request iterations over {{$.path}}', async () => {
  const { entries, ctx } = await load('< {% request.variables.set("c", [{"id": 1}, {"id": 3}]) %}\nPOST http://h/{{$.c..id}}\n\n> {% client.log("it", request.iteration()) %}');
  const built = (await entries[0]!.build(ctx)) as RequestSpec[];
  assert.deepEqual(
    built.map((s) => formatUrl(s.url)),
    ['http://h/1', 'http://h/3'],
  );
  const logs = [];
  for (const s of built) logs.push(...((await entries[0]!.after!(done(s, 200, {}, ''), ctx)).log ?? []));
  assert.deepEqual(logs, ['it 0', 'it 1']);
  // A long list: every element once, in order (the matches are worked out once per request, not per iteration).
  const many = await load('< {% request.variables.set("c", Array.from({ length: 20000 }, (_, i) => ({ id: i * 2 }))) %}\nPOST http://h/{{$.c..id}}?n={{$.c..id}}');
  const urls = ((await many.entries[0]!.build(many.ctx)) as RequestSpec[]).map((s) => formatUrl(s.url));
  assert.equal(urls.length, 20000);
  assert.deepEqual([urls[0], urls[1], urls[19999]], ['http://h/0?n=0', 'http://h/2?n=2', 'http://h/39998?n=39998']);
});

test('run #Name with overrides, and dependencies through file variables', async () => {
  const { entries, ctx } = await load(
    '### Login\n# @name login\nPOST http://{{host}}/login\n###\n@t = {{login.response.body.t}}\nGET http://h/{{t}}\n###\nrun #login (@host=other.example)\nrun #Login',
  );
  const names = (entries as ExecEntry[]).map((e) => [e.name, e.label, e.dependsOn]);
  assert.deepEqual(names, [
    ['login', 'POST http://{{host}}/login', []],
    [undefined, 'GET http://h/{{t}}', ['login']],
    [undefined, 'POST http://{{host}}/login', []],
    [undefined, 'POST http://{{host}}/login', []],
  ]);
  const spec = (await entries[2]!.build(ctx)) as RequestSpec;
  assert.equal(formatUrl(spec.url), 'http://other.example/login');
});

test('run ./other.http and import', async () => {
  const { entries, ctx } = await load('import ./lib.http\nrun ./setup.http (@v=9)\n###\nrun #Lib', {
    files: { 'lib.http': '### Lib\nGET http://lib.example/', 'setup.http': 'GET http://setup.example/{{v}}\n###\nGET http://setup.example/2' },
  });
  const urls = [];
  for (const e of entries) urls.push(formatUrl(((await e.build(ctx)) as RequestSpec).url));
  assert.deepEqual(urls, ['http://setup.example/9', 'http://setup.example/2', 'http://lib.example/']);
  await assert.rejects(load('run #Nope\nGET http://h/'), /t\.http:1:1: run #Nope: no request is named Nope/);
});

test('GraphQL: X-REQUEST-TYPE (REST Client) sends "variables": {} when there are none; GRAPHQL (JetBrains) leaves them out', async () => {
  const { graphqlBody } = await import('../../src/sources/http/bodies.js');
  assert.deepEqual(JSON.parse(graphqlBody('mutation M { a }', undefined, undefined, true).toString()), { query: 'mutation M { a }', operationName: 'M', variables: {} });
  assert.deepEqual(JSON.parse(graphqlBody('mutation M { a }').toString()), { query: 'mutation M { a }', operationName: 'M' });
  assert.deepEqual(JSON.parse(graphqlBody('query { a }\n\n{"x": 1}', undefined, undefined, true).toString()), { query: 'query { a }', variables: { x: 1 } });
});
