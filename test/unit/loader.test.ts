// The chunk loader of dist/sling.js (src/entry/loader.ts), on chunk files of its own: what a chunk
// sees (exports, module, its require for its siblings and for Node's built-ins), each chunk run
// once, cycles, and an error in a chunk reaching the caller. The cache is covered end to end
// (test/e2e/compile-cache.test.ts); here it is off, so nothing is written when the tests end.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, sep } from 'node:path';
import { chunkLoader } from '../../src/entry/loader.js';

const NO_CACHE = { SLING_NO_COMPILE_CACHE: '1' };

/** A folder holding `files`, and a loader (cache off) for it. */
function chunks(files: Record<string, string>) {
  const dir = mkdtempSync(join(tmpdir(), 'sling-loader-'));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return { dir, load: chunkLoader(dir, '9.9.9', NO_CACHE, createRequire(import.meta.url)) };
}

test('chunkLoader: exports, siblings by ./NAME.js, built-ins through the given require, each chunk run once', () => {
  const { dir, load } = chunks({
    'a.js':
      'globalThis.__runs = (globalThis.__runs ?? 0) + 1; var b = require("./b.js"); exports.sum = b.two + 1; exports.sep = require("node:path").sep; exports.file = __filename; exports.dir = __dirname;',
    'b.js': 'module.exports = { two: 2 };',
  });
  const a = load('a.js') as Record<string, unknown>;
  assert.equal(a.sum, 3);
  assert.equal(a.sep, sep);
  assert.equal(a.file, join(dir, 'a.js'));
  assert.equal(a.dir, dir);
  assert.equal(load('a.js'), a);
  assert.equal((globalThis as { __runs?: number }).__runs, 1);
});

test('chunkLoader: a cycle gets the exports made so far, as in Node', () => {
  const { load } = chunks({
    'x.js': 'exports.early = 1; var y = require("./y.js"); exports.seenByY = y.sawEarly; exports.late = 2;',
    'y.js': 'var x = require("./x.js"); exports.sawEarly = x.early; exports.sawLate = x.late;',
  });
  const x = load('x.js') as Record<string, unknown>;
  assert.deepEqual({ ...x }, { early: 1, seenByY: 1, late: 2 });
  assert.equal((load('y.js') as Record<string, unknown>).sawLate, undefined);
});

test('chunkLoader: an error thrown by a chunk, and a missing chunk, reach the caller', () => {
  const { load } = chunks({ 'bad.js': 'throw new TypeError("bad chunk");' });
  assert.throws(() => load('bad.js'), /bad chunk/);
  assert.throws(() => load('missing.js'), /ENOENT/);
});
