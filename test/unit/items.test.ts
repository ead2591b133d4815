import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseItem, tryParseItem } from '../../src/cli/items.js';

// Input → [kind, key, value]: the HTTPie item grammar, longest separator first, `\` escapes.
const TABLE: [string, string, string, string][] = [
  ['a==1', 'query', 'a', '1'],
  ['a==', 'query', 'a', ''],
  ['q==@f.txt', 'query-file', 'q', 'f.txt'],
  ['X-Api:abc', 'header', 'X-Api', 'abc'],
  ['Accept:', 'header', 'Accept', ''],
  ['X-Empty;', 'header-empty', 'X-Empty', ''],
  ['X-Data:@f.txt', 'header-file', 'X-Data', 'f.txt'],
  ['name=John', 'data', 'name', 'John'],
  ['email=john@example.org', 'data', 'email', 'john@example.org'],
  ['url=http://x:1/', 'data', 'url', 'http://x:1/'],
  ['age:=29', 'json', 'age', '29'],
  ['tags:=["a", "b"]', 'json', 'tags', '["a", "b"]'],
  ['desc=@text.txt', 'data-file', 'desc', 'text.txt'],
  ['conf:=@data.json', 'json-file', 'conf', 'data.json'],
  ['@body.json', 'file', '', 'body.json'],
  ['avatar@photo.png', 'file', 'avatar', 'photo.png'],
  ['doc@a.pdf;type=application/pdf', 'file', 'doc', 'a.pdf;type=application/pdf'],
  ['a\\=b=c', 'data', 'a=b', 'c'],
  ['x\\:y:=1', 'json', 'x:y', '1'],
  ['k\\@v=1', 'data', 'k@v', '1'],
  ['s\\;=1', 'data', 's;', '1'],
  ['a=\\@x', 'data', 'a', '@x'],
  ['foo[bar]=1', 'data', 'foo[bar]', '1'],
  ['back\\\\slash=1', 'data', 'back\\\\slash', '1'],
  ['Host:example.com:8080', 'header', 'Host', 'example.com:8080'],
  ['a=b==c', 'data', 'a', 'b==c'],
  ['a==b=c', 'query', 'a', 'b=c'],
];

for (const [input, kind, key, value] of TABLE) {
  test(`item ${input}`, () => {
    const item = parseItem(input);
    assert.deepEqual([item.kind, item.key, item.value], [kind, key, value]);
  });
}

test('a word without a separator is not an item', () => {
  assert.equal(tryParseItem('foo'), null);
  assert.equal(tryParseItem('example.org'), null);
  assert.throws(() => parseItem('foo'), /'foo' is not a request item/);
});
