// Formatters against golden files (input body → expected terminal output, colours included), and a
// property test: formatting JSON never changes a token. A normal run only reads the golden files (a
// missing one is a failure); UPDATE_GOLDEN=1 writes them, to be reviewed with git diff.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { Printer } from '../../src/output/printer.js';
import type { OutputPlan } from '../../src/output/plan.js';
import { MONO, paletteFor } from '../../src/output/palette.js';
import { formatJson } from '../../src/output/json-format.js';
import { highlightCss, highlightMarkup, indentXml } from '../../src/output/highlight.js';
import { golden } from '../helpers/golden.js';

const GOLDEN = fileURLToPath(new URL('../../../test/fixtures/golden/', import.meta.url));

const BODIES: Record<string, [string, string]> = {
  json: ['application/json', '{"id":12345678901234567890,"f":1.0,"e":1e3,"z":-0,"s":"caf\\u00e9 \\/ ü","t":true,"n":null,"list":[1,[],{}],"nested":{"b":2,"a":1}}'],
  'json-prefix': ['application/json', ')]}\',\n{"a":[1,2]}'],
  'json-as-text': ['text/plain', '[{"k":"v"}]'],
  'json-invalid': ['application/json', '{"a": 1,, oops'],
  xml: ['application/xml', '<?xml version="1.0"?><root a="1"><!-- note --><item id="x">one</item><empty/><list><v>1</v><v>2</v></list></root>'],
  html: ['text/html', '<!doctype html><html lang="en"><body class="x"><p>Hi <b>there</b></p><!-- c --></body></html>'],
  css: ['text/css', '/* c */ body { color: #fff; margin: 0 auto; } @media print { a { font-size: 12px; } }'],
  js: ['application/javascript', 'const x = "s"; // note\nfunction f(a) { return a + 42; }'],
  form: ['application/x-www-form-urlencoded', 'name=Ada&lang=en&empty='],
};

function plan(style: string, format: boolean, colors: boolean): OutputPlan {
  return {
    requestHeaders: false,
    requestBody: false,
    responseHeaders: true,
    responseBody: true,
    meta: false,
    intermediate: false,
    format,
    colors,
    palette: colors ? paletteFor(style) : MONO,
    sorted: false,
    sortHeaders: false,
    indent: 4,
    xmlIndent: 4,
    formatJson: true,
    formatXml: true,
    terminal: true,
    maskCredentials: false,
    stream: false,
  };
}

async function render(p: OutputPlan, type: string, body: string): Promise<string> {
  let out = '';
  const printer = new Printer(p, { write: (c) => void (out += c.toString()) });
  const head = { httpVersion: '1.1', status: 200, reason: 'OK', rawHeaders: ['Content-Type', type, 'X-Thing', 'a\u001b[2Jb'] };
  await printer.responseHead(head);
  await printer.responseBody(head, Buffer.from(body));
  await printer.finish();
  return out;
}

for (const [name, [type, body]] of Object.entries(BODIES)) {
  for (const style of ['default', 'auto', 'monokai', 'solarized', 'fruity', 'mono']) {
    test(`golden ${name} (${style})`, async () => {
      const got = await render(plan(style, true, style !== 'mono'), type, body);
      assert.equal(got, golden(GOLDEN, `${name}.${style}.txt`, got));
    });
  }
  test(`golden ${name} (colours without formatting)`, async () => {
    const got = await render(plan('auto', false, true), type, body);
    assert.equal(got, golden(GOLDEN, `${name}.colors-only.txt`, got));
  });
}

const minify = (json: string) => json.replace(/("(?:[^"\\]|\\.)*")|\s+/g, (_m, str: string | undefined) => str ?? '');

test('formatting JSON never changes a token (property)', () => {
  const spaced = fc.tuple(fc.jsonValue(), fc.constantFrom(0, 2, 4)).map(([v, n]) => JSON.stringify(v, null, n));
  fc.assert(
    fc.property(spaced, fc.boolean(), (text, sorted) => {
      const out = formatJson(text, { indent: 4, sorted: false, palette: MONO });
      assert.notEqual(out, null);
      assert.equal(minify(out!), minify(text));
      if (sorted) {
        const s = formatJson(text, { indent: 2, sorted: true, palette: MONO })!;
        assert.deepEqual(JSON.parse(s), JSON.parse(text));
      }
    }),
    { numRuns: 500 },
  );
});

test('numbers, escapes and key order stay exactly as sent', () => {
  const text = '{"b":12345678901234567890123,"a":1.50,"c":-0,"d":1E+3,"e":"\\u00e9\\n\\/","b2":[]}';
  const out = formatJson(text, { indent: 2, sorted: false, palette: MONO })!;
  assert.equal(out, '{\n  "b": 12345678901234567890123,\n  "a": 1.50,\n  "c": -0,\n  "d": 1E+3,\n  "e": "\\u00e9\\n\\/",\n  "b2": []\n}');
});

test('invalid JSON is not formatted', () => {
  for (const bad of ['{"a":1', '{"a":01}', '[1,]', '{"a" 1}', '"\u0001"', 'nul', '{} {}']) assert.equal(formatJson(bad, { indent: 2, sorted: false, palette: MONO }), null, bad);
});

test('a tag with 100,000 blanks in it is coloured in one pass (its attributes were looked for from each blank: 40,000 took 1.6 s)', () => {
  const text = `<a b="1"  c${' '.repeat(100_000)}>x</a>`;
  const out = highlightMarkup(text, paletteFor('default'));
  assert.equal(out.replace(/\x1b\[[\d;]*m/g, ''), text);
  assert.equal(highlightMarkup(text, MONO), text);
});

test('CSS: a long run of `a:` or one long word is coloured in one pass (a lookahead from each colon, and a word tried at each of its letters, were quadratic: 100,000 took seconds)', () => {
  const palette = paletteFor('default');
  const plain = (x: string) => x.replace(/\x1b\[[\d;]*m/g, '');
  for (const text of ['a:'.repeat(100_000), 'a'.repeat(200_000), 'a {' + ' b:'.repeat(50_000) + ';}']) {
    assert.equal(plain(highlightCss(text, palette)), text);
  }
  // Property names are coloured where a ';' or '}' ends their declaration, not in a selector.
  const css = highlightCss('a:hover { color: red; margin:0 }', palette);
  const painted = (word: string) => new RegExp(`\x1b\\[[\\d;]*m${word}\x1b\\[0?m`).test(css);
  assert.ok(painted('color') && painted('margin'), JSON.stringify(css));
  assert.ok(!painted('a') && !painted('hover'), JSON.stringify(css));
  assert.equal(plain(css), 'a:hover { color: red; margin:0 }');
});

test('XML indentation keeps text and refuses mismatched tags', () => {
  assert.equal(indentXml('<a><b>x y</b><c/></a>', 2), '<a>\n  <b>x y</b>\n  <c/>\n</a>');
  assert.equal(indentXml('<a><b></a>', 2), null);
});

test('formatBytes: decimal units as HTTPie shows them: 200,000 bytes is 200 kB, 1,500,000 is 1.50 MB', async () => {
  const { formatBytes } = await import('../../src/output/progress.js');
  assert.equal(formatBytes(59.54738981788344), '60 B');
  assert.equal(formatBytes(999), '999 B');
  assert.equal(formatBytes(1000), '1.00 kB');
  assert.equal(formatBytes(1536), '1.54 kB');
  assert.equal(formatBytes(200_000), '200 kB');
  assert.equal(formatBytes(1_500_000), '1.50 MB');
  assert.equal(formatBytes(9_999_000), '10.0 MB');
  assert.equal(formatBytes(999_999), '1.00 MB');
  assert.equal(formatBytes(2_500_000_000), '2.50 GB');
});

test('exactBytes: the exact count first (what a file keeps), the rounded decimal size only beside it', async () => {
  const { exactBytes } = await import('../../src/output/progress.js');
  assert.equal(exactBytes(0), '0 bytes');
  assert.equal(exactBytes(1), '1 byte');
  assert.equal(exactBytes(999), '999 bytes');
  assert.equal(exactBytes(1_048_576), '1048576 bytes (1.05 MB)');
  assert.equal(exactBytes(200_000), '200000 bytes (200 kB)');
});

test('a golden file that is missing fails the test and is not written; UPDATE_GOLDEN=1 writes it', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sling-golden-'));
  try {
    assert.throws(() => golden(dir, 'absent.txt', 'output', {}), /golden file absent\.txt is missing .*UPDATE_GOLDEN=1/);
    assert.equal(existsSync(join(dir, 'absent.txt')), false);
    assert.equal(golden(dir, 'absent.txt', 'output', { UPDATE_GOLDEN: '1' }), 'output');
    assert.equal(readFileSync(join(dir, 'absent.txt'), 'utf8'), 'output');
    // Read, not rewritten, on a normal run: a different output fails against the file.
    assert.equal(golden(dir, 'absent.txt', 'changed', {}), 'output');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
