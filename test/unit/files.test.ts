// src/files.ts: makeDirs (mkdir -p without Node 20's endless loop), isDirectory and readLimited.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { closeSync, existsSync, lstatSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileProblem } from '../../src/errors.js';
import { expandHome, FileTooLargeError, isDeviceName, isDirectory, isNullName, makeDirs, occupied, openToWrite, readLimited, replaceFile, writeToFile } from '../../src/files.js';

test('makeDirs makes the missing folders and returns the first it made (undefined when none was missing)', () => {
  const base = mkdtempSync(join(tmpdir(), 'sling-files-'));
  assert.equal(makeDirs(join(base, 'a', 'b', 'c')), join(base, 'a'));
  assert.ok(isDirectory(join(base, 'a', 'b', 'c')));
  assert.equal(makeDirs(join(base, 'a', 'b')), undefined);
  assert.equal(makeDirs(join(base, 'a', 'x'), 0o700), join(base, 'a', 'x'));
  if (process.platform !== 'win32') assert.equal(statSync(join(base, 'a', 'x')).mode & 0o077, 0);
});

test('makeDirs fails at once where a folder cannot be made: a file in the way, a parent that refuses entries (/proc)', () => {
  const base = mkdtempSync(join(tmpdir(), 'sling-files-'));
  writeFileSync(join(base, 'f'), '');
  assert.throws(() => makeDirs(join(base, 'f', 'sub')), { code: 'ENOTDIR' });
  assert.equal(isDirectory(join(base, 'f')), false);
  // Node 20's mkdirSync(..., { recursive: true }) never returns here.
  if (existsSync('/proc/self')) assert.throws(() => makeDirs('/proc/sling-nothere/x'), { code: 'ENOENT' });
});

test('openToWrite never goes through a symbolic link: `new` takes no name that is there (a dangling link included), `replace` and `append` refuse a link and keep to regular files', {
  skip: process.platform === 'win32' ? 'symbolic links need privileges on Windows' : undefined,
}, () => {
  const dir = mkdtempSync(join(tmpdir(), 'sling-open-'));
  const target = join(dir, 'target');
  symlinkSync(target, join(dir, 'dangling'));
  writeFileSync(join(dir, 'real'), 'mine');
  symlinkSync(join(dir, 'real'), join(dir, 'live'));
  writeFileSync(join(dir, 'plain'), 'old');
  assert.equal(existsSync(join(dir, 'dangling')), false, 'existsSync misses a dangling link');
  assert.equal(occupied(join(dir, 'dangling')), true, 'occupied sees it');
  for (const name of ['dangling', 'live', 'plain']) assert.throws(() => openToWrite(join(dir, name), 'new'), { code: 'EEXIST' }, name);
  for (const how of ['replace', 'append'] as const) {
    for (const name of ['dangling', 'live']) assert.throws(() => writeToFile(join(dir, name), Buffer.from('x'), how), { code: 'ESYMLINK' }, `${how} ${name}`);
  }
  assert.equal(existsSync(target), false, "the dangling link's target was not made");
  assert.equal(readFileSync(join(dir, 'real'), 'utf8'), 'mine');
  assert.ok(lstatSync(join(dir, 'dangling')).isSymbolicLink() && lstatSync(join(dir, 'live')).isSymbolicLink(), 'the links are left as links');
  writeToFile(join(dir, 'plain'), Buffer.from('new'), 'replace');
  writeToFile(join(dir, 'plain'), Buffer.from('+'), 'append');
  assert.equal(readFileSync(join(dir, 'plain'), 'utf8'), 'new+');
  closeSync(openToWrite(join(dir, 'fresh'), 'new'));
  assert.equal(statSync(join(dir, 'fresh')).size, 0);
});

test('readLimited: a file of exactly the limit is read whole; one byte more, a device or /proc file past it is a FileTooLargeError naming it; a /proc file under it is read (its size says 0)', () => {
  const d = mkdtempSync(join(tmpdir(), 'sling-limited-'));
  try {
    const f = join(d, 'f');
    writeFileSync(f, Buffer.alloc(1000, 'x'));
    assert.equal(readLimited(f, 1000, 'f', 'a test file').length, 1000);
    assert.throws(
      () => readLimited(f, 999, 'f', 'a test file'),
      (e: unknown) => e instanceof FileTooLargeError && /^'f' is larger than 999 bytes, the most sling reads of a test file$/.test((e as Error).message),
    );
    writeFileSync(f, '');
    assert.equal(readLimited(f, 10, 'f', 'a test file').length, 0);
    if (existsSync('/dev/zero')) assert.throws(() => readLimited('/dev/zero', 1 << 20, 'z', 'a test file'), FileTooLargeError);
    if (existsSync('/proc/self/status')) assert.match(readLimited('/proc/self/status', 1 << 20, 's', 'a test file').toString(), /VmHWM/);
    assert.throws(
      () => readLimited(join(d, 'missing'), 10, 'm', 'a test file'),
      (e: unknown) => (e as NodeJS.ErrnoException).code === 'ENOENT',
    );
  } finally {
    rmSync(d, { recursive: true, force: true });
  }
});

test('replaceFile on Windows: a rename refused while another program holds the target (EBUSY, EPERM, EACCES) is tried again, and the file takes its place', () => {
  const base = mkdtempSync(join(tmpdir(), 'sling-files-'));
  try {
    writeFileSync(join(base, 'session.json'), 'old');
    writeFileSync(join(base, '.new.tmp'), 'new');
    const codes = ['EBUSY', 'EPERM', 'EACCES'];
    const waits: number[] = [];
    const rename = (from: string, to: string) => {
      const code = codes.shift();
      if (code) throw Object.assign(new Error(`${code}: held, rename '${from}' -> '${to}'`), { code });
      renameSync(from, to);
    };
    replaceFile(join(base, '.new.tmp'), join(base, 'session.json'), { rename, platform: 'win32', sleep: (ms) => waits.push(ms) });
    assert.equal(readFileSync(join(base, 'session.json'), 'utf8'), 'new');
    assert.ok(!existsSync(join(base, '.new.tmp')));
    assert.equal(waits.length, 3);
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
});

test('replaceFile on Windows: a target held for good fails after about 1 s of tries, in words that say another program holds it', () => {
  const waits: number[] = [];
  let tries = 0;
  const rename = () => {
    tries++;
    throw Object.assign(new Error('EPERM: operation not permitted'), { code: 'EPERM' });
  };
  let error: unknown;
  try {
    replaceFile('/x/.tmp', '/x/out.json', { rename, platform: 'win32', sleep: (ms) => waits.push(ms) });
  } catch (e) {
    error = e;
  }
  assert.equal((error as NodeJS.ErrnoException).code, 'EHELD');
  assert.equal((error as NodeJS.ErrnoException).path, '/x/out.json');
  assert.match(fileProblem(error), /^another program holds the file open \(an antivirus scanner, OneDrive, an editor\?\)/);
  const total = waits.reduce((a, b) => a + b, 0);
  assert.ok(total >= 900 && total <= 1500, `waited ${total} ms in all`);
  assert.equal(tries, waits.length + 1);
});

test('replaceFile elsewhere than Windows: EACCES or EPERM is lasting and thrown at the first try; other codes everywhere', () => {
  for (const [platform, code] of [
    ['linux', 'EACCES'],
    ['darwin', 'EPERM'],
    ['win32', 'ENOENT'],
  ] as const) {
    let tries = 0;
    const rename = () => {
      tries++;
      throw Object.assign(new Error(code), { code });
    };
    assert.throws(() => replaceFile('a', 'b', { rename, platform, sleep: () => assert.fail('no wait') }), { code });
    assert.equal(tries, 1);
  }
});

test('replaceFile with the real rename and the real wait: a rename that works at once', () => {
  const base = mkdtempSync(join(tmpdir(), 'sling-files-'));
  try {
    writeFileSync(join(base, 'a'), 'A');
    writeFileSync(join(base, 'b'), 'B');
    replaceFile(join(base, 'a'), join(base, 'b'));
    assert.equal(readFileSync(join(base, 'b'), 'utf8'), 'A');
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
});

test('expandHome: ~ and ~/ are the home folder everywhere; ~\\ too where a backslash separates folders (Windows)', () => {
  assert.equal(expandHome('~', '/home/u', false), '/home/u');
  assert.equal(expandHome('~/a/b.json', '/home/u', false), join('/home/u', 'a/b.json'));
  // On Linux a backslash is part of a file name: `~\\x` is a name in the working folder.
  assert.equal(expandHome('~\\b.json', '/home/u', false), '~\\b.json');
  assert.equal(expandHome('~\\b.json', '/home/u', true), join('/home/u', 'b.json'));
  assert.equal(expandHome('~user/x', '/home/u', true), '~user/x');
  assert.equal(expandHome('a/~/x', '/home/u', true), 'a/~/x');
});

test('isDeviceName: the names Windows keeps for devices, with any extension; isNullName: /dev/null and NUL', () => {
  for (const n of ['con', 'CON', 'con.json', 'nul', 'Prn.txt', 'aux', 'com1', 'LPT9.log', 'com\u00b9']) assert.equal(isDeviceName(n), true, n);
  for (const n of ['console', 'con_', 'nul-1.json', 'com', 'lpt10', 'x.con', '']) assert.equal(isDeviceName(n), false, n);
  for (const n of ['/dev/null', 'NUL', 'nul', 'NUL:']) assert.equal(isNullName(n), true, n);
  for (const n of ['/dev/null/x', 'null', './NUL', 'NUL.txt', '/dev/zero']) assert.equal(isNullName(n), false, n);
});
