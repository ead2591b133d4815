// -q/--quiet has one meaning (docs/decisions.md, Output), said the same way by
// --help and docs/usage.md and done by sling: nothing on stdout, and on stderr only warnings and
// errors (no headers, progress or summary of a download); -qq leaves out the warnings too.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT, runSling } from '../helpers/cli.js';
import { httpServer } from '../helpers/assert.js';

const MEANING = 'nothing but warnings and errors; -qq: errors only';

test('-q: --help and docs/usage.md say one thing, and it is what sling does', async (t) => {
  const help = await runSling(['--help']);
  const lines = help.stdout.split('\n');
  const at = lines.findIndex((l) => /^\s+-q, --quiet\s/.test(l));
  assert.ok(at >= 0, 'no -q line in --help');
  // The entry with its wrapped lines (indented past the names' column) joined.
  let entry = lines[at]!;
  for (let i = at + 1; /^ {20,}\S/.test(lines[i] ?? ''); i++) entry += ` ${lines[i]!.trim()}`;
  assert.equal(entry.replace(/^\s+-q, --quiet\s+/, ''), `print ${MEANING}`);
  const usage = readFileSync(join(REPO_ROOT, 'docs/usage.md'), 'utf8');
  const row = usage.split('\n').find((l) => l.startsWith('| `-q`, `--quiet` |'));
  assert.equal(row?.split('|')[2]?.trim().replace(/`/g, ''), MEANING);
  // Said once more in prose (Output), in the same words; nowhere a meaning of its own.
  assert.match(usage, /- `-q\/--quiet`: nothing on stdout; on stderr only warnings and errors\b/);
  assert.doesNotMatch(usage, /-q` (silences|prints) (all|nothing) but errors/);

  const s = await httpServer(t, (req, res) => {
    res.writeHead(req.url === '/missing' ? 404 : 200, { 'Content-Type': 'text/plain' });
    res.end('body\n');
  });
  const ok = await runSling(['-q', `${s.url}/x`]);
  assert.deepEqual([ok.code, ok.stdout, ok.stderr], [0, '', '']);
  const warned = await runSling(['-q', '--check-status', `${s.url}/missing`]);
  assert.deepEqual([warned.code, warned.stdout, warned.stderr], [4, '', 'sling: warning: HTTP 404 Not Found\n']);
  const silent = await runSling(['-qq', '--check-status', `${s.url}/missing`]);
  assert.deepEqual([silent.code, silent.stdout, silent.stderr], [4, '', '']);
  const dir = mkdtempSync(join(tmpdir(), 'sling-quiet-'));
  const download = await runSling(['-q', '-d', `${s.url}/file.txt`], { cwd: dir });
  assert.deepEqual([download.code, download.stdout, download.stderr], [0, '', '']);
  assert.ok(existsSync(join(dir, 'file.txt')));
  const failed = await runSling(['-qq', 'http://127.0.0.1:1/']);
  assert.equal(failed.code, 6);
  assert.match(failed.stderr, /^sling: error: /);
});
