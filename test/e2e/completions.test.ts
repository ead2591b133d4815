// Shell completions: `sling completions bash|zsh|fish|powershell` prints a
// script made from the option table. bash -n, zsh -n and fish -n accept theirs; bash and fish
// complete flags, enumerated values (--pretty, --style, --auth-type, ...) and file names after @
// for real (each skipped, with the reason, where that shell is not installed).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runSling } from '../helpers/cli.js';
import { ttySkipReason } from '../helpers/tty.js';
import { EXEC_OPTIONS, OPTIONS } from '../../src/cli/options.js';
import { STYLE_NAMES } from '../../src/output/palette.js';

/** --style's choices: the palettes' names, each once. */
const STYLES = [...STYLE_NAMES];

const missing = (shell: string) => (spawnSync(shell, ['-c', 'exit 0']).status === 0 ? undefined : `${shell} is not installed`);

async function script(shell: string): Promise<string> {
  const r = await runSling(['completions', shell]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stderr, '');
  return r.stdout;
}

/** A directory with body.json, big.bin and sub/x.txt, and the script saved in another. */
function workdir(name: string, text: string): { dir: string; file: string } {
  const dir = mkdtempSync(join(tmpdir(), 'sling-completions-'));
  writeFileSync(join(dir, 'body.json'), '{}');
  writeFileSync(join(dir, 'big.bin'), '');
  mkdirSync(join(dir, 'sub'));
  writeFileSync(join(dir, 'sub', 'x.txt'), '');
  const file = join(mkdtempSync(join(tmpdir(), 'sling-completions-')), name);
  writeFileSync(file, text);
  return { dir, file };
}

test("completions: every shell's script names every flag of the table; an unknown shell is exit 1", async () => {
  for (const shell of ['bash', 'zsh', 'fish', 'powershell']) {
    const text = await script(shell);
    for (const o of [...OPTIONS, ...EXEC_OPTIONS]) {
      const name = shell === 'fish' ? `-l ${o.long} ` : `--${o.long}`;
      assert.ok(text.includes(name), `${shell}: --${o.long} missing`);
    }
    for (const style of STYLES) assert.ok(text.includes(style), `${shell}: style ${style} missing`);
  }
  const bad = await runSling(['completions', 'tcsh']);
  assert.equal(bad.code, 1);
  assert.equal(bad.stdout, '');
  assert.match(bad.stderr, /^sling: error: no completions for 'tcsh'\n {2}hint: sling completions bash\|zsh\|fish\|powershell\n$/);
  const none = await runSling(['completions']);
  assert.equal(none.code, 1);
});

test('completions: bash -n accepts the script, and _sling completes flags, values and @files', { skip: missing('bash') }, async () => {
  const { dir, file } = workdir('sling.bash', await script('bash'));
  assert.equal(spawnSync('bash', ['-n', file], { encoding: 'utf8' }).stderr, '');
  const cases: [string[], string][] = [
    [['sling', '--pre'], '--pretty'],
    [['sling', '--pretty', ''], 'all colors format none'],
    [['sling', '--pretty', '=', 'c'], 'colors'],
    [['sling', '-s', 'mono'], STYLES.filter((s) => s.startsWith('mono')).join(' ')],
    [['sling', '--style', ''], STYLES.join(' ')],
    [['sling', '--auth-type', 'b'], 'basic bearer'],
    [['sling', '-A', 'd'], 'digest'],
    [['sling', 'exec', '--fail'], '--fail-fast'],
    [['sling', 'exec', '--to', ''], 'curl http'],
    [['sling', '--fail'], ''],
    [['sling', '--no-foll'], '--no-follow'],
    [['sling', 'POST', ':3000', '@b'], '@big.bin @body.json'],
    [['sling', 'POST', ':3000', 'photo@s'], 'photo@sub/'],
    [['sling', 'POST', ':3000', 'photo@sub/'], 'photo@sub/x.txt'],
    [['sling', '-o', 'bo'], 'body.json'],
    [['sling', '--verify', ''], 'yes no big.bin body.json sub'],
    [['sling', ''], 'exec completions help'],
    [['sling', 'completions', 'f'], 'fish'],
  ];
  const calls = cases.map(([words]) => `COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}; COMPREPLY=(); _sling; echo "\${COMPREPLY[*]}"`).join('\n');
  // COMP_WORDS as bash makes them when COMP_WORDBREAKS has no '@' (the real splitting: the test below).
  const r = spawnSync('bash', ['--norc', '-c', `COMP_WORDBREAKS=\${COMP_WORDBREAKS//@}; source '${file}'\n${calls}`], { cwd: dir, encoding: 'utf8' });
  assert.equal(r.stderr, '');
  const got = r.stdout.split('\n').slice(0, cases.length);
  cases.forEach(([words, want], i) => assert.equal(got[i]!.split(' ').sort().join(' '), want.split(' ').sort().join(' '), words.join(' ')));
  // Registered for both commands.
  const reg = spawnSync('bash', ['--norc', '-c', `source '${file}'; complete -p sling slings`], { encoding: 'utf8' });
  assert.equal(reg.stdout, 'complete -o default -F _sling sling\ncomplete -o default -F _sling slings\n');
});

const BASH_COMPLETION = '/usr/share/bash-completion/bash_completion';

/**
 * Each line typed with a Tab, then Enter, into an interactive bash in a pseudo-terminal (util-linux
 * `script`), where `sling` is a shell function that prints the words it gets: what the completion
 * made of the line. The next line is typed once the previous one has printed.
 */
function bashAtPrompt(dir: string, setup: string, lines: string[]): Promise<string[]> {
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir, TERM: 'dumb', INPUTRC: '/dev/null', LANG: 'C.UTF-8' };
  const child = spawn('script', ['-qfc', 'bash --norc --noprofile -i', '/dev/null'], { cwd: dir, env, stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  const got = () => [...out.matchAll(/\[(.*)\] END\r?\n/g)].map((m) => m[1]!);
  const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
  return new Promise((resolve) => {
    let typed = -1;
    const next = () => {
      if (typed === lines.length - 1) {
        child.stdin.end('exit\n');
        return;
      }
      typed++;
      child.stdin.write(`${lines[typed]}\t\n`);
    };
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString('utf8');
      if (typed === -1 ? out.includes('READY') : got().length === typed + 1) next();
    });
    child.on('close', () => {
      clearTimeout(timer);
      resolve(got());
    });
    child.stdin.write(`PS1='$ '; ${setup}; sling() { printf '[%s]' "$*"; echo ' E''ND'; }; echo RE''ADY\n`);
  });
}

for (const withPackage of [false, true]) {
  const skip = missing('bash') ?? ttySkipReason ?? (withPackage && !existsSync(BASH_COMPLETION) ? 'the bash-completion package is not installed' : undefined);
  test(`completions: in an interactive bash${withPackage ? ' with bash-completion' : ''}, Tab completes @file, field=@file and name@file items whole`, { skip }, async () => {
    const { dir, file } = workdir('sling.bash', await script('bash'));
    const setup = `${withPackage ? `source ${BASH_COMPLETION}; ` : ''}source ${file}`;
    const cases: [string, string][] = [
      ['sling POST x @bo', 'POST x @body.json'],
      ['sling POST x f=@bi', 'POST x f=@big.bin'],
      ['sling POST x photo@bo', 'POST x photo@body.json'],
      ['sling x data:=@bi', 'x data:=@big.bin'],
      ['sling x photo@su', 'x photo@sub/'],
      ['sling x f=@sub/', 'x f=@sub/x.txt'],
      ['sling --pretty=c', '--pretty=colors'],
      ['sling --pre', '--pretty'],
    ];
    const got = await bashAtPrompt(
      dir,
      setup,
      cases.map(([line]) => line),
    );
    assert.deepEqual(
      got.map((g) => g.trimEnd()),
      cases.map(([, want]) => want),
    );
  });
}

test('completions: zsh -n accepts the script, and compinit takes it for sling and slings', { skip: missing('zsh') }, async () => {
  const { file } = workdir('_sling', await script('zsh'));
  const n = spawnSync('zsh', ['-n', file], { encoding: 'utf8' });
  assert.equal(n.status, 0, n.stderr);
  const r = spawnSync('zsh', ['-fc', `autoload -U compinit; compinit -u -D; source '${file}'; print -r -- $_comps[sling] $_comps[slings]`], { encoding: 'utf8' });
  assert.equal(r.stdout, '_sling _sling\n', r.stderr);
});

test('completions: zsh completes flags, values and @files at a prompt (zsh/zpty)', { skip: missing('zsh') }, async () => {
  const { dir, file } = workdir('_sling', await script('zsh'));
  // Each line is typed with a Tab into an interactive zsh in a pseudo-terminal; zpty -r waits for
  // what the completion must show (the typed text never contains it), then the line is cleared and
  // a command run, so that the next line is typed at a fresh prompt.
  const cases: [string, string][] = [
    ['sling --pre', '*--pretty*'],
    ['sling --pretty ', '*all*colors*format*none*'],
    ['sling -A b', '*basic*bearer*'],
    ['sling POST :3000 @bo', '*@body.json*'],
    ['slings --auth-ty', '*--auth-type*'],
    ['sling --verify ', '*yes*'],
  ];
  const lines = [
    'zmodload zsh/zpty || exit 3',
    'zpty z zsh -f -i',
    `zpty -w z 'PS1="> "; autoload -U compinit; compinit -u -D; source ${file}; print READY'`,
    "zpty -r z out '*READY*'",
    ...cases.flatMap(([line, want], i) => [
      `zpty -w -n z '${line}'$'\\t'`,
      `zpty -r z out '${want}'`,
      `print ok ${i}`,
      String.raw`zpty -w -n z $'\C-u'`,
      `zpty -w z 'print SY""NC${i}'`,
      `zpty -r z out '*SYNC${i}*'`,
    ]),
    'zpty -d z',
  ];
  const r = spawnSync('zsh', ['-f', '-c', lines.join('\n')], { cwd: dir, encoding: 'utf8', timeout: 30_000 });
  assert.equal(r.stdout, cases.map((_, i) => `ok ${i}\n`).join(''), `zsh did not complete '${cases[r.stdout.split('\n').length - 1]?.[0]}' (${r.stderr})`);
});

test('completions: fish -n accepts the script, and fish completes flags, values and @files', { skip: missing('fish') }, async () => {
  const { dir, file } = workdir('sling.fish', await script('fish'));
  const n = spawnSync('fish', ['-n', file], { encoding: 'utf8' });
  assert.equal(n.status, 0, n.stderr);
  const complete = (line: string) => {
    const r = spawnSync('fish', ['--no-config', '-c', `source '${file}'; complete -C '${line}'`], { cwd: dir, encoding: 'utf8' });
    assert.equal(r.stderr, '');
    return r.stdout
      .split('\n')
      .filter(Boolean)
      .map((l) => l.split('\t')[0])
      .sort();
  };
  assert.deepEqual(complete('sling --pre'), ['--pretty']);
  assert.deepEqual(complete('sling --pretty '), ['all', 'colors', 'format', 'none']);
  assert.deepEqual(complete('sling -A b'), ['basic', 'bearer']);
  assert.deepEqual(complete('sling POST :3000 @b'), ['@big.bin', '@body.json']);
  assert.deepEqual(complete('slings --styl'), ['--style']);
});
