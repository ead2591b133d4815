// The PowerShell reader of curl files (src/sources/curl/powershell.ts): which files it takes, and the words it gives curl.exe.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ShellEnv } from '../../src/sources/curl/expand.js';
import { looksLikePowerShell, parsePowerShell } from '../../src/sources/curl/powershell.js';

const env = (vars: Record<string, string> = {}): ShellEnv & { unsetSeen: string[] } => {
  const unsetSeen: string[] = [];
  return { lookup: (n) => vars[n], assign: () => {}, cwd: '/w', home: '/h', pid: 7, unset: (n) => void unsetSeen.push(n), unsetSeen };
};
const argv = (text: string, vars: Record<string, string> = {}) => parsePowerShell(text, env(vars)).map((c) => c.argv);

test('PowerShell files are told from bash and cmd.exe ones: a backtick ending a line, $env:, or only curl.exe commands', () => {
  assert.ok(looksLikePowerShell('curl.exe https://x `\n  -H "A: b"\n'));
  assert.ok(looksLikePowerShell('curl https://x -H "Authorization: Bearer $env:TOKEN"\n'));
  assert.ok(looksLikePowerShell("curl.exe 'https://x'\n"));
  assert.ok(looksLikePowerShell("& curl 'https://x'\n"));
  // bash: backslash continuations, a prefix, plain curl, a command substitution in backticks.
  assert.ok(!looksLikePowerShell('curl.exe https://x \\\n  -H "A: b"\n'));
  assert.ok(!looksLikePowerShell('time curl u\nsudo curl v\n/usr/bin/curl w\ncurl.exe x\n'));
  assert.ok(!looksLikePowerShell("curl 'https://x' -H 'A: b'\n"));
  assert.ok(!looksLikePowerShell('curl -d "`cat body`" https://x\n'));
  assert.ok(!looksLikePowerShell('wget https://x `\n'));
});

test('PowerShell words: quotes, backtick escapes, variables, assignments, comments, --% and separators', () => {
  assert.deepEqual(argv('curl.exe \'it\'\'s\' "a `"b`" ""c""" `$x a`tb'), [["it's", 'a "b" "c"', '$x', 'a\tb']]);
  assert.deepEqual(argv('curl.exe "Bearer $env:T" ${env:T}x $env:t.y', { T: 'tok', t: 'low' }), [['Bearer tok', 'tokx', 'low.y']]);
  assert.deepEqual(argv("$u = \"https://x\"; $h = 'A: $u'\ncurl.exe $u -H $h $nothing ''"), [['https://x', '-H', 'A: $u', '']]);
  assert.deepEqual(argv('<# block\ncomment #>\n# line\ncurl.exe a # trailing\ncurl.exe b && curl.exe c'), [['a'], ['b'], ['c']]);
  assert.equal(parsePowerShell('curl.exe b && curl.exe c || curl.exe d', env())[1]!.when, 'ok');
  assert.deepEqual(argv('curl.exe --% -H "A: b c" -d {"k":1}'), [['-H', 'A: b c', '-d', '{k:1}']]);
  assert.deepEqual(
    argv('curl.exe "`u{1F600}`e"').map((a) => a.map((w) => Buffer.from(w, 'latin1').toString('utf8'))),
    [['\u{1F600}\x1b']],
  );
  // Here-strings: @'...'@ as written, @"..."@ expanded; their lines' quotes are text.
  assert.deepEqual(argv('$a = @\'\n{"k": "$env:T"}\n\'@\n$b = @"\n{"t": "$env:T`t$"}\n"@\ncurl.exe -d $a -d $b', { T: 'x' }), [['-d', '{"k": "$env:T"}', '-d', '{"t": "x\t$"}']]);
  // Write-Host and echo lines do nothing.
  assert.deepEqual(argv('Write-Host "sending"\ncurl.exe x'), [['x']]);
  assert.throws(() => argv('curl.exe "unclosed'), /a quote \("\) that is never closed/);
  assert.throws(() => argv('curl.exe x > out.json'), /redirection/);
  assert.throws(() => argv('$b = Get-Content body.json\ncurl.exe x'), /'body.json'|only a string can be assigned/);
});
