// The package is fit to publish: what `npm pack` would put in the tarball is the
// build (dist/), README.md, LICENSE, the documents README.md links to (docs/, SECURITY.md) and
// package.json; never the sources, the tests, the test build or the benchmarks.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
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

test('the build runs from a clone whose path has a blank and a percent sign (file paths, not URL paths)', async () => {
  const { cpSync, mkdtempSync, rmSync, symlinkSync, existsSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const dir = join(mkdtempSync(join(tmpdir(), 'sling-build-')), 'my clone 100%');
  try {
    for (const part of ['package.json', 'scripts', 'src']) cpSync(join(REPO_ROOT, part), join(dir, part), { recursive: true });
    symlinkSync(join(REPO_ROOT, 'node_modules'), join(dir, 'node_modules'), 'junction');
    const r = spawnSync(process.execPath, [join(dir, 'scripts', 'build.mjs')], { cwd: dir, encoding: 'utf8' });
    assert.equal(r.status, 0, `the build failed: ${r.stderr}`);
    assert.ok(existsSync(join(dir, 'dist', 'sling.js')), 'dist/sling.js was written in the clone');
    const v = spawnSync(process.execPath, [join(dir, 'dist', 'sling.js'), '--version'], { encoding: 'utf8' });
    assert.equal(v.status, 0, v.stderr);
  } finally {
    rmSync(dirname(dir), { recursive: true, force: true });
  }
});

test('installing the package runs no script of its own: dist/ is built when it is packed (prepack), not by prepare', () => {
  const { scripts } = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  // npm 11 warns on a global install of a package with a prepare script; a tarball ships dist/ already.
  for (const hook of ['prepare', 'preinstall', 'install', 'postinstall']) assert.equal(scripts[hook], undefined, `package.json has a ${hook} script`);
  assert.equal(scripts.prepack, 'node scripts/build.mjs', 'npm pack and npm publish build dist/ first');
  // A fresh clone's `npm ci && npm test` still builds: the test step builds dist/ itself.
  assert.match(scripts.pretest ?? '', /scripts\/build\.mjs --tests/);
});

/** The README's install lines, run in a copy of a clone with `npm install -g` given a prefix of the test's own. */
test("the README's install lines work from a fresh clone: npm install -g . links the clone, npm pack's tarball installs a copy that works without it", { skip: noNpm }, async (t) => {
  const { cpSync, mkdtempSync, rmSync, symlinkSync, readdirSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { httpServer } = await import('../helpers/assert.js');
  const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
  const LINK = 'npm ci && npm run build && npm install -g .';
  const COPY = 'npm pack && npm install -g ./sling-*.tgz';
  assert.match(readme, new RegExp(`^${LINK.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} +#`, 'm'), 'README.md installs from a clone with this line');
  assert.match(readme, new RegExp(`^${COPY.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} +#`, 'm'), 'README.md installs a copy with this line');
  const top = mkdtempSync(join(tmpdir(), 'sling-install-'));
  t.after(() => rmSync(top, { recursive: true, force: true }));
  // A fresh clone: the committed files, no dist/ and no build/. `npm ci` would fetch node_modules; the
  // test links the ones installed here instead (no network), and runs the rest as written.
  const clone = join(top, 'clone');
  for (const part of ['package.json', 'package-lock.json', 'scripts', 'src', 'README.md', 'LICENSE', 'SECURITY.md', 'docs']) cpSync(join(REPO_ROOT, part), join(clone, part), { recursive: true });
  symlinkSync(join(REPO_ROOT, 'node_modules'), join(clone, 'node_modules'), 'junction');
  const env = { ...process.env, PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}`, npm_config_update_notifier: 'false', npm_config_audit: 'false', npm_config_fund: 'false' };
  const sh = (line: string, prefix: string) => {
    const cmd = line.replace(/^npm ci && /, '').replace(/npm install -g /g, `npm install -g --offline --prefix '${prefix}' `);
    const r = spawnSync('sh', ['-c', cmd], { cwd: clone, env, encoding: 'utf8', timeout: 120_000 });
    assert.equal(r.status, 0, `${cmd}\n${r.stdout}\n${r.stderr}`);
  };
  const srv = await httpServer(t, (_req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/plain' });
    res.end('installed and answering');
  });
  // Run as a shell runs it (its #! line and the node on PATH); asynchronously, as the server is in this process.
  const run = (bin: string, args: string[]) =>
    new Promise<{ code: number | null; out: string; err: string }>((resolve) => {
      const child = spawn(bin, args, { env, stdio: ['ignore', 'pipe', 'pipe'], timeout: 15_000 });
      let out = '';
      let err = '';
      child.stdout.on('data', (c: Buffer) => (out += c));
      child.stderr.on('data', (c: Buffer) => (err += c));
      child.on('close', (code) => resolve({ code, out, err }));
    });
  const version = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')).version;
  const works = async (prefix: string) => {
    const bin = join(prefix, 'bin', 'sling');
    const v = await run(bin, ['--version']);
    assert.equal(v.code, 0, `${bin} --version: ${v.err}`);
    assert.equal(v.out, `sling ${version}\n`);
    const r = await run(bin, ['-b', `${srv.url}/`]);
    assert.equal(r.code, 0, r.err);
    assert.equal(r.out, 'installed and answering');
  };
  const linked = join(top, 'linked');
  sh(LINK, linked);
  await works(linked);
  const copied = join(top, 'copied');
  sh(COPY, copied);
  assert.ok(readdirSync(clone).some((f) => /^sling-.*\.tgz$/.test(f)));
  // The copy does not point into the clone: it works with the clone gone.
  rmSync(clone, { recursive: true, force: true });
  await works(copied);
});
