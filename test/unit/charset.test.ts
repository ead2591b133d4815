// Every charset label sling accepts, against the WHATWG Encoding Standard's own data
// (test/fixtures/whatwg-encodings.json: its labels, and bytes 0x80-0xFF of each single-byte
// encoding), and the HTML prescan / XML declaration that find a document's charset.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { bodyCharset, bomCharset, charsetOption, decodeBody, decodesToNul, charsetDecoder, htmlCharset, knownCharset } from '../../src/output/charset.js';
import { UsageError } from '../../src/errors.js';

const WHATWG: { labels: Record<string, string[]>; singleByte: Record<string, (number | null)[]> } = JSON.parse(
  readFileSync(fileURLToPath(new URL('../../../test/fixtures/whatwg-encodings.json', import.meta.url)), 'utf8'),
);
const HIGH = Buffer.from(Array.from({ length: 128 }, (_, i) => 0x80 + i));
const LOW = Buffer.from(Array.from({ length: 128 }, (_, i) => i));
const hex = (s: string) => [...s].map((c) => c.codePointAt(0)!.toString(16).padStart(4, '0')).join(' ');

test('every label of the standard names its encoding (the replacement encoding is refused)', () => {
  let n = 0;
  for (const [name, labels] of Object.entries(WHATWG.labels)) {
    for (const label of labels) {
      n++;
      for (const spelled of [label, label.toUpperCase(), ` ${label}\t`]) {
        assert.equal(knownCharset(spelled), name === 'replacement' ? undefined : name, `label ${JSON.stringify(spelled)}`);
      }
      if (name === 'replacement') assert.throws(() => charsetOption(label), UsageError);
      else assert.equal(charsetOption(label), name, `--response-charset ${label}`);
    }
  }
  assert.equal(n, 228);
});

for (const [name, table] of Object.entries(WHATWG.singleByte)) {
  test(`${name}: bytes 0x80-0xFF decode as the standard's table, 0x00-0x7F as ASCII, for each of its labels`, () => {
    const want = String.fromCodePoint(...table.map((cp) => cp ?? 0xfffd));
    for (const label of WHATWG.labels[name]!) {
      const got = decodeBody(HIGH, knownCharset(label)!);
      assert.equal(hex(got), hex(want), `label ${label}`);
      assert.equal(decodeBody(LOW, knownCharset(label)!), LOW.toString('latin1'));
    }
  });
}

test('x-user-defined: 0x80-0xFF are U+F780-U+F7FF', () => {
  assert.equal(decodeBody(HIGH, 'x-user-defined'), String.fromCodePoint(...Array.from({ length: 128 }, (_, i) => 0xf780 + i)));
});

test('windows-1252 and its labels (latin1, iso-8859-1, ascii) decode 0x80-0x9F as the standard says, not as C1 controls', () => {
  const body = Buffer.from('smart \x93quotes\x94 \x80 \x85', 'latin1');
  for (const label of ['windows-1252', 'latin1', 'iso-8859-1', 'ascii', 'us-ascii', 'cp1252']) {
    assert.equal(decodeBody(body, charsetOption(label)), 'smart “quotes” € …', label);
  }
});

test("the multi-byte encodings decode text of their languages (Node's decoders)", () => {
  const samples: [string, number[], string][] = [
    ['shift_jis', [0x93, 0xfa, 0x96, 0x7b, 0x8c, 0xea], '日本語'],
    ['euc-jp', [0xc6, 0xfc, 0xcb, 0xdc, 0xb8, 0xec], '日本語'],
    ['iso-2022-jp', [0x1b, 0x24, 0x42, 0x46, 0x7c, 0x4b, 0x5c, 0x38, 0x6c, 0x1b, 0x28, 0x42], '日本語'],
    ['gbk', [0xd6, 0xd0, 0xce, 0xc4], '中文'],
    ['gb18030', [0xd6, 0xd0, 0xce, 0xc4, 0x81, 0x30, 0x81, 0x30], '中文\u0080'],
    ['big5', [0xa4, 0xa4, 0xa4, 0xe5], '中文'],
    ['euc-kr', [0xc7, 0xd1, 0xb1, 0xb9, 0xbe, 0xee], '한국어'],
    ['utf-16le', [0x2d, 0x4e, 0x87, 0x65], '中文'],
    ['utf-16be', [0x4e, 0x2d, 0x65, 0x87], '中文'],
  ];
  for (const [label, bytes, text] of samples) {
    if (knownCharset(label) === undefined) continue; // a Node without full ICU: refused, as charsetOption says
    assert.equal(decodeBody(Buffer.from(bytes), charsetOption(label)), text, label);
    // In pieces, a character split between two pieces included.
    const d = charsetDecoder(knownCharset(label)!);
    const pieces = bytes.map((b) => d.write(Buffer.from([b]))).join('') + d.end();
    assert.equal(pieces, text, `${label}, a byte at a time`);
  }
});

test('--response-charset: an unknown name is a usage error that names it; _ and - are taken alike', () => {
  assert.throws(
    () => charsetOption('bogus'),
    (e: Error) => e instanceof UsageError && /'bogus' is not a supported encoding/.test(e.message),
  );
  assert.throws(() => charsetOption(''), UsageError);
  // UTF-32, which the Encoding Standard leaves out, sling decodes itself (big-endian without a byte order mark).
  assert.equal(charsetOption('utf-32'), 'utf-32be');
  assert.equal(charsetOption('UTF_32LE'), 'utf-32le');
  assert.equal(charsetOption('UTF_8'), 'utf-8');
  assert.equal(charsetOption('shift-jis'), 'shift_jis');
  assert.equal(charsetOption('latin-1'), 'windows-1252');
  assert.equal(charsetOption('euc_kr'), 'euc-kr');
});

test('the HTML prescan: meta charset, http-equiv, and what it steps over', () => {
  const sniff = (html: string) => htmlCharset(Buffer.from(html, 'latin1'));
  assert.equal(sniff('<meta charset="iso-8859-1">'), 'windows-1252');
  assert.equal(sniff("<!doctype html><html><head><META CHARSET='KOI8-R'>"), 'koi8-r');
  assert.equal(sniff('<meta charset=iso-8859-2>'), 'iso-8859-2');
  assert.equal(sniff('<meta http-equiv="Content-Type" content="text/html; charset=iso-8859-15">'), 'iso-8859-15');
  assert.equal(sniff('<meta content="text/html; charset=\'shift_jis\'" http-equiv=content-type>'), 'shift_jis');
  // content= without http-equiv="Content-Type" says nothing.
  assert.equal(sniff('<meta content="text/html; charset=iso-8859-15">'), undefined);
  // Not in comments, not in another tag's attribute, not an unknown name, not past 1024 bytes.
  assert.equal(sniff('<!-- <meta charset="iso-8859-2"> --><meta charset="iso-8859-4">'), 'iso-8859-4');
  assert.equal(sniff('<div title=\'<meta charset="iso-8859-2">\'></div>'), undefined);
  assert.equal(sniff('<meta charset="nonsense"><meta charset="iso-8859-5">'), 'iso-8859-5');
  assert.equal(sniff(`<!-- ${'x'.repeat(1020)} --><meta charset="iso-8859-2">`), undefined);
  assert.equal(sniff(`${'x'.repeat(900)}<meta charset="iso-8859-2">`), 'iso-8859-2');
  // The first of two charset attributes; UTF-16 read as ASCII is UTF-8; x-user-defined is windows-1252.
  assert.equal(sniff('<meta charset="iso-8859-2" charset="iso-8859-5">'), 'iso-8859-2');
  assert.equal(sniff('<meta charset="utf-16le">'), 'utf-8');
  assert.equal(sniff('<meta charset="x-user-defined">'), 'windows-1252');
  assert.equal(sniff('<meta name="viewport" content="width=device-width"><p>charset=iso-8859-2</p>'), undefined);
});

test('which charset a body is decoded with: --response-charset, the header, the document, UTF-8', () => {
  const html = Buffer.from('<meta charset="iso-8859-2">', 'latin1');
  const xml = Buffer.from('<?xml version="1.0" encoding="ISO-8859-1"?><a/>', 'latin1');
  assert.equal(bodyCharset(undefined, 'text/html', html), 'iso-8859-2');
  assert.equal(bodyCharset(undefined, 'text/html; charset=koi8-r', html), 'koi8-r');
  assert.equal(bodyCharset('utf-8', 'text/html; charset=koi8-r', html), 'utf-8');
  // An unknown charset in the header counts as none.
  assert.equal(bodyCharset(undefined, 'text/html; charset=bogus', html), 'iso-8859-2');
  assert.equal(bodyCharset(undefined, 'application/xml', xml), 'windows-1252');
  assert.equal(bodyCharset(undefined, 'image/svg+xml', xml), 'windows-1252');
  assert.equal(bodyCharset(undefined, 'text/xml; charset=utf-8', xml), 'utf-8');
  // Only HTML is prescanned, only XML declarations count, and only at the start.
  assert.equal(bodyCharset(undefined, 'text/plain', html), 'utf-8');
  assert.equal(bodyCharset(undefined, 'application/xml', Buffer.from(' <?xml version="1.0" encoding="iso-8859-2"?>')), 'utf-8');
  assert.equal(bodyCharset(undefined, undefined, html), 'utf-8');
});

test('a byte order mark names UTF-8, UTF-16 or UTF-32 and wins over the header; --response-charset keeps its own but for the byte order', () => {
  const b = (...bytes: number[]) => Buffer.from(bytes);
  assert.equal(bomCharset(b(0xef, 0xbb, 0xbf, 0x61)), 'utf-8');
  assert.equal(bomCharset(b(0xff, 0xfe, 0x61, 0)), 'utf-16le');
  assert.equal(bomCharset(b(0xfe, 0xff, 0, 0x61)), 'utf-16be');
  assert.equal(bomCharset(b(0xff, 0xfe, 0, 0)), 'utf-32le');
  assert.equal(bomCharset(b(0, 0, 0xfe, 0xff)), 'utf-32be');
  assert.equal(bomCharset(b(0x61, 0x62)), undefined);
  assert.equal(bodyCharset(undefined, 'text/plain; charset=windows-1252', b(0xfe, 0xff, 0, 0x61)), 'utf-16be');
  assert.equal(bodyCharset('utf-16', undefined, b(0xfe, 0xff, 0, 0x61)), 'utf-16be');
  assert.equal(bodyCharset('windows-1252', undefined, b(0xfe, 0xff, 0, 0x61)), 'windows-1252');
});

test('U+0000 after decoding: a zero byte, or a whole UTF-16/UTF-32 code unit of zeros counted from the body start', () => {
  assert.equal(decodesToNul(Buffer.from('abc', 'utf16le'), 'utf-16le'), false);
  assert.equal(decodesToNul(Buffer.from('a\0b', 'utf16le'), 'utf-16le'), true);
  // Ā (U+0100) after a: 61 00 00 01, zeros across two code units.
  assert.equal(decodesToNul(Buffer.from('aĀ', 'utf16le'), 'utf-16le'), false);
  // The same bytes seen from an odd offset in the body.
  assert.equal(decodesToNul(Buffer.from([0x00, 0x00, 0x01]), 'utf-16le', 1), false);
  assert.equal(decodesToNul(Buffer.from([0x00, 0x00, 0x00, 0x00]), 'utf-32be'), true);
  assert.equal(decodesToNul(Buffer.from([0x00, 0x00, 0x00, 0x61]), 'utf-32be'), false);
  assert.equal(decodesToNul(Buffer.from([0x61, 0x00]), 'utf-8'), true);
});

test('UTF-32 in pieces: a character split across pieces, the byte order mark dropped, a bad code point or a cut end as U+FFFD', () => {
  const be = Buffer.from([0, 0, 0xfe, 0xff, 0, 1, 0xf6, 0x80, 0, 0, 0, 0x61, 0, 0x11, 0, 0, 0, 0]);
  const d = charsetDecoder('utf-32be');
  let out = '';
  for (let i = 0; i < be.length; i += 3) out += d.write(be.subarray(i, i + 3));
  out += d.end();
  assert.equal(out, '\u{1f680}a\ufffd\ufffd');
  assert.equal(decodeBody(Buffer.from([0x61, 0, 0, 0]), 'utf-32le'), 'a');
});
