// curl files written on Windows or for it: PowerShell's pasted commands, drive-letter paths that bash
// would mangle, and where the default config file is found.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runSling } from '../helpers/cli.js';
import { header } from '../helpers/servers.js';
import { assertExit, httpServer, okText } from '../helpers/assert.js';

function dir(files: Record<string, string> = {}): string {
  const d = mkdtempSync(join(tmpdir(), 'sling-curl-win-'));
  for (const [n, c] of Object.entries(files)) writeFileSync(join(d, n), c);
  return d;
}

test('curlrc without a dot in $HOME/.config is read when XDG_CONFIG_HOME is not set, as curl 7.88 reads it', async (t) => {
  const s = await httpServer(t, okText);
  const home = dir();
  mkdirSync(join(home, '.config'));
  writeFileSync(join(home, '.config', 'curlrc'), 'header = "X-Rc: dotconfig"\n');
  const d = dir({ 'a.sh': `curl -s ${s.url}/a\n` });
  assertExit(await runSling(['exec', 'a.sh'], { cwd: d, env: { HOME: home } }), 0);
  assert.equal(header(s.requests[0]!, 'x-rc'), 'dotconfig');
  // A .curlrc in HOME comes first.
  writeFileSync(join(home, '.curlrc'), 'header = "X-Rc: home"\n');
  assertExit(await runSling(['exec', 'a.sh'], { cwd: d, env: { HOME: home } }), 0);
  assert.equal(header(s.requests[1]!, 'x-rc'), 'home');
});

test('an unquoted Windows path in a bash-style curl file (-d @C:\\data\\x.json, which bash makes C:datax.json) fails that command with a hint to quote it or write it with /; the others run', async (t) => {
  const s = await httpServer(t, okText);
  const d = dir({
    'a.sh': [`curl -s -d @C:\\data\\x.json ${s.url}/mangled`, `curl -s -F file=@D:\\up\\a.bin ${s.url}/form`, `curl -s -H 'X-Path: C:\\kept' -d 'C:\\data\\x.json' ${s.url}/quoted`, ''].join('\n'),
  });
  const r = await runSling(['exec', 'a.sh'], { cwd: d });
  assert.notEqual(r.code, 0, 'the refused commands count as failures');
  const errors = r.stderr.split('\n').filter((l) => l.includes('bash takes the backslashes out'));
  assert.equal(errors.length, 2, r.stderr);
  assert.match(
    errors[0]!,
    /a\.sh:1:1: bash takes the backslashes out of the unquoted Windows path C:\\data\\x\.json \(curl would get 'C:datax\.json'\): quote it \('C:\\data\\x\.json'\) or write it with \/ \(C:\/data\/x\.json\); the command is not run/,
  );
  assert.match(errors[1]!, /a\.sh:2:1: .*D:\\up\\a\.bin .*'D:upa\.bin'/);
  // Nothing was sent for them; the quoted one went out with its backslashes.
  assert.deepEqual(
    s.requests.map((q) => q.url),
    ['/quoted'],
  );
  assert.equal(s.requests[0]!.body.toString(), 'C:\\data\\x.json');
  assert.equal(header(s.requests[0]!, 'x-path'), 'C:\\kept');
});

test('-d @ a Windows drive path that is not there fails the command instead of sending an empty POST', async (t) => {
  const s = await httpServer(t, okText);
  const d = dir({ 'a.sh': `curl -s -d @'C:\\data\\x.json' ${s.url}/a\ncurl -s -d @C:/data/x.json ${s.url}/b\ncurl -s -d @missing.json ${s.url}/c\n` });
  const r = await runSling(['exec', 'a.sh'], { cwd: d });
  assert.notEqual(r.code, 0);
  assert.match(
    r.stderr,
    /a\.sh:1:1: cannot read the file 'C:\\data\\x\.json' for -d; with a Windows drive path the command is not run rather than sent without its body \(in a bash-style file write the path quoted, 'C:\\data\\x\.json', or with \/: C:\/data\/x\.json\)/,
  );
  assert.match(r.stderr, /a\.sh:2:1: cannot read the file 'C:\/data\/x\.json' for -d/);
  // An ordinary missing file is curl's empty POST with a warning, as before.
  assert.match(r.stderr, /could not read data from file 'missing\.json', this makes an empty POST/);
  assert.deepEqual(
    s.requests.map((q) => [q.url, q.method, q.body.length]),
    [['/c', 'POST', 0]],
  );
});

/** A .ps1 file as API docs' "PowerShell" tab gives it: backtick continuations, curl.exe, $env:, a here-string. */
const pastedPs1 = (url: string) =>
  [
    '# Create a user (docs, PowerShell tab)',
    `curl.exe -X POST "${url}/users" \``,
    '  -H "Content-Type: application/json" `',
    '  -H "Authorization: Bearer $env:API_TOKEN" `',
    `  -d '{"name": "Ada", "tags": ["a", "b"]}'`,
    '',
    "$query = @'",
    '{"query": "{ viewer { login } }"}',
    "'@",
    `curl.exe -s -X POST ${url}/graphql -H 'Content-Type: application/json' --data-raw $query`,
    '',
    `$env:TRACE = "t-1"; & curl.exe "${url}/search?q=a+b" -H "X-Note: say \`"hi\`" or ""hi""\`tnow" -H 'X-Lit: it''s $env:API_TOKEN' -H "X-Trace: \${env:TRACE}" -H "X-Cost: \`$5 caf\`u{e9}"`,
    '',
  ].join('\r\n');

test("PowerShell curl files (backtick continuations, curl.exe, $env:NAME, here-strings, '' and `\" escapes) are read as PowerShell passes the words to curl.exe", async (t) => {
  const s = await httpServer(t, okText);
  const d = dir({ 'api.ps1': pastedPs1(s.url) });
  const r = await runSling(['exec', 'api.ps1'], { cwd: d, env: { API_TOKEN: 'tok-123' } });
  assertExit(r, 0);
  assert.deepEqual(
    s.requests.map((q) => `${q.method} ${q.url}`),
    ['POST /users', 'POST /graphql', 'GET /search?q=a+b'],
  );
  const [users, graphql, search] = s.requests;
  assert.equal(header(users!, 'authorization'), 'Bearer tok-123');
  assert.equal(header(users!, 'content-type'), 'application/json');
  assert.equal(users!.body.toString(), '{"name": "Ada", "tags": ["a", "b"]}');
  assert.equal(graphql!.body.toString(), '{"query": "{ viewer { login } }"}');
  assert.equal(header(search!, 'x-note'), 'say "hi" or "hi"\tnow');
  assert.equal(header(search!, 'x-lit'), "it's $env:API_TOKEN");
  assert.equal(header(search!, 'x-trace'), 't-1');
  assert.equal(Buffer.from(header(search!, 'x-cost')!, 'latin1').toString('utf8'), '$5 café');
});

test('PowerShell curl files: what would run other code ($(...), a pipe into a cmdlet, Invoke-RestMethod) is refused in one line at its place, nothing sent', async (t) => {
  const s = await httpServer(t, okText);
  const cases: [string, RegExp][] = [
    [`curl.exe "${s.url}/a?at=$(Get-Date -UFormat %s)" \`\n  -H "X: 1"\n`, /a\.ps1:1:\d+: \$\(\.\.\.\) \(a PowerShell subexpression\) is not supported/],
    [`curl.exe ${s.url}/a \`\n  -s | ConvertFrom-Json\n`, /a\.ps1:2:\d+: '\|' \(a PowerShell pipe\) is not supported/],
    [`curl.exe ${s.url}/a \`\n  -s\nInvoke-RestMethod -Uri ${s.url}/b\n`, /a\.ps1:3:1: 'Invoke-RestMethod' is not curl/],
  ];
  for (const [text, message] of cases) {
    const d = dir({ 'a.ps1': text });
    const r = await runSling(['exec', 'a.ps1'], { cwd: d });
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, message);
    assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
  }
  assert.equal(s.requests.length, 0);
});
