import { test } from 'node:test';
import assert from 'node:assert/strict';
import { closeSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chooseFileName, nameFromContentDisposition, openUnique, sanitizeFileName } from '../../src/transport/filename.js';
import { resumeCommand } from '../../src/commands/download.js';

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

test('long names are cut in one pass, and never end on a dot or a blank (fuzz: 100,000 characters took a minute)', () => {
  assert.equal(sanitizeFileName('x'.repeat(100_000)), 'x'.repeat(255));
  assert.equal(sanitizeFileName(`a${' '.repeat(100_000)}b`), 'a');
  assert.equal(sanitizeFileName(`a${'\ufeff'.repeat(100_000)}b`), 'a');
  assert.equal(sanitizeFileName(`${'a'.repeat(254)}. b`), 'a'.repeat(254));
  assert.equal(nameFromContentDisposition(`attachment; filename*=${' '.repeat(100_000)}`), undefined);
});

test('a name from the URL stays within 255 bytes with the extension the type adds (fuzz: 259 bytes)', () => {
  const name = chooseFileName(undefined, `/${'a'.repeat(254)}`, 'application/json');
  assert.equal(name, `${'a'.repeat(250)}.json`);
  assert.ok(Buffer.byteLength(name) <= 255);
});

test('name from the URL, with an extension from the type, else index', () => {
  assert.equal(chooseFileName(undefined, '/files/report.pdf?x=1', 'application/pdf'), 'report.pdf');
  assert.equal(chooseFileName(undefined, '/api/data', 'application/json; charset=utf-8'), 'data.json');
  assert.equal(chooseFileName(undefined, '/', 'text/html'), 'index.html');
  assert.equal(chooseFileName(undefined, '/%C3%BCber', undefined), 'über');
  assert.equal(chooseFileName('attachment; filename="../x.zip"', '/y', undefined), 'x.zip');
});

test('the resume command adds --output and --continue only when missing', () => {
  assert.equal(resumeCommand(['-d', 'http://h/f'], 'f', { output: false, resume: false }), 'sling -d http://h/f --output f --continue');
  assert.equal(resumeCommand(['-dco', 'my file', 'http://h/f'], 'my file', { output: true, resume: true }), "sling -dco 'my file' http://h/f");
  assert.equal(resumeCommand(['--download', '--output=x', 'http://h/f'], 'x', { output: true, resume: false }), 'sling --download --output=x http://h/f --continue');
});

test('openUnique never opens over a name that is taken: a file, a folder, a live link, a dangling link', {
  skip: process.platform === 'win32' ? 'symbolic links need privileges on Windows' : false,
}, () => {
  const dir = mkdtempSync(join(tmpdir(), 'sling-unique-'));
  writeFileSync(join(dir, 'target'), 'kept');
  symlinkSync(join(dir, 'nowhere'), join(dir, 'a.bin'));
  symlinkSync(join(dir, 'target'), join(dir, 'a-1.bin'));
  writeFileSync(join(dir, 'a-2.bin'), 'kept');
  mkdirSync(join(dir, 'a-3.bin'));
  symlinkSync(join(dir, 'nowhere-either'), join(dir, 'b'));
  const a = openUnique(dir, 'a.bin');
  closeSync(a.fd);
  assert.equal(a.name, 'a-4.bin');
  const b = openUnique(dir, 'b');
  closeSync(b.fd);
  assert.equal(b.name, 'b-1');
  assert.ok(lstatSync(join(dir, 'a.bin')).isSymbolicLink());
  assert.equal(existsSync(join(dir, 'nowhere')), false, 'a dangling link is not followed');
  assert.deepEqual(readdirSync(dir).sort(), ['a-1.bin', 'a-2.bin', 'a-3.bin', 'a-4.bin', 'a.bin', 'b', 'b-1', 'target']);
});

test('openUnique: a numbered name stays within 255 bytes', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sling-unique-'));
  const long = 'x'.repeat(251) + '.bin';
  writeFileSync(join(dir, long), '');
  const next = openUnique(dir, long);
  closeSync(next.fd);
  assert.equal(Buffer.byteLength(next.name), 255);
  assert.match(next.name, /^x+-1\.bin$/);
});
