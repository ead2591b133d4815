// src/files.ts: makeDirs (mkdir -p without Node 20's endless loop) and isDirectory.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isDirectory, makeDirs } from '../../src/files.js';

test('makeDirs makes the missing folders and returns the first it made (undefined when none was missing)', () => {
  const base = mkdtempSync(join(tmpdir(), 'sling-files-'));
  assert.equal(makeDirs(join(base, 'a', 'b', 'c')), join(base, 'a'));
  assert.ok(isDirectory(join(base, 'a', 'b', 'c')));
  assert.equal(makeDirs(join(base, 'a', 'b')), undefined);
  assert.equal(makeDirs(join(base, 'a', 'x'), 0o700), join(base, 'a', 'x'));
  if (process.platform !== 'win32') assert.equal(statSync(join(base, 'a', 'x')).mode & 0o077, 0);
});

test('makeDirs fails at once where a folder cannot be made: a file in the way, a parent that refuses entries (/proc)', () => {
  const base = mkdtempSync(join(tmpdir(), 'sling-files-'));
  writeFileSync(join(base, 'f'), '');
  assert.throws(() => makeDirs(join(base, 'f', 'sub')), { code: 'ENOTDIR' });
  assert.equal(isDirectory(join(base, 'f')), false);
  // Node 20's mkdirSync(..., { recursive: true }) never returns here.
  if (existsSync('/proc/self')) assert.throws(() => makeDirs('/proc/sling-nothere/x'), { code: 'ENOENT' });
});
