// Where the default config files are looked for when cmd.exe or PowerShell started sling: no HOME,
// but USERPROFILE and APPDATA, and the `_curlrc` / `_netrc` names of curl.exe.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { curlrcPaths } from '../../src/sources/curl/config.js';
import { netrcCredentials, netrcPath } from '../../src/request/netrc.js';

test('.curlrc on Windows is looked for as curl.exe does: CURL_HOME, XDG_CONFIG_HOME, HOME, USERPROFILE, APPDATA, each with .curlrc then _curlrc', () => {
  const env = { USERPROFILE: '/U', APPDATA: '/U/AppData/Roaming', CURL_HOME: '', SystemRoot: '/W' };
  assert.deepEqual(curlrcPaths(env, 'win32', '/ignored'), [
    '/U/.curlrc',
    '/U/_curlrc',
    '/U/AppData/Roaming/.curlrc',
    '/U/AppData/Roaming/_curlrc',
    '/U/Application Data/.curlrc',
    '/U/Application Data/_curlrc',
  ]);
  assert.deepEqual(curlrcPaths({ CURL_HOME: '/C', HOME: '/H', USERPROFILE: '/U' }, 'win32', '/x').slice(0, 6), ['/C/.curlrc', '/C/_curlrc', '/H/.curlrc', '/H/_curlrc', '/U/.curlrc', '/U/_curlrc']);
  // Without XDG_CONFIG_HOME, curlrc (no dot) in CURL_HOME/.config and HOME/.config come last.
  assert.deepEqual(curlrcPaths({ CURL_HOME: '/C', HOME: '/H' }, 'win32', '/x').slice(-2), ['/C/.config/curlrc', '/H/.config/curlrc']);
});

test('.curlrc elsewhere: CURL_HOME, XDG_CONFIG_HOME, HOME (no _curlrc, no USERPROFILE), HOME/.config/curlrc, then the home folder of the system', () => {
  assert.deepEqual(curlrcPaths({ HOME: '/h', USERPROFILE: '/U', APPDATA: '/A' }, 'linux', '/pw'), ['/h/.curlrc', '/h/.config/curlrc', '/pw/.curlrc']);
  assert.deepEqual(curlrcPaths({ XDG_CONFIG_HOME: '/x', HOME: '/h' }, 'darwin', '/pw'), ['/x/.curlrc', '/h/.curlrc', '/pw/.curlrc']);
});

test('.netrc on Windows: HOME, else USERPROFILE; .netrc, else _netrc; NETRC first everywhere', () => {
  const profile = mkdtempSync(join(tmpdir(), 'sling-profile-'));
  try {
    // cmd.exe and PowerShell set no HOME: %USERPROFILE%\_netrc is what curl.exe reads.
    writeFileSync(join(profile, '_netrc'), 'machine api.example login ada password s3cret\n');
    const env = { USERPROFILE: profile };
    assert.equal(netrcPath(env, 'win32'), join(profile, '_netrc'));
    assert.deepEqual(netrcCredentials('api.example', env, 'win32'), { login: 'ada', password: 's3cret' });
    // .netrc is preferred when both are there.
    writeFileSync(join(profile, '.netrc'), 'machine api.example login bob password pw\n');
    assert.deepEqual(netrcCredentials('API.example', env, 'win32'), { login: 'bob', password: 'pw' });
    // HOME, when it is set (Git Bash, MSYS2), is the home.
    assert.equal(netrcPath({ HOME: '/home/x', USERPROFILE: profile }, 'win32'), join('/home/x', '.netrc'));
    assert.equal(netrcPath({ NETRC: '/n', USERPROFILE: profile }, 'win32'), '/n');
    // Elsewhere neither USERPROFILE nor _netrc counts.
    rmSync(join(profile, '.netrc'));
    assert.equal(netrcPath({ HOME: profile }, 'linux'), join(profile, '.netrc'));
    assert.equal(netrcCredentials('api.example', { HOME: profile }, 'linux'), undefined);
  } finally {
    rmSync(profile, { recursive: true, force: true });
  }
});
