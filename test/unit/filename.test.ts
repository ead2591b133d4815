import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chooseFileName, nameFromContentDisposition, sanitizeFileName } from '../../src/transport/filename.js';
import { resumeCommand } from '../../src/transport/download.js';

const CD: [string, string | undefined][] = [
  ['attachment; filename="a.txt"', 'a.txt'],
  ['attachment; filename=plain.bin', 'plain.bin'],
  [`attachment; filename="x.txt"; filename*=UTF-8''%E2%82%AC%20rates.txt`, '€ rates.txt'],
  [`attachment; filename*=iso-8859-1'en'%A3%20rates.txt`, '£ rates.txt'],
  ['attachment; filename="q\\"uote.txt"', 'q"uote.txt'],
  ['inline', undefined],
];
for (const [header, want] of CD) test(`Content-Disposition ${header}`, () => assert.equal(nameFromContentDisposition(header), want));

const SAFE: [string, string | undefined][] = [
  ['../../etc/passwd', 'passwd'],
  ['..\\..\\x.txt', 'x.txt'],
  ['.bashrc', 'bashrc'],
  ['...', undefined],
  ['CON', '_CON'],
  ['com1.txt', '_com1.txt'],
  ['a\u0000b\u001b.txt', 'ab.txt'],
  ['invoice\u202egnp.exe', 'invoicegnp.exe'],
  ['\u2066a\u2069\u200e\u200f\u061cb\u0085.txt', 'ab.txt'],
  ['what?<>|*.txt', 'what_____.txt'],
  ['name. ', 'name'],
];
for (const [raw, want] of SAFE) test(`sanitize ${JSON.stringify(raw)}`, () => assert.equal(sanitizeFileName(raw), want));

test('long names are cut to 255 bytes, keeping the extension', () => {
  const name = sanitizeFileName('é'.repeat(200) + '.tar')!;
  assert.ok(Buffer.byteLength(name) <= 255);
  assert.ok(name.endsWith('.tar'));
});

test('name from the URL, with an extension from the type, else index', () => {
  assert.equal(chooseFileName(undefined, '/files/report.pdf?x=1', 'application/pdf'), 'report.pdf');
  assert.equal(chooseFileName(undefined, '/api/data', 'application/json; charset=utf-8'), 'data.json');
  assert.equal(chooseFileName(undefined, '/', 'text/html'), 'index.html');
  assert.equal(chooseFileName(undefined, '/%C3%BCber', undefined), 'über');
  assert.equal(chooseFileName('attachment; filename="../x.zip"', '/y', undefined), 'x.zip');
});

test('the resume command adds --output and --continue only when missing', () => {
  assert.equal(resumeCommand(['-d', 'http://h/f'], 'f'), 'sling -d http://h/f --output f --continue');
  assert.equal(resumeCommand(['-dco', 'my file', 'http://h/f'], 'my file'), "sling -dco 'my file' http://h/f");
  assert.equal(resumeCommand(['--download', '--output=x', 'http://h/f'], 'x'), 'sling --download --output=x http://h/f --continue');
});
