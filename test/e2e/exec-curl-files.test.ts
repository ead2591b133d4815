// curl files: what a command leaves on disk and how the script goes on, as bash running curl 7.88
// would: resumes (-C -), -J names, --remove-on-error, `> file`, set -e with && / ||, -D files,
// -O names and --output-dir. Against a loopback server; the expected results are what real curl did.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { gzipSync } from 'node:zlib';
import { spawn } from 'node:child_process';
import { runSling } from '../helpers/cli.js';
import { curlMissing, diffRequests, startCurlCapture } from '../helpers/curl-capture.js';
import { header } from '../helpers/servers.js';
import { assertError, assertExit, httpServer, show } from '../helpers/assert.js';

const FULL = Buffer.from('0123456789'.repeat(100));

function routes(req: IncomingMessage, res: ServerResponse) {
  const url = req.url ?? '/';
  if (url.startsWith('/big')) {
    // Range-aware: 416 past the end, 206 for a range, 200 otherwise.
    const m = /bytes=(\d+)-/.exec(req.headers.range ?? '');
    if (m && Number(m[1]) >= FULL.length) {
      res.writeHead(416, { 'Content-Range': `bytes */${FULL.length}` });
      res.end();
    } else if (m) {
      res.writeHead(206, { 'Content-Range': `bytes ${m[1]}-${FULL.length - 1}/${FULL.length}` });
      res.end(FULL.subarray(Number(m[1])));
    } else res.end(FULL);
  } else if (url.startsWith('/norange')) res.end('whole body');
  else if (url.startsWith('/cd') && !url.startsWith('/cdodd')) {
    res.writeHead(200, { 'Content-Disposition': 'attachment; filename="exist.txt"' });
    res.end('from the server');
  } else if (url.startsWith('/cdodd')) {
    // A name with a folder, a leading dot and a character Windows forbids; a filename* form curl 7.88 does not read.
    res.writeHead(200, { 'Content-Disposition': `attachment; filename*=UTF-8''other.txt; filename="../.hid:den.txt"` });
    res.end('odd name');
  } else if (url.startsWith('/404')) {
    res.writeHead(404);
    res.end('not here');
  } else if (url.startsWith('/echo')) res.end(url);
  else res.end('hello');
}

function dir(files: Record<string, string | Buffer> = {}): string {
  const d = mkdtempSync(join(tmpdir(), 'sling-curl-files-'));
  for (const [n, c] of Object.entries(files)) writeFileSync(join(d, n), c);
  return d;
}

test('-C -: a complete file (416) is left as it is; a server that ignores ranges does not overwrite it', async (t) => {
  const s = await httpServer(t, routes);
  const d = dir({ 'full.bin': FULL, 'p.txt': 'partial', 'half.bin': FULL.subarray(0, 400) });
  writeFileSync(join(d, 'a.sh'), `curl -s -C - -o full.bin ${s.url}/big\ncurl -s -C - -o half.bin ${s.url}/big\n`);
  assertExit(await runSling(['exec', 'a.sh'], { cwd: d }), 0);
  assert.deepEqual(readFileSync(join(d, 'full.bin')), FULL, '416: untouched');
  assert.deepEqual(readFileSync(join(d, 'half.bin')), FULL, '206: appended');
  writeFileSync(join(d, 'b.sh'), `curl -s -C - -o p.txt ${s.url}/norange\n`);
  const r = await runSling(['exec', 'b.sh'], { cwd: d });
  assertError(r, 1, /b\.sh:1:1: the server ignored the range request \(HTTP 200\): cannot resume/);
  assert.equal(readFileSync(join(d, 'p.txt'), 'utf8'), 'partial');
});

test("a curl file runs where sling runs (relative paths from sling's folder, not the file's) and its $$ is sling's process id", async (t) => {
  const s = await httpServer(t, routes);
  const d = dir({ 'body.txt': 'from the folder sling runs in' });
  mkdirSync(join(d, 'sub'));
  writeFileSync(join(d, 'sub', 'body.txt'), "from the file's folder");
  writeFileSync(join(d, 'sub', 'a.sh'), `curl -s -o one.txt "${s.url}/echo?p=$$"\ncurl -s -o two.txt "${s.url}/echo?p=\${$}"\ncurl -s -d @body.txt -o three.txt ${s.url}/echo\n`);
  let pid = 0;
  assertExit(await runSling(['exec', join('sub', 'a.sh')], { cwd: d, onSpawn: (p) => (pid = p) }), 0);
  assert.ok(pid > 0);
  assert.equal(readFileSync(join(d, 'one.txt'), 'utf8'), `/echo?p=${pid}`);
  assert.equal(readFileSync(join(d, 'two.txt'), 'utf8'), `/echo?p=${pid}`);
  assert.equal(readFileSync(join(d, 'three.txt'), 'utf8'), '/echo');
  assert.equal(s.requests.at(-1)!.body.toString(), 'from the folder sling runs in');
  assert.ok(!existsSync(join(d, 'sub', 'one.txt')));
});

test('-J -O does not overwrite an existing file; --fail-with-body --remove-on-error leaves no file', async (t) => {
  const s = await httpServer(t, routes);
  const d = dir({ 'exist.txt': 'mine' });
  writeFileSync(join(d, 'c.sh'), `curl -s -J -O ${s.url}/cd\ncurl -s --fail-with-body --remove-on-error -o roe.txt ${s.url}/404\ncurl -s --fail-with-body -o kept.txt ${s.url}/404\n`);
  const r = await runSling(['exec', 'c.sh'], { cwd: d });
  assertError(r, 1, /c\.sh:1:1: -J: 'exist\.txt' exists and is not overwritten/);
  assert.equal(readFileSync(join(d, 'exist.txt'), 'utf8'), 'mine');
  assert.equal(existsSync(join(d, 'roe.txt')), false, show(r));
  assert.equal(readFileSync(join(d, 'kept.txt'), 'utf8'), 'not here');
});

test('-J: the name from Content-Disposition is read as everywhere in sling and made a safe bare name (no folder, no dot file, no character a file system refuses); filename* is not read, as curl 7.88 does not', async (t) => {
  const s = await httpServer(t, routes);
  const d = dir();
  mkdirSync(join(d, 'sub'));
  writeFileSync(join(d, 'j.sh'), `curl -s -J -O ${s.url}/cdodd\n`);
  const r = await runSling(['exec', join('..', 'j.sh')], { cwd: join(d, 'sub') });
  assertExit(r, 0);
  assert.equal(readFileSync(join(d, 'sub', 'hid_den.txt'), 'utf8'), 'odd name', show(r));
  assert.ok(!existsSync(join(d, 'other.txt')) && !existsSync(join(d, 'sub', 'other.txt')));
  assert.ok(!existsSync(join(d, 'sub', '.hid:den.txt')) && !existsSync(join(d, '.hid:den.txt')));
});

test('`> file` is emptied when the command starts, also when it fails; a file that cannot be opened stops the command before it is sent', async (t) => {
  const s = await httpServer(t, routes);
  const d = dir({ 'out.txt': 'old content' });
  writeFileSync(join(d, 'r.sh'), `curl -sf ${s.url}/404 > out.txt\ncurl -s ${s.url}/never > /nonexistent-dir/x\ncurl -s ${s.url}/piped | cat > piped.txt\n`);
  const r = await runSling(['exec', 'r.sh'], { cwd: d });
  assert.equal(readFileSync(join(d, 'out.txt'), 'utf8'), '', show(r));
  assert.match(r.stderr, /r\.sh:2:1: cannot open '\/nonexistent-dir\/x' for the command's output: no such file or folder; the command is not run/);
  assert.ok(!s.requests.some((q) => q.url === '/never'), 'not sent');
  assert.equal(readFileSync(join(d, 'piped.txt'), 'utf8'), 'hello', "| cat > file writes curl's output");
  assert.equal(r.code, 4, 'the first failure: -f on a 404');
});

test('set -e: a command followed by || or && does not stop the script, and a || failure is not the exit code', async (t) => {
  const s = await httpServer(t, routes);
  const d = dir();
  writeFileSync(join(d, 'e.sh'), `set -e\ncurl -sf ${s.url}/404 || true\ncurl -sf ${s.url}/404 && curl -s ${s.url}/skipped\ncurl -s ${s.url}/last\n`);
  const r = await runSling(['exec', 'e.sh'], { cwd: d });
  assert.deepEqual(
    s.requests.map((q) => q.url),
    ['/404', '/404', '/last'],
    show(r),
  );
  // The && list's failure is the script's status in bash too (set -e exempts it, the status stays).
  assert.equal(r.code, 4, show(r));
  writeFileSync(join(d, 'f.sh'), `set -e\ncurl -sf ${s.url}/404 || true\ncurl -s ${s.url}/ok\n`);
  assertExit(await runSling(['exec', 'f.sh'], { cwd: d }), 0);
});

test('-D to a file that cannot be written is an error line naming the command; the rest runs. -O keeps %20; -O without a name fails; --output-dir needs the folder', async (t) => {
  const s = await httpServer(t, routes);
  const d = dir();
  writeFileSync(
    join(d, 'd.sh'),
    `curl -s -D /nonexistent-dir/h -o /dev/null ${s.url}/first\ncurl -s -O ${s.url}/files/a%20b.bin\ncurl -s -O ${s.url}/\ncurl -s --output-dir od -o x.txt ${s.url}/x\ncurl -s --create-dirs --output-dir od2 -o y.txt ${s.url}/y\n`,
  );
  const r = await runSling(['exec', 'd.sh'], { cwd: d });
  assert.match(r.stderr, /^sling: error: d\.sh:1:1: -D: cannot write '\/nonexistent-dir\/h': no such file or folder$/m, show(r));
  assert.equal(readFileSync(join(d, 'a%20b.bin'), 'utf8'), 'hello');
  assert.match(r.stderr, /^sling: error: d\.sh:3:1: -O: the URL has no file name to save to/m);
  assert.match(r.stderr, /^sling: error: d\.sh:4:1: cannot write 'x\.txt': no such file or folder$/m);
  assert.equal(existsSync(join(d, 'od')), false);
  assert.equal(readFileSync(join(d, 'od2', 'y.txt'), 'utf8'), 'hello');
  assert.equal(r.code, 1);
});

test('a gzip body curl did not ask for is saved as it came; with --compressed it is decoded', async (t) => {
  const gz = gzipSync(Buffer.from('plain text inside'));
  const s = await httpServer(t, (_q, res) => {
    res.writeHead(200, { 'Content-Encoding': 'gzip', 'Content-Type': 'text/plain' });
    res.end(gz);
  });
  const d = dir();
  // %{size_download} counts the bytes that came, before --compressed decoded them (as curl does).
  writeFileSync(join(d, 'g.sh'), `curl -s -o raw.gz ${s.url}/\ncurl -s --compressed -o plain.txt -w 'size=%{size_download}\\n' ${s.url}/\n`);
  const r = await runSling(['exec', 'g.sh'], { cwd: d });
  assertExit(r, 0);
  assert.deepEqual(readFileSync(join(d, 'raw.gz')), gz);
  assert.equal(readFileSync(join(d, 'plain.txt'), 'utf8'), 'plain text inside');
  assert.match(r.stdout, new RegExp(`^size=${gz.length}$`, 'm'));
  assert.notEqual(gz.length, 'plain text inside'.length);
});

test('-w after -L: %{num_redirects} and %{url_effective} are the final ones; %{redirect_url} is absolute', async (t) => {
  const s = await httpServer(t, (q, res) => {
    const m = /^\/redir\/(\d+)$/.exec(q.url ?? '');
    if (m) {
      res.writeHead(302, { Location: Number(m[1]) > 0 ? `/redir/${Number(m[1]) - 1}` : '/end' });
      res.end();
    } else res.end('end');
  });
  const d = dir();
  writeFileSync(
    join(d, 'w.sh'),
    `curl -s -L -o /dev/null -w '%{num_redirects} %{url_effective}\\n' ${s.url}/redir/2 > w1.txt\ncurl -s -o /dev/null -w '%{redirect_url} %{num_redirects}\\n' ${s.url}/redir/0 > w2.txt\n`,
  );
  assertExit(await runSling(['exec', 'w.sh'], { cwd: d }), 0);
  assert.equal(readFileSync(join(d, 'w1.txt'), 'utf8'), `3 ${s.url}/end\n`);
  assert.equal(readFileSync(join(d, 'w2.txt'), 'utf8'), `${s.url}/end 0\n`);
});

test('-w: %{json} has numbers as numbers; only \\n \\t \\r are escapes (a doubled backslash stays)', async (t) => {
  const s = await httpServer(t, (_q, res) => res.end('ok'));
  const d = dir();
  writeFileSync(join(d, 'j.sh'), `curl -s -o /dev/null -w '%{json}' ${s.url}/j > j.json\ncurl -s -o /dev/null -w 'A\\\\nB\\tC' ${s.url}/k > k.txt\n`);
  assertExit(await runSling(['exec', 'j.sh'], { cwd: d }), 0);
  const j = JSON.parse(readFileSync(join(d, 'j.json'), 'utf8'));
  assert.equal(j.http_code, 200);
  assert.equal(typeof j.size_download, 'number');
  assert.equal(typeof j.time_total, 'number');
  assert.equal(j.url_effective, `${s.url}/j`);
  assert.equal(readFileSync(join(d, 'k.txt'), 'utf8'), 'A\\\\nB\tC');
});

test('-b NAME=VALUE goes with every hop of -L, to another host too, as curl sends it', async (t) => {
  const s = await httpServer(t, (q, res) => {
    if (q.url === '/start') {
      res.writeHead(302, { Location: `http://localhost:${s.port}/next` });
      res.end();
    } else res.end('ok');
  });
  const d = dir();
  writeFileSync(join(d, 'b.sh'), `curl -s -L -b k=v ${s.url}/start\n`);
  assertExit(await runSling(['exec', 'b.sh'], { cwd: d }), 0);
  assert.deepEqual(
    s.requests.map((q) => [q.url, header(q, 'cookie')]),
    [
      ['/start', 'k=v'],
      ['/next', 'k=v'],
    ],
  );
});

test('-H Cookie and -H Authorization stay behind on a -L hop to another host, unless --location-trusted, as in curl', async (t) => {
  const s = await httpServer(t, (q, res) => {
    if (q.url!.startsWith('/start')) {
      res.writeHead(302, { Location: `http://localhost:${s.port}/next` });
      res.end();
    } else res.end('ok');
  });
  const d = dir();
  writeFileSync(
    join(d, 'h.sh'),
    `curl -s -L -H 'Cookie: k=v' -H 'Authorization: Bearer t' ${s.url}/start\ncurl -s -L --location-trusted -H 'Cookie: k=v' -H 'Authorization: Bearer t' ${s.url}/start-trusted\n`,
  );
  assertExit(await runSling(['exec', 'h.sh'], { cwd: d }), 0);
  assert.deepEqual(
    s.requests.map((q) => [q.url, header(q, 'cookie') ?? '-', header(q, 'authorization') ?? '-']),
    [
      ['/start', 'k=v', 'Bearer t'],
      ['/next', '-', '-'],
      ['/start-trusted', 'k=v', 'Bearer t'],
      ['/next', 'k=v', 'Bearer t'],
    ],
  );
});

test('a -L hop to another host and back: credentials, -H Host, the body and its headers, Referer and the method go as real curl sends them', { skip: curlMissing() }, async (t) => {
  const srv = await startCurlCapture();
  t.after(() => srv.close());
  const a = srv.url;
  const b = `http://localhost:${srv.port}`;
  const to = (url: string, code = '') => `/hop${code}?to=${encodeURIComponent(url)}`;
  // 127.0.0.1 -> localhost (another host) -> 127.0.0.1 (the first again).
  const away = `${a}${to(`${b}${to(`${a}/back`)}`)}`;
  const lines = [
    `curl -s -L -u user:pw -H 'Cookie: k=v' -b 'b=1' -H 'X-Keep: 1' '${away}'`,
    `curl -s -L --location-trusted -u user:pw -H 'Cookie: k=v' -b 'b=1' '${away}'`,
    `curl -s -L -H 'Authorization: Bearer t' -H 'Host: named.example' '${away}'`,
    `curl -s -L --oauth2-bearer tok -d x=1 -H 'Content-Type: text/plain' --referer 'http://r.example/;auto' '${away}'`,
    `curl -s -L -X POST -d x=1 '${a}${to(`${b}/posted`)}'`,
    `curl -s -L -d x=1 '${a}${to(`${b}/kept`, '-307')}'`,
    `curl -s -L --post302 -u user:pw -F f=v '${a}${to(`${b}/form`)}'`,
    // The -H Content-Type a multipart type stood in for is sent as given once the body is dropped.
    `curl -s -L -H 'Content-Type: text/x-mine' -F f=v '${a}${to(`${b}/form-get`)}'`,
    // An upload's Content-Range asks for that range once a 303 has made it a GET.
    `curl -s -L -T up.txt -r 0-3 '${a}${to(`${b}/ranged`, '-303')}'`,
  ];
  const d = dir({ 'up.txt': 'hello world\n' });
  for (const line of lines) {
    const curl = await new Promise<number | null>((resolve) => {
      const child = spawn('bash', ['-c', line], { cwd: d, env: { ...process.env, HOME: d }, stdio: 'ignore' });
      child.on('close', resolve);
    });
    assert.equal(curl, 0, line);
    const expected = srv.requests.splice(0);
    writeFileSync(join(d, 'c.sh'), line + '\n');
    const r = await runSling(['exec', 'c.sh'], { cwd: d, env: { HOME: d } });
    assert.equal(r.code, 0, `${line}\n${r.stderr}`);
    assert.deepEqual(diffRequests(expected, srv.requests.splice(0)), [], line);
  }
});

test("-c - writes the cookie jar to the command's output (here a file); -c to a folder that does not exist is an error line", async (t) => {
  const s = await httpServer(t, (_q, res) => {
    res.writeHead(200, { 'Set-Cookie': 'sid=abc; Path=/' });
    res.end('body\n');
  });
  const d = dir();
  writeFileSync(join(d, 'c.sh'), `curl -s -c - ${s.url}/login > jar.txt\ncurl -s -c /nonexistent-dir/jar ${s.url}/login\n`);
  const r = await runSling(['exec', 'c.sh'], { cwd: d });
  const jar = readFileSync(join(d, 'jar.txt'), 'utf8');
  assert.match(jar, /^body\n# Netscape HTTP Cookie File/, jar);
  assert.match(jar, /\tsid\tabc\n?$/m);
  assertError(r, 1, /^sling: error: c\.sh:2:1: -c: cannot write the cookie jar '\/nonexistent-dir\/jar': no such file or folder$/m);
});

test("-D and -i after -L write every hop's headers, as curl does", async (t) => {
  const s = await httpServer(t, (q, res) => {
    if (q.url === '/a') {
      res.writeHead(302, { Location: '/b', 'X-Hop': 'a' });
      res.end('moving');
    } else res.end('final');
  });
  const d = dir();
  writeFileSync(join(d, 'h.sh'), `curl -s -L -D hdrs.txt -o /dev/null ${s.url}/a\ncurl -s -L -i ${s.url}/a > inc.txt\n`);
  assertExit(await runSling(['exec', 'h.sh'], { cwd: d }), 0);
  const hdrs = readFileSync(join(d, 'hdrs.txt'), 'latin1');
  assert.match(hdrs, /^HTTP\/1\.1 302 Found\r\n(?:.*\r\n)*X-Hop: a\r\n(?:.*\r\n)*\r\nHTTP\/1\.1 200 OK\r\n/, hdrs);
  const inc = readFileSync(join(d, 'inc.txt'), 'latin1');
  assert.match(inc, /^HTTP\/1\.1 302 Found\r\n[\s\S]*\r\n\r\nHTTP\/1\.1 200 OK\r\n[\s\S]*\r\n\r\nfinal$/, inc);
  assert.doesNotMatch(inc, /moving/, "a redirect's body is not written");
});

test("-I writes the headers as the command's output (to > file, or to -o)", async (t) => {
  const s = await httpServer(t, (_q, res) => {
    res.writeHead(200, { 'X-Seen': 'yes', 'Content-Length': '5' });
    res.end();
  });
  const d = dir();
  writeFileSync(join(d, 'i.sh'), `curl -s -I ${s.url}/h > head.txt\ncurl -s -I -o head2.txt ${s.url}/h\n`);
  assertExit(await runSling(['exec', 'i.sh'], { cwd: d }), 0);
  for (const f of ['head.txt', 'head2.txt']) assert.match(readFileSync(join(d, f), 'latin1'), /^HTTP\/1\.1 200 OK\r\n(?:.*\r\n)*X-Seen: yes\r\n(?:.*\r\n)*\r\n$/, f);
  assert.deepEqual(
    s.requests.map((q) => q.method),
    ['HEAD', 'HEAD'],
  );
});
