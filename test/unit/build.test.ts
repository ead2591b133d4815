import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveInvocation } from '../../src/cli/invocation.js';
import { buildRequest } from '../../src/request/build.js';
import { prepareRequest } from '../../src/model/prepare.js';

const dir = mkdtempSync(join(tmpdir(), 'sling-build-'));
writeFileSync(join(dir, 'a.txt'), 'hello\n');
writeFileSync(join(dir, 'data.yaml'), 'k: v\n');

async function wire(args: string[], stdin: Buffer | null = null) {
  const spec = await buildRequest(resolveInvocation(args), {
    cwd: dir,
    env: {},
    pid: process.pid,
    readStdin: async () => stdin,
    askPassword: async () => {
      throw new Error('no terminal');
    },
  });
  const req = await prepareRequest(spec);
  const h = (name: string) => req.headers.filter(([n]) => n.toLowerCase() === name).map(([, v]) => v);
  return { req, h, body: req.body.toString('utf8') };
}

test('multipart parts that share a name are grouped at the first one', async () => {
  const { body, h } = await wire(['--multipart', '--boundary', 'XX', 'example.org', 'price=1', 'c=2', 'price=3']);
  const names = [...body.matchAll(/name="([^"]+)"/g)].map((m) => m[1]);
  assert.deepEqual(names, ['price', 'price', 'c']);
  assert.deepEqual(h('content-type'), ['multipart/form-data; boundary=XX']);
  assert.ok(body.endsWith('--XX--\r\n'));
});

test('uploads: file name, guessed type, no type when unknown, ;type= override', async () => {
  const { body } = await wire(['-f', '--boundary', 'B', 'example.org', 'f@a.txt', 'y@data.yaml', 'z@a.txt;type=image/png']);
  assert.match(body, /name="f"; filename="a.txt"\r\nContent-Type: text\/plain\r\n\r\nhello\n\r\n/);
  assert.match(body, /name="y"; filename="data.yaml"\r\n\r\nk: v\n/);
  assert.match(body, /name="z"; filename="a.txt"\r\nContent-Type: image\/png\r\n/);
});

test('method and content type follow the data the user gave', async () => {
  assert.equal((await wire(['--multipart', 'example.org'])).req.method, 'GET');
  assert.equal((await wire(['example.org', 'a=1'])).req.method, 'POST');
  const emptyRaw = await wire(['--raw=', '-f', 'example.org']);
  assert.equal(emptyRaw.req.method, 'POST');
  assert.deepEqual(emptyRaw.h('content-type'), ['application/x-www-form-urlencoded; charset=utf-8']);
  assert.deepEqual((await wire(['-j', 'example.org'])).h('content-type'), []);
  assert.deepEqual((await wire(['-j', 'example.org'])).h('accept'), ['application/json, */*;q=0.5']);
  assert.deepEqual((await wire(['example.org', '@data.yaml'])).h('content-type'), ['application/json']);
  assert.deepEqual((await wire(['example.org', '@a.txt'])).h('content-type'), ['text/plain']);
});

test('stdin is the body only when nothing else is, and keeps GET when empty', async () => {
  const piped = await wire(['example.org'], Buffer.from('x=1'));
  assert.equal(piped.req.method, 'POST');
  assert.equal(piped.body, 'x=1');
  assert.equal((await wire(['example.org'], Buffer.alloc(0))).req.method, 'GET');
  assert.equal((await wire(['example.org', 'a=1'], Buffer.from('ignored'))).body, '{"a": "1"}');
});

test('header items: strip, remove defaults and earlier values, empty, UTF-8 kept', async () => {
  const { h } = await wire(['example.org', 'X-A:  v  ', 'User-Agent:', 'X-Dup:1', 'x-dup:', 'x-dup:2', 'X-E;']);
  assert.deepEqual(h('x-a'), ['v']);
  assert.deepEqual(h('user-agent'), []);
  assert.deepEqual(h('x-dup'), ['2']);
  assert.deepEqual(h('x-e'), ['']);
});

test('auth: -a, \\: in the user name, bearer, URL credentials kept as written', async () => {
  const b64 = (s: string) => 'Basic ' + Buffer.from(s).toString('base64');
  assert.deepEqual((await wire(['-a', 'u\\:x:p:w', 'example.org'])).h('authorization'), [b64('u:x:p:w')]);
  assert.deepEqual((await wire(['-a', 'u:', 'example.org'])).h('authorization'), [b64('u:')]);
  assert.deepEqual((await wire(['-A', 'bearer', '-a', 'tok', 'example.org'])).h('authorization'), ['Bearer tok']);
  assert.deepEqual((await wire(['http://us%40er:p%3A@example.org'])).h('authorization'), [b64('us%40er:p%3A')]);
  await assert.rejects(wire(['-a', 'user', 'example.org']), /no terminal/);
});

test('query-file drops trailing newlines; form values of :=', async () => {
  assert.equal((await wire(['example.org', 'q==@a.txt'])).req.target, '/?q=hello');
  assert.equal((await wire(['-f', 'example.org', 'n:=5', 'b:=true', 'z:=null'])).body, 'n=5&b=True&z=None');
  await assert.rejects(wire(['-f', 'example.org', 'o:={"a":1}']), /objects and arrays cannot be sent as form fields/);
});
