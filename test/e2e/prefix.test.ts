// Long options by an unambiguous prefix and "did you mean" for a near miss, as
// the user sees them: the usage error's lines and exit code, and a shortened --debug that debugs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { runSling } from '../helpers/cli.js';
import { httpServer } from '../helpers/assert.js';

test('--folow: did you mean --follow? (exit 1); --ver: the candidates; --deb and --offl work as --debug and --offline', async () => {
  const near = await runSling(['--folow', 'example.org']);
  assert.equal(near.code, 1);
  assert.equal(near.stderr, "sling: error: unknown option '--folow' (did you mean --follow?)\n  hint: see sling --help for the list of options\n");
  const ambiguous = await runSling(['--ver', 'example.org']);
  assert.equal(ambiguous.code, 1);
  assert.equal(ambiguous.stderr, "sling: error: ambiguous option '--ver': it could be --verbose, --verify or --version\n");
  const debug = await runSling(['--deb', '--offl', 'example.org/x']);
  assert.equal(debug.code, 0, debug.stderr);
  assert.match(debug.stderr, /^sling: debug: invocation /m);
  assert.match(debug.stdout, /^GET \/x HTTP\/1\.1/);
});

test('sling exec: its own options by prefix too (--fail-f is --fail-fast), and a near miss suggested', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sling-prefix-'));
  writeFileSync(join(dir, 'a.http'), 'GET http://127.0.0.1:1/a\n');
  const converted = await runSling(['exec', '--fail-f', '--to=curl', 'a.http'], { cwd: dir });
  assert.equal(converted.code, 0, converted.stderr);
  assert.match(converted.stdout, /^curl http:\/\/127\.0\.0\.1:1\/a/m);
  const near = await runSling(['exec', '--fial-fast', 'a.http'], { cwd: dir });
  assert.equal(near.code, 1);
  assert.match(near.stderr, /^sling: error: unknown option '--fial-fast' \(did you mean --fail-fast\?\)\n/);
});

test("curl's --compressed is accepted and changes nothing: the same request and output, one note on stderr (none with -q); --compres is still --compress", async (t) => {
  const s = await httpServer(t, (req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Encoding': 'gzip' });
    res.end(gzipSync('decoded body\n'));
  });
  const note = 'sling: note: sling always asks for compressed answers (Accept-Encoding) and decodes them; --compressed is not needed\n';
  const plain = await runSling(['-v', `${s.url}/a`]);
  const habit = await runSling(['--compressed', '-v', `${s.url}/a`]);
  assert.equal(plain.code, 0, plain.stderr);
  assert.equal(habit.code, 0, habit.stderr);
  assert.equal(habit.stderr, note);
  const sameDate = (out: string) => out.replace(/^Date: .*$/gm, 'Date: -');
  assert.equal(sameDate(habit.stdout), sameDate(plain.stdout));
  assert.match(habit.stdout, /\ndecoded body\n$/);
  assert.deepEqual(s.requests[1]!.rawHeaders, s.requests[0]!.rawHeaders, 'the same bytes on the wire');
  const quiet = await runSling(['-q', '--compressed', `${s.url}/a`]);
  assert.equal(quiet.code, 0);
  assert.equal(quiet.stderr, '');
  // exec takes it too; an unambiguous prefix still names --compress (deflating the request body).
  const dir = mkdtempSync(join(tmpdir(), 'sling-compressed-'));
  writeFileSync(join(dir, 'a.http'), 'POST http://127.0.0.1:1/a\n\nx\n');
  const exec = await runSling(['exec', '--compressed', '--offline', 'a.http'], { cwd: dir });
  assert.equal(exec.code, 0, exec.stderr);
  assert.equal(exec.stderr, note);
  const prefix = await runSling(['--compres', '--offline', 'POST', 'example.org', `a=${'x'.repeat(200)}`]);
  assert.equal(prefix.code, 0, prefix.stderr);
  assert.match(prefix.stdout, /^Content-Encoding: deflate$/m);
});
