// --help fits 100 columns and ends with five examples; `sling help exec` and `sling exec --help`
// cover exec's own flags and end with two examples.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runSling, VERSION } from '../helpers/cli.js';
import { runOnTty, ttySkipReason } from '../helpers/tty.js';
import { EXEC_OPTIONS, OPTIONS } from '../../src/cli/options.js';

/** The commands of the Examples section at the end of a help text. */
function examples(help: string): string[] {
  const at = help.lastIndexOf('\nExamples:\n');
  assert.ok(at >= 0, 'no Examples: section');
  return help
    .slice(at)
    .split('\n')
    .filter((l) => /^ {2}sling /.test(l))
    .map((l) => l.trim());
}

function fits(help: string, what: string, width = 80): void {
  const long = help.split('\n').filter((l) => [...l].length > width);
  assert.deepEqual(long, [], `${what}: lines wider than ${width} columns`);
}

test('--help not on a terminal: every line fits 80 columns, every flag is there, and it ends with five examples', async () => {
  for (const args of [['--help'], ['help'], ['-h']]) {
    const r = await runSling(args);
    assert.equal(r.code, 0, r.stderr);
    fits(r.stdout, args.join(' '));
    for (const o of OPTIONS) assert.ok(r.stdout.includes(`--${o.long}`), `--${o.long} is not in ${args.join(' ')}`);
    const ex = examples(r.stdout);
    assert.equal(ex.length, 5, ex.join('\n'));
    // The examples are the last thing the help says.
    assert.match(r.stdout, /\n {6}\S[^\n]*\n$/);
  }
});

test("sling help exec and sling exec --help: exec's own flags, within 80 columns, two examples", async () => {
  const outputs: string[] = [];
  for (const args of [
    ['help', 'exec'],
    ['exec', '--help'],
    ['exec', '-h'],
  ]) {
    const r = await runSling(args);
    assert.equal(r.code, 0, r.stderr);
    fits(r.stdout, args.join(' '));
    assert.match(r.stdout, /sling exec runs a file of requests/);
    for (const o of EXEC_OPTIONS) assert.match(r.stdout, new RegExp(`^ {2}(-${o.short}, )?--${o.long}\\b`, 'm'), `--${o.long} is not in ${args.join(' ')}`);
    const ex = examples(r.stdout);
    assert.equal(ex.length, 2, ex.join('\n'));
    assert.ok(
      ex.every((e) => e.startsWith('sling exec ')),
      ex.join('\n'),
    );
    outputs.push(r.stdout);
  }
  assert.equal(outputs[0], outputs[1]);
});

test('sling help WORD: help exists for exec only', async () => {
  const r = await runSling(['help', 'curl']);
  assert.equal(r.code, 1);
  assert.equal(r.stdout, '');
  assert.equal(r.stderr, "sling: error: no help for 'curl'\n  hint: sling help, sling help exec or sling help completions\n");
});

test('--help on a terminal is laid out for its width: within 50 columns on a narrow one, wider lines on a wide one', { skip: ttySkipReason }, async () => {
  const widest = (text: string) => Math.max(...text.split('\n').map((l) => [...l].length));
  for (const args of [['--help'], ['help', 'exec'], ['completions', '--help']]) {
    const narrow = await runOnTty(args, {}, { columns: 50 });
    assert.equal(narrow.code, 0, narrow.out);
    fits(narrow.out, `${args.join(' ')} on 50 columns`, 50);
    if (args[0] === '--help') for (const o of OPTIONS) assert.ok(narrow.out.includes(`--${o.long}`), `--${o.long} is not in --help`);
  }
  const wide = await runOnTty(['--help'], {}, { columns: 160 });
  assert.equal(wide.code, 0, wide.out);
  assert.ok(widest(wide.out) > 100, `the widest line is ${widest(wide.out)} columns on a terminal of 160`);
  fits(wide.out, '--help on 160 columns', 160);
  // The same text, only laid out otherwise.
  const words = (t: string) => t.split(/\s+/).filter(Boolean).join(' ');
  const piped = await runSling(['--help']);
  assert.equal(words(wide.out), words(piped.stdout));
});

test('sling completions --help and sling help completions say how to load the completions, exit 0', async () => {
  const outputs: string[] = [];
  for (const args of [
    ['completions', '--help'],
    ['completions', '-h'],
    ['help', 'completions'],
  ]) {
    const r = await runSling(args);
    assert.equal(r.code, 0, `${args.join(' ')}: ${r.stderr}`);
    assert.equal(r.stderr, '');
    assert.ok(r.stdout.startsWith(`sling ${VERSION}: sling completions prints a shell's completion script\n`), r.stdout);
    assert.match(r.stdout, /sling completions bash\|zsh\|fish\|powershell/);
    assert.match(r.stdout, /source <\(sling completions bash\)/);
    fits(r.stdout, args.join(' '));
    outputs.push(r.stdout);
  }
  assert.equal(outputs[0], outputs[1]);
  assert.equal(outputs[0], outputs[2]);
});

test('--continue says in help that it needs --download and -o FILE', async () => {
  const r = await runSling(['--help']);
  const at = r.stdout.indexOf('--continue');
  assert.match(r.stdout.slice(at, at + 200).replace(/\s+/g, ' '), /--continue resume a partial download: with --download and -o FILE/);
});
