// The package is fit to publish: what `npm pack` would put in the tarball is the
// build (dist/), README.md, LICENSE, the documents README.md links to (docs/, SECURITY.md) and
// package.json; never the sources, the tests, the test build or the benchmarks.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../helpers/cli.js';

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const noNpm = spawnSync(npm, ['--version'], { encoding: 'utf8' }).status === 0 ? undefined : 'npm is not on PATH';

/** The files `npm pack --dry-run` lists (scripts not run: dist/ is already built by the test build). */
async function packedFiles(): Promise<string[]> {
  const out = await new Promise<string>((resolve, reject) => {
    const child = spawn(npm, ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let text = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (text += c));
    child.stderr.on('data', (c: Buffer) => (err += c));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(text) : reject(new Error(`npm pack failed (${code}): ${err}`))));
  });
  const [pack] = JSON.parse(out) as { files: { path: string }[] }[];
  return pack!.files.map((f) => f.path).sort();
}

test('npm pack: dist/, README.md, LICENSE, docs/ and SECURITY.md; no sources, tests or test build', { skip: noNpm }, async () => {
  const files = await packedFiles();
  for (const f of ['LICENSE', 'README.md', 'package.json', 'dist/sling.js', 'dist/slings.js', 'SECURITY.md', 'docs/usage.md'])
    assert.ok(files.includes(f), `${f} is not in the package: ${files.join(' ')}`);
  // The man page (package.json `man`, written by the build).
  assert.ok(files.includes('dist/sling.1'), 'dist/sling.1 (the man page) is not in the package');
  const stray = files.filter((f) => !/^(dist\/|docs\/[\w.-]+\.md$|README\.md$|LICENSE$|SECURITY\.md$|package\.json$|(man\/)?[\w-]+\.1$)/.test(f));
  assert.deepEqual(stray, [], 'only the build, the documents and package.json');
  assert.ok(!files.some((f) => /^(src|test|build|bench|scripts|node_modules)\//.test(f) || /\.test\.|\.ts$/.test(f)), 'no sources or tests');
  // Every page README.md links to (docs/..., SECURITY.md) comes along, so its links work where it is
  // installed; the two pages for people changing sling (ARCHITECTURE.md, CONTRIBUTING.md) stay out.
  const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
  const linked = [...readme.matchAll(/\]\(((?:docs\/)?[\w.-]+\.md)(?:#[^)]*)?\)/g)].map((m) => m[1]!).filter((l) => l !== 'ARCHITECTURE.md' && l !== 'CONTRIBUTING.md');
  assert.ok(linked.length > 0);
  for (const l of new Set(linked)) assert.ok(files.includes(l), `README.md links to ${l}, which is not in the package`);
  // The licence is the one package.json names.
  assert.equal(JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')).license, 'MIT');
  assert.match(readFileSync(join(REPO_ROOT, 'LICENSE'), 'utf8'), /^MIT License\n\nCopyright \(c\) 2026 the sling authors\n/);
});
