// The man page: scripts/build.mjs writes dist/sling.1 from the option table
// (src/cli/manpage.ts) and package.json's "man" ships it, so `man sling` works after a global
// install. It names every flag of the table, it is the generator's output for this version, and
// man -l renders it without a groff warning (skipped, with the reason, where man or groff is absent).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT, VERSION } from '../helpers/cli.js';
import { manPage } from '../../src/cli/manpage.js';
import { EXEC_OPTIONS, OPTIONS } from '../../src/cli/options.js';

const page = join(REPO_ROOT, 'dist', 'sling.1');
const has = (cmd: string) => spawnSync(cmd, ['--version'], { encoding: 'utf8' }).status === 0;
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const noNpm = spawnSync(npm, ['--version'], { encoding: 'utf8' }).status === 0 ? undefined : 'npm is not on PATH';
const noMan = has('man') ? (has('groff') ? undefined : 'groff is not installed') : 'man is not installed';

test('man page: package.json "man" names dist/sling.1, the generator\'s output, with every flag', () => {
  const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { man?: string | string[]; files: string[] };
  // A list: npm links a string "man" of a package installed from a tarball nowhere.
  assert.deepEqual(pkg.man, ['./dist/sling.1']);
  assert.ok(pkg.files.includes('dist'));
  const text = readFileSync(page, 'utf8');
  assert.equal(text, manPage(VERSION));
  assert.match(text, /^\.TH SLING 1 /);
  for (const o of [...OPTIONS, ...EXEC_OPTIONS]) assert.ok(text.includes(`\\fB\\-\\-${o.long.replace(/-/g, '\\-')}\\fR`), `--${o.long} is not in the man page`);
  for (const s of OPTIONS.filter((o) => o.short)) assert.ok(text.includes(`\\fB\\-${s.short}\\fR`), `-${s.short} is not in the man page`);
  // A flag whose help already says it is repeatable does not say it twice.
  assert.doesNotMatch(text, /repeatable\).*\(repeatable\)/);
  assert.match(text, /without DNS \(repeatable\)\n/);
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

test('man page: npm install -g of the package links it where man looks (PREFIX/share/man/man1)', { skip: noNpm }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'sling-man-'));
  // dist/ is already built by the test build: no scripts, and nothing to fetch (no dependencies).
  const pack = spawnSync(npm, ['pack', '--ignore-scripts', '--pack-destination', dir], { cwd: REPO_ROOT, encoding: 'utf8' });
  assert.equal(pack.status, 0, pack.stderr);
  const tarball = join(dir, pack.stdout.trim().split('\n').pop()!);
  const prefix = join(dir, 'prefix');
  const install = spawnSync(npm, ['install', '-g', '--prefix', prefix, '--ignore-scripts', '--offline', '--no-audit', '--no-fund', tarball], { encoding: 'utf8' });
  assert.equal(install.status, 0, install.stderr);
  const linked = join(prefix, 'share', 'man', 'man1', 'sling.1');
  assert.ok(existsSync(linked), `npm install -g made no ${linked}`);
  assert.equal(realpathSync(linked), realpathSync(join(prefix, 'lib', 'node_modules', 'sling', 'dist', 'sling.1')));
  if (noMan) return;
  const r = spawnSync('man', ['sling'], { encoding: 'utf8', env: { ...process.env, MANPATH: join(prefix, 'share', 'man'), MANPAGER: 'cat', PAGER: 'cat' } });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /^SLING\(1\)/);
});
