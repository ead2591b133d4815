import { FileTooLargeError, readLimited, SETTINGS_FILE_LIMIT, utf8Text } from '../files.js';
import { homedir, platform as osPlatform } from 'node:os';
import { join } from 'node:path';
import { UsageError } from '../errors.js';
import { JsonSyntaxError, parseJson } from '../model/json.js';

/**
 * Where sling keeps its configuration and sessions: SLING_CONFIG_DIR, else $XDG_CONFIG_HOME/sling,
 * else %APPDATA%\sling on Windows, else ~/.config/sling.
 */
export function configDir(env: NodeJS.ProcessEnv, platform: string = osPlatform()): string {
  if (env.SLING_CONFIG_DIR) return env.SLING_CONFIG_DIR;
  if (env.XDG_CONFIG_HOME) return join(env.XDG_CONFIG_HOME, 'sling');
  if (platform === 'win32' && env.APPDATA) return join(env.APPDATA, 'sling');
  return join(env.HOME || homedir(), '.config', 'sling');
}

export const configFile = (env: NodeJS.ProcessEnv) => join(configDir(env), 'config.json');

/** `default_options` of config.json: arguments put in front of the command line's own. */
export function defaultOptions(env: NodeJS.ProcessEnv): string[] {
  const file = configFile(env);
  let data: Buffer;
  try {
    data = readLimited(file, SETTINGS_FILE_LIMIT, file, 'a config file');
  } catch (e) {
    if (e instanceof FileTooLargeError) throw e;
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw new UsageError(`cannot read the config file ${file}: ${(e as Error).message}`);
  }
  const text = utf8Text(data, file, 'the config file');
  let config: unknown;
  try {
    config = JSON.parse(text);
  } catch {
    // Node's own message has no line and column: our strict parser gives the position.
    let where = '';
    let why = 'invalid JSON';
    try {
      parseJson(text);
    } catch (e) {
      if (e instanceof JsonSyntaxError) {
        const before = text.slice(0, e.offset);
        where = `:${before.split('\n').length}:${e.offset - before.lastIndexOf('\n')}`;
        why = e.message.replace(/ at position \d+$/, '');
      }
    }
    throw new UsageError(`${file}${where}: the config file is not valid JSON (${why})`);
  }
  if (typeof config !== 'object' || config === null || Array.isArray(config)) {
    throw new UsageError(`${file}: the config file must hold a JSON object such as {"default_options": ["--style=mono"]}`);
  }
  const opts = (config as Record<string, unknown>).default_options;
  if (opts === undefined) return [];
  if (!Array.isArray(opts) || !opts.every((o) => typeof o === 'string')) {
    throw new UsageError(`${file}: "default_options" must be a list of strings, e.g. ["--follow", "--timeout=10"]`);
  }
  return opts as string[];
}
