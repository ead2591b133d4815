// Builds the CLI into single files under dist/ (fast startup: one file, Node built-ins only),
// and with --tests also transpiles src/ and test/ file by file into build/ for `node --test`.
import { build } from 'esbuild';
import { chmodSync, readdirSync, rmSync, statSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

const common = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'esm',
  minifySyntax: true,
  legalComments: 'none',
  logLevel: 'warning',
  banner: { js: '#!/usr/bin/env node' },
};
for (const [out, scheme] of [['sling.js', 'http'], ['slings.js', 'https']]) {
  await build({
    ...common,
    entryPoints: [join(root, 'src/bin.ts')],
    outfile: join(root, 'dist', out),
    define: { SLING_VERSION: JSON.stringify(pkg.version), SLING_DEFAULT_SCHEME: JSON.stringify(scheme) },
  });
  chmodSync(join(root, 'dist', out), 0o755);
}

if (process.argv.includes('--tests')) {
  const files = [];
  const walk = (dir) => {
    for (const name of readdirSync(dir)) {
      const p = join(dir, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (p.endsWith('.ts') && !p.endsWith('.d.ts')) files.push(p);
    }
  };
  walk(join(root, 'src'));
  walk(join(root, 'test'));
  rmSync(join(root, 'build'), { recursive: true, force: true });
  await build({
    entryPoints: files,
    outdir: join(root, 'build'),
    outbase: root,
    bundle: false,
    platform: 'node',
    target: 'node20',
    format: 'esm',
    sourcemap: 'inline',
    logLevel: 'warning',
    define: { SLING_VERSION: JSON.stringify(pkg.version), SLING_DEFAULT_SCHEME: '"http"' },
  });
}
