// What a whole `sling exec` run writes, byte for byte, when stdout is a pipe: titles, responses,
// pre-request and handler logs, test marks, a `>> file` save, httpyac assertions, a loop and a
// refused connection, with stderr's lines in their places. A characterization of the runner
// (commands/exec/run.ts, output.ts, results.ts) and the .http entry (sources/http/entries.ts and
// entry-*.ts): a change in either that moves a byte of this output fails here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runSling } from '../helpers/cli.js';
import { httpServer, show } from '../helpers/assert.js';
import { closedPort } from '../helpers/servers.js';

const FILE = (base: string, refused: number) => `@base = ${base}

### login
# @name login
POST {{base}}/login
Content-Type: application/json

{"user": "a"}

> {%
  client.global.set("token", response.body.url);
  client.test("ok", function() { client.assert(response.status === 200, "status"); });
  client.log("logged " + response.body.ok);
%}

### me
< {%
  client.log("pre " + client.global.get("token"));
%}
GET {{base}}/me?t={{token}}

### save
GET {{base}}/save
>> out/saved.json

### fails test
GET {{base}}/status/404

> {%
  client.test("is 200", function() { client.assert(response.status === 200, "got " + response.status); });
%}

### httpyac assert
GET {{base}}/a
?? status == 200
?? body ok == true

### loop
# @loop for 2
GET {{base}}/loop/{{$index}}

### refused
GET http://127.0.0.1:${refused}/nothing
`;

const head = (length: number, status = '200 OK') => `HTTP/1.1 ${status}\nContent-Type: application/json\nContent-Length: ${length}\nConnection: keep-alive\nKeep-Alive: timeout=30\n\n`;
const answer = (url: string, got = '') => JSON.stringify({ ok: true, url, got });

test('exec through a pipe: a file of scripts, a save, a failed test, assertions, a loop and a refused connection prints these exact bytes on stdout and stderr, exit 1', async (t) => {
  const server = await httpServer(t, (req, res, captured) => {
    res.sendDate = false;
    const body = answer(req.url!, captured.body.toString());
    if (req.url!.startsWith('/status/')) res.statusCode = Number(req.url!.slice(8));
    res.setHeader('Content-Type', 'application/json');
    res.setHeader('Content-Length', Buffer.byteLength(body));
    res.end(body);
  });
  const refused = await closedPort();
  const dir = mkdtempSync(join(tmpdir(), 'sling-run-order-'));
  writeFileSync(join(dir, 'mix.http'), FILE(server.url, refused));
  const r = await runSling(['exec', 'mix.http'], { cwd: dir });
  const at = server.url.replace('http://', '');
  const block = (title: string, line: number, url: string, status = '200 OK', got = '') => {
    const body = answer(url, got);
    return `### ${title}: ${url === '/login' ? 'POST' : 'GET'} http://${at}${url}  (line ${line})\n${head(Buffer.byteLength(body), status)}${body}`;
  };
  const expected =
    `${block('login', 5, '/login', '200 OK', '{"user": "a"}')}\nlogged true\n✓ ok\n\n` +
    `${block('me', 20, '/me?t=/login').replace('(line 20)\n', '(line 20)\npre /login\n')}\n` +
    `${block('save', 23, '/save')}\n` +
    `${block('fails test', 27, '/status/404', '404 Not Found')}\n✗ is 200: got 404\n\n` +
    `${block('httpyac assert', 34, '/a')}\n✓ status == 200\n✓ ok == true\n\n` +
    `${block('loop', 40, '/loop/0')}\n` +
    `${block('loop', 40, '/loop/1')}\n` +
    `### refused: GET http://127.0.0.1:${refused}/nothing  (line 43)\n`;
  assert.equal(r.code, 1, show(r));
  assert.equal(r.stdout, expected, show(r));
  assert.equal(
    r.stderr,
    `sling: response saved to ${join(dir, 'out', 'saved.json')}\n` +
      `sling: test failed: mix.http:27 (fails test): is 200: got 404\n` +
      `sling: error: mix.http:43: connection refused by 127.0.0.1:${refused}\n  hint: is the server running on that port?\n`,
  );
  assert.equal(readFileSync(join(dir, 'out', 'saved.json'), 'utf8'), answer('/save'));
});
