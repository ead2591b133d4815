// `sling --curl` and `sling exec --to curl|http`: the converted command or file sends the same
// request — through real curl (when installed) and through sling again (the round trip).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runSling } from '../helpers/cli.js';
import { curlMissing, diffRequests, startCurlCapture, withoutHeader, type KnownDifference, type RawRequest, runBash } from '../helpers/curl-capture.js';
import { runOnTty, ttySkipReason } from '../helpers/tty.js';

const home = mkdtempSync(join(tmpdir(), 'sling-curl-home-'));
const noCurl = curlMissing();

const bash = (dir: string, file: string) => runBash(dir, file, home);

/** `X-E;` (an empty header): the main command sends `X-E: ` (node:http's blank before an empty value), curl and a curl file `X-E:`. */
const EMPTY_HEADER: KnownDifference[] = [{ header: 'X-E', kind: 'blanks', why: "the main command's node:http lane writes an empty header as 'X-E: ', curl as 'X-E:'" }];

test('sling --curl: the printed command sends the request sling sends (with curl, and read back by sling exec)', async (t) => {
  const srv = await startCurlCapture();
  t.after(() => srv.close());
  const invocations: string[][] = [
    ['POST', `${srv.url}/users`, 'name=Ada', 'age:=36', 'X-Trace:on'],
    ['-f', 'PUT', `${srv.url}/form`, 'a=b c', 'q==x y', 'Accept:', 'X-E;'],
    ['--raw', 'it\'s "raw"\r\n\ttabbed', `${srv.url}/raw`],
    ['HEAD', `${srv.url}/head`],
    // No body: sling states `Content-Length: 0` (as HTTPie), curl only when told.
    ['DELETE', `${srv.url}/gone`],
    ['PATCH', `${srv.url}/odd/{x}/[y]`, 'multi:=["a",1]'],
    ['-a', 'user:pa ss', `${srv.url}/auth`, 'User-Agent:agent/1'],
  ];
  const dir = mkdtempSync(join(tmpdir(), 'sling-curl-rt-'));
  for (const args of invocations) {
    srv.requests.length = 0;
    const direct = await runSling(args, { cwd: dir });
    assert.equal(direct.code, 0, direct.stderr);
    const sent = srv.requests.splice(0);
    const printed = await runSling(['--curl', ...args], { cwd: dir });
    assert.equal(printed.code, 0, printed.stderr);
    assert.equal(srv.requests.length, 0, '--curl sends nothing');
    writeFileSync(join(dir, 'cmd.sh'), printed.stdout);
    const back = await runSling(['exec', 'cmd.sh'], { cwd: dir, env: { HOME: home } });
    assert.equal(back.code, 0, back.stderr);
    assert.deepEqual(diffRequests(sent, srv.requests.splice(0), EMPTY_HEADER), [], `sling exec of:\n${printed.stdout}`);
    if (!noCurl) {
      assert.equal(await bash(dir, 'cmd.sh'), 0);
      assert.deepEqual(diffRequests(sent, srv.requests.splice(0), EMPTY_HEADER), [], `curl running:\n${printed.stdout}`);
    }
  }
});

test('sling --curl for a response that may be compressed: the printed command has --compressed, sends the same Accept-Encoding and prints the decoded body', {
  skip: noCurl,
}, async (t) => {
  const { gzipSync } = await import('node:zlib');
  const { startHttp, headerValues } = await import('../helpers/servers.js');
  const text = 'smart text, '.repeat(50) + '\n';
  const srv = await startHttp((req, res) => {
    const gzip = /gzip/.test(req.headers['accept-encoding'] ?? '');
    res.writeHead(200, { 'Content-Type': 'text/plain', ...(gzip ? { 'Content-Encoding': 'gzip' } : {}) });
    res.end(gzip ? gzipSync(text) : text);
  });
  t.after(() => srv.close());
  const dir = mkdtempSync(join(tmpdir(), 'sling-curl-gz-'));
  const direct = await runSling(['--body', `${srv.url}/text`], { cwd: dir });
  assert.equal(direct.stdout, text);
  const printed = await runSling(['--curl', `${srv.url}/text`], { cwd: dir });
  assert.equal(printed.code, 0, printed.stderr);
  assert.match(printed.stdout, /--compressed/);
  writeFileSync(join(dir, 'gz.sh'), printed.stdout);
  const out = await new Promise<Buffer>((resolve, reject) => {
    const child = spawn('bash', ['gz.sh'], { cwd: dir, env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home }, stdio: ['ignore', 'pipe', 'ignore'] });
    const chunks: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => chunks.push(c));
    child.on('error', reject);
    child.on('close', () => resolve(Buffer.concat(chunks)));
  });
  assert.equal(out.toString('latin1'), text, `curl running:\n${printed.stdout}`);
  const [bySling, byCurl] = srv.requests.map((r) => headerValues(r.rawHeaders, 'accept-encoding'));
  assert.deepEqual(byCurl, bySling);
  assert.deepEqual(bySling, ['gzip, deflate, br']);
  // A download asks for identity: nothing to decode, no --compressed.
  const download = await runSling(['--curl', '-d', `${srv.url}/text`], { cwd: dir });
  assert.doesNotMatch(download.stdout, /--compressed/);
});

test('sling --curl of a download (-d, -o FILE, -C): curl running the printed command writes the file sling writes', { skip: noCurl }, async (t) => {
  const { startHttp } = await import('../helpers/servers.js');
  const data = Buffer.from(Array.from({ length: 150_000 }, (_, i) => (i * 7) % 251));
  // Range honoured (206), and a file name in Content-Disposition for /named.
  const srv = await startHttp((req, res) => {
    const named = req.url === '/files/named' ? { 'Content-Disposition': 'attachment; filename="report.bin"' } : {};
    const m = /^bytes=(\d+)-$/.exec(req.headers.range ?? '');
    const start = m ? Number(m[1]) : 0;
    if (m) res.writeHead(206, { 'Content-Type': 'application/octet-stream', 'Content-Range': `bytes ${start}-${data.length - 1}/${data.length}`, ...named });
    else res.writeHead(200, { 'Content-Type': 'application/octet-stream', ...named });
    res.end(data.subarray(start));
  });
  t.after(() => srv.close());
  const { readFileSync, readdirSync } = await import('node:fs');
  const cases: { args: string[]; file: string; partial?: number }[] = [
    { args: ['-d', `${srv.url}/files/named`], file: 'report.bin' },
    { args: ['-d', `${srv.url}/files/plain.bin`], file: 'plain.bin' },
    { args: ['-d', '-o', 'out.bin', `${srv.url}/files/named`], file: 'out.bin' },
    { args: ['-d', '-o', 'part.bin', '-C', `${srv.url}/files/plain.bin`], file: 'part.bin', partial: 40_000 },
  ];
  for (const { args, file, partial } of cases) {
    const bySling = mkdtempSync(join(tmpdir(), 'sling-curl-dl-'));
    const byCurl = mkdtempSync(join(tmpdir(), 'sling-curl-dl-'));
    if (partial) for (const dir of [bySling, byCurl]) writeFileSync(join(dir, file), data.subarray(0, partial));
    const direct = await runSling(args, { cwd: bySling });
    assert.equal(direct.code, 0, direct.stderr);
    const printed = await runSling(['--curl', ...args], { cwd: byCurl });
    assert.equal(printed.code, 0, printed.stderr);
    writeFileSync(join(byCurl, 'cmd.sh'), printed.stdout);
    assert.equal(await bash(byCurl, 'cmd.sh'), 0, printed.stdout);
    assert.deepEqual(
      readdirSync(byCurl).filter((n) => n !== 'cmd.sh'),
      readdirSync(bySling),
      printed.stdout,
    );
    assert.ok(readFileSync(join(bySling, file)).equals(data), `sling's ${file}`);
    assert.ok(readFileSync(join(byCurl, file)).equals(data), `curl's ${file}, running:\n${printed.stdout}`);
    if (partial) assert.equal(srv.requests.at(-1)!.rawHeaders.includes(`bytes=${partial}-`), true, 'curl resumed');
  }
});

test('sling exec --to curl and --to http: converted files send the same requests', async (t) => {
  const srv = await startCurlCapture();
  t.after(() => srv.close());
  const dir = mkdtempSync(join(tmpdir(), 'sling-curl-conv-'));
  writeFileSync(join(dir, 'blob.bin'), Buffer.from([0, 1, 2, 0xff, 0x0d, 0x0a]));
  writeFileSync(
    join(dir, 'calls.curl'),
    [
      `TOKEN=abc`,
      `curl -X PATCH ${srv.url}/p -H "Authorization: Bearer $TOKEN" -F a=b -F 'f=@blob.bin;type=application/x-thing'`,
      `curl -G -d q=1 --data-urlencode 'w=a b' ${srv.url}/g -H 'Accept:'`,
      `curl --data-binary @blob.bin ${srv.url}/bin`,
      `curl --json '{"a": [1, 2]}' ${srv.url}/json -A ''`,
    ].join('\n'),
  );
  const run = async (file: string): Promise<RawRequest[]> => {
    const r = await runSling(['exec', '--type', file.endsWith('.http') ? 'http' : 'curl', file], { cwd: dir, env: { HOME: home } });
    assert.equal(r.code, 0, r.stderr);
    return srv.requests.splice(0);
  };
  const original = await run('calls.curl');
  assert.equal(original.length, 4);

  const toCurl = await runSling(['exec', '--to', 'curl', 'calls.curl'], { cwd: dir, env: { HOME: home } });
  assert.equal(toCurl.code, 0, toCurl.stderr);
  assert.equal(srv.requests.length, 0, '--to sends nothing');
  writeFileSync(join(dir, 'converted.sh'), toCurl.stdout);
  // Multipart boundaries are new on every build: compare them away. A known difference: --to curl
  // writes the body's type as `-H 'Content-Type: ...'`, which curl sends before Content-Length,
  // where `-F` and `-d` put it after.
  const typeMoves: KnownDifference[] = [{ header: 'Content-Type', kind: 'place', why: "--to curl turns -F/-d's Content-Type into -H, which curl sends before Content-Length" }];
  assert.deepEqual(diffRequests(original, await run('converted.sh'), typeMoves), []);
  if (!noCurl) {
    assert.equal(await bash(dir, 'converted.sh'), 0);
    assert.deepEqual(diffRequests(original, srv.requests.splice(0), typeMoves), []);
  }

  const toHttp = await runSling(['exec', '--to', 'http', 'calls.curl'], { cwd: dir, env: { HOME: home } });
  assert.equal(toHttp.code, 0, toHttp.stderr);
  assert.match(toHttp.stderr, /not text and was left out/);
  writeFileSync(join(dir, 'converted.http'), toHttp.stdout);
  const viaHttp = await run('converted.http');
  // The binary bodies cannot live in a .http file; the JSON request and the GET come through.
  const key = (q: RawRequest) => `${q.method} ${q.target} ${q.body.toString('latin1')}`;
  assert.deepEqual(
    viaHttp.map(key).filter((k) => k.includes('/g?') || k.includes('/json')),
    original.map(key).filter((k) => k.includes('/g?') || k.includes('/json')),
  );
});

test('sling exec --to http warns about what a .http file cannot hold: a final line break, a literal {{, a redirect limit', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sling-curl-conv-'));
  writeFileSync(join(dir, 'up.txt'), 'upload content\n');
  writeFileSync(
    join(dir, 'c.sh'),
    [
      `curl --data-binary $'a\\n' http://127.0.0.1:9/nl`,
      `curl -g 'http://127.0.0.1:9/t?q={{x}}'`,
      `curl -L --max-redirs 1 http://127.0.0.1:9/r`,
      `curl -F g=@up.txt http://127.0.0.1:9/f`,
      `curl -d 'x=1' http://127.0.0.1:9/fine`,
      `curl -H 'Bad Name: v' -H 'X-Ok: 1' http://127.0.0.1:9/badname`,
      `curl --data-binary $'a\\n>> saved.txt\\n?? status == 500\\n\\nPOST http://127.0.0.1:9/x\\nb' -H 'Content-Type: text/plain' http://127.0.0.1:9/syntax`,
      `curl --data-binary $'\\n\\nabc' -H 'Content-Type: text/plain' http://127.0.0.1:9/lead`,
      `curl -d 'q=a = b & c=d ' http://127.0.0.1:9/form`,
      `curl --data-binary $'x\\n\\nWS ws://h/x\\nmore' -H 'Content-Type: text/plain' http://127.0.0.1:9/ws`,
      `curl --data-binary $'GET http://h/x\\nmore' -H 'Content-Type: text/plain' http://127.0.0.1:9/first`,
      `curl --data-binary $'a\\n\\n@x = 1\\n# c\\n\\n@y=2\\nz' -H 'Content-Type: text/plain' http://127.0.0.1:9/var`,
    ].join('\n'),
  );
  const r = await runSling(['exec', '--to', 'http', 'c.sh'], { cwd: dir, env: { HOME: home } });
  assert.equal(r.code, 0, r.stderr);
  // A header name curl sends as written but a .http file cannot hold: left out, and the file reads back.
  assert.match(r.stderr, /\/badname \(line 6\): the header 'Bad Name' is not a valid header name, which a \.http file cannot carry: left out/);
  assert.doesNotMatch(r.stdout, /Bad Name/);
  assert.match(r.stdout, /GET http:\/\/127\.0\.0\.1:9\/badname\n(.+\n)*X-Ok: 1\n/);
  writeFileSync(join(dir, 'back.http'), r.stdout);
  const back = await runSling(['exec', '--offline', 'back.http'], { cwd: dir, env: { HOME: home } });
  assert.equal(back.code, 0, back.stderr);
  assert.match(r.stderr, /sling: warning: 2 requests \(lines 1, 4\): the body's final line break is dropped/);
  assert.match(r.stderr, /\(line 2\): '\{\{' would be read as a variable placeholder/);
  assert.match(r.stderr, /\/r \(line 3\): a limit of 1 redirects has no place in a \.http file/);
  assert.match(r.stderr, /\/f \(line 4\): a multipart part that ends with a line break loses it/);
  assert.doesNotMatch(r.stderr, /\/fine \(line 5\): (?!a \.http runner adds Accept-Encoding)/);
  // Body lines a .http runner would read as syntax are indented (and said), so the file still reads
  // back as the same requests: nothing saved, no assertion, no extra request.
  // Said once for the four requests it concerns (/syntax, /ws, /first, /var), with their lines.
  assert.match(r.stderr, /sling: warning: 4 requests \(lines 7, 10, 11, 12\): body lines that a \.http runner would read as syntax .* were indented/);
  assert.match(r.stdout, /\na\n >> saved\.txt\n \?\? status == 500\n\n POST http:\/\/127\.0\.0\.1:9\/x\nb\n/);
  assert.equal((back.stdout.match(/^### /gm) ?? []).length, 12, back.stdout);
  // A paragraph of `@name = value` lines would be file variables: indented, kept body.
  assert.match(r.stdout, /\na\n\n @x = 1\n# c\n\n@y=2\nz(\n|$)/);
  assert.match(back.stdout, /\na\n\n @x = 1\n# c\n\n@y=2\nz(\n|$)/);
  assert.match(r.stdout, /\nx\n\n WS ws:\/\/h\/x\nmore\n/);
  assert.match(r.stdout, /\n\n GET http:\/\/h\/x\nmore\n/);
  assert.doesNotMatch(back.stderr, /not supported/);
  assert.match(r.stderr, /\/lead \(line 8\): blank lines at the start of the body are dropped/);
  assert.match(r.stderr, /sling: warning: 2 requests \(lines 1, 9\): a form body with line breaks or blanks around = and & is sent differently/);
});

test('exec --to http says a warning once with the number of requests it concerns, and writes no User-Agent the source did not have', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sling-curl-conv-'));
  writeFileSync(join(dir, 'c.sh'), [1, 2, 3].map((n) => `curl http://127.0.0.1:9/${n}`).join('\n') + `\ncurl -A agent/1 http://127.0.0.1:9/own\n`);
  writeFileSync(join(dir, 'h.http'), 'GET http://127.0.0.1:9/a\n\n###\nGET http://127.0.0.1:9/b\nUser-Agent: mine/2\n');
  const c = await runSling(['exec', '--to', 'http', 'c.sh'], { cwd: dir, env: { HOME: home } });
  assert.equal(c.code, 0, c.stderr);
  assert.equal(c.stderr, 'sling: warning: 4 requests (lines 1, 2, 3, 4): a .http runner adds Accept-Encoding\n');
  assert.deepEqual(c.stdout.match(/^User-Agent: .*$/gm), ['User-Agent: agent/1']);
  const h = await runSling(['exec', '--to', 'http', 'h.http'], { cwd: dir, env: { HOME: home } });
  assert.equal(h.code, 0, h.stderr);
  assert.deepEqual(h.stdout.match(/^User-Agent: .*$/gm), ['User-Agent: mine/2']);
  // Read back, the requests still carry a User-Agent: the runner's own.
  writeFileSync(join(dir, 'back.http'), c.stdout);
  const back = await runSling(['exec', '--offline', 'back.http'], { cwd: dir, env: { HOME: home } });
  assert.equal(back.code, 0, back.stderr);
  assert.equal((back.stdout.match(/^User-Agent: sling\//gm) ?? []).length, 3, back.stdout);
});

test("--to http keeps a curl -g target byte for byte (# @no-auto-encoding) and a command's cookies its own (# @no-cookie-jar); --curl pipes a large body through printf", async (t) => {
  const srv = await startCurlCapture();
  t.after(() => srv.close());
  const dir = mkdtempSync(join(tmpdir(), 'sling-conv-'));
  writeFileSync(join(dir, 'c.sh'), `curl -g '${srv.url}/set-cookie/{x}/"q"?t=%zz'\ncurl ${srv.url}/after\n`);
  const direct = await runSling(['exec', 'c.sh'], { cwd: dir, env: { HOME: home } });
  assert.equal(direct.code, 0, direct.stderr);
  const sent = srv.requests.splice(0);
  const conv = await runSling(['exec', '--to', 'http', 'c.sh'], { cwd: dir, env: { HOME: home } });
  assert.equal(conv.code, 0, conv.stderr);
  assert.match(conv.stdout, /# @no-auto-encoding\nGET [^\n]*\/set-cookie\/\{x\}\/"q"\?t=%zz\n/);
  assert.equal((conv.stdout.match(/# @no-cookie-jar/g) ?? []).length, 2);
  writeFileSync(join(dir, 'c.http'), conv.stdout);
  const back = await runSling(['exec', 'c.http'], { cwd: dir, env: { HOME: home } });
  assert.equal(back.code, 0, back.stderr);
  const again = srv.requests.splice(0);
  assert.deepEqual(
    again.map((q) => q.target),
    sent.map((q) => q.target),
  );
  assert.equal(
    again[1]!.headers.some(([n]) => n.toLowerCase() === 'cookie'),
    false,
    'the cookie of the first command stays there',
  );

  writeFileSync(join(dir, 'big.txt'), 'a'.repeat(140_000));
  const printed = await runSling(['--curl', 'POST', `${srv.url}/big`, '@big.txt'], { cwd: dir });
  assert.equal(printed.code, 0, printed.stderr);
  assert.match(printed.stdout, /^printf -- '/, 'not one --data-raw argument over the 128 kB limit');
  writeFileSync(join(dir, 'big.sh'), printed.stdout);
  const viaSling = await runSling(['exec', 'big.sh'], { cwd: dir, env: { HOME: home } });
  assert.equal(viaSling.code, 0, viaSling.stderr);
  assert.equal(srv.requests.splice(0)[0]!.body.length, 140_000);
  if (!noCurl) {
    assert.equal(await bash(dir, 'big.sh'), 0);
    assert.equal(srv.requests.splice(0)[0]!.body.length, 140_000);
  }
});

test('time limits survive conversion: # @timeout / # @connection-timeout to curl options, curl -m / --connect-timeout to directives', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sling-curl-conv-'));
  writeFileSync(join(dir, 't.http'), '### a\n# @timeout 5\n# @connection-timeout 2\nGET http://127.0.0.1:9/a\n\n### b\n# @connection-timeout 1.5\nGET http://127.0.0.1:9/b\n');
  writeFileSync(join(dir, 'c.sh'), 'curl -m 7 --connect-timeout 2 http://127.0.0.1:9/x\n');
  const curl = await runSling(['exec', '--to', 'curl', 't.http'], { cwd: dir, env: { HOME: home } });
  assert.equal(curl.code, 0, curl.stderr);
  const [a, b] = curl.stdout.split(/\n# /).slice(1);
  assert.match(a!, /--connect-timeout 2 \\\n {2}--speed-limit 1 --speed-time 5(\n|$)/, a);
  assert.match(b!, /--connect-timeout 1\.5(\n|$)/, b);
  assert.doesNotMatch(b!, /speed-time/);
  const http = await runSling(['exec', '--to', 'http', 'c.sh'], { cwd: dir, env: { HOME: home } });
  assert.equal(http.code, 0, http.stderr);
  assert.match(http.stdout, /\n# @timeout 7000 ms\n# @connection-timeout 2000 ms\n/);
  assert.match(http.stderr, /-m 7 limits the whole transfer, which no \.http directive does: written as # @timeout/);
  const back = await runSling(['exec', '--to', 'curl', 'c.sh'], { cwd: dir, env: { HOME: home } });
  assert.match(back.stdout, /--connect-timeout 2 \\\n {2}-m 7\n/);
});

/** A .http request whose URL, header and body hold a bidirectional control (U+202E) and a C1 control (U+009B, CSI). */
function hostileHttp(url: string): string {
  return `GET ${url}/a\u202eb?x=\u009b\nX-A: evil\u202etxt.exe \u009b31m\nContent-Type: text/plain\n\nbody\u202e\u009b\n`;
}
const RAW_CONTROLS = /[\u0080-\u009f\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]/;

test('exec --to curl|http on a terminal shows bidirectional and C1 controls from the file as escapes, as --offline does', { skip: ttySkipReason }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sling-conv-tty-'));
  writeFileSync(join(dir, 'c.http'), hostileHttp('http://127.0.0.1:9'));
  for (const to of ['curl', 'http']) {
    const r = await runOnTty(['exec', '--to', to, join(dir, 'c.http')]);
    assert.equal(r.code, 0, r.out);
    assert.doesNotMatch(r.out, RAW_CONTROLS, `--to ${to} on a terminal: ${JSON.stringify(r.out)}`);
    assert.match(r.out, to === 'curl' ? /-H \$'X-A: evil\\xe2\\x80\\xaetxt\.exe \\xc2\\x9b31m'/ : /^X-A: evil\\u202etxt\.exe \\x9b31m$/m, r.out);
    assert.match(r.out, /a\\u202eb\?x=\\x9b \(line 1\)/, 'the title comment');
  }
  // The same file under --offline: the printer's escapes.
  const offline = await runOnTty(['exec', '--offline', join(dir, 'c.http')]);
  assert.match(offline.out, /^X-A: evil\\u202etxt\.exe \\x9b31m$/m, offline.out);
});

test('exec --to curl piped writes those controls in bash`s own escapes and sends the same bytes; --to http piped keeps them as the file had them', async (t) => {
  const srv = await startCurlCapture();
  t.after(() => srv.close());
  const dir = mkdtempSync(join(tmpdir(), 'sling-conv-pipe-'));
  writeFileSync(join(dir, 'c.http'), hostileHttp(srv.url));
  // A .http request says `Connection: keep-alive` as node:http would; a curl command does not, as curl.
  const run = async (file: string): Promise<RawRequest[]> => {
    const r = await runSling(['exec', file], { cwd: dir, env: { HOME: home } });
    assert.equal(r.code, 0, r.stderr);
    return srv.requests.splice(0).map((q) => withoutHeader(q, 'Connection'));
  };
  const original = await run('c.http');
  assert.equal(original.length, 1);
  assert.ok(original[0]!.headers.some(([n, v]) => n === 'X-A' && v === Buffer.from('evil\u202etxt.exe \u009b31m', 'utf8').toString('latin1')));

  const toCurl = await runSling(['exec', '--to', 'curl', 'c.http'], { cwd: dir });
  assert.equal(toCurl.code, 0, toCurl.stderr);
  assert.doesNotMatch(toCurl.stdout, RAW_CONTROLS, toCurl.stdout);
  assert.match(toCurl.stdout, /--data-raw \$'body\\xe2\\x80\\xae\\xc2\\x9b'/);
  writeFileSync(join(dir, 'c.sh'), toCurl.stdout);
  assert.deepEqual(diffRequests(original, await run('c.sh')), []);
  if (!noCurl) {
    assert.equal(await bash(dir, 'c.sh'), 0);
    const byCurl = srv.requests.splice(0).map((q) => withoutHeader(q, 'Connection'));
    assert.deepEqual(diffRequests(original, byCurl), [], `curl running:\n${toCurl.stdout}`);
  }

  const toHttp = await runSling(['exec', '--to', 'http', 'c.http'], { cwd: dir });
  assert.equal(toHttp.code, 0, toHttp.stderr);
  assert.match(toHttp.stdout, /^X-A: evil\u202etxt\.exe \u009b31m$/m, 'piped: the text as the file had it');
  assert.match(toHttp.stdout, /^### GET .*a\\u202eb\?x=\\x9b \(line 1\)$/m, 'the title comment shows them escaped');
  writeFileSync(join(dir, 'back.http'), toHttp.stdout);
  // --to http writes no User-Agent the source did not have: the file read back gets sling's own, in the place a .http request puts it.
  const uaPlace: KnownDifference[] = [{ header: 'User-Agent', kind: 'place', why: 'sling adds its own User-Agent where a .http request puts it' }];
  assert.deepEqual(diffRequests(original, await run('back.http'), uaPlace), []);
});
