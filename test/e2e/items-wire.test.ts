// Request items and methods, checked on the wire: what the capture server actually received.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runSling, VERSION } from '../helpers/cli.js';
import { header, headerNames, headerValues, type CapturedRequest } from '../helpers/servers.js';
import { assertExit, httpServer, okText, show } from '../helpers/assert.js';

function tempDir(t: TestContext): string {
  const dir = mkdtempSync(join(tmpdir(), 'sling-items-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function json(req: CapturedRequest): unknown {
  return JSON.parse(req.body.toString('utf8'));
}

/** Runs sling against a fresh capture server and returns the single request it received. */
async function sent(t: TestContext, args: (base: string) => string[], cwd?: string): Promise<CapturedRequest> {
  const srv = await httpServer(t, okText);
  const r = await runSling(args(srv.url), { cwd });
  assertExit(r, 0);
  assert.equal(srv.requests.length, 1, `expected exactly one request${show(r)}`);
  return srv.requests[0];
}

// ---- defaults ---------------------------------------------------------------------------------------

test('plain GET carries the default headers and no body', async (t) => {
  const srv = await httpServer(t, okText);
  const r = await runSling([`${srv.url}/plain`]);
  assertExit(r, 0);
  const req = srv.requests[0];
  assert.equal(req.method, 'GET');
  assert.equal(req.url, '/plain');
  assert.equal(header(req, 'host'), `127.0.0.1:${srv.port}`);
  assert.equal(header(req, 'user-agent'), `sling/${VERSION}`);
  assert.equal(header(req, 'accept'), '*/*');
  assert.equal(header(req, 'accept-encoding'), 'gzip, deflate, br');
  assert.equal(header(req, 'connection'), 'keep-alive');
  assert.equal(req.body.length, 0);
  assert.equal(header(req, 'content-type'), undefined);
});

// ---- methods ------------------------------------------------------------------------------------------

test('no method + body data means POST', async (t) => {
  const req = await sent(t, (u) => [`${u}/`, 'a=1']);
  assert.equal(req.method, 'POST');
});

test('lowercase method is accepted and sent uppercase', async (t) => {
  const req = await sent(t, (u) => ['delete', `${u}/thing/1`]);
  assert.equal(req.method, 'DELETE');
  assert.equal(req.url, '/thing/1');
});

test('custom method PROPFIND is sent as written', async (t) => {
  const req = await sent(t, (u) => ['PROPFIND', `${u}/dav/`, 'Depth:1']);
  assert.equal(req.method, 'PROPFIND');
  assert.equal(header(req, 'depth'), '1');
});

test('explicit GET with data items sends a JSON body with GET', async (t) => {
  const req = await sent(t, (u) => ['GET', `${u}/`, 'q=search']);
  assert.equal(req.method, 'GET');
  assert.deepEqual(json(req), { q: 'search' });
});

// ---- query items -----------------------------------------------------------------------------------------

test('a==1 items become query parameters, merged with the URL query', async (t) => {
  const req = await sent(t, (u) => [`${u}/search?x=0`, 'a==1', 'b==two words', 'c==a&b=c']);
  const [path, query] = req.url.split('?');
  assert.equal(path, '/search');
  const params = new URLSearchParams(query);
  assert.equal(params.get('x'), '0');
  assert.equal(params.get('a'), '1');
  assert.equal(params.get('b'), 'two words');
  assert.equal(params.get('c'), 'a&b=c');
  assert.equal(req.method, 'GET', 'query items do not make a body');
  assert.equal(req.body.length, 0);
});

test('repeated query items are all sent', async (t) => {
  const req = await sent(t, (u) => [`${u}/`, 'tag==a', 'tag==b']);
  assert.deepEqual(new URLSearchParams(req.url.split('?')[1]).getAll('tag'), ['a', 'b']);
});

// ---- header items ---------------------------------------------------------------------------------------

test('H:v sends a header with its name as typed', async (t) => {
  const req = await sent(t, (u) => [`${u}/`, 'X-MiXeD-Case:some value', 'X-Other:1']);
  assert.ok(headerNames(req).includes('X-MiXeD-Case'), `names: ${headerNames(req).join(', ')}`);
  assert.equal(header(req, 'x-mixed-case'), 'some value');
  assert.equal(header(req, 'x-other'), '1');
});

test('H:v overrides a default header (exactly one User-Agent)', async (t) => {
  const req = await sent(t, (u) => [`${u}/`, 'User-Agent:custom-agent/9']);
  assert.deepEqual(headerValues(req.rawHeaders, 'user-agent'), ['custom-agent/9']);
});

test('Host:name overrides the Host header but still connects to the URL', async (t) => {
  const req = await sent(t, (u) => [`${u}/`, 'Host:example.test']);
  assert.deepEqual(headerValues(req.rawHeaders, 'host'), ['example.test']);
});

test('H: removes a default header', async (t) => {
  const req = await sent(t, (u) => [`${u}/`, 'User-Agent:', 'Accept-Encoding:']);
  assert.equal(header(req, 'user-agent'), undefined);
  assert.equal(header(req, 'accept-encoding'), undefined);
  assert.equal(header(req, 'accept'), '*/*', 'other defaults stay');
});

test('H; sends an empty header', async (t) => {
  const req = await sent(t, (u) => [`${u}/`, 'X-Empty;']);
  assert.deepEqual(headerValues(req.rawHeaders, 'x-empty'), ['']);
});

test('repeated header items send the header twice', async (t) => {
  const req = await sent(t, (u) => [`${u}/`, 'X-Dup:1', 'X-Dup:2']);
  assert.deepEqual(headerValues(req.rawHeaders, 'x-dup'), ['1', '2']);
});

// ---- JSON body (default) --------------------------------------------------------------------------------

test('a=1 n:=2 sends a JSON object with JSON Content-Type and Accept', async (t) => {
  const req = await sent(t, (u) => ['POST', `${u}/api`, 'a=1', 'n:=2']);
  assert.equal(req.method, 'POST');
  assert.deepEqual(json(req), { a: '1', n: 2 });
  assert.match(header(req, 'content-type') ?? '', /^application\/json\b/);
  assert.equal(header(req, 'accept'), 'application/json, */*;q=0.5');
  assert.equal(header(req, 'content-length'), String(req.body.length));
});

test(':= accepts any raw JSON value', async (t) => {
  const req = await sent(t, (u) => [`${u}/`, 'obj:={"x":[1,2,{"y":null}]}', 'yes:=true', 'no:=false', 'nil:=null', 'f:=-1.5e3', 'list:=["a",1]', 'uni=héllo ✓']);
  assert.deepEqual(json(req), {
    obj: { x: [1, 2, { y: null }] },
    yes: true,
    no: false,
    nil: null,
    f: -1500,
    list: ['a', 1],
    uni: 'héllo ✓',
  });
});

test('nested keys build objects and arrays', async (t) => {
  const req = await sent(t, (u) => [`${u}/`, 'user[name]=ann', 'user[age]:=30', 'tags[]=x', 'tags[]=y']);
  assert.deepEqual(json(req), { user: { name: 'ann', age: 30 }, tags: ['x', 'y'] });
});

test('backslash escapes a separator in a key', async (t) => {
  const req = await sent(t, (u) => [`${u}/`, 'a\\=b=c', 'plain=v']);
  assert.deepEqual(json(req), { 'a=b': 'c', plain: 'v' });
});

test('backslash escapes a header separator', async (t) => {
  const req = await sent(t, (u) => [`${u}/`, 'x\\:y=z']);
  assert.deepEqual(json(req), { 'x:y': 'z' });
});

// ---- files ----------------------------------------------------------------------------------------------

test('a=@file embeds a text file as a string field', async (t) => {
  const dir = tempDir(t);
  writeFileSync(join(dir, 'note.txt'), 'line1\nline2');
  const req = await sent(t, (u) => [`${u}/`, `note=@${join(dir, 'note.txt')}`]);
  assert.deepEqual(json(req), { note: 'line1\nline2' });
});

test('a:=@file.json embeds parsed JSON', async (t) => {
  const dir = tempDir(t);
  writeFileSync(join(dir, 'cfg.json'), '{"deep": {"k": [1, true]}}\n');
  const req = await sent(t, (u) => [`${u}/`, `cfg:=@${join(dir, 'cfg.json')}`, 'x=1']);
  assert.deepEqual(json(req), { cfg: { deep: { k: [1, true] } }, x: '1' });
});

test('@file.json sends the file as the body with Content-Type application/json', async (t) => {
  const dir = tempDir(t);
  const content = '[ {"raw": "exact bytes"} ,1 ]\n';
  writeFileSync(join(dir, 'body.json'), content);
  const req = await sent(t, (u) => [`${u}/upload`, `@${join(dir, 'body.json')}`]);
  assert.equal(req.method, 'POST');
  assert.equal(req.body.toString('utf8'), content);
  assert.match(header(req, 'content-type') ?? '', /^application\/json\b/);
});

test('@file.txt (relative to cwd) sends the file with Content-Type text/plain', async (t) => {
  const dir = tempDir(t);
  writeFileSync(join(dir, 'hello.txt'), 'plain text body\n');
  const req = await sent(t, (u) => ['PUT', `${u}/f`, '@hello.txt'], dir);
  assert.equal(req.method, 'PUT');
  assert.equal(req.body.toString('utf8'), 'plain text body\n');
  assert.match(header(req, 'content-type') ?? '', /^text\/plain\b/);
});

test('f@file uploads as multipart/form-data together with fields', async (t) => {
  const dir = tempDir(t);
  const bytes = Buffer.from([0x00, 0x01, 0x02, 0xff, 0x0d, 0x0a, 0x41]);
  writeFileSync(join(dir, 'data.bin'), bytes);
  const req = await sent(t, (u) => [`${u}/up`, `file@${join(dir, 'data.bin')}`, 'title=report']);
  assert.equal(req.method, 'POST');
  const ct = header(req, 'content-type') ?? '';
  const m = /^multipart\/form-data;\s*boundary="?([^";]+)"?/.exec(ct);
  assert.ok(m, `Content-Type should be multipart/form-data with a boundary, got ${ct}`);
  const boundary = m[1];
  const body = req.body;
  const text = body.toString('latin1');
  assert.ok(text.startsWith(`--${boundary}\r\n`), 'body starts with the boundary');
  assert.ok(text.includes(`\r\n--${boundary}--`), 'body has the closing boundary');
  assert.match(text, /Content-Disposition: form-data; name="title"\r\n(?:[^\r\n]+\r\n)*\r\nreport\r\n/i);
  assert.match(text, /Content-Disposition: form-data; name="file"; filename="data\.bin"/i);
  // The file's bytes appear verbatim, followed by CRLF and a boundary.
  const at = body.indexOf(Buffer.concat([bytes, Buffer.from(`\r\n--${boundary}`)]));
  assert.ok(at > 0, 'file bytes must appear verbatim in the multipart body');
});

// ---- forms --------------------------------------------------------------------------------------------------

test('--form sends application/x-www-form-urlencoded', async (t) => {
  const req = await sent(t, (u) => ['--form', `${u}/form`, 'a=1', 'b=x y&z']);
  assert.equal(req.method, 'POST');
  assert.match(header(req, 'content-type') ?? '', /^application\/x-www-form-urlencoded\b/);
  const params = new URLSearchParams(req.body.toString('utf8'));
  assert.deepEqual(
    [...params],
    [
      ['a', '1'],
      ['b', 'x y&z'],
    ],
  );
});

test('-f may come after the URL and items (flags anywhere)', async (t) => {
  const req = await sent(t, (u) => [`${u}/form`, 'a=1', '-f']);
  assert.match(header(req, 'content-type') ?? '', /^application\/x-www-form-urlencoded\b/);
  assert.equal(req.body.toString('utf8'), 'a=1');
});

test('--multipart forces multipart/form-data for plain fields', async (t) => {
  const req = await sent(t, (u) => ['--multipart', `${u}/mp`, 'field=value']);
  const ct = header(req, 'content-type') ?? '';
  assert.match(ct, /^multipart\/form-data;\s*boundary=/);
  assert.match(req.body.toString('utf8'), /Content-Disposition: form-data; name="field"\r\n(?:[^\r\n]+\r\n)*\r\nvalue\r\n/i);
});

// The last of --json/--form/--multipart wins (as in HTTPie, where they set one request type), and
// the body, Content-Type and Accept always agree with it.
const FORM_CT = /^application\/x-www-form-urlencoded\b/;
for (const [flags, want] of [
  [['-j', '-f'], 'form'],
  [['-f', '-j'], 'json'],
  [['-jf'], 'form'],
  [['-fj'], 'json'],
  [['--json', '--multipart'], 'multipart'],
  [['--multipart', '-j'], 'json'],
  [['--multipart', '--form'], 'form'],
  [['-f', '--multipart'], 'multipart'],
  [['-j', '-f', '--no-form'], 'json'],
  [['-f', '-j', '--no-json'], 'json'],
  [['-j', '--no-json', '-f'], 'form'],
] as const) {
  test(`${flags.join(' ')} sends ${want}: the last of --json/--form/--multipart wins`, async (t) => {
    const req = await sent(t, (u) => [...flags, 'POST', `${u}/x`, 'a=1']);
    const ct = header(req, 'content-type') ?? '';
    if (want === 'form') {
      assert.match(ct, FORM_CT);
      assert.equal(req.body.toString('utf8'), 'a=1');
      assert.equal(header(req, 'accept'), '*/*');
    } else if (want === 'json') {
      assert.equal(ct, 'application/json');
      assert.deepEqual(json(req), { a: '1' });
      assert.equal(header(req, 'accept'), 'application/json, */*;q=0.5');
    } else {
      assert.match(ct, /^multipart\/form-data; boundary=/);
      assert.match(req.body.toString('utf8'), /name="a"\r\n\r\n1\r\n/);
      assert.equal(header(req, 'accept'), '*/*');
    }
  });
}

test("--json in the config file's default_options, -f on the line: a form", async (t) => {
  const cfg = tempDir(t);
  writeFileSync(join(cfg, 'config.json'), JSON.stringify({ default_options: ['--json'] }));
  const srv = await httpServer(t, okText);
  const r = await runSling(['-f', 'POST', `${srv.url}/x`, 'a=1'], { env: { SLING_CONFIG_DIR: cfg } });
  assertExit(r, 0);
  const req = srv.requests[0]!;
  assert.match(header(req, 'content-type') ?? '', FORM_CT);
  assert.equal(req.body.toString('utf8'), 'a=1');
});

// ---- raw body and `--` --------------------------------------------------------------------------------------

test('--raw TEXT sends TEXT as the body (POST by default)', async (t) => {
  const req = await sent(t, (u) => ['--raw', 'hello raw <world>', `${u}/raw`]);
  assert.equal(req.method, 'POST');
  assert.equal(req.body.toString('utf8'), 'hello raw <world>');
});

test('-- ends flags: later arguments are items even if they look like flags', async (t) => {
  const req = await sent(t, (u) => [`${u}/`, '--', '-a=1', '--form=no']);
  assert.equal(req.method, 'POST');
  assert.deepEqual(json(req), { '-a': '1', '--form': 'no' });
  assert.equal(header(req, 'authorization'), undefined);
});

// ---- --compress ---------------------------------------------------------------------------------------

test("--compress deflates the body with zlib's own bytes (as HTTPie), only when that is smaller", async (t) => {
  const dir = tempDir(t);
  const xml = '<?xml version="1.0"?>\n<order><line sku="7">two</line><line sku="8">three</line></order>\n';
  writeFileSync(join(dir, 'order.xml'), xml);
  writeFileSync(join(dir, 'small.json'), '{"a": "1"}');
  // What Python's zlib.compress() makes of order.xml (72 bytes; Node's own zlib makes 73 others).
  const zlibBytes = '789cb3b1afc8cd51284b2d2acecccfb35532d43350b2b7e3b2c92f4a492db2b3c9c9cc4b5528ce2eb5553257b22b29cfb7d10789208b5b00c5338a52536132fa109d5c00f4d81c9e';
  const req = await sent(t, (u) => ['--compress', 'POST', `${u}/c`, '@order.xml'], dir);
  assert.equal(header(req, 'content-encoding'), 'deflate');
  assert.equal(header(req, 'content-length'), '72');
  assert.equal(req.body.toString('hex'), zlibBytes);
  // 10 bytes do not get smaller: sent as they are; --compress twice deflates anyway.
  const small = await sent(t, (u) => ['--compress', 'POST', `${u}/s`, '@small.json'], dir);
  assert.equal(header(small, 'content-encoding'), undefined);
  assert.equal(small.body.toString(), '{"a": "1"}');
  const forced = await sent(t, (u) => ['--compress', '--compress', 'POST', `${u}/f`, '@small.json'], dir);
  assert.equal(header(forced, 'content-encoding'), 'deflate');
  assert.equal(forced.body.toString('hex'), '789cab564a54b252503254aa05000dd8026d');
});

test('credentials in the URL are sent as Basic: as written by the main command (HTTPie), decoded in .http files (curl)', async (t) => {
  const srv = await httpServer(t, okText);
  const port = srv.url.split(':').pop();
  const url = `http://us%40er:p%3Aw@127.0.0.1:${port}/cred`;
  const r = await runSling([url]);
  assertExit(r, 0);
  const dir = tempDir(t);
  writeFileSync(join(dir, 'c.http'), `GET ${url}\n\n###\nGET ${url}\nAuthorization: Bearer own\n`);
  const e = await runSling(['exec', 'c.http'], { cwd: dir });
  assertExit(e, 0);
  const expected = 'Basic ' + Buffer.from('us@er:p:w').toString('base64');
  assert.deepEqual(
    srv.requests.map((q) => header(q, 'authorization')),
    ['Basic ' + Buffer.from('us%40er:p%3Aw').toString('base64'), expected, 'Bearer own'],
    show(e),
  );
});

test('the main command writes the same head bytes over a Unix socket, as HTTP/1.0, through a plain proxy, and with a streamed stdin body', async (t) => {
  const net = await import('node:net');
  const heads: string[] = [];
  const onSocket = (socket: import('node:net').Socket) => {
    socket.on('error', () => {});
    let buf = '';
    socket.on('data', (d: Buffer) => {
      buf += d.toString('latin1');
      const end = buf.indexOf('\r\n\r\n');
      if (end === -1) return;
      const length = Number(/\r\ncontent-length: *(\d+)/i.exec(buf.slice(0, end))?.[1] ?? 0);
      if (buf.length < end + 4 + length) return;
      heads.push(buf.slice(0, end + 4));
      buf = '';
      socket.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok');
    });
  };
  const dir = mkdtempSync(join(tmpdir(), 'sling-wire-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const tcp = net.createServer(onSocket);
  const unix = net.createServer(onSocket);
  await new Promise<void>((r) => tcp.listen(0, '127.0.0.1', r));
  await new Promise<void>((r) => unix.listen(join(dir, 's.sock'), r));
  t.after(() => {
    tcp.close();
    unix.close();
  });
  const host = `127.0.0.1:${(tcp.address() as import('node:net').AddressInfo).port}`;
  const common = `User-Agent: sling/${VERSION}\r\nAccept-Encoding: gzip, deflate, br\r\n`;
  const cases: [string[], string, (string | Buffer)?][] = [
    [['--unix-socket', join(dir, 's.sock'), 'GET', 'http://example.test/unix'], `GET /unix HTTP/1.1\r\nHost: example.test\r\n${common}Accept: */*\r\nConnection: keep-alive\r\n\r\n`],
    [['--http-version', '1.0', 'GET', `http://${host}/ten`], `GET /ten HTTP/1.0\r\nHost: ${host}\r\n${common}Accept: */*\r\nConnection: keep-alive\r\n\r\n`],
    [
      ['--proxy', `http:http://${host}`, 'GET', 'http://example.test/viaproxy', 'X-A:1'],
      `GET http://example.test/viaproxy HTTP/1.1\r\nHost: example.test\r\n${common}Accept: */*\r\nConnection: keep-alive\r\nX-A: 1\r\n\r\n`,
    ],
    [
      ['POST', `http://${host}/stdin`],
      `POST /stdin HTTP/1.1\r\nHost: ${host}\r\n${common}Accept: application/json, */*;q=0.5\r\nConnection: keep-alive\r\nContent-Type: application/json\r\nContent-Length: 2097152\r\n\r\n`,
      Buffer.alloc(2 * 1024 * 1024, 120),
    ],
  ];
  for (const [args, head, stdin] of cases) {
    heads.length = 0;
    const r = await runSling(args, { stdin });
    assertExit(r, 0);
    assert.deepEqual(heads, [head], show(r));
  }
});
