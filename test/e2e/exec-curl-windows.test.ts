// curl files written on Windows or for it: PowerShell's pasted commands, drive-letter paths that bash
// would mangle, and where the default config file is found.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runSling } from '../helpers/cli.js';
import { header } from '../helpers/servers.js';
import { assertExit, httpServer, okText } from '../helpers/assert.js';

function dir(files: Record<string, string> = {}): string {
  const d = mkdtempSync(join(tmpdir(), 'sling-curl-win-'));
  for (const [n, c] of Object.entries(files)) writeFileSync(join(d, n), c);
  return d;
}

test('curlrc without a dot in $HOME/.config is read when XDG_CONFIG_HOME is not set, as curl 7.88 reads it', async (t) => {
  const s = await httpServer(t, okText);
  const home = dir();
  mkdirSync(join(home, '.config'));
  writeFileSync(join(home, '.config', 'curlrc'), 'header = "X-Rc: dotconfig"\n');
  const d = dir({ 'a.sh': `curl -s ${s.url}/a\n` });
  assertExit(await runSling(['exec', 'a.sh'], { cwd: d, env: { HOME: home } }), 0);
  assert.equal(header(s.requests[0]!, 'x-rc'), 'dotconfig');
  // A .curlrc in HOME comes first.
  writeFileSync(join(home, '.curlrc'), 'header = "X-Rc: home"\n');
  assertExit(await runSling(['exec', 'a.sh'], { cwd: d, env: { HOME: home } }), 0);
  assert.equal(header(s.requests[1]!, 'x-rc'), 'home');
});
