// `sling exec` on curl files beyond the wire: output files, -w, -f exit codes, cookie jars,
// && and ||, --offline, errors with positions (nothing sent), warnings, --env variables.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { runSling, type RunOptions } from '../helpers/cli.js';
import { startCurlCapture } from '../helpers/curl-capture.js';
import { httpServer, proxyServer } from '../helpers/assert.js';

function workdir(files: Record<string, string | Buffer>): string {
  const dir = mkdtempSync(join(tmpdir(), 'sling-exec-curl-'));
  for (const [name, content] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), content);
  }
  return dir;
}

async function server(t: { after(fn: () => unknown): void }) {
  const srv = await startCurlCapture();
  t.after(() => srv.close());
  return srv;
}

const home = mkdtempSync(join(tmpdir(), 'sling-curl-home-'));
const exec = (dir: string, args: string[], opts: RunOptions = {}) => runSling(['exec', ...args], { cwd: dir, ...opts, env: { HOME: home, ...(opts.env ?? {}) } });

test('exec curl: -o, -O with --output-dir, > file, -D and -w', async (t) => {
  const srv = await server(t);
  const dir = workdir({
    'calls.sh': [
      `curl -s -o out.json ${srv.url}/a/file.json -w '%{http_code} %{method} %{url_effective}\\n'`,
      `curl -O ${srv.url}/b/remote.txt --output-dir dl --create-dirs`,
      `curl ${srv.url}/c > redirected.txt`,
      `curl -D headers.txt -o /dev/null ${srv.url}/d`,
    ].join('\n'),
  });
  const r = await exec(dir, ['calls.sh']);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(srv.requests.length, 4);
  assert.match(readFileSync(join(dir, 'out.json'), 'utf8'), /"n":1/);
  assert.match(readFileSync(join(dir, 'dl/remote.txt'), 'utf8'), /"n":2/);
  assert.match(readFileSync(join(dir, 'redirected.txt'), 'utf8'), /"n":3/);
  assert.match(readFileSync(join(dir, 'headers.txt'), 'latin1'), /^HTTP\/1\.1 200 X\r\nContent-Type: application\/json\r\n/);
  assert.match(r.stdout, new RegExp(`^200 GET ${srv.url}/a/file\\.json$`, 'm'));
});

test('exec curl: -f and --fail-with-body count as --check-status; && skips, || runs', async (t) => {
  const srv = await server(t);
  const dir = workdir({
    'calls.curl': [
      `curl -f ${srv.url}/status/404 && curl ${srv.url}/skipped`,
      `curl --fail-with-body -o body.txt ${srv.url}/status/503 || curl ${srv.url}/fallback`,
      `curl ${srv.url}/status/500`,
    ].join('\n'),
  });
  const r = await exec(dir, ['calls.curl']);
  assert.equal(r.code, 4, r.stderr);
  assert.deepEqual(
    srv.requests.map((q) => q.target),
    ['/status/404', '/status/503', '/fallback', '/status/500'],
  );
  assert.match(r.stderr, /calls\.curl:1:\d+: skipped: the command before && failed/);
  assert.match(readFileSync(join(dir, 'body.txt'), 'utf8'), /"n":2/);
});

test('exec curl: -c writes the cookie jar the next command reads with -b', async (t) => {
  const srv = await server(t);
  const dir = workdir({ 'c.curl': `curl -c jar.txt ${srv.url}/set-cookie\ncurl -b jar.txt ${srv.url}/next\n` });
  const r = await exec(dir, ['c.curl']);
  assert.equal(r.code, 0, r.stderr);
  assert.match(readFileSync(join(dir, 'jar.txt'), 'utf8'), /^127\.0\.0\.1\tFALSE\t\/\tFALSE\t0\tsid\tabc$/m);
  assert.equal(srv.requests[1]!.headers.find(([n]) => n === 'Cookie')?.[1], 'sid=abc');
});

test('exec curl: --offline prints every request and sends nothing', async (t) => {
  const srv = await server(t);
  const dir = workdir({ 'c.curl': `curl -u a:b -d x=1 ${srv.url}/p\ncurl -G -d q=1 ${srv.url}/g\n` });
  const r = await exec(dir, ['--offline', 'c.curl']);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(srv.requests.length, 0);
  assert.match(
    r.stdout,
    /POST \/p HTTP\/1\.1\r?\nHost: 127\.0\.0\.1:\d+\r?\nAuthorization: Basic YTpi\r?\nUser-Agent: sling\/[^\n]+\nAccept: \*\/\*\r?\nContent-Length: 3\r?\nContent-Type: application\/x-www-form-urlencoded/,
  );
  assert.match(r.stdout, /GET \/g\?q=1 HTTP\/1\.1/);
});

test('exec curl: a malformed file sends nothing and names the line and column', async (t) => {
  const srv = await server(t);
  const cases: [string, RegExp][] = [
    [`curl ${srv.url}/ok\ncurl --data @<(cat <<EOF\n{"a":1}\nEOF\n) ${srv.url}/x\n`, /c\.curl:2:14: process substitution '<\(\.\.\.\)' runs a program: sling does not run other programs/],
    [`curl ${srv.url}/ok\ncurl -H "X-Host: $(hostname)" ${srv.url}/x\n`, /c\.curl:2:20: command substitution runs 'hostname': sling does not run other programs/],
    [`curl ${srv.url}/ok\ncurl --ftp-pasv ${srv.url}/x\n`, /c\.curl:2:6: --ftp-pasv is not an HTTP option/],
    [`curl ${srv.url}/ok\ncurl -d "open ${srv.url}\n`, /c\.curl:2:9: unterminated double quote/],
    [`curl ${srv.url}/ok\ncurl --no-such-option ${srv.url}\n`, /c\.curl:2:6: option --no-such-option is unknown/],
    [`curl ${srv.url}/ok\ncurl -I -d a ${srv.url}\n`, /c\.curl:2:1: you can only select one HTTP request method/],
    [`curl ${srv.url}/ok\ncurl 'http://h/a b'\n`, /c\.curl:2:1: malformed URL/],
  ];
  for (const [text, re] of cases) {
    const dir = workdir({ 'c.curl': text });
    const r = await exec(dir, ['c.curl']);
    assert.equal(r.code, 1, text);
    assert.match(r.stderr, re, text);
    assert.equal(srv.requests.length, 0, text);
  }
});

test("exec curl: a README's `curl ... | jq .` is sent as curl alone sends it and its response printed as for curl alone, with one warning that the pipe was not run", async (t) => {
  const srv = await server(t);
  const dir = workdir({
    'sub/.keep': '',
    'readme.sh': [
      `curl -s -H 'Accept: application/json' ${srv.url}/users | jq .`,
      `curl -s -X POST -d '{"name":"a"}' ${srv.url}/users | python3 -m json.tool | head -n 5`,
      'cd sub',
      `curl -s -d "dir=$(pwd)" ${srv.url}/pwd`,
    ].join('\n'),
  });
  const r = await exec(dir, ['readme.sh']);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(
    srv.requests.map((q) => `${q.method} ${q.target}`),
    ['GET /users', 'POST /users', 'POST /pwd'],
  );
  assert.equal(srv.requests[0]!.headers.find(([n]) => n === 'Accept')?.[1], 'application/json');
  assert.equal(srv.requests[1]!.body.toString(), '{"name":"a"}');
  // $(pwd) is the folder the script is in after `cd sub`, worked out without running pwd.
  assert.equal(srv.requests[2]!.body.toString(), `dir=${join(dir, 'sub')}`);
  // Printed as the same commands without the pipes are printed (the sling way, as for every curl
  // command): nothing of jq, python3 or head.
  const plainSrv = await server(t);
  const plain = workdir({
    'sub/.keep': '',
    'readme.sh': readFileSync(join(dir, 'readme.sh'), 'utf8')
      .replace(/ \| jq \.| \| python3 -m json\.tool \| head -n 5/g, '')
      .replaceAll(srv.url, plainSrv.url),
  });
  const p = await exec(plain, ['readme.sh']);
  assert.equal(p.code, 0, p.stderr);
  assert.equal(r.stdout, p.stdout.replaceAll(plainSrv.url, srv.url));
  assert.match(r.stdout, /^\{"ok":true,"n":2\}$/m);
  const lines = readFileSync(join(dir, 'readme.sh'), 'utf8').split('\n');
  const warnings = r.stderr.split('\n').filter((l) => l.includes('was not run'));
  assert.deepEqual(warnings, [
    `sling: warning: readme.sh:1:${lines[0]!.indexOf('jq') + 1}: the pipe into 'jq' was not run: sling does not run other programs; the response is printed as for the curl command alone`,
    `sling: warning: readme.sh:2:${lines[1]!.indexOf('python3') + 1}: the pipe into 'python3 | head' was not run: sling does not run other programs; the response is printed as for the curl command alone`,
  ]);
});

test('exec curl: unsupported options warn and the request still goes; a missing -F file fails only its command', async (t) => {
  const srv = await server(t);
  const dir = workdir({ 'c.sh': `curl --capath /x --limit-rate 1k ${srv.url}/w\ncurl -F f=@missing.bin ${srv.url}/f\ncurl ${srv.url}/after\n` });
  const r = await exec(dir, ['c.sh']);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /c\.sh:1:6: --capath: a CA directory is not supported/);
  assert.match(r.stderr, /c\.sh:1:18: --limit-rate/);
  assert.match(r.stderr, /c\.sh:2:1: -F: cannot read the file 'missing\.bin'/);
  assert.deepEqual(
    srv.requests.map((q) => q.target),
    ['/w', '/after'],
  );
});

test('exec curl: $VARIABLES from --env and the process environment, @- from stdin', async (t) => {
  const srv = await server(t);
  const dir = workdir({
    'c.curl': `curl -H "Authorization: Bearer $TOKEN" -H "X-From-Process: \${FROM_PROC}" -d @- "$BASE/v"\n`,
    'http-client.env.json': JSON.stringify({ dev: { TOKEN: 'dev-token', BASE: srv.url } }),
  });
  const r = await exec(dir, ['--env', 'dev', 'c.curl'], { stdin: 'from stdin', env: { FROM_PROC: 'proc' } });
  assert.equal(r.code, 0, r.stderr);
  const q = srv.requests[0]!;
  assert.equal(q.headers.find(([n]) => n === 'Authorization')?.[1], 'Bearer dev-token');
  assert.equal(q.headers.find(([n]) => n === 'X-From-Process')?.[1], 'proc');
  assert.equal(q.body.toString(), 'from stdin');
  assert.ok(!existsSync(join(dir, 'out')));
});

test('exec curl: an unset variable expands to nothing, with a warning', async (t) => {
  const srv = await server(t);
  const dir = workdir({ 'c.curl': `curl -H "X-T: [$NOT_SET_ANYWHERE]" ${srv.url}/u\n` });
  const r = await exec(dir, ['c.curl']);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /c\.curl:1:16: \$NOT_SET_ANYWHERE is not set/);
  assert.equal(srv.requests[0]!.headers.find(([n]) => n === 'X-T')?.[1], '[]');
});

test("exec curl: -w after a failed connection writes 000, curl's exit code and the reason; -c still writes its jar", async (t) => {
  const { closedPort } = await import('../helpers/servers.js');
  const dead = await closedPort();
  const dir = workdir({
    'w.sh': [
      `curl -s -o out.txt -c jar.txt -w 'code=%{http_code} exit=%{exitcode} f=%{filename_effective} v=%{http_version} m=%{method} un=%{urlnum} err=%{errormsg}\\n' http://127.0.0.1:${dead}/x`,
      `curl -s -w '%{onerror}failed: %{exitcode} %{json}\\n' -X POST http://127.0.0.1:${dead}/y`,
    ].join('\n'),
  });
  const r = await exec(dir, ['w.sh']);
  assert.equal(r.code, 6, r.stderr);
  assert.match(r.stdout, new RegExp(`^code=000 exit=7 f=out\\.txt v=0 m=GET un=0 err=connection refused by 127\\.0\\.0\\.1:${dead}$`, 'm'));
  const json = JSON.parse(/^failed: 7 (\{.*\})$/m.exec(r.stdout)?.[1] ?? 'null');
  assert.equal(json.http_code, 0);
  assert.equal(json.exitcode, 7);
  assert.equal(json.method, 'POST');
  assert.equal(existsSync(join(dir, 'out.txt')), false);
  assert.match(readFileSync(join(dir, 'jar.txt'), 'utf8'), /^# Netscape HTTP Cookie File/);
  assert.equal((r.stderr.match(/sling: error: w\.sh:\d: connection refused/g) ?? []).length, 2, r.stderr);
});

test('exec curl: -w %{onerror}, %{stderr}, %{num_headers}, %{header_json}, %{local_port}, %{referer}, %{urlnum}; -D - goes to > file', async (t) => {
  const srv = await server(t);
  const dir = workdir({
    'w.sh': [
      `curl -s -o /dev/null -w 'n=%{num_headers} lp=%{local_port} li=%{local_ip}%{onerror} not shown\\n' ${srv.url}/a`,
      `curl -s -o /dev/null -e http://ref.test/ -w 'ref=%{referer} un=%{urlnum}\\n' ${srv.url}/b ${srv.url}/c`,
      `curl -s -o /dev/null -w 'out%{stderr}to stderr\\n' ${srv.url}/d`,
      `curl -s -o /dev/null -w '%{header_json}\\n' ${srv.url}/set-cookie`,
      `curl -s -D - ${srv.url}/e > both.txt`,
    ].join('\n'),
  });
  const r = await exec(dir, ['w.sh']);
  assert.equal(r.code, 0, r.stderr);
  const m = /^n=2 lp=(\d+) li=127\.0\.0\.1$/m.exec(r.stdout);
  assert.ok(m && Number(m[1]) > 0 && Number(m[1]) !== srv.port, r.stdout);
  assert.doesNotMatch(r.stdout, /not shown/);
  assert.match(r.stdout, /^ref=http:\/\/ref\.test\/ un=0$/m);
  assert.match(r.stdout, /^ref=http:\/\/ref\.test\/ un=1$/m);
  assert.match(r.stdout, /^out$/m);
  assert.match(r.stderr, /^to stderr$/m);
  assert.doesNotMatch(r.stdout, /to stderr/);
  assert.match(r.stdout, /^\{"content-type":\["application\/json"\],\n"content-length":\["\d+"\],\n"set-cookie":\["sid=abc; Path=\/"\]\n\}$/m);
  assert.match(readFileSync(join(dir, 'both.txt'), 'latin1'), /^HTTP\/1\.1 200 X\r\nContent-Type: application\/json\r\nContent-Length: \d+\r\n\r\n\{"ok":true,"n":6\}\n$/);
});

test('exec curl: shell and curl details as bash and curl 7.88 have them (review)', async (t) => {
  const srv = await server(t);
  const u = srv.url;
  const dir = workdir({
    'k.cfg': `url = "${u}/cfg"\n--data-raw="eq"\n`,
    'sub/.keep': '',
    'r.sh': [
      `curl -s -o /dev/null -w '[%header{content-type}][%{nope}]\\n' ${u}/w`,
      `curl -s -K - <<E\nurl = "${u}/heredoc"\nE`,
      `curl -s -K k.cfg`,
      `cd sub`,
      `curl -s -d "$PWD|$OLDPWD" ${u}/pwd`,
      `cd ..`,
      `curl -s -d \${V:-a ${u}/split2} ${u}/split`,
      `export http_proxy=${u}`,
      `curl -s http://example.test/viaproxy`,
      `unset http_proxy`,
      `set -e`,
      `curl -sf ${u}/status/404 | cat`,
      `curl -s ${u}/after-pipe`,
    ].join('\n'),
  });
  const r = await exec(dir, ['r.sh']);
  assert.deepEqual(
    srv.requests.map((q) => q.target),
    ['/w', '/heredoc', '/cfg', '/pwd', '/split2', '/split', 'http://example.test/viaproxy', '/status/404', '/after-pipe'],
    r.stderr,
  );
  assert.match(r.stdout, /^\[application\/json\]\[\]$/m);
  assert.match(r.stderr, /unknown --write-out variable: 'nope'/);
  assert.match(r.stderr, /--data-raw="eq": not a curl option \(in a config file, curl warns and goes on\): ignored/);
  assert.equal(srv.requests[2]!.body.length, 0, 'the unknown config line adds no body');
  assert.equal(srv.requests[3]!.body.toString(), `${join(dir, 'sub')}|${dir}`);
  assert.equal(srv.requests[4]!.body.toString(), 'a', 'unquoted ${V:-a URL} is two words: -d a, and a URL');
  assert.equal(srv.requests[5]!.body.toString(), 'a');
  const proxied = srv.requests[6]!;
  assert.deepEqual(
    proxied.headers.find(([n]) => n.toLowerCase() === 'proxy-connection'),
    ['Proxy-Connection', 'Keep-Alive'],
  );
});

test('exec curl: -O with a URL that names no file sends nothing; an empty {} glob is a parse error', async (t) => {
  const srv = await server(t);
  const dir = workdir({ 'o.sh': `curl -s -O ${srv.url}/dir/\ncurl -s ${srv.url}/next\n`, 'g.sh': `curl -s "${srv.url}/c/{}"\n` });
  const r = await exec(dir, ['o.sh']);
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stderr, /o\.sh:1:\d+: -O: the URL has no file name to save to/);
  assert.deepEqual(
    srv.requests.map((q) => q.target),
    ['/next'],
  );
  const g = await exec(dir, ['g.sh']);
  assert.equal(g.code, 1);
  assert.match(g.stderr, /empty braces/);
  assert.deepEqual(
    srv.requests.map((q) => q.target),
    ['/next'],
  );
});

test("exec curl: -o /dev/stdout and -D /dev/stdout are the command's output (its > file), never sling's own stdout reopened", async (t) => {
  const srv = await server(t);
  const dir = workdir({ 's.sh': `curl -s -o /dev/stdout ${srv.url}/a > f.txt\ncurl -s -D /dev/stdout -o /dev/null ${srv.url}/b >> f.txt\n` });
  const out = join(dir, 'sling-out.txt');
  const { openSync, closeSync } = await import('node:fs');
  const { spawn } = await import('node:child_process');
  const { baseEnv, SLING_PATH } = await import('../helpers/cli.js');
  const fd = openSync(out, 'w');
  const code = await new Promise<number | null>((resolve) => {
    const child = spawn(process.execPath, [SLING_PATH, 'exec', 's.sh'], { cwd: dir, env: { ...baseEnv(), HOME: home }, stdio: ['ignore', fd, 'pipe'] });
    child.on('close', resolve);
  });
  closeSync(fd);
  assert.equal(code, 0);
  assert.match(readFileSync(join(dir, 'f.txt'), 'latin1'), /^\{"ok":true,"n":1\}\nHTTP\/1\.1 200 X\r\n/);
  const printed = readFileSync(out, 'latin1');
  assert.match(printed, /^### GET http:\/\/127\.0\.0\.1:\d+\/a  \(line 1\)\n/);
  assert.doesNotMatch(printed, /\0/);
});

test('exec curl: -f on an HTTP error gives %{exitcode} 22 as curl does; --etag-save without an ETag makes an empty file', async (t) => {
  const srv = await httpServer(t, (req, res) => {
    if (req.url === '/nf') {
      res.writeHead(404, { 'Content-Type': 'text/plain' });
      res.end('nf\n');
      return;
    }
    res.end('ok\n');
  });
  const dir = workdir({
    'f.sh': [`curl -s --etag-save etag.txt ${srv.url}/`, `curl -sf -w '%{exitcode} %{http_code}\\n' ${srv.url}/nf`, `curl -sf -w '%{onerror}failed %{exitcode}\\n' ${srv.url}/nf`].join('\n'),
  });
  const r = await exec(dir, ['f.sh']);
  assert.equal(r.code, 4, r.stderr);
  assert.match(r.stdout, /^22 404$/m);
  assert.match(r.stdout, /^failed 22$/m);
  assert.equal(readFileSync(join(dir, 'etag.txt'), 'utf8'), '');
});

test('exec curl: -w after --max-redirs is exceeded reports the last answer (302) with exit code 47, and prints nothing of it, as curl does', async (t) => {
  const srv = await httpServer(t, (req, res) => {
    res.writeHead(302, { Location: req.url === '/r' ? '/r2' : '/x', 'Content-Length': '0' });
    res.end();
  });
  const dir = workdir({ 'm.sh': `curl -sL --max-redirs 0 -w '%{http_code} %{exitcode}\\n' ${srv.url}/r\n` });
  const r = await exec(dir, ['--print=b', 'm.sh']);
  assert.equal(r.code, 3, r.stderr);
  assert.match(r.stdout, /\n302 47\n$/);
  assert.doesNotMatch(r.stdout, /Location/);
  assert.match(r.stderr, /too many redirects: more than 0 \(last: 302 to \/r2\)/);
});

test('exec curl: -w after a body cut short reports the answer that came (status, type, bytes) and exit code 18, as curl does', async (t) => {
  const srv = await httpServer(t, (req, res) => {
    res.writeHead(200, req.url === '/sized' ? { 'Content-Type': 'text/plain', 'Content-Length': 100 } : { 'Content-Type': 'text/plain' });
    res.write('part one\n');
    setTimeout(() => res.socket?.destroy(), 50);
  });
  const w = `-w '%{http_code} %{size_download} %{exitcode} %{content_type}\\n'`;
  const dir = workdir({ 'c.sh': [`curl -s ${w} ${srv.url}/chunked`, `curl -s ${w} ${srv.url}/sized`, `curl -s -o /dev/null ${w} ${srv.url}/chunked`].join('\n') });
  const r = await exec(dir, ['c.sh']);
  assert.equal(r.code, 6, r.stderr);
  assert.equal((r.stdout.match(/^200 9 18 text\/plain$/gm) ?? []).length, 3, r.stdout);
  assert.equal((r.stderr.match(/was cut short/g) ?? []).length, 3, r.stderr);
});

test('exec curl: after a body cut short, -D still writes the head and -c keeps the cookie it set, as curl does', async (t) => {
  const srv = await httpServer(t, (_req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/plain', 'Set-Cookie': 'sid=abc; Path=/' });
    res.write('part one\n');
    setTimeout(() => res.socket?.destroy(), 50);
  });
  const dir = workdir({ 'c.sh': `curl -s -D heads.txt -c jar.txt ${srv.url}/x\n` });
  const r = await exec(dir, ['c.sh']);
  assert.equal(r.code, 6, r.stderr);
  assert.match(readFileSync(join(dir, 'heads.txt'), 'latin1'), /^HTTP\/1\.1 200 OK\r\nContent-Type: text\/plain\r\nSet-Cookie: sid=abc; Path=\/\r\n[\s\S]*\r\n\r\n$/);
  assert.match(readFileSync(join(dir, 'jar.txt'), 'utf8'), /^127\.0\.0\.1\tFALSE\t\/\tFALSE\t0\tsid\tabc$/m);
});

test('exec curl: a body cut short leaves the bytes that came in the -o file and the > file (exit 6), and curl -C - resumes from them', async (t) => {
  const full = 'part one\npart two\n';
  const srv = await httpServer(t, (req, res) => {
    const range = /^bytes=(\d+)-$/.exec(req.headers.range ?? '');
    if (range) {
      const from = Number(range[1]);
      res.writeHead(206, { 'Content-Type': 'text/plain', 'Content-Range': `bytes ${from}-${full.length - 1}/${full.length}`, 'Content-Length': full.length - from });
      res.end(full.slice(from));
      return;
    }
    res.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Length': full.length });
    res.write('part one\n');
    setTimeout(() => res.socket?.destroy(), 50);
  });
  const dir = workdir({
    'cut.sh': [`curl -s -o o.txt ${srv.url}/a`, `curl -s ${srv.url}/b > s.txt`, `curl -s -i -o i.txt ${srv.url}/c`].join('\n') + '\n',
    'resume.sh': `curl -s -C - -o o.txt ${srv.url}/a\n`,
  });
  const r = await exec(dir, ['cut.sh']);
  assert.equal(r.code, 6, r.stderr);
  assert.equal((r.stderr.match(/was cut short \(Content-Length was 18\)/g) ?? []).length, 3, r.stderr);
  assert.equal(readFileSync(join(dir, 'o.txt'), 'utf8'), 'part one\n');
  assert.equal(readFileSync(join(dir, 's.txt'), 'utf8'), 'part one\n');
  assert.match(readFileSync(join(dir, 'i.txt'), 'latin1'), /^HTTP\/1\.1 200 OK\r\n[\s\S]*Content-Length: 18\r\n[\s\S]*\r\n\r\npart one\n$/);
  const again = await exec(dir, ['resume.sh']);
  assert.equal(again.code, 0, again.stderr);
  assert.equal(readFileSync(join(dir, 'o.txt'), 'utf8'), full);
});

test('exec curl: -C - resumes the file -O names and the one in --output-dir, as curl does', async (t) => {
  const full = Buffer.from('0123456789'.repeat(10));
  const ranges: string[] = [];
  const srv = await httpServer(t, (req, res) => {
    const m = /^bytes=(\d+)-$/.exec(req.headers.range ?? '');
    ranges.push(req.headers.range ?? '(none)');
    if (m) {
      const from = Number(m[1]);
      res.writeHead(206, { 'Content-Range': `bytes ${from}-99/100`, 'Content-Length': 100 - from });
      res.end(full.subarray(from));
    } else res.end(full);
  });
  const dir = workdir({
    'name.bin': full.subarray(0, 40),
    'd/x.bin': full.subarray(0, 40),
    'd/name2.bin': full.subarray(0, 40),
    'c.sh':
      [
        `curl -s -C - -O ${srv.url}/file/name.bin`,
        `curl -s -C - --output-dir d -o x.bin -w 'f=%{filename_effective}\\n' ${srv.url}/file/x`,
        `curl -s -C - --output-dir d -O ${srv.url}/file/name2.bin`,
      ].join('\n') + '\n',
  });
  const r = await exec(dir, ['c.sh']);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(ranges, ['bytes=40-', 'bytes=40-', 'bytes=40-']);
  // %{filename_effective} names the file in its folder, as curl does.
  assert.match(r.stdout, /^f=d\/x\.bin$/m, r.stdout);
  for (const f of ['name.bin', 'd/x.bin', 'd/name2.bin']) assert.deepEqual(readFileSync(join(dir, f)), full, f);
});

test('exec curl: --noproxy, -x "", env -i and env -u leave out a proxy from the environment (export http_proxy), and exec ends the script, as in curl and bash', async (t) => {
  const srv = await server(t);
  const proxy = await proxyServer(t);
  const dir = workdir({
    'c.sh':
      [
        `export http_proxy=${proxy.url}`,
        `curl -s --noproxy '*' ${srv.url}/np1`,
        `curl -s -x '' ${srv.url}/np2`,
        `curl -s --noproxy 127.0.0.1 ${srv.url}/np3`,
        `curl -s --noproxy other.example ${srv.url}/via`,
        // env -i: no exported variables; env -u: that one out; exec: nothing runs after it.
        `env -i curl -s ${srv.url}/envi`,
        `env -u http_proxy curl -s ${srv.url}/envu`,
        `exec curl -s ${srv.url}/last`,
        `curl -s ${srv.url}/never`,
      ].join('\n') + '\n',
  });
  const r = await exec(dir, ['c.sh']);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(
    proxy.plainRequests.map((q) => new URL(q.url).pathname),
    ['/via', '/last'],
  );
  assert.deepEqual(
    srv.requests.map((q) => q.target),
    ['/np1', '/np2', '/np3', '/via', '/envi', '/envu', '/last'],
  );
});

test('exec curl: a gzip body cut short leaves what came in the -o file: decoded as far as it goes with --compressed, the raw bytes without, as curl does', async (t) => {
  const { gzipSync } = await import('node:zlib');
  const text = Array.from({ length: 4000 }, (_, i) => `line ${i} of the body\n`).join('');
  const gz = gzipSync(text);
  const half = Math.floor(gz.length / 2);
  const srv = await httpServer(t, (_req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Encoding': 'gzip', 'Content-Length': gz.length });
    res.write(gz.subarray(0, half));
    setTimeout(() => res.socket?.destroy(), 50);
  });
  const w = `-w '%{http_code} %{size_download} %{exitcode}\\n'`;
  const dir = workdir({ 'c.sh': [`curl -s --compressed ${w} -o g1 ${srv.url}/a`, `curl -s ${w} -o g2 ${srv.url}/b`].join('\n') + '\n' });
  const r = await exec(dir, ['c.sh']);
  assert.equal(r.code, 6, r.stderr);
  // Each -w line follows the printed body, which has no line break of its own at the cut.
  assert.equal((r.stdout.match(new RegExp(`200 ${half} 18$`, 'gm')) ?? []).length, 2, r.stdout);
  const g1 = readFileSync(join(dir, 'g1'), 'utf8');
  assert.ok(g1.length > 1000 && g1.length < text.length, `decoded ${g1.length} of ${text.length}`);
  assert.ok(text.startsWith(g1), 'what was decoded is the start of the body');
  assert.deepEqual(readFileSync(join(dir, 'g2')), gz.subarray(0, half));
});

test('exec curl: a proxy that never answers: the time-out says it went through the proxy', async (t) => {
  const net = await import('node:net');
  const held: import('node:net').Socket[] = [];
  const silent = net.createServer((c) => held.push(c));
  await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
  t.after(() => (held.forEach((c) => c.destroy()), silent.close()));
  const proxy = `http://127.0.0.1:${(silent.address() as { port: number }).port}`;
  const dir = workdir({ 'c.sh': `curl -s -m 0.5 -x ${proxy} http://127.0.0.1:9/a\n` });
  const r = await exec(dir, ['c.sh']);
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, new RegExp(`no answer from 127\\.0\\.0\\.1:9 \\(through proxy ${proxy.replace(/\./g, '\\.')}\\) within 0\\.5s \\(--max-time\\)`));
});

test("exec curl: a proxy from the environment sling runs in: unset and a plain assignment in the file change it as bash would; HTTP_PROXY is not curl's", async (t) => {
  const srv = await server(t);
  const proxy = await proxyServer(t);
  const dir = workdir({
    'c.sh':
      [`curl -s ${srv.url}/via1`, 'unset http_proxy', `curl -s ${srv.url}/direct1`, `export http_proxy=${proxy.url}`, `curl -s ${srv.url}/via2`, "http_proxy=''", `curl -s ${srv.url}/direct2`].join(
        '\n',
      ) + '\n',
    'u.sh': `curl -s ${srv.url}/upper\n`,
  });
  const r = await exec(dir, ['c.sh'], { env: { http_proxy: proxy.url } });
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(
    proxy.plainRequests.map((q) => new URL(q.url).pathname),
    ['/via1', '/via2'],
  );
  const u = await exec(dir, ['u.sh'], { env: { HTTP_PROXY: proxy.url } });
  assert.equal(u.code, 0, u.stderr);
  assert.deepEqual(
    proxy.plainRequests.map((q) => new URL(q.url).pathname),
    ['/via1', '/via2'],
  );
  assert.deepEqual(
    srv.requests.map((q) => q.target),
    ['/via1', '/direct1', '/via2', '/direct2', '/upper'],
  );
});

test("exec curl: -H 'Name;' goes out as `Name:` with nothing after the colon, as curl sends it", async (t) => {
  const net = await import('node:net');
  const heads: string[] = [];
  const srv = net.createServer((c) => c.once('data', (d: Buffer) => (heads.push(d.toString('latin1')), c.end('HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n'))));
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  t.after(() => srv.close());
  const dir = workdir({ 'c.sh': `curl -s -H 'Y;' -H 'X-A: 1' http://127.0.0.1:${(srv.address() as { port: number }).port}/a\n` });
  const r = await exec(dir, ['c.sh']);
  assert.equal(r.code, 0, r.stderr);
  assert.match(heads[0]!, /\r\nY:\r\nX-A: 1\r\n\r\n$/);
});
