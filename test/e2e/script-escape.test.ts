// Escape attempts against the script engine (src/sources/http/quickjs.ts): code in a .http file
// that tries to reach sling's process, Node, the file system, programs or the environment, by every
// road known to open node:vm: errors thrown by a bridge function near a full stack, the
// prototype chains of every object the API hands in, Error.prepareStackTrace, Proxies and getters
// handed back, Symbol.species, async stack overflow, code from strings, import(). Each attempt must
// end with its script failing, and nothing outside reached: no file written, no program run, no
// secret of the environment printed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runSling } from '../helpers/cli.js';
import { assertNoStack, httpServer, show } from '../helpers/assert.js';

function workdir(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'sling-escape-'));
  for (const [name, content] of Object.entries(files)) writeFileSync(join(dir, name), content);
  return dir;
}

const SECRET = 'hunter2-escape-secret';

/**
 * What an attempt does with what it found: if it is a real process, leak the secret, write a file
 * and run a program. Reaching the end of this means the attempt got nothing it could use, which
 * also fails the script (the last line throws).
 */
const USE = [
  'const use = (p) => {',
  '  if (p === undefined || p === null) throw new Error("nothing found");',
  '  client.log("LEAK " + p.env.MYSECRET);',
  '  const fs = p.getBuiltinModule ? p.getBuiltinModule("fs") : p.mainModule.require("fs");',
  '  fs.writeFileSync("PWNED", "x");',
  '  client.log("RAN " + p.getBuiltinModule("child_process").execSync("id"));',
  '  throw new Error("escaped");',
  '};',
].join('\n');

/** A stack almost full, then a call into the API: the error that comes back, if it is not the engine's own. */
const NEAR_STACK = (call: string) =>
  [
    'let found = null;',
    'function probe(d) { try { probe(d + 1); } catch (e) { if (found) return;',
    `  try { ${call}; } catch (e2) { if (e2 && e2.constructor !== RangeError && e2.constructor !== InternalError) { found = e2; return; } throw e; } } }`,
    'try { probe(0); } catch (e) { found = found || e; }',
    'use(found && found.constructor.constructor("return process")());',
  ].join('\n');

const ATTEMPTS: Record<string, string> = {
  'the published escape: client.global.clear near a full stack': NEAR_STACK("client.global.clear('zz')"),
  'client.global.set near a full stack': NEAR_STACK("client.global.set('a', 'b')"),
  'client.global.get near a full stack': NEAR_STACK("client.global.get('a')"),
  'client.global.headers.set near a full stack': NEAR_STACK("client.global.headers.set('X-A', 'b')"),
  'request.variables near a full stack': NEAR_STACK("request.variables.set('a', 'b'); request.variables.get('q')"),
  'request.environment.get near a full stack': NEAR_STACK("request.environment.get('a')"),
  'client.variables.file.get near a full stack': NEAR_STACK("client.variables.file.get('a')"),
  'the crypto API near a full stack': NEAR_STACK("crypto.sha256().updateWithText('a').digest().toHex()"),
  'jsonPath near a full stack': NEAR_STACK("jsonPath({a: 1}, '$.a')"),
  'require(crypto) near a full stack': NEAR_STACK("require('crypto').createHash('sha256').update('a').digest('hex')"),
  'client.log near a full stack': NEAR_STACK("client.log('a')"),
  'the constructors of every object handed in': [
    'const seen = [client, client.global, client.global.headers, client.variables, request, request.variables, request.environment, request.headers, response, response.headers, response.body, response.contentType, crypto, crypto.hmac, jsonPath, xpath, client.log, client.test, request.url, globalThis, require, require("assert"), require("crypto"), atob, console];',
    'let p;',
    'for (const o of seen) { for (const f of [o, o && o.constructor, Object.getPrototypeOf(o)]) { try { const r = f.constructor.constructor("return typeof process === \'undefined\' ? undefined : process")(); if (r) p = r; } catch (e) {} } }',
    'use(p);',
  ].join('\n'),
  'getters of the API, climbed': [
    'let p;',
    'for (const o of [client.variables, response, request]) for (const k of Object.getOwnPropertyNames(o)) { const d = Object.getOwnPropertyDescriptor(o, k); for (const f of [d.get, d.set, d.value]) { try { p = p || f.constructor("return process")(); } catch (e) {} } }',
    'use(p);',
  ].join('\n'),
  'Error.prepareStackTrace and captureStackTrace': [
    'let p;',
    'Error.prepareStackTrace = (e, frames) => { for (const f of frames) { try { p = p || f.getThis().process || f.getFunction().constructor("return process")(); } catch (x) {} } return ""; };',
    'try { client.global.get({ toString() { throw new Error("x"); } }); } catch (e) { e.stack; }',
    'if (Error.captureStackTrace) { const o = {}; Error.captureStackTrace(o); o.stack; }',
    'use(p);',
  ].join('\n'),
  'a Proxy and getters handed to the host': [
    'let p;',
    'const trap = new Proxy({}, { get(t, k, r) { try { p = p || r.constructor.constructor("return process")(); } catch (e) {} return () => "x"; }, ownKeys() { return ["a"]; }, getOwnPropertyDescriptor() { return { value: 1, enumerable: true, configurable: true }; } });',
    'client.global.set("t", trap); client.global.headers.set(trap, trap); request.variables.set("t", trap);',
    'client.global.set("g", { get a() { try { p = p || this.constructor.constructor("return process")(); } catch (e) {} return 1; }, toJSON() { return this; } });',
    'client.log(trap, { toString() { return "s"; } });',
    'use(p);',
  ].join('\n'),
  'Symbol.species on arrays and promises': [
    'let p;',
    'class Evil extends Array { static get [Symbol.species]() { return function () { try { p = p || arguments.callee.caller.constructor("return process")(); } catch (e) {} return []; }; } }',
    'const a = new Evil(1, 2, 3); a.map((x) => x); a.filter(Boolean);',
    'class EvilP extends Promise { static get [Symbol.species]() { return function (f) { try { p = p || f.constructor.constructor("return process")(); } catch (e) {} return new Promise(f); }; } }',
    'EvilP.resolve(1).then(() => 1);',
    'jsonPath(a, "$[0]");',
    'use(p);',
  ].join('\n'),
  'async stack overflow': [
    'let found;',
    'async function down(d) { try { await down(d + 1); } catch (e) { if (!found) { try { client.global.get("x"); } catch (e2) { found = e2; } } throw e; } }',
    'down(0).catch((e) => { found = found || e; });',
    'use(found && found.constructor.constructor("return process")());',
  ].join('\n'),
  'code from strings': [
    'let p;',
    'try { p = eval("process"); } catch (e) {}',
    'try { p = p || Function("return process")(); } catch (e) {}',
    'try { p = p || (async function () {}).constructor("return process")(); } catch (e) {}',
    'use(p);',
  ].join('\n'),
  'globals a Node program has': [
    'use(globalThis.process || (typeof module !== "undefined" && module) || (typeof Buffer !== "undefined" && Buffer) || (typeof WebAssembly !== "undefined" && WebAssembly) || undefined);',
  ].join('\n'),
  'import() and require of Node modules': [
    'let p;',
    'try { require("child_process").execSync("touch PWNED"); } catch (e) { client.log("require: " + e.message); }',
    'try { require("fs").writeFileSync("PWNED", "x"); } catch (e) {}',
    'try { import("fs").then((m) => m.writeFileSync("PWNED", "x")); } catch (e) {}',
    'use(p);',
  ].join('\n'),
};

test('script sandbox: every escape attempt from a response handler fails its script, and nothing outside is reached (no file, no program, no secret)', async (t) => {
  const srv = await httpServer(t, (_req, res) => {
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end('{"a":1,"list":[1,2]}');
  });
  const names = Object.keys(ATTEMPTS);
  const text = names.map((name, i) => [`### ${name}`, `GET ${srv.url}/${i}`, '', '> {%', USE, ATTEMPTS[name], '%}', ''].join('\n')).join('\n');
  const dir = workdir({ 'esc.http': text });
  const r = await runSling(['exec', '--print=b', 'esc.http'], { cwd: dir, timeoutMs: 120000, env: { MYSECRET: SECRET } });
  assert.equal(r.code, 1, show(r));
  assert.equal(srv.requests.length, names.length, show(r));
  // Every attempt failed its handler, one line each.
  const failures = r.stderr.split('\n').filter((l) => l.includes('the response handler failed'));
  assert.equal(failures.length, names.length, show(r));
  for (const [i, name] of names.entries())
    assert.ok(
      failures.some((l) => l.includes(`(${name})`)),
      `${name} (request ${i}) did not fail${show(r)}`,
    );
  assert.ok(!r.stdout.includes(SECRET) && !r.stderr.includes(SECRET), show(r));
  assert.doesNotMatch(r.stdout + r.stderr, /\bLEAK\b|\bRAN\b|uid=\d+|escaped/, show(r));
  assert.deepEqual(readdirSync(dir).sort(), ['esc.http'], show(r));
  assertNoStack(r.stderr);
});

test('script sandbox: the published escape fails the same way from a pre-request script (also with --offline and --to curl), an httpyac block and a {{ }} placeholder', async (t) => {
  const srv = await httpServer(t, (_req, res) => res.end('ok'));
  const escape = NEAR_STACK("client.global.clear('zz')");
  const yacEscape = [
    'let found = null;',
    'function probe(d) { try { probe(d + 1); } catch (e) { if (found) return; try { sleep(0); } catch (e2) { found = e2; } } }',
    'try { probe(0); } catch (e) { found = found || e; }',
    'const p = found.constructor.constructor("return process")();',
    'p.getBuiltinModule("fs").writeFileSync("PWNED", p.env.MYSECRET);',
  ].join(' ');
  const dir = workdir({
    'pre.http': ['< {%', USE, escape, '%}', `GET ${srv.url}/pre`, ''].join('\n'),
    'yac.http': ['{{', yacEscape, '}}', `GET ${srv.url}/yac`, ''].join('\n'),
    'expr.http': [`GET ${srv.url}/expr?x={{ (() => { ${yacEscape}; return 1; })() }}`, ''].join('\n'),
  });
  for (const args of [
    ['exec', 'pre.http'],
    ['exec', '--offline', 'pre.http'],
    ['exec', '--to', 'curl', 'pre.http'],
    ['exec', 'yac.http'],
    ['exec', 'expr.http'],
  ]) {
    const r = await runSling(args, { cwd: dir, timeoutMs: 60000, env: { MYSECRET: SECRET } });
    // --offline and --to send nothing: a failed pre-request script is a warning there, as it always was.
    if (!args.includes('--offline') && !args.includes('--to')) assert.notEqual(r.code, 0, `${args.join(' ')}${show(r)}`);
    assert.match(r.stderr, /script failed|failed:|is not|disallowed/, `${args.join(' ')}${show(r)}`);
    assert.ok(!r.stdout.includes(SECRET) && !r.stderr.includes(SECRET), `${args.join(' ')}${show(r)}`);
    assert.doesNotMatch(r.stdout + r.stderr, /\bLEAK\b|\bRAN\b|uid=\d+/, `${args.join(' ')}${show(r)}`);
    assert.equal(existsSync(join(dir, 'PWNED')), false, `${args.join(' ')}${show(r)}`);
    assertNoStack(r.stderr);
  }
  assert.deepEqual(srv.requests.length, 0);
});

test('script sandbox: assert, assert/strict and crypto are there on purpose (the corpus uses them); any other module is one line that fails only its request', async (t) => {
  const srv = await httpServer(t, (req, res) => {
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify({ path: req.url, n: 3 }));
  });
  const dir = workdir({
    'mods.http': [
      '< {%',
      "  const crypto = require('crypto');",
      "  const nonce = crypto.randomBytes(8).toString('hex');",
      "  request.variables.set('NONCE', nonce);",
      "  request.variables.set('SHA', require('node:crypto').createHash('sha256').update('abc').digest('hex'));",
      "  request.variables.set('HMAC', crypto.createHmac('sha1', 'key').update('The quick brown fox jumps over the lazy dog').digest('base64'));",
      "  request.variables.set('B64', btoa('hi:there') + ',' + Window.atob('aGk='));",
      "  request.variables.set('UUID', /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.test(crypto.randomUUID()) ? 'uuid' : 'bad');",
      '%}',
      `GET ${srv.url}/one?nonce={{NONCE}}&sha={{SHA}}&hmac={{HMAC}}&b64={{B64}}&uuid={{UUID}}`,
      '',
      '> {%',
      "  const assert = require('assert');",
      "  const strict = require('node:assert/strict');",
      '  client.test("asserts", () => {',
      '    assert.equal(response.body.n, "3");',
      '    strict.deepEqual(response.body.n, 3);',
      '    assert.throws(() => strict.equal(1, "1"), /strictly equal/);',
      '    assert.ok(require("assert/strict") === strict);',
      '  });',
      '  client.test("fails", () => { strict.deepStrictEqual({ a: 1 }, { a: 2 }); });',
      '%}',
      '',
      '###',
      `GET ${srv.url}/two`,
      '',
      "> {% require('fs').writeFileSync('PWNED', 'x') %}",
      '',
      '###',
      `GET ${srv.url}/three`,
      '',
      '> {% client.log("three ran") %}',
      '',
    ].join('\n'),
  });
  const r = await runSling(['exec', '--print=b', 'mods.http'], { cwd: dir, timeoutMs: 120_000 });
  assert.equal(r.code, 1, show(r));
  const first = new URL(srv.requests[0]!.url!, 'http://x');
  assert.match(first.searchParams.get('nonce')!, /^[0-9a-f]{16}$/);
  assert.equal(first.searchParams.get('sha'), 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  assert.equal(first.searchParams.get('hmac'), '3nybhbi3iqa8ino29wqQcBydtNk=');
  assert.equal(first.searchParams.get('b64'), 'aGk6dGhlcmU=,hi');
  assert.equal(first.searchParams.get('uuid'), 'uuid');
  assert.match(r.stdout, /✓ asserts\n✗ fails: Expected values to be strictly deep-equal/, show(r));
  assert.match(
    r.stderr,
    /mods\.http:27: the response handler failed: require\('fs'\) is not available in \.http scripts: they run in a sandbox without files, processes or network; the modules there are assert, assert\/strict and crypto/,
    show(r),
  );
  assert.match(r.stdout, /three ran/, show(r));
  assert.deepEqual(
    srv.requests.map((q) => q.url!.split('?')[0]),
    ['/one', '/two', '/three'],
  );
  assert.equal(existsSync(join(dir, 'PWNED')), false);
  assertNoStack(r.stderr);
});
