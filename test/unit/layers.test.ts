// scripts/layers.mjs, the checker of ARCHITECTURE.md's layers: it passes on src/ and, on a small
// tree of its own, names each broken rule (an import against the layers, a cycle, an import of
// main.ts, a file in no layer, `process` outside the files allowed it, in any spelling: the
// global, globalThis.process, an import of 'process' or 'node:process').
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { REPO_ROOT } from '../helpers/cli.js';

const CHECKER = join(REPO_ROOT, 'scripts', 'layers.mjs');
const check = (...args: string[]) => spawnSync(process.execPath, [CHECKER, ...args], { encoding: 'utf8' });

test('src/ keeps the layers: no import against them, no cycle', () => {
  const r = check();
  assert.equal(r.stderr, '');
  assert.equal(r.status, 0);
});

test('each broken rule is named on a line of its own', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'sling-layers-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const files: Record<string, string> = {
    'errors.ts': "import type { RequestSpec } from './model/spec.js';\nexport class CliError extends Error {}\n",
    'model/spec.ts': "import type { Hop } from '../transport/send.js';\nexport interface RequestSpec { hop?: Hop }\n",
    'transport/send.ts': "import { CliError } from '../errors.js';\nimport { print } from '../output/printer.js';\nexport interface Hop { e: CliError }\nprint();\n",
    'output/printer.ts': "// import { x } from '../transport/send.js'; (a comment: no import)\nexport function print() { return process.env.X; }\n",
    'output/a.ts': "import { b } from './b.js';\nexport const a = () => b;\n",
    'output/b.ts': "export { a as b } from './a.js';\n",
    'commands/run.ts': "import { main } from '../main.js';\nimport { print } from '../output/printer.js';\nexport const run = () => [main, print];\n",
    'main.ts': "export async function main() { return (await import('./commands/run.js')).run; }\n",
    'bin.ts': "import { main } from './main.js';\nvoid main(process.argv);\n",
    'stray.ts': "export const x = 'process.env';\n",
    // Process-level by nature: clock.ts may.
    'clock.ts': 'export const now = () => process.hrtime();\n',
    // Once allowed, now not: SLING_NO_POLL comes with the environment the commands pass down.
    'transport/poll.ts': 'export const off = () => process.env.SLING_NO_POLL;\n',
    'transport/pid.ts': 'const { pid } = process;\nexport const id = () => pid;\n',
    'transport/global.ts': "export const id = () => [globalThis.process.pid, globalThis['process']];\n",
    'transport/env.ts': "import { env } from 'node:process';\nexport const e = async () => [env, await import('process')];\n",
    // Not a use: a regular expression, an object's key, a string, a comment.
    'output/words.ts': "export const re = /^(require|process|module)$/;\nexport const o = { process: 1, s: 'process.pid' };\n// process.exit(1)\n",
  };
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  const r = check('--src', dir);
  assert.equal(r.status, 1);
  const lines = r.stderr.trim().split('\n').sort();
  const expect = [
    'layers: errors.ts (base) imports model/spec.ts (model), type: base may import nothing else',
    'layers: model/spec.ts (model) imports transport/send.ts (transport), type: model may import base',
    'layers: transport/send.ts (transport) imports output/printer.ts (output): transport may import base, model',
    'layers: output/printer.ts touches `process`: only bin.ts may (take what it needs from Io or an argument)',
    'layers: commands/run.ts imports main.ts: nothing but bin.ts may (main.ts is the dispatcher)',
    'layers: commands/run.ts (commands) imports main.ts (main): commands may import base, model, cli, request, sources, transport, output',
    'layers: stray.ts: in no layer (add it to a layer of scripts/layers.mjs and ARCHITECTURE.md)',
    'layers: transport/poll.ts touches `process`: only bin.ts may (take what it needs from Io or an argument)',
    'layers: transport/pid.ts touches `process`: only bin.ts may (take what it needs from Io or an argument)',
    'layers: transport/global.ts touches `process`: only bin.ts may (take what it needs from Io or an argument)',
    "layers: transport/env.ts imports 'node:process': only bin.ts may touch `process` (take what it needs from Io or an argument)",
    "layers: transport/env.ts imports 'process': only bin.ts may touch `process` (take what it needs from Io or an argument)",
    'layers: import cycle of 2 files: output/a.ts -> output/b.ts -> output/a.ts',
    'layers: import cycle of 3 files: errors.ts -> model/spec.ts -> transport/send.ts -> errors.ts',
    'layers: import cycle of 2 files: commands/run.ts -> main.ts -> commands/run.ts',
  ];
  for (const line of expect) assert.ok(lines.includes(line), `missing: ${line}\nin:\n${lines.join('\n')}`);
  assert.equal(lines.length, expect.length + 1, lines.join('\n'));
  assert.ok(lines.includes(`layers: ${expect.length} broken rules (see ARCHITECTURE.md)`));
});
