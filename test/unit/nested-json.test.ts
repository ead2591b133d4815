import { test } from 'node:test';
import assert from 'node:assert/strict';
import { jsonString, parseJson, pythonNumber, stringifyJson, type JsonValue } from '../../src/model/json.js';
import { parsePath, setPath } from '../../src/request/nested-json.js';
import fc from 'fast-check';

function build(items: [string, JsonValue][]): string {
  let doc: JsonValue | undefined;
  for (const [k, v] of items) doc = setPath(doc, parsePath(k, k), v, k);
  return stringifyJson(doc);
}
const s = jsonString;
const n = (raw: string): JsonValue => ({ t: 'num', raw });

// The examples of HTTPie's documentation for nested JSON.
const TABLE: [[string, JsonValue][], string][] = [
  [[['a', s('1')]], '{"a": "1"}'],
  [
    [
      ['search[type]', s('id')],
      ['search[id]', n('1')],
    ],
    '{"search": {"type": "id", "id": 1}}',
  ],
  [
    [
      ['k[]', s('A')],
      ['k[]', s('B')],
    ],
    '{"k": ["A", "B"]}',
  ],
  [
    [
      ['k[1]', s('A')],
      ['k[0]', s('B')],
    ],
    '{"k": ["B", "A"]}',
  ],
  [
    [
      ['p[]', s('T')],
      ['p[1]', s('D')],
      ['p[3]', s('M')],
    ],
    '{"p": ["T", "D", null, "M"]}',
  ],
  [
    [
      ['[]', n('1')],
      ['[]', n('2')],
    ],
    '[1, 2]',
  ],
  [[['foo\\[bar\\]', n('1')]], '{"foo[bar]": 1}'],
  [[['baz[\\[]', n('2')]], '{"baz": {"[": 2}}'],
  [[['a[\\1]', s('x')]], '{"a": {"1": "x"}}'],
  [[['very[nested][json][1][x][]', s('A')]], '{"very": {"nested": {"json": [null, {"x": ["A"]}]}}}'],
  [
    [
      ['a', s('1')],
      ['a', s('2')],
    ],
    '{"a": "2"}',
  ],
  [
    [
      ['a[b]', s('1')],
      ['a', s('2')],
    ],
    '{"a": "2"}',
  ],
  [[['ü', s('ü')]], '{"\\u00fc": "\\u00fc"}'],
];
for (const [items, want] of TABLE) {
  test(`nested ${items.map(([k]) => k).join(' ')}`, () => assert.equal(build(items), want));
}

test('type conflicts and malformed paths are errors naming the item', () => {
  assert.throws(
    () =>
      build([
        ['a', s('1')],
        ['a[b]', s('2')],
      ]),
    /item 'a\[b\]' needs an object here, but an earlier item made it a string/,
  );
  assert.throws(
    () =>
      build([
        ['[]', n('1')],
        ['a', s('2')],
      ]),
    /needs an object/,
  );
  assert.throws(
    () =>
      build([
        ['array[]', n('1')],
        ['array[key]', n('3')],
      ]),
    /needs an object/,
  );
  assert.throws(() => parsePath('a[b', 'a[b=1'), /missing '\]'/);
  assert.throws(() => parsePath('a]', 'a]=1'), /unexpected '\]'/);
  assert.throws(() => parsePath('a[b]c', 'a[b]c=1'), /unexpected text 'c'/);
  assert.throws(() => parsePath('a[-1]', 'a[-1]=1'), /negative index/);
  // An index past a million is refused (the slots before it would be filled with null).
  assert.throws(() => parsePath('a[1000001]', 'a[1000001]=1'), /item 'a\[1000001\]=1': index 1000001 is too large \(at most 1000000/);
  assert.throws(() => parsePath('a[99999999999999999999]', 'a[99999999999999999999]=1'), /index 99999999999999999999 is too large/);
  assert.equal(parsePath('a[1000000]', 'a[1000000]=1').length, 2);
  assert.throws(() => parsePath('foo[baz][quux', 'x'), /missing '\]'/);
});

test('JSON keeps number text and key order through a round trip (property)', () => {
  fc.assert(
    fc.property(fc.jsonValue(), (v) => {
      const text = JSON.stringify(v);
      const again = stringifyJson(parseJson(text));
      assert.deepEqual(JSON.parse(again), JSON.parse(text));
    }),
    { numRuns: 300 },
  );
});

test('invalid JSON reports a position', () => {
  assert.throws(() => parseJson('4x'), /unexpected text after the JSON value at position 2/);
  assert.throws(() => parseJson('{"a":'), /unexpected end of input/);
});

test('duplicate keys of raw JSON are sent as written, and nested paths write into the last one', () => {
  const dup = () => parseJson('{"b": 1, "c": {"z": 1, "z": 2}, "b": 3}');
  assert.equal(stringifyJson(dup()), '{"b": 1, "c": {"z": 1, "z": 2}, "b": 3}');
  assert.equal(stringifyJson(parseJson('{"k":1,"k":1}')), '{"k": 1, "k": 1}');
  assert.equal(
    build([
      ['a', dup()],
      ['a[b]', s('x')],
      ['a[d]', s('y')],
    ]),
    '{"a": {"b": 1, "c": {"z": 1, "z": 2}, "b": "x", "d": "y"}}',
  );
  assert.equal(
    build([
      ['a', dup()],
      ['a[c][z]', s('w')],
    ]),
    '{"a": {"b": 1, "c": {"z": 1, "z": "w"}, "b": 3}}',
  );
  // Without duplicates the first position of a key is kept.
  assert.equal(
    build([
      ['a', parseJson('{"b": 1, "c": 2}')],
      ['a[b]', s('x')],
    ]),
    '{"a": {"b": "x", "c": 2}}',
  );
});

test('numbers of raw JSON are written the way Python writes them', () => {
  const cases: [string, string][] = [
    ['1e3', '1000.0'],
    ['1.50', '1.5'],
    ['-0', '0'],
    ['-0.0', '-0.0'],
    ['0.0', '0.0'],
    ['1.0', '1.0'],
    ['12345678901234567890', '12345678901234567890'],
    ['0.1000000000000000055', '0.1'],
    ['1e16', '1e+16'],
    ['1e15', '1000000000000000.0'],
    ['1e-5', '1e-05'],
    ['0.0001', '0.0001'],
    ['123456789012345678.5', '1.2345678901234568e+17'],
    ['2.5E+3', '2500.0'],
    ['-12.5e-7', '-1.25e-06'],
    ['5e-324', '5e-324'],
    ['1.7976931348623157e308', '1.7976931348623157e+308'],
    ['1E400', '1E400'],
  ];
  for (const [text, want] of cases) assert.equal(pythonNumber(text), want, text);
  assert.equal(stringifyJson(parseJson('[1e2, {"a": 5e-1}]')), '[100.0, {"a": 0.5}]');
});

test('a float keeps its value through the Python spelling (property)', () => {
  fc.assert(
    fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (x) => {
      const text = Object.is(x, -0) ? '-0e0' : x.toExponential();
      const py = pythonNumber(text);
      assert.ok(Object.is(Number(py), x), `${text} -> ${py}`);
      assert.match(py, /^-?\d+(?:\.\d+)?(?:e[+-]\d{2,3})?$/);
      assert.ok(/[.e]/.test(py), py);
    }),
    { numRuns: 2000 },
  );
});
