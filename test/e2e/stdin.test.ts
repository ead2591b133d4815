// Request bodies from stdin: used only when piped and no item supplies a body.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runSling } from '../helpers/cli.js';
import { header } from '../helpers/servers.js';
import { assertExit, httpServer, okText, parseMessage, show } from '../helpers/assert.js';

test('piped stdin becomes the body and the method defaults to POST', async (t) => {
  const srv = await httpServer(t, okText);
  const r = await runSling([`${srv.url}/in`], { stdin: 'hi\n' });
  assertExit(r, 0);
  assert.equal(srv.requests.length, 1, show(r));
  assert.equal(srv.requests[0].method, 'POST');
  assert.equal(srv.requests[0].body.toString('utf8'), 'hi\n');
});

test('stdin with an explicit PUT keeps PUT', async (t) => {
  const srv = await httpServer(t, okText);
  const r = await runSling(['PUT', `${srv.url}/doc`], { stdin: '{"from":"stdin"}' });
  assertExit(r, 0);
  assert.equal(srv.requests[0].method, 'PUT');
  assert.equal(srv.requests[0].body.toString('utf8'), '{"from":"stdin"}');
});

test('binary stdin is sent byte for byte', async (t) => {
  const bin = Buffer.from([0x00, 0xff, 0x10, 0x00, 0x0a, 0x0d, 0x80, 0x7f]);
  const srv = await httpServer(t, okText);
  const r = await runSling([`${srv.url}/bin`], { stdin: bin });
  assertExit(r, 0);
  assert.ok(srv.requests[0].body.equals(bin), `received ${srv.requests[0].body.toString('hex')}`);
});

test('large stdin (2 MiB) arrives complete', async (t) => {
  const big = Buffer.alloc(2 * 1024 * 1024, 'abcdefghij');
  const srv = await httpServer(t, okText);
  const r = await runSling([`${srv.url}/big`], { stdin: big });
  assertExit(r, 0);
  assert.equal(srv.requests[0].body.length, big.length);
  assert.ok(srv.requests[0].body.equals(big));
});

test('data items win over stdin: JSON body from items, stdin not used', async (t) => {
  const srv = await httpServer(t, okText);
  const r = await runSling([`${srv.url}/`, 'a=1'], { stdin: 'hi\n' });
  assertExit(r, 0);
  assert.equal(srv.requests[0].method, 'POST');
  assert.deepEqual(JSON.parse(srv.requests[0].body.toString('utf8')), { a: '1' });
});

test('header and query items do not stop stdin from being the body', async (t) => {
  const srv = await httpServer(t, okText);
  const r = await runSling([`${srv.url}/csv`, 'Content-Type:text/csv', 'v==2'], { stdin: 'a,b\n1,2\n' });
  assertExit(r, 0);
  const req = srv.requests[0];
  assert.equal(req.method, 'POST');
  assert.equal(req.url, '/csv?v=2');
  assert.equal(header(req, 'content-type'), 'text/csv');
  assert.equal(req.body.toString('utf8'), 'a,b\n1,2\n');
});

test('empty stdin means GET without a body', async (t) => {
  const srv = await httpServer(t, okText);
  const r = await runSling([`${srv.url}/empty`], { stdin: '' });
  assertExit(r, 0);
  assert.equal(srv.requests[0].method, 'GET');
  assert.equal(srv.requests[0].body.length, 0);
});

test('stdin at /dev/null means GET without a body', async (t) => {
  const srv = await httpServer(t, okText);
  const r = await runSling([`${srv.url}/null`]);
  assertExit(r, 0);
  assert.equal(srv.requests[0].method, 'GET');
  assert.equal(srv.requests[0].body.length, 0);
});

for (const flag of ['--ignore-stdin', '-I']) {
  test(`${flag} ignores piped stdin`, async (t) => {
    const srv = await httpServer(t, okText);
    const r = await runSling([flag, `${srv.url}/ignored`], { stdin: 'should not be sent' });
    assertExit(r, 0);
    assert.equal(srv.requests[0].method, 'GET');
    assert.equal(srv.requests[0].body.length, 0);
  });
}

test('--offline prints a stdin body without sending it', async (t) => {
  const srv = await httpServer(t, okText);
  const r = await runSling(['--offline', `${srv.url}/off`], { stdin: 'offline-stdin-body' });
  assertExit(r, 0);
  assert.equal(srv.requests.length, 0);
  const msg = parseMessage(r.stdout);
  assert.equal(msg.startLine, 'POST /off HTTP/1.1', show(r));
  assert.equal(msg.body.trimEnd(), 'offline-stdin-body', show(r));
});
