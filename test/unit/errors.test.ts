import { test } from 'node:test';
import assert from 'node:assert/strict';
import { oneLine } from '../../src/errors.js';

test('oneLine: line breaks and control characters become escapes, the rest is kept', () => {
  assert.equal(oneLine('plain text, tabs\tstay'), 'plain text, tabs\tstay');
  assert.equal(oneLine("'a\nb' is not curl"), "'a\\nb' is not curl");
  assert.equal(oneLine('a\r\nb\rc'), 'a\\r\\nb\\rc');
  assert.equal(oneLine('\x1b[2J\x00\x7f é ✓'), '\\x1b[2J\\x00\\x7f é ✓');
  // Twice in a row (the pattern is global: its position must not leak between calls).
  assert.equal(oneLine('x\ny'), 'x\\ny');
  assert.equal(oneLine('x\ny'), 'x\\ny');
});
