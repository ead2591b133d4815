// `--curl=posix|powershell|cmd` and `exec --to curl --shell ...`: the command printed for each shell
// sends the request sling sends: run by real bash and curl (posix), read back by sling's own
// PowerShell and cmd.exe readers (the same readers a .ps1 or .bat curl file goes through).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runSling } from '../helpers/cli.js';
import { curlMissing, diffRequests, type KnownDifference, startCurlCapture, withoutHeader, runBash } from '../helpers/curl-capture.js';

/** `X-E;` (an empty header): the main command sends `X-E: ` (as HTTPie does); curl has no way to send that blank, and sends `X-E:`. */
const EMPTY_HEADER: KnownDifference[] = [{ header: 'X-E', kind: 'blanks', why: "the main command writes an empty header as 'X-E: ' (HTTPie's bytes), curl as 'X-E:'" }];

const home = mkdtempSync(join(tmpdir(), 'sling-shells-home-'));
const noCurl = curlMissing();

const bash = (dir: string, file: string) => runBash(dir, file, home);

/** Words each shell acts on: quotes, variables of all three, escapes, a backslash before a quote and at the end. */
const HOSTILE = `it's "q" \\"x\\" & <b>|^!%PATH% %% $env:HOME $(x) \`x\` ’curly’ café C:\\dir\\`;

test('--curl=posix, --curl=powershell and --curl=cmd: each printed command sends the request sling sends (bash and curl; the PowerShell and cmd.exe readers)', async (t) => {
  const srv = await startCurlCapture();
  t.after(() => srv.close());
  const invocations: string[][] = [
    ['POST', `${srv.url}/users`, `name=${HOSTILE}`, 'age:=36', `X-Note:${HOSTILE}`],
    ['-f', 'PUT', `${srv.url}/form?q=a b&p=%41`, 'a=b c', 'q==x y', 'Accept:', 'X-E;'],
    ['--raw', `${HOSTILE}\ttabbed`, `${srv.url}/raw`],
    ['DELETE', `${srv.url}/gone`],
    ['-a', 'user:pa ss%x%', `${srv.url}/auth`, 'User-Agent:agent/1'],
    ['--raw', '0x10', `${srv.url}/numbers`, 'X-N:1e3', 'X-D:-D.x'],
  ];
  const dir = mkdtempSync(join(tmpdir(), 'sling-shells-'));
  for (const args of invocations) {
    srv.requests.length = 0;
    const direct = await runSling(args, { cwd: dir });
    assert.equal(direct.code, 0, direct.stderr);
    const sent = srv.requests.splice(0);
    for (const [shell, file] of [
      ['posix', 'cmd.sh'],
      ['powershell', 'cmd.ps1'],
      ['cmd', 'cmd.bat'],
    ] as const) {
      const printed = await runSling([`--curl=${shell}`, ...args], { cwd: dir });
      assert.equal(printed.code, 0, printed.stderr);
      assert.equal(srv.requests.length, 0, '--curl sends nothing');
      if (shell === 'powershell') assert.match(printed.stdout, /^curl\.exe /);
      writeFileSync(join(dir, file), printed.stdout);
      const back = await runSling(['exec', '--type', 'curl', file], { cwd: dir, env: { HOME: home, PATH: '/should/not/expand' } });
      assert.equal(back.code, 0, back.stderr);
      assert.deepEqual(diffRequests(sent, srv.requests.splice(0), EMPTY_HEADER), [], `sling exec of (${shell}):\n${printed.stdout}`);
      if (shell === 'posix' && !noCurl) {
        assert.equal(await bash(dir, file), 0);
        assert.deepEqual(diffRequests(sent, srv.requests.splice(0), EMPTY_HEADER), [], `curl running:\n${printed.stdout}`);
      }
    }
  }
});

test('sling exec --to curl --shell powershell|cmd writes a file that sends the same requests', async (t) => {
  const srv = await startCurlCapture();
  t.after(() => srv.close());
  const dir = mkdtempSync(join(tmpdir(), 'sling-shells-exec-'));
  writeFileSync(
    join(dir, 'api.http'),
    `### create\nPOST ${srv.url}/users?x=%41&y=1\nContent-Type: application/json\nX-Note: ${HOSTILE}\n\n{"name": "Ada & <Bob>", "pct": "100%"}\n\n### get\nGET ${srv.url}/users/1\n`,
  );
  const original = await runSling(['exec', 'api.http'], { cwd: dir, env: { HOME: home } });
  assert.equal(original.code, 0, original.stderr);
  // A .http request says `Connection: keep-alive`; a curl command does not.
  const strip = () => srv.requests.splice(0).map((q) => withoutHeader(q, 'connection'));
  const sent = strip();
  assert.equal(sent.length, 2);
  for (const [shell, file, first] of [
    ['powershell', 'api.ps1', /^# PowerShell/],
    ['cmd', 'api.bat', /^@echo off\n\nREM create/],
  ] as const) {
    const converted = await runSling(['exec', '--to', 'curl', '--shell', shell, 'api.http'], { cwd: dir });
    assert.equal(converted.code, 0, converted.stderr);
    assert.match(converted.stdout, first);
    writeFileSync(join(dir, file), converted.stdout);
    const back = await runSling(['exec', '--type', 'curl', file], { cwd: dir, env: { HOME: home } });
    assert.equal(back.code, 0, back.stderr);
    assert.deepEqual(diffRequests(sent, strip()), [], `${shell}:\n${converted.stdout}`);
  }
});

test('--curl=cmd refuses a value with a line break (no cmd.exe command line holds one) in one line; --curl=zsh and --shell without --to curl are usage errors', async () => {
  const r = await runSling(['--curl=cmd', '--raw', 'two\nlines', 'http://127.0.0.1:9/x']);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /^sling: error: --curl=cmd: a value with a line break or another control character cannot be written for cmd\.exe\n/);
  assert.match(r.stderr, /--curl=posix/);
  const ps = await runSling(['--curl=powershell', '--raw', 'two\nlines\x1b', 'http://127.0.0.1:9/x']);
  assert.equal(ps.code, 0, ps.stderr);
  assert.match(ps.stdout, /--data-raw "two`nlines`e"/);
  const bad = await runSling(['--curl=zsh', 'http://127.0.0.1:9/x']);
  assert.equal(bad.code, 1);
  assert.match(bad.stderr, /--curl= must be posix, powershell or cmd, got 'zsh'/);
  const shell = await runSling(['exec', '--shell', 'cmd', 'x.http']);
  assert.equal(shell.code, 1);
  assert.match(shell.stderr, /--shell goes with --to curl/);
});
