import { test } from 'node:test';
import assert from 'node:assert/strict';
import { headerIn, headerInPairs } from '../../src/model/headers.js';

test('one header lookup for both shapes: by lower-case name, the first value or all joined', () => {
  const flat = ['Set-Cookie', 'a=1', 'X-Long-Name', 'v', 'set-cookie', 'b=2'];
  const pairs: [string, string][] = [
    ['Accept', ''],
    ['ACCEPT', 'text/html'],
  ];
  assert.equal(headerIn(flat, 'set-cookie'), 'a=1');
  assert.equal(headerIn(flat, 'set-cookie', true), 'a=1, b=2');
  assert.equal(headerIn(flat, 'x-long'), undefined);
  assert.equal(headerInPairs(pairs, 'accept'), '');
  assert.equal(headerInPairs(pairs, 'accept', true), ', text/html');
  assert.equal(headerInPairs([], 'accept', true), undefined);
});
