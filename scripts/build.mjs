// Builds the CLI into dist/ (fast startup: entry files and chunks, Node built-ins only),
// and with --tests also transpiles src/ and test/ file by file into build/ for `node --test`.
import { build, transform } from 'esbuild';
import { chmodSync, copyFileSync, readdirSync, symlinkSync, rmSync, statSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

// The main command's path is one small entry plus one chunk of Node-built-ins-only code; what it
// does not always need (exec and its parsers, downloads, sessions, formatters of other types) is
// split into chunks that are loaded only when used, so start-up stays close to `node -e 0`.
/** One source file bundled into a string (not written): the chunk loader, the man page generator, the script engine's realms. */
async function bundleText(entry, format, minify = true, options = {}) {
  const minified = minify ? { minifySyntax: true, legalComments: 'none' } : {};
  const result = await build({ entryPoints: [join(root, entry)], bundle: true, write: false, platform: 'node', target: 'node20', format, ...minified, logLevel: 'warning', ...options });
  return result.outputFiles[0].text;
}
// The script engine's realms (src/sources/http/engine/, ARCHITECTURE.md "Scripts"): each realm's
// setup program is a .ts file of its own, bundled here into one script (no imports left, strict
// mode, not minified) whose text script.ts evaluates in a new realm. It is handed to the host code
// only as that text, through `define`, in dist/ and in the test build alike.
const ENGINE = { SLING_ENGINE_JETBRAINS: 'jetbrains.ts', SLING_ENGINE_HTTPYAC: 'httpyac.ts', SLING_ENGINE_EXPRESSIONS: 'expressions.ts' };
const engineDir = join('src', 'sources', 'http', 'engine');
const enginePrograms = {};
for (const [name, file] of Object.entries(ENGINE)) {
  // QuickJS: ECMAScript 2023 or so, none of Node's or a browser's globals. The folder's tsconfig.json
  // is "strict": each program starts with 'use strict'.
  const options = { platform: 'neutral', target: 'es2022', legalComments: 'none', tsconfig: join(root, engineDir, 'tsconfig.json') };
  enginePrograms[name] = JSON.stringify(await bundleText(join(engineDir, file), 'iife', false, options));
}
const defines = {
  SLING_VERSION: JSON.stringify(pkg.version),
  ...enginePrograms,
};
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
  define: defines,
});
// esbuild splits only ESM output; the split files are then turned into CommonJS one by one
// (`import()` of a chunk becomes a `require()`). Node loads CommonJS synchronously, without the
// ESM loader's resolve/translate/link steps per module: measured here, `sling --version` 65 ms →
// 52 ms and `sling exec` of 1,000 requests 636 ms → 496 ms (bench/startup.mjs, bench/exec-http.mjs).
const dist = join(root, 'dist');
// Each entry file loads its chunks itself (src/entry/loader.ts: no module resolution per require,
// V8's code cache for every chunk): the loader goes at the top of the entry, and the entry's
// `require("./chunks/X.js")` become `load("X.js")`.
const loader = await bundleText('src/entry/loader.ts', 'cjs');
const withLoader = (code) => {
  let n = 0;
  const body = code.replace(/require\("\.\/chunks\/([\w.-]+\.js)"\)/g, (_, name) => (n++, `sling_load(${JSON.stringify(name)})`));
  if (!n || /require\("\.\//.test(body)) throw new Error('build: an entry file requires something other than its chunks');
  return `var sling_loader = (function (module) {\n${loader}return module.exports;\n})({ exports: {} });\nvar sling_load = sling_loader.chunkLoader(require("node:path").join(__dirname, "chunks"), ${JSON.stringify(pkg.version)}, process.env, require);\n${body}`;
};
const outputs = [...['sling.js', 'slings.js'].map((f) => join(dist, f)), ...readdirSync(join(dist, 'chunks')).map((f) => join(dist, 'chunks', f))];
for (const file of outputs) {
  const source = readFileSync(file, 'utf8').replace(/^#!.*\n/, '');
  const { code } = await transform(source, {
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    supported: { 'dynamic-import': false },
    minifySyntax: true,
    legalComments: 'none',
    logLevel: 'warning',
  });
  const entry = !file.includes(`${join('dist', 'chunks')}`);
  writeFileSync(file, entry ? '#!/usr/bin/env node\n' + withLoader(code) : code);
}
// The script engine (QuickJS as WebAssembly, src/sources/http/quickjs.ts): its glue code, bundled
// into a chunk, reads the .wasm file beside itself (`__dirname`), so the file goes into chunks/.
copyFileSync(join(root, 'node_modules', '@jitl', 'quickjs-wasmfile-release-sync', 'dist', 'emscripten-module.wasm'), join(dist, 'chunks', 'emscripten-module.wasm'));
// The package is "type": "module"; dist/ holds CommonJS.
writeFileSync(join(dist, 'package.json'), '{ "type": "commonjs" }\n');
// Legal comments are left out of the bundle: the licences of the packages bundled in travel beside it.
// pako: its MIT licence, and the zlib licence its lib/zlib/ files carry in their heads.
const pakoDir = join(root, 'node_modules', 'pako');
const pakoHead = readFileSync(join(pakoDir, 'lib', 'zlib', 'deflate.js'), 'utf8').split('\n');
const firstComment = pakoHead.findIndex((line) => line.startsWith('//'));
const afterComment = pakoHead.findIndex((line, i) => i > firstComment && !line.startsWith('//'));
const zlibNotice = pakoHead
  .slice(firstComment, afterComment)
  .map((line) => line.replace(/^\/\/ ?/, ''))
  .join('\n');
// @faker-js/faker: its English locale, in a chunk of its own (loaded only for JetBrains Faker variables).
// quickjs-emscripten: its licence file carries QuickJS's own (Fabrice Bellard, Charlie Gordon) too.
const quickjsLicense = readFileSync(join(root, 'node_modules', '@jitl', 'quickjs-wasmfile-release-sync', 'LICENSE'), 'utf8').trim();
const fakerLicense = readFileSync(join(root, 'node_modules', '@faker-js', 'faker', 'LICENSE'), 'utf8').trim();
// tldts and tldts-core: the Public Suffix List, in dist/chunks/public-suffix-*.js (loaded only to store a cookie).
const tldtsLicense = readFileSync(join(root, 'node_modules', 'tldts', 'LICENSE'), 'utf8').trim();
const tldtsCoreLicense = readFileSync(join(root, 'node_modules', 'tldts-core', 'LICENSE'), 'utf8').trim();
// protobufjs and long: the gRPC client's descriptions and messages (dist/chunks/grpc-proto-*.js, loaded only by a gRPC call).
const protobufLicense = readFileSync(join(root, 'node_modules', 'protobufjs', 'LICENSE'), 'utf8').trim();
const longLicense = readFileSync(join(root, 'node_modules', 'long', 'LICENSE'), 'utf8').trim();
// protobufjs's ext/protojson.js (the proto3 JSON mapping) carries the licence of the code it derives from.
const protojsonLicense = readFileSync(join(root, 'node_modules', 'protobufjs', 'ext', 'protojson.LICENSE'), 'utf8').trim();
writeFileSync(
  join(dist, 'THIRD-PARTY-LICENSES.txt'),
  `pako (bundled in dist/chunks/, for --compress)\n\n${readFileSync(join(pakoDir, 'LICENSE'), 'utf8').trim()}\n\n` +
    `pako's lib/zlib/ files:\n\n${zlibNotice.trim()}\n\n` +
    `@faker-js/faker (its English locale bundled in dist/chunks/faker-*.js, for the JetBrains Faker variables of sling exec)\n\n${fakerLicense}\n\n` +
    `quickjs-emscripten, quickjs-emscripten-core and @jitl/quickjs-wasmfile-release-sync (bundled in dist/chunks/, with QuickJS as dist/chunks/emscripten-module.wasm: the engine of .http scripts)\n\n${quickjsLicense}\n\n` +
    `tldts and tldts-core (bundled in dist/chunks/public-suffix-*.js, the Public Suffix List the cookie jar checks Domain attributes against)\n\ntldts:\n\n${tldtsLicense}\n\ntldts-core:\n\n${tldtsCoreLicense}\n\n` +
    `protobufjs and long (bundled in dist/chunks/grpc-proto-*.js, loaded only by a gRPC call: .proto files, server reflection, messages as JSON)\n\nprotobufjs:\n\n${protobufLicense}\n\nprotobufjs's ext/protojson.js:\n\n${protojsonLicense}\n\nlong:\n\n${longLicense}\n\n` +
    `The Public Suffix List that tldts holds (its rules, as data) is under the Mozilla Public License, v. 2.0 (https://mozilla.org/MPL/2.0/); its source form: https://publicsuffix.org/list/public_suffix_list.dat\n`,
);
for (const out of ['sling.js', 'slings.js']) chmodSync(join(dist, out), 0o755);
// The man page (package.json "man"): made from the option table at each build, so it cannot drift
// from the flags sling takes (src/cli/manpage.ts, run here once as a bundled module).
const manModule = await bundleText('src/cli/manpage.ts', 'esm', false);
const { manPage } = await import(`data:text/javascript;base64,${Buffer.from(manModule).toString('base64')}`);
writeFileSync(join(dist, 'sling.1'), manPage(pkg.version));

if (process.argv.includes('--tests')) {
  const files = [];
  const walk = (dir) => {
    for (const name of readdirSync(dir)) {
      const p = join(dir, name);
      if (statSync(p).isDirectory()) {
        // The script engine's code reaches the tests only as the text of its realms (defines above).
        if (p !== join(root, engineDir)) walk(p);
      } else if (p.endsWith('.ts') && !p.endsWith('.d.ts')) files.push(p);
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
    define: defines,
  });
  // src/sources/http/quickjs.ts loads the engine's glue by its path under node_modules/, three
  // folders up: from build/src/sources/http/ that is build/node_modules, which points at the real one.
  symlinkSync(join(root, 'node_modules'), join(root, 'build', 'node_modules'), 'junction');
}
