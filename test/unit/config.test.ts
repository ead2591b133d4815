import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { configDir } from '../../src/cli/config.js';

test('config folder: SLING_CONFIG_DIR, XDG_CONFIG_HOME, APPDATA on Windows, ~/.config', () => {
  assert.equal(configDir({ SLING_CONFIG_DIR: '/x', XDG_CONFIG_HOME: '/y', HOME: '/h' }, 'linux'), '/x');
  assert.equal(configDir({ XDG_CONFIG_HOME: '/y', HOME: '/h' }, 'linux'), join('/y', 'sling'));
  assert.equal(configDir({ APPDATA: 'C:/Users/a/AppData/Roaming', HOME: '/h' }, 'win32'), join('C:/Users/a/AppData/Roaming', 'sling'));
  assert.equal(configDir({ APPDATA: '/ignored', HOME: '/h' }, 'linux'), join('/h', '.config', 'sling'));
});
