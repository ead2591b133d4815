#!/usr/bin/env node
// `npm test`: runs every test file of build/test/ (made by `node scripts/build.mjs --tests`, the
// pretest step) with `node --test`, on the Node that runs this script, and reports with
// scripts/test-reporter.mjs: a line per file, the failures repeated at the end, a closing count.
//
//   npm test                      all test files
//   npm test -- download exec-    only the files whose path contains one of these words
//   npm test -- --tap             Node's TAP stream instead (also SLING_TEST_REPORTER=tap, or spec)
//
// `node --test DIR` is not used: Node 22 and later take file patterns, not folders, and Node 20 has
// no patterns; the files are listed here instead.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const tests = join(root, 'build', 'test');
const args = process.argv.slice(2);
let reporter = process.env.SLING_TEST_REPORTER || join(root, 'scripts', 'test-reporter.mjs');
const words = [];
for (const a of args) {
  if (a === '--tap') reporter = 'tap';
  else if (a === '--spec') reporter = 'spec';
  else if (a.startsWith('-')) {
    console.error(`test: unknown option '${a}' (known: --tap, --spec)`);
    process.exit(2);
  } else words.push(a);
}

if (!existsSync(tests)) {
  console.error(`test: ${relative(process.cwd(), tests) || tests} does not exist: run \`node scripts/build.mjs --tests\` first (npm test does)`);
  process.exit(2);
}
const files = [];
const walk = (dir) => {
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) walk(path);
    else if (name.endsWith('.test.js')) files.push(path);
  }
};
walk(tests);
const chosen = words.length ? files.filter((f) => words.some((w) => relative(tests, f).includes(w))) : files;
if (!chosen.length) {
  console.error(`test: no test file matches ${words.map((w) => `'${w}'`).join(', ')}`);
  process.exit(2);
}

const child = spawn(process.execPath, ['--test', '--test-concurrency=2', `--test-reporter=${reporter}`, '--test-reporter-destination=stdout', ...chosen], {
  stdio: ['ignore', 'inherit', 'inherit'],
  env: { ...process.env, SLING_TEST_ROOT: tests },
});
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => {
  if (signal) {
    console.error(`test: node --test ended by ${signal}`);
    process.exit(1);
  }
  process.exit(code ?? 1);
});
