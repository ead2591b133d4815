// `sling exec` on files of curl commands: every case runs twice against a loopback capture server,
// once with real curl through bash and once with sling, and both must send the same requests
// (byte for byte but the User-Agent, connection management included). Skipped when curl is missing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { runSling } from '../helpers/cli.js';
import { curlMissing, diffRequests, startCurlCapture, type CurlCapture, type KnownDifference, type RawRequest } from '../helpers/curl-capture.js';

interface Case {
  name: string;
  /** The file; {U} is the capture server's base URL, {H} its host:port. */
  script: string;
  files?: Record<string, string | Buffer>;
  stdin?: string;
  /** Differences from curl that are known and not fixed yet (helpers/curl-capture.ts): nothing else may differ. */
  known?: KnownDifference[];
}

const CASES: Case[] = [
  {
    name: 'defaults, -H replace/remove/empty, duplicates, Host',
    script: `curl -s {U}/a -H 'Accept: text/x' -H 'X-E;' -H 'User-Agent:' -H 'x-dup: 1' -H 'X-Dup: 2' -H 'Host: virtual.test'\ncurl {U}/b -H 'Accept:' -H 'X-Sp:   padded'\n`,
  },
  {
    name: '-d family, files without CR/LF, --data-binary, --data-raw @, --data-urlencode forms',
    script: `curl {U}/d -d 'a=1' -d @d.txt --data-binary @d.txt --data-ascii x --data-raw @lit --data-urlencode 'n=v w' --data-urlencode '=x&y' --data-urlencode n@d.txt\n`,
    files: { 'd.txt': 'a b\r\nc=d&e\n\n' },
  },
  {
    name: '--json, -G, -I with -G, --url-query',
    script: `curl {U}/j --json '{"a":' --json ' 1}' -H 'X-A: 1'\ncurl '{U}/g?x=1&' -G -d 'b=2' --data-urlencode 'c=d e'\ncurl -G -I -d q=1 {U}/h\ncurl '{U}/q?x=1' --url-query 'a=b c' --url-query '+raw=%41' --url-query 'e=é'\n`,
  },
  {
    name: '-F parts: files, types, names, quoting, --form-string, custom multipart type',
    script: `curl {U}/f -F a=v -F 'f=@pic.jpg' -F 'g=@"my file.txt";type=text/x' -F 'h=<t.txt' -F 'i=@t.txt;filename=r.png' -F 'q="a;b"' --form-string 's=@not;type=x'\ncurl {U}/m -H 'Content-Type: multipart/mixed' -F 'a=b'\n`,
    files: { 'pic.jpg': Buffer.from([0xff, 0xd8, 0xff, 0x00, 0x0d, 0x0a]), 'my file.txt': 'spaced\n', 't.txt': 'line1\nline2\n' },
  },
  {
    name: 'auth: -u, URL credentials, bearer, digest and several methods send nothing first, -A, -e',
    script: `curl -u 'a b:c:d' {U}/1\ncurl http://us%20er:p%3A@{H}/2\ncurl --oauth2-bearer tok -u x:y {U}/3\ncurl --digest -u x:y {U}/4\ncurl --basic --oauth2-bearer t {U}/5\ncurl -A 'agent/1' -e 'http://ref/' {U}/6\ncurl -A '' {U}/7\n`,
  },
  {
    name: 'cookies: strings, a Netscape file, a custom Cookie header, -c writes the jar',
    script: `curl -b 'a=1' -b 'b=2' {U}/c1\ncurl -b cookies.txt -b extra=1 {U}/c2\ncurl -b cookies.txt -H 'Cookie: h=1' -b s=1 {U}/c3\ncurl -b missing.txt {U}/c4\ncurl -c jar.txt {U}/set-cookie\ncurl -b jar.txt {U}/c5\n`,
    files: { 'cookies.txt': '# Netscape HTTP Cookie File\n127.0.0.1\tFALSE\t/\tFALSE\t0\tfromfile\t12\n127.0.0.1\tFALSE\t/\tFALSE\t0\tsecond\tv\n' },
  },
  {
    name: 'redirects: 301/302/303 turn POST into GET, 307 keeps it, -X stays, --post301, ;auto referer',
    script: [
      `curl -L -d a=b -H 'Content-Type: x/y' {U}/redirect-302/1`,
      `curl -L -d a=b {U}/redirect-307/1`,
      `curl -L -X PUT -d a=b {U}/redirect-303/1`,
      `curl -L --post301 -d a=b {U}/redirect-301/1`,
      `curl -L -e ';auto' {U}/redirect/2`,
      `curl -L -F a=b {U}/redirect-303/1`,
      `curl -L --max-redirs 1 {U}/redirect/1`,
    ].join('\n'),
  },
  {
    name: "methods: -X as written, -I, -T file and stdin, -r, -C, -z, -X POST without a body, -d ''",
    script: `curl -X wHat {U}/x\ncurl -I {U}/i\ncurl -T up.txt {U}/dir/\ncurl -T - {U}/stdin < up.txt\ncurl -r 0-5 {U}/r\ncurl -r 600 {U}/r2\ncurl -C 100 -z 20230101 {U}/z\ncurl -z -20230101 {U}/z2\ncurl -X POST {U}/nobody\ncurl -X DELETE {U}/del\ncurl -d '' {U}/emptybody\n`,
    files: { 'up.txt': 'hello upload\n' },
  },
  {
    name: 'URLs: globbing, several URLs, -g, dot segments, bare ?, raw UTF-8 in the query, fragments, scheme-less',
    script: `curl '{U}/{a,b}/[1-2]'\ncurl -g '{U}/x?q={b}&[1]' {U}/two\ncurl '{U}/a/./b/../c' '{U}/p?' '{U}/ü?q=café#frag' --path-as-is '{U}/k/../l'\ncurl {H}/noscheme\n`,
  },
  {
    name: "shell: quotes, $'...', continuations, comments, variables, here-documents, pipes, && and ||",
    script: [
      '#!/bin/bash',
      '# a comment',
      'TOKEN=abc',
      `curl "{U}/s1" \\`,
      `  -H "Authorization: Bearer $TOKEN" -H $'X-Tab: a\\tb' \\`,
      `  -d 'it'\\''s' -d "q=\\"x\\" \\$y"  # trailing comment`,
      `curl {U}/s2 --data-binary @- <<EOF`,
      `line $TOKEN`,
      `EOF`,
      `echo -n piped | curl {U}/s3 -d @-`,
      `curl {U}/status/404 -f && curl {U}/skipped`,
      `curl {U}/status/500 -f || curl {U}/fallback`,
      `curl {U}/s4 -d "\${MISSING:-def}" > /dev/null`,
    ].join('\n'),
  },
  {
    name: 'option syntax: combined short options, attached values, abbreviations, --next, -K',
    script: `curl -sSLXPOST -HX-A:1 -dx=1 {U}/o1\ncurl --sil --head {U}/o2 --next -d y {U}/o3\ncurl -K cfg.txt\n`,
    files: { 'cfg.txt': '# config\nurl = "{U}/o4"\nheader = "X-Cfg: yes"\ndata = "c=1"\n' },
  },
  {
    name: 'proxy: absolute-form target, Proxy-Authorization, a POST without a body',
    script: `curl -x {U} -U pu:pp http://example.invalid/p?x=1\ncurl --proxy http://{H} http://example.invalid:8080/q\ncurl -x {U} -X POST http://example.invalid/nobody\n`,
  },
  {
    name: 'a shell session pasted with $ prompts, output lines ignored',
    script: `$ curl {U}/p1 -H 'X-P: 1'\n{"ok": true}\n$ curl {U}/p2 \\\n>   -d a=b\n{"ok": true}\n`,
  },
  {
    name: '"Copy as cURL (cmd)" from a browser',
    script: `curl ^"{U}/cmd?a=1^&b=2^" ^\n  -H ^"accept: */*^" ^\n  -H ^"x-q: say ^\\^"hi^\\^"^" ^\n  --data-raw ^"^{^\\^"name^\\^":^\\^"Ada^\\^"^}^" ^\n  --compressed\n`,
  },
];

function runCurl(dir: string, file: string, stdin: string | undefined, home: string): Promise<number | null> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', [file], { cwd: dir, env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, LANG: 'C.UTF-8', LC_ALL: 'C.UTF-8' }, stdio: ['pipe', 'ignore', 'ignore'] });
    child.on('error', reject);
    child.on('close', (code) => resolve(code));
    child.stdin!.on('error', () => {});
    child.stdin!.end(stdin ?? '');
  });
}

function prepare(c: Case, srv: CurlCapture, which: string): string {
  const dir = mkdtempSync(join(tmpdir(), `sling-curl-${which}-`));
  const fill = (s: string) => s.split('{U}').join(srv.url).split('{H}').join(`127.0.0.1:${srv.port}`);
  writeFileSync(join(dir, 'cmd.curl'), fill(c.script));
  for (const [name, content] of Object.entries(c.files ?? {})) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), typeof content === 'string' ? fill(content) : content);
  }
  return dir;
}

const skip = curlMissing();
if (skip) console.log(`# exec-curl: ${skip}`);

test('exec curl: sling sends what real curl sends', { skip }, async (t) => {
  const srv = await startCurlCapture();
  t.after(() => srv.close());
  const home = mkdtempSync(join(tmpdir(), 'sling-curl-home-'));
  for (const c of CASES) {
    await t.test(c.name, async () => {
      srv.requests.length = 0;
      // The prompt and cmd.exe cases are not bash scripts: curl runs their equivalent.
      const curlScript = c.name.startsWith('a shell session')
        ? {
            ...c,
            script: c.script
              .split('\n')
              .filter((l) => l.startsWith('$ ') || l.startsWith('>'))
              .map((l) => l.replace(/^[$>] /, ''))
              .join('\n'),
          }
        : c.name.includes('(cmd)')
          ? { ...c, script: `curl '{U}/cmd?a=1&b=2' -H 'accept: */*' -H 'x-q: say "hi"' --data-raw '{"name":"Ada"}' --compressed\n` }
          : c;
      const cdir = prepare(curlScript, srv, 'curl');
      const code = await runCurl(cdir, 'cmd.curl', c.stdin, home);
      assert.ok(code === 0 || code === 22, `curl itself failed (exit ${code}) on case '${c.name}'`);
      const expected: RawRequest[] = srv.requests.splice(0);
      assert.ok(expected.length > 0, 'curl sent nothing');
      const sdir = prepare(c, srv, 'sling');
      const r = await runSling(['exec', '--type', 'curl', 'cmd.curl'], { cwd: sdir, stdin: c.stdin, env: { HOME: home } });
      const actual = srv.requests.splice(0);
      const diffs = diffRequests(expected, actual, c.known);
      assert.deepEqual(diffs, [], `sling stderr:\n${r.stderr}`);
    });
  }
});
