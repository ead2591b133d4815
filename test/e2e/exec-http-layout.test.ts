// `sling exec FILE.http` on the layouts of strangers' files that httpyac and the JetBrains client
// run: block comments, bodies with no blank line before them, indented requests, any method token,
// versions after URL continuations, the asterisk form. The built CLI against loopback servers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runSling } from '../helpers/cli.js';
import { header } from '../helpers/servers.js';
import { assertExit, bytesServer, httpServer, okText, show } from '../helpers/assert.js';

function execFile(text: string) {
  const dir = mkdtempSync(join(tmpdir(), 'sling-exec-layout-'));
  writeFileSync(join(dir, 'f.http'), text);
  return runSling(['exec', 'f.http'], { cwd: dir });
}

// JetBrains HTTP Client docs: `/* */` comments may stand between the headers of a request.
test('exec http: a block comment right after the last header is a comment, and the next request is sent', async (t) => {
  const srv = await httpServer(t, okText);
  const r = await execFile(`GET ${srv.url}/a1\nAccept: application/json\n/*\n## Notes\n*/\n###\nGET ${srv.url}/a2\n`);
  assertExit(r, 0);
  assert.deepEqual(
    srv.requests.map((q) => q.url),
    ['/a1', '/a2'],
    show(r),
  );
  assert.equal(header(srv.requests[0]!, 'accept'), 'application/json');
});

// httpyac "httpBook" chapters: a `### title` line inside `/* */` is comment text, not a separator.
test('exec http: a ### line inside a block comment after a body is comment text, not a request separator', async (t) => {
  const srv = await httpServer(t, okText);
  const r = await execFile(
    [`POST ${srv.url}/one`, 'Content-Type: text/plain', '', 'hello', '', '/*', '### 2. Checking the status', 'The text goes on.', '*/', '', `GET ${srv.url}/two`, ''].join('\n'),
  );
  assertExit(r, 0);
  assert.deepEqual(
    srv.requests.map((q) => [q.method, q.url, q.body.toString()]),
    [
      ['POST', '/one', 'hello'],
      ['GET', '/two', ''],
    ],
    show(r),
  );
  assert.doesNotMatch(r.stderr, /Checking the status|The text goes on/, show(r));
});

// httpyac: any line after the headers that is not a header starts the body.
test('exec http: a GraphQL query right after the headers with no blank line is the body, with a warning, and the file runs', async (t) => {
  const srv = await httpServer(t, okText);
  const r = await execFile([`POST ${srv.url}/graphql`, 'Content-Type: application/json', 'query timestamps {', '  now', '}', '', '###', `GET ${srv.url}/after`, ''].join('\n'));
  assertExit(r, 0);
  assert.deepEqual(
    srv.requests.map((q) => q.url),
    ['/graphql', '/after'],
    show(r),
  );
  assert.deepEqual(JSON.parse(srv.requests[0]!.body.toString()), { query: 'query timestamps {\n  now\n}', operationName: 'timestamps' });
  assert.match(r.stderr, /^sling: warning: f\.http:3:1: the body should follow a blank line after the headers; 'query timestamps \{' is no header/, show(r));
});

test('exec http: an indented request has its indented header lines as headers and its indented body as the body', async (t) => {
  const srv = await httpServer(t, okText);
  const r = await execFile(
    [` POST ${srv.url}/signup`, ' Content-Type: application/json', '', ' {"name": "ada"}', '', ` GET ${srv.url}/me`, ' Accept: text/plain', ' ###', ` GET ${srv.url}/last`, ''].join('\n'),
  );
  assertExit(r, 0);
  assert.deepEqual(
    srv.requests.map((q) => [q.method, q.url, q.body.toString()]),
    [
      ['POST', '/signup', ' {"name": "ada"}'],
      ['GET', '/me', ''],
      ['GET', '/last', ''],
    ],
    show(r),
  );
  assert.equal(header(srv.requests[0]!, 'content-type'), 'application/json');
  assert.equal(header(srv.requests[1]!, 'accept'), 'text/plain');
  assert.doesNotMatch(r.stderr, /warning/, show(r));
});

// httpyac's formats/httpMethods.http: requests separated by a blank line only, with WebDAV and
// other RFC 9110 method tokens.
test('exec http: a request line with any method token in capitals after a blank line starts the next request', async (t) => {
  const srv = await httpServer(t, okText);
  const r = await execFile([`GET ${srv.url}/get`, '', `MERGE ${srv.url}/merge`, '', `CHECKOUT ${srv.url}/checkout HTTP/1.1`, '', `M-SEARCH ${srv.url}/ssdp`, ''].join('\n'));
  assertExit(r, 0);
  assert.deepEqual(
    srv.requests.map((q) => [q.method, q.url, q.body.length]),
    [
      ['GET', '/get', 0],
      ['MERGE', '/merge', 0],
      ['CHECKOUT', '/checkout', 0],
      ['M-SEARCH', '/ssdp', 0],
    ],
    show(r),
  );
});

// kulala.nvim: `HTTP/1.1` may end the last indented line of a URL.
test('exec http: an HTTP version at the end of an indented URL continuation is the version, not part of the URL', async (t) => {
  const srv = await bytesServer(t, {});
  const r = await execFile([`GET http://127.0.0.1:${srv.port}/get?name=kulala`, '  &age=25 HTTP/1.1', 'Accept: text/plain', ''].join('\n'));
  assertExit(r, 0);
  assert.match(srv.seen[0] ?? '', /^GET \/get\?name=kulala&age=25 HTTP\/1\.1$/, show(r));
});

// JetBrains HTTP request spec: `OPTIONS * HTTP/1.1` with the host in a Host header (asterisk-form).
test('exec http: OPTIONS * with a Host header sends the asterisk-form request target to that host', async (t) => {
  const srv = await httpServer(t, okText);
  const r = await execFile(['OPTIONS * HTTP/1.1', `Host: 127.0.0.1:${srv.port}`, ''].join('\n'));
  assertExit(r, 0);
  assert.deepEqual(
    srv.requests.map((q) => [q.method, q.url, header(q, 'host')]),
    [['OPTIONS', '*', `127.0.0.1:${srv.port}`]],
    show(r),
  );
});
