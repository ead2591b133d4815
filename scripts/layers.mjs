#!/usr/bin/env node
// Checks the layers of ARCHITECTURE.md over the imports of src/: every relative import (`import`,
// `import type`, `export ... from`, `import('...')` in code and in types) must go to a layer the
// importing file's layer may use, and no chain of imports may lead back to the file it starts
// from (type-only imports count too). Prints one line per broken rule and exits 1; silent and 0
// when all hold. `--graph` prints every file's imports. Run by `npm test` before the tests.
//
// Node built-ins and packages are not checked here (scripts/build.mjs keeps the bundle to
// built-ins), but for one: `process` (the global, `globalThis.process`, or imported from 'process'
// or 'node:process') is bin.ts's alone, and the few files in PROCESS below, each with its reason;
// and the script engine's code (sources/http/engine/) imports none at all.
//
//   node scripts/layers.mjs [--graph] [--src DIR]   (DIR: another source tree, for the checker's own test)
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const args = process.argv.slice(2);
const at = args.indexOf('--src');
const src = at === -1 ? fileURLToPath(new URL('../src', import.meta.url)) : resolve(args[at + 1]);

// Layers from the bottom up. A file belongs to the first layer one of whose patterns matches its
// path under src/ (a folder ends in '/'; a file name is matched exactly). `may` lists the layers
// it may import besides its own.
const LAYERS = [
  // The code that runs inside the script engine (QuickJS), not in sling's process: it imports only
  // its own folder, and nothing imports it (scripts/build.mjs hands it to script.ts as text).
  { name: 'engine', files: ['sources/http/engine/'], may: [] },
  { name: 'base', files: ['clock.ts', 'errors.ts', 'exit.ts', 'files.ts', 'interrupt.ts', 'io.ts', 'nesting.ts', 'sanitize.ts', 'version.ts', 'types/'], may: [] },
  { name: 'model', files: ['model/'], may: ['base'] },
  { name: 'cli', files: ['cli/'], may: ['base', 'model', 'output'] },
  { name: 'request', files: ['request/'], may: ['base', 'model', 'cli'] },
  { name: 'sources', files: ['sources/'], may: ['base', 'model'] },
  { name: 'transport', files: ['transport/'], may: ['base', 'model'] },
  { name: 'output', files: ['output/'], may: ['base', 'model'] },
  { name: 'commands', files: ['commands/'], may: ['base', 'model', 'cli', 'request', 'sources', 'transport', 'output'] },
  { name: 'main', files: ['main.ts'], may: ['base', 'model', 'cli', 'commands'] },
  { name: 'entry', files: ['bin.ts', 'entry/'], may: ['base', 'main'] },
];

// The files besides bin.ts that touch `process` (ARCHITECTURE.md), each process-level by nature.
// Every other file gets what it needs (argv, env, cwd, pid, the streams) from Io, an argument or
// the options the commands pass down, and has what must happen at exit done by interrupt.ts's hooks.
const PROCESS = new Set([
  'entry/loader.ts', // the chunk loader runs before bin.ts (the compile cache's folder, its exit hook)
  'sources/http/script.ts', // the script engine's memory (SLING_SCRIPT_MEMORY_MB) and the warnings scripts leave
  'clock.ts', // the monotonic clock (process.hrtime; performance.now would load perf_hooks at start-up)
]);

const layerOf = (file) => LAYERS.find((l) => l.files.some((p) => (p.endsWith('/') ? file.startsWith(p) : file === p)));

const files = [];
const walk = (dir) => {
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) walk(path);
    else if (name.endsWith('.ts')) files.push(path);
  }
};
walk(src);
const rel = (path) => relative(src, path).split('\\').join('/');

// Comments go first (an import in a comment is no import); strings that look like imports inside
// template literals are rare enough in src/ not to matter.
const IMPORT = /(?:^|[\s;{}])(?:import|export)\s+(type\s+)?(?:[^'"`;]*?\sfrom\s+)?['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)(\.)?/g;
const graph = new Map();
const problems = [];
for (const path of files) {
  const text = readFileSync(path, 'utf8')
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
  const file = rel(path);
  if (file !== 'bin.ts' && !PROCESS.has(file)) {
    // `process` as a value (process.env, `const { pid } = process`, f(process), globalThis.process),
    // outside '...' and "..." strings and /regular expressions/; or imported, from 'process' or
    // 'node:process' (import, import(), require()).
    const code = text.replace(/'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"/g, "''").replace(/(?<=[(,=:!&|?;{}[]\s*)\/(?![*/])(?:[^/\\\n[]|\\.|\[(?:[^\]\\\n]|\\.)*\])+\/[a-z]*/g, '/./');
    if (/(?<![\w$.])process(?![\w$]|\s*:)|(?<![\w$.])(?:globalThis|global)\s*\.\s*process(?![\w$])/.test(code) || /(?<![\w$.])(?:globalThis|global)\s*\[\s*['"`]process['"`]\s*\]/.test(text))
      problems.push(`${file} touches \`process\`: only bin.ts may (take what it needs from Io or an argument)`);
    for (const m of text.matchAll(/(?:\bfrom|\bimport|\brequire)\s*\(?\s*['"`]((?:node:)?process)['"`]/g))
      problems.push(`${file} imports '${m[1]}': only bin.ts may touch \`process\` (take what it needs from Io or an argument)`);
  }
  const imports = [];
  for (const m of text.matchAll(IMPORT)) {
    const spec = m[2] ?? m[3];
    if (!spec.startsWith('.')) {
      // Node's modules and packages do not exist inside the script engine.
      if (layerOf(file)?.name === 'engine') problems.push(`${file} imports '${spec}': the script engine's code imports only files of its own folder (it runs in QuickJS, without Node)`);
      continue;
    }
    // A package's file by its path (quickjs.ts loads the engine's CommonJS glue that way): no file of src/.
    if (spec.includes('/node_modules/')) continue;
    let target = resolve(dirname(path), spec).replace(/\.js$/, '.ts');
    if (!existsSync(target)) {
      if (existsSync(target + '.ts')) target += '.ts';
      else if (existsSync(join(target, 'index.ts'))) target = join(target, 'index.ts');
      else {
        problems.push(`${rel(path)}: imports '${spec}', which is no file of src/`);
        continue;
      }
    }
    imports.push({ to: rel(target), kind: m[1] || m[4] ? 'type' : m[3] ? 'dynamic' : 'static' });
  }
  graph.set(rel(path), imports);
}

if (process.argv.includes('--graph')) {
  for (const [file, imports] of graph) console.log(`${file} [${layerOf(file)?.name ?? '?'}] -> ${imports.map((i) => (i.kind === 'static' ? i.to : `${i.to} (${i.kind})`)).join(', ')}`);
}

// The rules.
for (const [file, imports] of graph) {
  const from = layerOf(file);
  if (!from) {
    problems.push(`${file}: in no layer (add it to a layer of scripts/layers.mjs and ARCHITECTURE.md)`);
    continue;
  }
  for (const { to, kind } of imports) {
    const into = layerOf(to);
    if (!into || into === from) continue;
    if (into.name === 'engine') {
      problems.push(`${file} imports ${to}: the script engine's code runs only inside the engine, as the text scripts/build.mjs makes of it (SLING_ENGINE_*)`);
      continue;
    }
    if (!from.may.includes(into.name))
      problems.push(`${file} (${from.name}) imports ${to} (${into.name})${kind === 'static' ? '' : `, ${kind}`}: ${from.name} may import ${from.may.length ? from.may.join(', ') : 'nothing else'}`);
  }
}
for (const [file, imports] of graph) {
  if (file === 'bin.ts') continue;
  if (imports.some((i) => i.to === 'main.ts')) problems.push(`${file} imports main.ts: nothing but bin.ts may (main.ts is the dispatcher)`);
}

// Cycles: strongly connected components (Tarjan), each shown as one circle of imports.
let counter = 0;
const index = new Map();
const low = new Map();
const stack = [];
const onStack = new Set();
const components = [];
const visit = (v) => {
  index.set(v, counter);
  low.set(v, counter++);
  stack.push(v);
  onStack.add(v);
  for (const { to } of graph.get(v)) {
    if (!index.has(to)) {
      visit(to);
      low.set(v, Math.min(low.get(v), low.get(to)));
    } else if (onStack.has(to)) low.set(v, Math.min(low.get(v), index.get(to)));
  }
  if (low.get(v) === index.get(v)) {
    const component = [];
    let w;
    do {
      w = stack.pop();
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || graph.get(v).some((i) => i.to === v)) components.push(component);
  }
};
for (const file of graph.keys()) if (!index.has(file)) visit(file);
for (const component of components) {
  // One circle through the component, found by a breadth-first search back to its first file.
  const inside = new Set(component);
  const start = component.sort()[0];
  const back = new Map([[start, null]]);
  const queue = [start];
  let circle;
  while (queue.length && !circle) {
    const v = queue.shift();
    for (const { to } of graph.get(v)) {
      if (!inside.has(to)) continue;
      if (to === start) {
        circle = [start];
        for (let w = v; w !== start; w = back.get(w)) circle.splice(1, 0, w);
        break;
      }
      if (!back.has(to)) {
        back.set(to, v);
        queue.push(to);
      }
    }
  }
  problems.push(`import cycle of ${component.length} files: ${[...circle, start].join(' -> ')}`);
}

if (problems.length) {
  for (const p of problems) console.error(`layers: ${p}`);
  console.error(`layers: ${problems.length} broken rule${problems.length === 1 ? '' : 's'} (see ARCHITECTURE.md)`);
  process.exit(1);
}
