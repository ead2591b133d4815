#!/usr/bin/env node
// Checks the layers of ARCHITECTURE.md over the imports of src/: every relative import (`import`,
// `import type`, `export ... from`, `import('...')` in code and in types) must go to a layer the
// importing file's layer may use, and no chain of imports may lead back to the file it starts
// from (type-only imports count too). Prints one line per broken rule and exits 1; silent and 0
// when all hold. `--graph` prints every file's imports. Run by `npm test` before the tests.
//
// Node built-ins and packages are not checked here (scripts/build.mjs keeps the bundle to
// built-ins). `process` (the global) should be touched by bin.ts alone: a rule to reach
// (ARCHITECTURE.md); the files that touch it today are listed in PROCESS below, and no other may.
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
  { name: 'base', files: ['clock.ts', 'errors.ts', 'exit.ts', 'fd-writer.ts', 'files.ts', 'interrupt.ts', 'io.ts', 'nesting.ts', 'sanitize.ts', 'version.ts', 'types/'], may: [] },
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

// The files that touch `process` besides bin.ts, to be shrunk (ARCHITECTURE.md, rules to reach):
// each should get what it needs (env, cwd, pid, platform, the clock) through Io or an argument.
const PROCESS = new Set([
  'entry/loader.ts', // the chunk loader runs before bin.ts (the compile cache's folder, its exit hook)
  'sources/http/sandbox.ts', // runs in the script child process, its own program
  'sources/http/script.ts', // starts that child process
  'clock.ts', // the monotonic clock (process.hrtime; performance.now would load perf_hooks at start-up)
  'model/upload.ts', // removes the folder stdin was spooled to when the process exits
  'request/build.ts', // process.env when the caller gives no environment
  'request/session.ts', // the process id in a temporary file's name
  'sources/curl/expand.ts', // a curl file's $$ is the process id
  'sources/curl/index.ts', // a curl file's commands run in the current folder
  'transport/poll.ts', // SLING_NO_POLL
  'commands/exec/save.ts', // the process id in a .part file's name (docs/exec-http.md)
  'commands/download.ts', // the process id in a .part file's name (docs/usage.md)
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
  // `process` used as a value (process.env, process.pid, ...), outside '...' and "..." strings.
  const file = rel(path);
  if (file !== 'bin.ts' && !PROCESS.has(file) && /(?<![\w$.])process\s*[.[]/.test(text.replace(/'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"/g, "''"))) {
    problems.push(`${file} touches \`process\`: only bin.ts may (take what it needs from Io or an argument)`);
  }
  const imports = [];
  for (const m of text.matchAll(IMPORT)) {
    const spec = m[2] ?? m[3];
    if (!spec.startsWith('.')) continue;
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
