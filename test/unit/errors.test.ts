import { test } from 'node:test';
import assert from 'node:assert/strict';
import { oneLine } from '../../src/errors.js';

test('oneLine: line breaks and control characters become escapes, the rest is kept', () => {
  assert.equal(oneLine('plain text, tabs\tstay'), 'plain text, tabs\tstay');
  assert.equal(oneLine("'a\nb' is not curl"), "'a\\nb' is not curl");
  assert.equal(oneLine('a\r\nb\rc'), 'a\\r\\nb\\rc');
  assert.equal(oneLine('\x1b[2J\x00\x7f é ✓'), '\\x1b[2J\\x00\\x7f é ✓');
  // C1 controls (CSI is \x9b) and bidirectional controls and marks, which reorder what is read.
  assert.equal(oneLine('csi:\x9b2J nel:\x85'), 'csi:\\x9b2J nel:\\x85');
  assert.equal(
    oneLine('f:\u202egnp.exe \u202a\u202b\u202c\u202d \u2066\u2067\u2068\u2069 \u200e\u200f\u061c'),
    'f:\\u202egnp.exe \\u202a\\u202b\\u202c\\u202d \\u2066\\u2067\\u2068\\u2069 \\u200e\\u200f\\u061c',
  );
  assert.equal(oneLine('عربي עברית ‐ ‑ \u200d'), 'عربي עברית ‐ ‑ \u200d');
  // Twice in a row (the pattern is global: its position must not leak between calls).
  assert.equal(oneLine('x\ny'), 'x\\ny');
  assert.equal(oneLine('x\ny'), 'x\\ny');
});
