// Files as Windows tools write them: UTF-8 with a byte order mark (PowerShell 5.1's
// `Set-Content -Encoding UTF8`, Visual Studio) is read as UTF-8; UTF-16 (PowerShell's `>` and
// `Out-File`) is refused in one line that says to save the file as UTF-8, never read as garbled text.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runSling } from '../helpers/cli.js';
import { header } from '../helpers/servers.js';
import { assertError, assertExit, httpServer, okText, show } from '../helpers/assert.js';

const BOM = Buffer.from([0xef, 0xbb, 0xbf]);
const bom = (text: string) => Buffer.concat([BOM, Buffer.from(text)]);
/** UTF-16LE with its byte order mark, as PowerShell's Out-File writes. */
const utf16 = (text: string) => Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);
const UTF16_LINE = /is saved as UTF-16 text; save it as UTF-8/;

function box(): string {
  return mkdtempSync(join(tmpdir(), 'sling-windows-files-'));
}

test('config.json with a byte order mark gives its default options; as UTF-16 it is one line naming the file', async () => {
  const d = box();
  writeFileSync(join(d, 'config.json'), bom('{"default_options": ["--offline"]}'));
  const r = await runSling(['POST', 'example.org', 'a=1'], { env: { SLING_CONFIG_DIR: d } });
  assertExit(r, 0);
  assert.match(r.stdout, /^POST \/ HTTP\/1\.1/, show(r));
  writeFileSync(join(d, 'config.json'), utf16('{"default_options": ["--offline"]}'));
  const u = await runSling(['--offline', 'example.org'], { env: { SLING_CONFIG_DIR: d } });
  assertError(u, 1, UTF16_LINE);
  assert.match(u.stderr, /config\.json: the config file is saved as UTF-16/);
});

test('a := @file JSON item and an =@file text item with a byte order mark send the JSON and the text without it; UTF-16 is refused', async () => {
  const d = box();
  writeFileSync(join(d, 'body.json'), bom('{"a": [1, 2]}'));
  writeFileSync(join(d, 'note.txt'), bom('hello'));
  const r = await runSling(['--offline', '--print=B', 'POST', 'example.org', 'x:=@body.json', 'n=@note.txt'], { cwd: d });
  assertExit(r, 0);
  assert.equal(r.stdout.trim(), '{"x": {"a": [1, 2]}, "n": "hello"}');
  writeFileSync(join(d, 'u.json'), utf16('{"a": 1}'));
  const u = await runSling(['--offline', 'POST', 'example.org', 'x:=@u.json'], { cwd: d });
  assertError(u, 1, UTF16_LINE);
  assert.match(u.stderr, /item 'x:=@u\.json': 'u\.json'/);
});

test('a session file with a byte order mark is read (its headers are sent); as UTF-16 it is refused and left as it is', async (t) => {
  const s = await httpServer(t, okText);
  const d = box();
  const session = { __meta__: { about: 'HTTPie session file' }, headers: { 'X-From-Session': 'yes' }, cookies: [], auth: {} };
  writeFileSync(join(d, 's.json'), bom(JSON.stringify(session)));
  const r = await runSling(['--session-read-only', join(d, 's.json'), `${s.url}/x`], { cwd: d });
  assertExit(r, 0);
  assert.equal(header(s.requests.at(-1)!, 'x-from-session'), 'yes', show(r));
  const bytes = utf16(JSON.stringify(session));
  writeFileSync(join(d, 'u.json'), bytes);
  const u = await runSling(['--session', join(d, 'u.json'), `${s.url}/y`], { cwd: d });
  assertError(u, 1, UTF16_LINE);
  assert.equal(s.requests.length, 1, 'nothing sent');
});

test('exec: a .http file and its http-client.env.json with a byte order mark run; a UTF-16 request or environment file is one line', async (t) => {
  const s = await httpServer(t, okText);
  const d = box();
  mkdirSync(join(d, 'api'));
  writeFileSync(join(d, 'api', 'http-client.env.json'), bom(JSON.stringify({ dev: { host: s.url } })));
  writeFileSync(join(d, 'api', 'a.http'), bom('GET {{host}}/from-bom\n'));
  const r = await runSling(['exec', '--env', 'dev', join('api', 'a.http')], { cwd: d });
  assertExit(r, 0);
  assert.equal(s.requests.at(-1)!.url, '/from-bom', show(r));
  writeFileSync(join(d, 'api', 'u.http'), utf16('GET {{host}}/never\n'));
  const u = await runSling(['exec', '--env', 'dev', join('api', 'u.http')], { cwd: d });
  assertError(u, 1, UTF16_LINE);
  writeFileSync(join(d, 'api', 'http-client.env.json'), utf16(JSON.stringify({ dev: { host: s.url } })));
  const e = await runSling(['exec', '--env', 'dev', join('api', 'a.http')], { cwd: d });
  assertError(e, 1, UTF16_LINE);
  assert.match(e.stderr, /http-client\.env\.json: the environment file is saved as UTF-16/);
  assert.ok(!s.requests.some((q) => q.url === '/never'));
});
