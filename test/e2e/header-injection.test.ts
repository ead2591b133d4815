// CR, LF and NUL never reach the wire inside a method, a request target or a header, whatever
// path the value took (a script's client.global.headers, a placeholder in a curl line of a .http
// file, a session file's cookies) and whichever command sends it (the main command, a download,
// sling exec: one HTTP/1.1 client; HTTP/2). The receiving servers are bare TCP servers that record every byte that arrives.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runSling } from '../helpers/cli.js';
import { assertError, assertNoStack, httpServer, show } from '../helpers/assert.js';

/** A token server: POST /token answers an access token with a line break and a header after it. */
async function tokenServer(t: TestContext) {
  return await httpServer(t, (_req, res) => {
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify({ access_token: 'AT\r\nX-Injected: yes' }));
  });
}

/**
 * A server that keeps every byte it receives and answers each request head (no bodies here) with
 * `200 ok`. It speaks only HTTP/1.1: an HTTP/2 preface is recorded like anything else.
 */
async function recorder(t: TestContext) {
  const received: Buffer[] = [];
  const sockets = new Set<net.Socket>();
  const server = net.createServer((s) => {
    sockets.add(s);
    s.on('error', () => {});
    s.on('close', () => sockets.delete(s));
    let pending = '';
    s.on('data', (d: Buffer) => {
      received.push(d);
      pending += d.toString('latin1');
      for (let end = pending.indexOf('\r\n\r\n'); end !== -1; end = pending.indexOf('\r\n\r\n')) {
        pending = pending.slice(end + 4);
        s.write('HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\nok');
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as net.AddressInfo).port;
  t.after(() => {
    for (const s of sockets) s.destroy();
    return new Promise<void>((r) => server.close(() => r()));
  });
  return { port, url: `http://127.0.0.1:${port}`, text: () => Buffer.concat(received).toString('latin1') };
}

function dir() {
  return mkdtempSync(join(tmpdir(), 'sling-inject-'));
}

test('a header set by a script from a response, holding CR/LF, is refused before any byte goes to the next origin; the run goes on', async (t) => {
  const tokens = await tokenServer(t);
  const api = await recorder(t);
  const after = await recorder(t);
  const d = dir();
  writeFileSync(
    join(d, 'a.http'),
    [
      `POST ${tokens.url}/token`,
      '',
      "> {% client.global.headers.set('Authorization', 'Bearer ' + response.body.access_token); %}",
      '',
      '###',
      `GET ${api.url}/api`,
      '',
      '###',
      '< {% client.global.headers.clear("Authorization"); %}',
      `GET ${after.url}/next`,
    ].join('\n'),
  );
  const r = await runSling(['exec', 'a.http'], { cwd: d });
  assert.equal(r.code, 1, show(r));
  assert.match(r.stderr, /^sling: error: a\.http:6: the value of the header 'Authorization' holds a line break \(CR\)/m, show(r));
  assert.doesNotMatch(r.stderr, /Bearer|X-Injected/, 'the value is not shown (a credential)');
  assertNoStack(r.stderr);
  assert.equal(api.text(), '', 'nothing reached the second origin');
  // The run went on: the request after it was sent.
  assert.match(after.text(), /^GET \/next HTTP\/1\.1\r\n/);
});

test('a header set by a script holding CR/LF is refused over HTTP/2 too, before a connection is opened', async (t) => {
  const tokens = await tokenServer(t);
  const api = await recorder(t);
  const d = dir();
  writeFileSync(
    join(d, 'h2.http'),
    [`POST ${tokens.url}/token`, '', "> {% client.global.headers.set('X-Token', response.body.access_token); %}", '', '###', `GET ${api.url}/api HTTP/2 (Prior Knowledge)`, ''].join('\n'),
  );
  const r = await runSling(['exec', 'h2.http'], { cwd: d });
  assertError(r, 1, /h2\.http:6: the value of the header 'X-Token' holds a line break \(CR\)/);
  assert.equal(api.text(), '', 'no HTTP/2 preface, no byte');
});

test('a placeholder from a response in a curl line of a .http file cannot add a header (-H) or split the request line (-X)', async (t) => {
  const tokens = await tokenServer(t);
  const api = await recorder(t);
  const d = dir();
  writeFileSync(
    join(d, 'c.http'),
    [
      '# @name tok',
      `POST ${tokens.url}/token`,
      '',
      '###',
      `curl -H "Authorization: Bearer {{tok.response.body.$.access_token}}" ${api.url}/h`,
      '',
      '###',
      `curl -X "{{tok.response.body.$.access_token}}" ${api.url}/x`,
      '',
      '###',
      `curl ${api.url}/fine`,
    ].join('\n'),
  );
  const r = await runSling(['exec', 'c.http'], { cwd: d });
  assert.equal(r.code, 1, show(r));
  assert.match(r.stderr, /^sling: error: c\.http:5: the value of the header 'Authorization' holds a line break \(CR\)/m, show(r));
  assert.match(r.stderr, /^sling: error: c\.http:8: the method 'AT\\r\\nX-Injected: yes' holds a line break \(CR\), which would split the request line/m, show(r));
  assertNoStack(r.stderr);
  // Only the last request arrived, whole.
  assert.match(api.text(), /^GET \/fine HTTP\/1\.1\r\n/, show(r));
  assert.doesNotMatch(api.text(), /X-Injected|\/h |\/x /);
});

test('a cookie with CR/LF from a session file is refused in every lane: main command, --download, sling exec', async (t) => {
  const api = await recorder(t);
  const d = dir();
  const session = join(d, 'sess.json');
  writeFileSync(
    session,
    JSON.stringify({
      __meta__: {},
      headers: [],
      auth: { type: null, raw_auth: null },
      cookies: [{ name: 'sid', value: 'a\r\nX-Injected: yes', domain: '127.0.0.1', path: '/', expires: null, secure: false }],
    }),
  );
  const culprit = /the value of the header 'Cookie' holds a line break \(CR\) at character 6/;
  // The main command.
  assertError(await runSling(['--session-read-only', session, `${api.url}/main`], { cwd: d }), 1, culprit);
  // A download.
  assertError(await runSling(['--download', '-o', join(d, 'out'), '--session-read-only', session, `${api.url}/download`], { cwd: d }), 1, culprit);
  // sling exec.
  writeFileSync(join(d, 's.http'), `GET ${api.url}/exec\n`);
  assertError(await runSling(['exec', '--session-read-only', session, 's.http'], { cwd: d }), 1, culprit);
  assert.equal(api.text(), '', 'no byte reached the server');
});
