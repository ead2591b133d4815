// The POSIX-shell reader of curl files: words as bash hands them to curl.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseShell, position, ShellSyntaxError } from '../../src/sources/curl/shell.js';
import { expandWord, type ShellEnv } from '../../src/sources/curl/expand.js';
import { walkScript } from '../../src/sources/curl/script.js';

/** Byte string of a UTF-8 text (how index.ts feeds the reader). */
const b = (s: string) => Buffer.from(s, 'utf8').toString('latin1');
/** Back from a byte string to text. */
const t = (s: string) => Buffer.from(s, 'latin1').toString('utf8');

function env(vars: Record<string, string> = {}): ShellEnv & { warned: string[] } {
  const map = new Map<string, string | undefined>(Object.entries(vars));
  const warned: string[] = [];
  return {
    lookup: (n) => map.get(n),
    assign: (n, v) => void map.set(n, v),
    cwd: '/tmp',
    home: '/home/u',
    pid: 4242,
    unset: (n) => void warned.push(n),
    warned,
  };
}

/** The argument lists of the curl commands of a text. */
function curlArgs(text: string, vars: Record<string, string> = {}): string[][] {
  const e = env(vars);
  return walkScript(parseShell(b(text)), { env: e, warn: () => {} }).map((c) => c.argv.map(t));
}

/** The words of the single command of a text, expanded. */
function words(text: string, vars: Record<string, string> = {}): string[] {
  const items = parseShell(b(text));
  assert.equal(items.length, 1);
  const e = env(vars);
  return items[0]!.pipeline.commands[0]!.words.flatMap((w) => expandWord(w, e)).map(t);
}

test('a backslash that ends the file is dropped, as bash drops it when it reads a script', () => {
  assert.deepEqual(curlArgs('curl -s http://h/ok \\'), [['-s', 'http://h/ok']]);
  assert.deepEqual(curlArgs('curl http://h/a\\'), [['http://h/a']]);
});

test('quoting: single, double, backslashes, concatenation', () => {
  const table: [string, string[]][] = [
    [`curl a 'b c' "d e"`, ['curl', 'a', 'b c', 'd e']],
    [`curl 'it'\\''s'`, ['curl', "it's"]],
    [`curl "say \\"hi\\" \\$HOME \\\\ \\x"`, ['curl', 'say "hi" $HOME \\ \\x']],
    [`curl a\\ b \\"q\\"`, ['curl', 'a b', '"q"']],
    [`curl 'a'"b"c$'d'`, ['curl', 'abcd']],
    [`curl ""`, ['curl', '']],
    [`curl "a\nb"`, ['curl', 'a\nb']],
    [`curl "a\\\nb"`, ['curl', 'ab']],
    [`curl 'a\\\nb'`, ['curl', 'a\\\nb']],
    [`curl -H'X: y'`, ['curl', '-HX: y']],
    [`curl a#b # comment`, ['curl', 'a#b']],
    [`curl $"x y"`, ['curl', 'x y']],
  ];
  for (const [input, want] of table) assert.deepEqual(words(input), want, input);
});

test("$'...': ANSI-C escapes produce bytes", () => {
  const table: [string, string][] = [
    [`$'a\\nb\\tc\\rd'`, 'a\nb\tc\rd'],
    [`$'\\x41\\101\\u00e9\\U0001F600'`, 'AAé😀'],
    [`$'it\\'s \\"x\\" \\\\'`, `it's "x" \\`],
    [`$'\\e\\a\\cA'`, '\x1b\x07\x01'],
    [`$'\\q'`, '\\q'],
    // A NUL ends the C string bash hands over: the rest of that $'...' is dropped.
    [`$'a\\x00b'c`, 'ac'],
  ];
  for (const [input, want] of table) assert.deepEqual(words(`curl ${input}`), ['curl', want], input);
  // \xff is one byte, not a character: it reaches curl as 0xff.
  const items = parseShell(b(`curl $'\\xff'`));
  const e = env();
  assert.deepEqual(items[0]!.pipeline.commands[0]!.words.flatMap((w) => expandWord(w, e))[1], '\xff');
});

test('parameters: $NAME, ${NAME}, defaults, splitting of unquoted expansions', () => {
  const vars = { T: 'tok', S: 'a  b', E: '' };
  const table: [string, string[]][] = [
    ['curl $T ${T}x "$T"', ['curl', 'tok', 'tokx', 'tok']],
    ['curl $S "$S"', ['curl', 'a', 'b', 'a  b']],
    ['curl $E "$E" x$E', ['curl', '', 'x']],
    ['curl ${U:-def} ${E:-d2} ${E-d3} ${T:+yes} ${U+no}', ['curl', 'def', 'd2', 'yes']],
    ['curl "${U:-two words}"', ['curl', 'two words']],
    ['curl ${#T}', ['curl', '3']],
    ['curl ~/x "~/y" a~', ['curl', '/home/u/x', '~/y', 'a~']],
    ['curl $ 1$ $/', ['curl', '$', '1$', '$/']],
  ];
  for (const [input, want] of table) assert.deepEqual(words(input, vars), want, input);
  const e = env();
  const items = parseShell(b('curl -H "Authorization: Bearer $TOKEN"'));
  assert.deepEqual(
    items[0]!.pipeline.commands[0]!.words.flatMap((w) => expandWord(w, e)),
    ['curl', '-H', 'Authorization: Bearer '],
  );
  assert.deepEqual(e.warned, ['TOKEN']);
});

test("special parameters: $$ is the ShellEnv's process id (sling's), $? and $# are 0, $0 is bash", () => {
  assert.deepEqual(words('curl "http://h/$$" ${$} $? $# $0'), ['curl', 'http://h/4242', '4242', '0', '0', 'bash']);
  assert.deepEqual(curlArgs('curl a/$$\ncurl b/$$'), [['a/4242'], ['b/4242']]);
});

test('commands: newlines, ;, &&, ||, continuations, comments, prompts of a shell session', () => {
  assert.deepEqual(curlArgs('curl a\ncurl b; curl c && curl d || curl e'), [['a'], ['b'], ['c'], ['d'], ['e']]);
  assert.deepEqual(curlArgs('#!/bin/bash\n# one\ncurl \\\n  -X POST \\\n  u   # trailing\n\n\ncurl v\n'), [['-X', 'POST', 'u'], ['v']]);
  assert.deepEqual(curlArgs('T=abc\nexport U="x y"\ncurl $T "$U"'), [['abc', 'x y']]);
  assert.deepEqual(curlArgs('A=1 curl u'), [['u']]);
  assert.deepEqual(curlArgs('time curl u\nsudo curl v\n/usr/bin/curl w\ncurl.exe x'), [['u'], ['v'], ['w'], ['x']]);
  // The prefixes' own options, with their values: what runs is still curl.
  assert.deepEqual(
    curlArgs(
      'sudo -E curl a\nsudo -u deploy -g web --preserve-env=HOME curl b\ntime -p curl c\nenv -i -u HOME curl d\nsudo -- curl e\nsudo -iu deploy curl g\ncommand -v curl >/dev/null || exit 1\ncommand -V curl\nexec -a name curl f\ncurl never',
    ),
    [['a'], ['b'], ['c'], ['d'], ['e'], ['g'], ['f']],
  );
  const e = env();
  const calls = walkScript(parseShell(b('curl a && curl b\ncurl c || curl d\ncurl e')), { env: e, warn: () => {} });
  assert.deepEqual(
    calls.map((c) => c.when),
    ['always', 'ok', 'always', 'failed', 'always'],
  );
});

test('stdin and stdout of a curl command: redirections, here-documents, pipes from echo', () => {
  const e = env({ V: 'val' });
  const calls = walkScript(
    parseShell(
      b(
        "curl -d @- u < in.txt\ncurl -d @- u <<EOF\nline $V\n  two\nEOF\ncurl -d @- u <<'EOF'\nraw $V\nEOF\ncurl -d @- u <<< \"$V here\"\necho -n hi | curl -d @- u\nprintf '%s-%s' a b | curl -d @- u\ncurl u > out.json\ncurl u 2>/dev/null >/dev/null",
      ),
    ),
    { env: e, warn: () => {} },
  );
  assert.deepEqual(calls[0]!.stdin, { kind: 'file', path: '/tmp/in.txt' });
  assert.deepEqual(
    calls.slice(1, 6).map((c) => (c.stdin?.kind === 'data' ? c.stdin.data : undefined)),
    ['line val\n  two\n', 'raw $V\n', 'val here\n', 'hi', 'a-b'],
  );
  assert.deepEqual(calls[6]!.stdout, { kind: 'file', path: '/tmp/out.json', append: false });
  assert.deepEqual(calls[7]!.stdout, { kind: 'discard' });
});

test('command substitution: echo, printf and cat only', () => {
  assert.deepEqual(curlArgs('curl -d "$(echo a b)" `echo u`'), [['-d', 'a b', 'u']]);
  // printf with flags, widths and precisions, as bash's printf writes them.
  assert.deepEqual(curlArgs(`curl -d "$(printf '%05d|%-4s|%.3s|%4d|%+d|%.2d' 42 ab abcdef 7 5 3)" u`), [['-d', '00042|ab  |abc|   7|+5|03', 'u']]);
  assert.throws(
    () => curlArgs('curl -H "X: $(date +%s)" u'),
    (e: unknown) => e instanceof ShellSyntaxError && /runs 'date'/.test(e.message),
  );
});

test('a curl command piped into another program is read as curl alone, with one warning that the pipe was not run', () => {
  const e = env();
  const warnings: { offset: number; message: string }[] = [];
  const text = b('curl -s u | jq .\ncurl v | python3 -m json.tool | head -3 > top.txt\necho x | curl -d @- w | jq -r .id');
  const calls = walkScript(parseShell(text), { env: e, warn: (offset, message) => void warnings.push({ offset, message }) });
  assert.deepEqual(
    calls.map((c) => c.argv.map(t)),
    [['-s', 'u'], ['v'], ['-d', '@-', 'w']],
  );
  // Its output is printed as curl prints it: no file, not discarded; stdin from echo still feeds curl.
  assert.deepEqual(
    calls.map((c) => c.stdout),
    [undefined, undefined, undefined],
  );
  assert.deepEqual(calls[2]!.stdin, { kind: 'data', data: 'x\n' });
  // One warning a pipeline, at the first program not run, naming every one of them.
  assert.equal(warnings.length, 3, JSON.stringify(warnings));
  assert.match(warnings[0]!.message, /the pipe into 'jq' was not run: sling does not run other programs; the response is printed as for the curl command alone/);
  assert.deepEqual(position(text, warnings[0]!.offset), { line: 1, column: 13 });
  assert.match(warnings[1]!.message, /the pipe into 'python3 \| head' was not run/);
  assert.deepEqual(position(text, warnings[1]!.offset), { line: 2, column: 10 });
  assert.match(warnings[2]!.message, /the pipe into 'jq' was not run/);
});

test('$(pwd) and `pwd` are the working folder, following cd, without running anything', () => {
  assert.deepEqual(curlArgs('curl -d "at=$(pwd)" u\ncd sub\ncurl -d "$(pwd)|`pwd`|$(pwd -L)" "file://$(pwd)/x"\npwd'), [
    ['-d', 'at=/tmp', 'u'],
    ['-d', '/tmp/sub|/tmp/sub|/tmp/sub', 'file:///tmp/sub/x'],
  ]);
  // pwd -P resolves symbolic links; the last of -L and -P counts, as in bash.
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'sling-pwd-')));
  mkdirSync(join(base, 'real'));
  symlinkSync(join(base, 'real'), join(base, 'link'));
  const e = env();
  e.cwd = join(base, 'link');
  const calls = walkScript(parseShell(b('curl -d "$(pwd)|$(pwd -P)|$(pwd -P -L)" u')), { env: e, warn: () => {} });
  assert.deepEqual(calls[0]!.argv[1], `${join(base, 'link')}|${join(base, 'real')}|${join(base, 'link')}`);
  rmSync(base, { recursive: true });
});

test('what sling will not run is an error at its line and column', () => {
  const cases: [string, RegExp, number, number][] = [
    ['curl u | jq . | curl -d @- v', /through 'jq' into curl/, 1, 17],
    ['curl --data @<(cat <<EOF\n{}\nEOF\n) u', /process substitution '<\(\.\.\.\)'/, 1, 14],
    ['curl -d "$(whoami)" u', /runs 'whoami'/, 1, 12],
    ['curl u\n  ( curl v )', /subshells/, 2, 3],
    ['curl "unterminated', /unterminated double quote/, 1, 6],
    ["curl u\ncurl 'x", /unterminated single quote/, 2, 6],
    ['for i in 1 2; do curl u; done', /control structures/, 1, 1],
    ['python3 -c x', /'python3' is not curl/, 1, 1],
    ['curl u\ncurl <<EOF', /here-document/, 2, 6],
    ['curl $((1+2))', /arithmetic/, 1, 6],
    ['source env.sh', /'source' is not supported/, 1, 1],
  ];
  for (const [text, re, line, column] of cases) {
    const bytes = b(text);
    try {
      walkScript(parseShell(bytes), { env: env(), warn: () => {} });
      assert.fail(`no error for ${JSON.stringify(text)}`);
    } catch (e) {
      assert.ok(e instanceof ShellSyntaxError, String(e));
      assert.match(e.message, re, text);
      assert.deepEqual(position(bytes, e.offset), { line, column }, text);
    }
  }
});

test('position counts characters, not bytes', () => {
  const text = b('curl "é" \'x');
  try {
    parseShell(text);
    assert.fail('expected an error');
  } catch (e) {
    assert.ok(e instanceof ShellSyntaxError);
    assert.deepEqual(position(text, e.offset), { line: 1, column: 10 });
  }
});

test('position: line and column of any offset, as a scan from the top counts them (line starts indexed once per text)', () => {
  const scan = (text: string, offset: number) => {
    let line = 1;
    let column = 1;
    for (let i = 0; i < offset && i < text.length; i++) {
      if (text[i] === '\n') {
        line++;
        column = 1;
      } else if ((text.charCodeAt(i) & 0xc0) !== 0x80) column++;
    }
    return { line, column };
  };
  fc.assert(
    fc.property(fc.string({ unit: fc.constantFrom('a', '\n', '\xc3', '\xa9', ' ') }), fc.array(fc.nat(40)), (text, offsets) => {
      for (const o of offsets) assert.deepEqual(position(text, o), scan(text, o), JSON.stringify([text, o]));
    }),
  );
  // Thousands of commands: thousands of lookups, each no longer a scan of the file.
  const big = 'curl -s http://127.0.0.1/x\n'.repeat(20000);
  const last = big.length - 5;
  assert.deepEqual(position(big, last), scan(big, last));
  assert.deepEqual(position(big, 27), { line: 2, column: 1 });
});

test('{ } groups: one that runs no curl is read like its builtins (`|| { echo failed; exit 1; }`); curl inside one, or a group left open, is an error', () => {
  assert.deepEqual(curlArgs('curl -f a || { echo "a failed" >&2; exit 1; }\ncurl b\n{ echo start; }\ncurl c && {\n  echo ok\n}\n'), [['-f', 'a'], ['b'], ['c']]);
  assert.throws(
    () => curlArgs('true || { curl x; }'),
    (e: unknown) => e instanceof ShellSyntaxError && /'curl' inside a '\{ \}' group is not supported/.test(e.message),
  );
  assert.throws(
    () => curlArgs('curl a || { echo x; exit 1\ncurl b'),
    (e: unknown) => e instanceof ShellSyntaxError && /a '\{' group without its closing '\}'/.test(e.message),
  );
  assert.throws(
    () => curlArgs('{ echo x; } y'),
    (e: unknown) => e instanceof ShellSyntaxError && /only redirections may follow/.test(e.message),
  );
});

test('$( ) nested thousands deep is a ShellSyntaxError, not the stack running out (fuzz: RangeError)', () => {
  assert.throws(
    () => parseShell(b(`curl x\ncurl ${'$('.repeat(20_000)}`)),
    (e: unknown) => e instanceof ShellSyntaxError && /^nested too deeply to work through/.test(e.message) && position(b(`curl x\ncurl ${'$('.repeat(20_000)}`), e.offset).line === 2,
  );
});

test('a double-quoted word of 200,000 expansions is read (its parts were passed to push() as as many arguments)', () => {
  const [item] = parseShell(b(`curl "${'$a'.repeat(200_000)}"`));
  assert.equal(item!.pipeline.commands[0]!.words[1]!.parts.filter((p) => p.kind === 'var').length, 200_000);
});
