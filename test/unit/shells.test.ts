// The resume hint of a cut download is written for the shell of the platform: POSIX, PowerShell or cmd.exe.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { resumeCommand } from '../../src/commands/download.js';
import { platformShell } from '../../src/output/shells.js';
import { parseCmdScript } from '../../src/sources/curl/cmd.js';
import type { ShellEnv } from '../../src/sources/curl/expand.js';
import { parsePowerShell } from '../../src/sources/curl/powershell.js';

const env: ShellEnv = { lookup: () => 'EXPANDED', assign: () => {}, cwd: '/w', home: '/h', pid: 1, unset: () => {} };

test('the shell of the platform: POSIX off Windows and under Git Bash; on Windows PowerShell, or cmd.exe when its PROMPT is set', () => {
  assert.equal(platformShell({ PROMPT: '$P$G' }, 'linux'), 'posix');
  assert.equal(platformShell({}, 'win32'), 'powershell');
  assert.equal(platformShell({ PROMPT: '$P$G' }, 'win32'), 'cmd');
  assert.equal(platformShell({ MSYSTEM: 'MINGW64', PROMPT: '$P$G' }, 'win32'), 'posix');
  assert.equal(platformShell({ SHELL: '/usr/bin/bash' }, 'win32'), 'posix');
});

/** The run of the line below: -o given, --continue not. */
const RUN = { output: true, resume: false };

test('the resume hint in PowerShell and cmd.exe quoting gives sling the same words (read back by the PowerShell and cmd.exe readers)', () => {
  const argv = ['-d', 'http://h/a b?x=%PATH%&y=$env:HOME', '-o', "it's (1) ^!.bin", 'X-A:`q`'];
  const file = "it's (1) ^!.bin";
  const posix = resumeCommand(argv, file, RUN, 'posix');
  assert.equal(posix, "sling -d 'http://h/a b?x=%PATH%&y=$env:HOME' -o 'it'\\''s (1) ^!.bin' 'X-A:`q`' --continue");
  const ps = resumeCommand(argv, file, RUN, 'powershell');
  assert.equal(ps, "sling -d 'http://h/a b?x=%PATH%&y=$env:HOME' -o 'it''s (1) ^!.bin' 'X-A:`q`' --continue");
  const cmd = resumeCommand(argv, file, RUN, 'cmd');
  // The readers take curl commands: the program's name is put in sling's place to read the words back.
  assert.deepEqual(parsePowerShell(ps.replace(/^sling/, 'curl.exe'), env)[0]!.argv, [...argv, '--continue']);
  assert.deepEqual(parseCmdScript(cmd.replace(/^sling/, 'curl'), env)[0]!.argv, [...argv, '--continue']);
  // A word cmd.exe cannot hold: the POSIX form, which says it exactly.
  assert.equal(resumeCommand(['http://h/x', 'X:a\nb'], 'x', { output: false, resume: false }, 'cmd'), "sling http://h/x 'X:a\nb' --output x --continue");
});
