// Whether standard input is a body, from the file type bits of fstat's mode: the same bits on POSIX
// and in what Node reports on Windows (where Stats.isFIFO() and isSocket() always answer false).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fstatSync, mkdtempSync, openSync, closeSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isBodyMode } from '../../src/sources/stdin.js';

test('a pipe, a socket and a regular file are bodies; a terminal, /dev/null and a folder are not', () => {
  // The type bits with permission bits set, as fstat gives them (a pipe on Windows: _S_IFIFO, 0x1000).
  assert.equal(isBodyMode(0o010000 | 0o600), true, 'pipe');
  assert.equal(isBodyMode(0x1000), true, 'a pipe as Windows reports it');
  assert.equal(isBodyMode(0o140000 | 0o777), true, 'socket');
  assert.equal(isBodyMode(0o100000 | 0o644), true, 'regular file');
  assert.equal(isBodyMode(0o020000 | 0o620), false, 'character device (a terminal, /dev/null, a Windows console)');
  assert.equal(isBodyMode(0o040000 | 0o755), false, 'folder');
  assert.equal(isBodyMode(0o060000 | 0o660), false, 'block device');
  assert.equal(isBodyMode(0o120000 | 0o777), false, 'link');
});

test('the modes fstat gives here agree: a file is a body, /dev/null is not', () => {
  const d = mkdtempSync(join(tmpdir(), 'sling-stdin-mode-'));
  writeFileSync(join(d, 'f'), 'x');
  const fd = openSync(join(d, 'f'), 'r');
  try {
    assert.equal(isBodyMode(fstatSync(fd).mode), true);
  } finally {
    closeSync(fd);
  }
  if (process.platform !== 'win32') {
    const nul = openSync('/dev/null', 'r');
    try {
      assert.equal(isBodyMode(fstatSync(nul).mode), false);
    } finally {
      closeSync(nul);
    }
  }
});
