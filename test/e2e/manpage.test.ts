// The man page (issue 29 item 14): scripts/build.mjs writes dist/sling.1 from the option table
// (src/cli/manpage.ts) and package.json's "man" ships it, so `man sling` works after a global
// install. It names every flag of the table, it is the generator's output for this version, and
// man -l renders it without a groff warning (skipped, with the reason, where man or groff is absent).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT, VERSION } from '../helpers/cli.js';
import { manPage } from '../../src/cli/manpage.js';
import { EXEC_OPTIONS, OPTIONS } from '../../src/cli/options.js';

const page = join(REPO_ROOT, 'dist', 'sling.1');
const has = (cmd: string) => spawnSync(cmd, ['--version'], { encoding: 'utf8' }).status === 0;
const noMan = has('man') ? (has('groff') ? undefined : 'groff is not installed') : 'man is not installed';

test('man page: package.json "man" names dist/sling.1, the generator\'s output, with every flag', () => {
  const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { man?: string | string[]; files: string[] };
  assert.deepEqual([pkg.man].flat().map((m) => m?.replace(/^\.\//, '')), ['dist/sling.1']);
  assert.ok(pkg.files.includes('dist'));
  const text = readFileSync(page, 'utf8');
  assert.equal(text, manPage(VERSION));
  assert.match(text, /^\.TH SLING 1 /);
  for (const o of [...OPTIONS, ...EXEC_OPTIONS]) assert.ok(text.includes(`\\fB\\-\\-${o.long.replace(/-/g, '\\-')}\\fR`), `--${o.long} is not in the man page`);
  for (const s of OPTIONS.filter((o) => o.short)) assert.ok(text.includes(`\\fB\\-${s.short}\\fR`), `-${s.short} is not in the man page`);
});

test('man page: man -l renders it, groff has no warning', { skip: noMan }, () => {
  const r = spawnSync('man', ['-l', page], { encoding: 'utf8', env: { ...process.env, MANPAGER: 'cat', PAGER: 'cat', MANWIDTH: '100' } });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /^SLING\(1\)/);
  assert.match(r.stdout, /\n {7}--pretty all\|colors\|format\|none\n/);
  assert.match(r.stdout, /\nEXAMPLES\n/);
  const g = spawnSync('groff', ['-man', '-ww', '-z', page], { encoding: 'utf8' });
  assert.equal(g.status, 0);
  assert.equal(g.stderr, '');
});
