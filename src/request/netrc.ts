import { FileTooLargeError, occupied, readLimited, SETTINGS_FILE_LIMIT } from '../files.js';
import { homedir, platform as osPlatform } from 'node:os';
import { join } from 'node:path';

/**
 * ~/.netrc (or the file NETRC names): `machine HOST login USER password PASS`, and `default`.
 * Used for basic credentials when neither -a nor the URL gives any (docs/decisions.md, Authentication; --ignore-netrc).
 */
export interface NetrcEntry {
  login: string;
  password: string;
}

export function parseNetrc(text: string): { machines: Map<string, NetrcEntry>; fallback?: NetrcEntry } {
  const tokens = text.replace(/#.*$/gm, ' ').split(/\s+/).filter(Boolean);
  const machines = new Map<string, NetrcEntry>();
  let fallback: NetrcEntry | undefined;
  let current: { host?: string; entry: NetrcEntry } | undefined;
  const flush = () => {
    if (!current) return;
    if (current.host === undefined) fallback = current.entry;
    else if (!machines.has(current.host)) machines.set(current.host, current.entry);
  };
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    if (t === 'machine') {
      flush();
      current = { host: (tokens[++i] ?? '').toLowerCase(), entry: { login: '', password: '' } };
    } else if (t === 'default') {
      flush();
      current = { entry: { login: '', password: '' } };
    } else if (t === 'login' && current) current.entry.login = tokens[++i] ?? '';
    else if (t === 'password' && current) current.entry.password = tokens[++i] ?? '';
    else if (t === 'account' && current) i++;
    else if (t === 'macdef') {
      // A macro runs to the next blank line; in the token stream we skip its name only.
      i++;
    }
  }
  flush();
  return { machines, fallback };
}

/**
 * The .netrc file to read, as curl finds it: $NETRC, else `.netrc` in $HOME. On Windows, where cmd
 * and PowerShell set no HOME, %USERPROFILE% is the home when HOME is not set, and `_netrc` is read
 * when there is no `.netrc` (curl.exe's two names, `.netrc` first).
 */
export function netrcPath(env: NodeJS.ProcessEnv, platform: string = osPlatform()): string {
  if (env.NETRC) return env.NETRC;
  const windows = platform === 'win32';
  const home = env.HOME || (windows ? env.USERPROFILE : undefined) || homedir();
  const dotted = join(home, '.netrc');
  if (windows && !occupied(dotted) && occupied(join(home, '_netrc'))) return join(home, '_netrc');
  return dotted;
}

export function netrcCredentials(host: string, env: NodeJS.ProcessEnv, platform?: string): NetrcEntry | undefined {
  const path = netrcPath(env, platform);
  let text: string;
  try {
    text = readLimited(path, SETTINGS_FILE_LIMIT, path, 'a .netrc file').toString('utf8');
  } catch (e) {
    if (e instanceof FileTooLargeError) throw e;
    return undefined;
  }
  const { machines, fallback } = parseNetrc(text);
  return machines.get(host.toLowerCase()) ?? fallback;
}
