// Builds the CLI into single files under dist/ (fast startup: one file, Node built-ins only),
// and with --tests also transpiles src/ and test/ file by file into build/ for `node --test`.
import { build } from 'esbuild';
import { chmodSync, readdirSync, rmSync, statSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

// The main command's path is one small entry plus one chunk of Node-built-ins-only code; what it
// does not always need (exec and its parsers, downloads, sessions, formatters of other types) is
// split into chunks that are loaded only when used, so start-up stays close to `node -e 0`.
rmSync(join(root, 'dist'), { recursive: true, force: true });
await build({
  entryPoints: { sling: join(root, 'src/entry/sling.ts'), slings: join(root, 'src/entry/slings.ts') },
  outdir: join(root, 'dist'),
  chunkNames: 'chunks/[name]-[hash]',
  bundle: true,
  splitting: true,
  platform: 'node',
  target: 'node20',
  format: 'esm',
  minifySyntax: true,
  legalComments: 'none',
  logLevel: 'warning',
  banner: { js: '#!/usr/bin/env node' },
  define: { SLING_VERSION: JSON.stringify(pkg.version) },
});
for (const out of ['sling.js', 'slings.js']) chmodSync(join(root, 'dist', out), 0o755);

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
    define: { SLING_VERSION: JSON.stringify(pkg.version) },
  });
}
