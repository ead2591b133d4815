// --help fits 100 columns and ends with five examples; `sling help exec` and `sling exec --help`
// cover exec's own flags and end with two examples.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runSling } from '../helpers/cli.js';
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

function fits(help: string, what: string): void {
  const long = help.split('\n').filter((l) => [...l].length > 100);
  assert.deepEqual(long, [], `${what}: lines wider than 100 columns`);
}

test('--help: every line fits 100 columns, every flag is there, and it ends with five examples', async () => {
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

test("sling help exec and sling exec --help: exec's own flags, within 100 columns, two examples", async () => {
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
  assert.equal(r.stderr, "sling: error: no help for 'curl'\n  hint: sling help, or sling help exec\n");
});
