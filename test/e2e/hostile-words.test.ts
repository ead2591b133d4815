// What a hostile or broken server or file gets in return is one true sentence and the right exit
// code: a bad chunk size, a 101 nobody asked for, a redirect to a data:
// URL, a proxy that is not an HTTP proxy, a long chain of variables that is not a loop.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runSling } from '../helpers/cli.js';
import { assertError, assertNoStack, bytesServer, show } from '../helpers/assert.js';

function workdir(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'sling-hostile-'));
  for (const [name, content] of Object.entries(files)) writeFileSync(join(dir, name), content);
  return dir;
}

const SWITCH = 'HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n';

test('a chunk size that is not hexadecimal: "sent a malformed chunked body", exit 6, on the main command and in exec', async (t) => {
  const srv = await bytesServer(t, { '/c': 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Type: text/plain\r\n\r\nzz\r\nhello\r\n0\r\n\r\n' });
  const main = await runSling([`${srv.url}/c`]);
  assertError(main, 6, /^sling: error: 127\.0\.0\.1:\d+ sent a malformed chunked body \(chunk size 'zz'\)$/m);
  assert.doesNotMatch(main.stderr, /undefined|decoded/);
  const dir = workdir({ 'a.http': `GET ${srv.url}/c\n` });
  assertError(await runSling(['exec', join(dir, 'a.http')]), 6, /a\.http:1: 127\.0\.0\.1:\d+ sent a malformed chunked body \(chunk size 'zz'\)$/m);
});

test('chunked trailers or a chunk size line that never end are malformed past 16 kB in exec, as in the main command (the exec lane read endless trailers for ever)', async (t) => {
  const head = 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Type: text/plain\r\n\r\n';
  const srv = await bytesServer(t, {
    '/trailers': head + '2\r\nhi\r\n0\r\n' + `X-T: ${'a'.repeat(1000)}\r\n`.repeat(20),
    '/size': head + '2\r\nhi\r\n' + '0'.repeat(20000),
  });
  const dir = workdir({ 't.http': `GET ${srv.url}/trailers\n`, 's.http': `GET ${srv.url}/size\n` });
  assertError(await runSling(['exec', join(dir, 't.http')]), 6, /^sling: error: .*t\.http:1: 127\.0\.0\.1:\d+ sent a malformed chunked body \(trailers of more than 16 kB\)$/m);
  assertError(await runSling(['exec', join(dir, 's.http')]), 6, /^sling: error: .*s\.http:1: 127\.0\.0\.1:\d+ sent a malformed chunked body \(a line of more than 16 kB without its end\)$/m);
  const main = await runSling([`${srv.url}/trailers`]);
  assert.equal(main.code, 6, main.stderr);
});

test('an endless run of interim (1xx) answers is not waited out: more than 100 is one sentence, exit 6 (main command, download, exec)', async (t) => {
  const srv = await bytesServer(t, {
    '/i': 'HTTP/1.1 100 Continue\r\n\r\n'.repeat(101) + 'HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok',
    '/few': 'HTTP/1.1 103 Early Hints\r\nLink: </a.css>\r\n\r\n'.repeat(100) + 'HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok',
  });
  const dir = workdir({ 'a.http': `GET ${srv.url}/i\n` });
  const said = /^sling: error: (.*a\.http:1: )?127\.0\.0\.1:\d+ sent more than 100 interim \(1xx\) answers and no answer$/m;
  assertError(await runSling([`${srv.url}/i`]), 6, said);
  assertError(await runSling(['--download', '-o', join(dir, 'x.bin'), `${srv.url}/i`]), 6, said);
  assertError(await runSling(['exec', join(dir, 'a.http')]), 6, said);
  // 100 of them, then the answer: taken.
  const few = await runSling(['--print=b', `${srv.url}/few`]);
  assert.equal(few.code, 0, few.stderr);
  assert.equal(few.stdout, 'ok');
});

test('a 101 Switching Protocols to a plain GET is one sentence, exit 6: main command, download, exec (no HTTP/2 hint, no internal error)', async (t) => {
  const srv = await bytesServer(t, { '/ws': SWITCH });
  const expected = /127\.0\.0\.1:\d+ answered 101 Switching Protocols \(to websocket\) to a request that did not ask to switch protocols/;
  const dir = workdir({ 'a.http': `GET ${srv.url}/ws\n\n###\nGET ${srv.url}/after\n`, 'c.sh': `curl -s ${srv.url}/ws\n` });
  for (const r of [
    await runSling([`${srv.url}/ws`]),
    await runSling(['-d', '-o', join(dir, 'x.bin'), `${srv.url}/ws`]),
    await runSling(['exec', join(dir, 'a.http')]),
    await runSling(['exec', join(dir, 'c.sh')]),
  ]) {
    assertError(r, 6, expected);
    assert.doesNotMatch(r.stderr, /HTTP\/2|internal error/, r.stderr);
  }
  // The run went on after the failed request.
  assert.ok(srv.seen.includes('GET /after HTTP/1.1'), srv.seen.join(', '));
});

test('a redirect to a data: URL is not followed, in one sentence naming it, exit 1 (main command, .http and curl files)', async (t) => {
  const srv = await bytesServer(t, { '/r': 'HTTP/1.1 302 Found\r\nLocation: data:text/plain,hello\r\nContent-Length: 0\r\n\r\n' });
  const main = await runSling(['--follow', `${srv.url}/r`]);
  assertError(main, 1, /127\.0\.0\.1:\d+ redirected to 'data:text\/plain,hello', a data: URL: sling follows redirects to http:\/\/ and https:\/\/ only/);
  assert.doesNotMatch(main.stderr, /port/);
  const dir = workdir({ 'a.http': `GET ${srv.url}/r\n`, 'c.sh': `curl -sL ${srv.url}/r\n` });
  assertError(await runSling(['exec', join(dir, 'a.http')]), 1, /a\.http:1: .*a data: URL/);
  const curl = await runSling(['exec', join(dir, 'c.sh')]);
  assertError(curl, 1, /c\.sh:1: 127\.0\.0\.1:\d+ sent a redirect sling cannot follow: 'data:text\/plain,hello': the data: scheme is not HTTP/);
  assertNoStack(curl.stderr);
  // Nothing was asked of the server but the redirecting requests (the data: URL was not read as a path).
  assert.deepEqual(srv.seen, ['GET /r HTTP/1.1', 'GET /r HTTP/1.1', 'GET /r HTTP/1.1'], srv.seen.join(', '));
});

test('a proxy that is not an HTTP proxy (ftp://, socks5://, https://) is a usage error naming it, exit 1, nothing sent', async (t) => {
  const srv = await bytesServer(t, {});
  for (const [args, env, shown] of [
    [['--proxy', 'http:ftp://x'], {}, "'ftp://x' speaks ftp://"],
    [['--proxy', 'all:socks5://u:secret@x:1080'], {}, "'socks5://***@x:1080' speaks socks5://"],
    [[], { HTTP_PROXY: 'https://p:3128' }, "'https://p:3128' speaks https://"],
  ] as const) {
    const r = await runSling([...args, `${srv.url}/x`], { env: { ...env, NO_PROXY: '' } });
    assertError(r, 1, `the proxy ${shown}, and sling only talks to HTTP proxies (http://)`);
    assert.doesNotMatch(r.stderr, /secret|resolve/);
  }
  assert.equal(srv.connections(), 0);
});

test('a chain of variables that is long but not a loop is not called a loop: 500 levels work, 501 are "more than 500 levels deep"; loops are named', async (t) => {
  const srv = await bytesServer(t, {});
  const chain = (n: number) => Array.from({ length: n }, (_, i) => `@v${i} = {{v${i + 1}}}\n`).join('') + `@v${n} = end\n\nGET ${srv.url}/{{v0}}\n`;
  const dir = workdir({
    'ok.http': chain(500),
    'long.http': chain(501),
    'loop.http': `@a = {{b}}\n@b = {{a}}\n\nGET ${srv.url}/{{a}}\n`,
    'env.http': `GET ${srv.url}/{{a}}\n`,
    'http-client.env.json': JSON.stringify({ dev: { a: '{{b}}', b: '{{a}}' } }),
  });
  const ok = await runSling(['exec', join(dir, 'ok.http')]);
  assert.equal(ok.code, 0, show(ok));
  assert.ok(srv.seen.includes('GET /end HTTP/1.1'), srv.seen.join(', '));
  const long = await runSling(['exec', join(dir, 'long.http')]);
  assertError(long, 1, /long\.http:504: variables refer to each other more than 500 levels deep/);
  assert.doesNotMatch(long.stderr, /loop/);
  assertError(await runSling(['exec', join(dir, 'loop.http')]), 1, /loop\.http:4: variables refer to each other in a loop \(@a → @b → @a\)/);
  assertError(await runSling(['exec', '--env', 'dev', join(dir, 'env.http')]), 1, /env\.http:1: variables refer to each other in a loop \(@a → @b → @a\)/);
});
