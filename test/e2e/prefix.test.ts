// Long options by an unambiguous prefix and "did you mean" for a near miss, as
// the user sees them: the usage error's lines and exit code, and a shortened --debug that debugs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runSling } from '../helpers/cli.js';

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
