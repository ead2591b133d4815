#!/usr/bin/env node
// Times the parsers and formatters on inputs that once took seconds or minutes (work quadratic in
// their length or worse, found by fuzzing), one per line: the median and the slowest of --runs
// runs, against a target of 1000 ms each. The unit tests check what these inputs give; how long
// they take is measured here, where a busy machine cannot fail a test.
//
//   node bench/inputs.mjs [--runs N] [--json] [--strict]
//
// --strict: exit 1 when an input's median is over its target. The functions are called in this
// process, from the transpiled sources in build/ (`node scripts/build.mjs --tests`, which this
// script runs when build/ is missing), on the Node that runs the script.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { fail, median, ROOT } from './common.mjs';

const args = process.argv.slice(2);
let runs = 5;
let json = false;
let strict = false;
for (let i = 0; i < args.length; i++) {
  const a = args[i];
  if (a === '--runs') runs = Number(args[++i]);
  else if (a.startsWith('--runs=')) runs = Number(a.slice(7));
  else if (a === '--json') json = true;
  else if (a === '--strict') strict = true;
  else fail(`unknown argument '${a}' (known: --runs N, --json, --strict)`);
}
if (!Number.isInteger(runs) || runs < 1) fail('--runs needs a whole number of 1 or more');

const BUILD = join(ROOT, 'build', 'src');
if (!existsSync(join(BUILD, 'transport', 'filename.js'))) {
  const r = spawnSync(process.execPath, [join(ROOT, 'scripts', 'build.mjs'), '--tests'], { stdio: 'inherit' });
  if (r.status !== 0) fail('node scripts/build.mjs --tests failed');
}
const load = (path) => import(pathToFileURL(join(BUILD, path)).href);
const { sanitizeFileName, nameFromContentDisposition } = await load('transport/filename.js');
const { expandGlob } = await load('sources/curl/url.js');
const { formPart } = await load('sources/curl/body.js');
const { parseCmdScript } = await load('sources/curl/cmd.js');
const { parseHttp } = await load('sources/http/parse.js');
const { parseDotenv } = await load('sources/http/env.js');
const { highlightMarkup, highlightCss } = await load('output/highlight.js');
const { paletteFor } = await load('output/palette.js');

const many = ' '.repeat(100_000);
const files = { read: () => undefined, warn: () => {} };
const cmdEnv = { lookup: () => undefined, assign: () => {}, cwd: '/', home: '/', pid: 1, unset: () => {} };
const palette = paletteFor('default');
/** Calls f, and swallows the error the unit test expects it to throw. */
const settle = (f) => () => {
  try {
    f();
  } catch {}
};

// Each input: the unit test that checks its result, and the call. Keep in step with those tests.
const INPUTS = [
  ['file name of 100,000 characters (unit/filename)', () => sanitizeFileName('x'.repeat(100_000))],
  ['file name with 100,000 blanks inside (unit/filename)', () => sanitizeFileName(`a${many}b`)],
  ['file name with 100,000 BOMs inside (unit/filename)', () => sanitizeFileName(`a${'\ufeff'.repeat(100_000)}b`)],
  ['filename* of 100,000 blanks (unit/filename)', () => nameFromContentDisposition(`attachment; filename*=${many}`)],
  ['curl glob of 10^8 URLs, refused (unit/curl-url-body)', settle(() => expandGlob('h/[0-99999999]'))],
  ['curl glob of 400 x 400 URLs, refused (unit/curl-url-body)', settle(() => expandGlob(`h/{${'a,'.repeat(399)}a}{${'b,'.repeat(399)}b}`))],
  ['curl -F value with 100,000 blanks (unit/curl-url-body)', () => formPart(`a=x${many}y;type=t/t  `, false, files)],
  ['cmd.exe curl line of 300,000 characters (unit/curl-args)', () => parseCmdScript(`curl ^"http://h/${'a'.repeat(300_000)}^" ^\n  --compressed\n`, cmdEnv)],
  ['.http run line with 100,000 blanks (unit/http-parse)', () => parseHttp(`# @name a\nGET http://h/\n\n###\nrun #a (@x=1${many}2)`)],
  ['.http variable with 100,000 blanks (unit/http-parse)', () => parseHttp(`@a = x${many}y\nGET http://h/{{a}}`)],
  ['.http request line with 100,000 blanks (unit/http-parse)', () => parseHttp(`GET http://h/${many}x HTTP/1.1`)],
  ['.http line of 100,000 U+2028, refused (unit/http-parse)', settle(() => parseHttp(`run ./other.http ${'\u2028'.repeat(100_000)}x`))],
  ['.env value with 200,000 blanks (unit/http-vars)', () => parseDotenv(`A=x${' '.repeat(200_000)}y`)],
  ['markup tag with 100,000 blanks (unit/format)', () => highlightMarkup(`<a b="1"  c${many}>x</a>`, palette)],
  ['CSS of 100,000 "a:" (unit/format)', () => highlightCss('a:'.repeat(100_000), palette)],
  ['CSS of 50,000 declarations (unit/format)', () => highlightCss(`a {${' b:'.repeat(50_000)};}`, palette)],
];
const TARGET_MS = 1000;

const results = [];
for (const [name, f] of INPUTS) {
  const times = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    f();
    times.push(performance.now() - t0);
  }
  results.push({ name, median_ms: median(times), max_ms: Math.max(...times), target_ms: TARGET_MS });
}

const over = results.filter((r) => r.median_ms > r.target_ms);
if (json) console.log(JSON.stringify({ node: process.version, runs, results }, null, 2));
else {
  console.log(`inputs that were once slow: median and slowest of ${runs} runs on Node ${process.version} (target ${TARGET_MS} ms each)`);
  const width = Math.max(...results.map((r) => r.name.length));
  for (const r of results) console.log(`${r.name.padEnd(width)}  ${r.median_ms.toFixed(1).padStart(8)} ms  ${r.max_ms.toFixed(1).padStart(8)} ms${r.median_ms > r.target_ms ? '  OVER TARGET' : ''}`);
  console.log(over.length ? `${over.length} over the target` : 'every input within the target');
}
if (strict && over.length) process.exitCode = 1;
