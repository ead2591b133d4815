import { join } from 'node:path';
import { matchLong, optionByShort } from './options.js';

/**
 * Where curl looks for its default config file, in curl's order (the first that can be read is
 * used): `.curlrc` in $CURL_HOME, $XDG_CONFIG_HOME, $HOME, and on Windows %USERPROFILE%, %APPDATA%
 * and %USERPROFILE%\Application Data, each folder with `_curlrc` after `.curlrc` on Windows; then,
 * when XDG_CONFIG_HOME is not set, `curlrc` in $CURL_HOME/.config and $HOME/.config; then, except
 * on Windows, the user's home folder from the system (`home`). Unset or empty variables are passed
 * over. (curl.exe also looks in its own folder, which sling, not being curl.exe, does not have.)
 */
export function curlrcPaths(env: NodeJS.ProcessEnv, platform: string, home: string): string[] {
  const windows = platform === 'win32';
  const names = windows ? ['.curlrc', '_curlrc'] : ['.curlrc'];
  const out: string[] = [];
  const vars = windows ? ['CURL_HOME', 'XDG_CONFIG_HOME', 'HOME', 'USERPROFILE', 'APPDATA', 'USERPROFILE'] : ['CURL_HOME', 'XDG_CONFIG_HOME', 'HOME'];
  vars.forEach((name, i) => {
    const dir = env[name];
    if (!dir) return;
    // The second USERPROFILE: its "Application Data" folder (older Windows' APPDATA).
    const folder = windows && i === 5 ? join(dir, 'Application Data') : dir;
    for (const n of names) out.push(join(folder, n));
  });
  if (env.XDG_CONFIG_HOME === undefined) for (const name of ['CURL_HOME', 'HOME']) if (env[name]) out.push(join(env[name]!, '.config', 'curlrc'));
  if (!windows && home) out.push(join(home, '.curlrc'));
  return out;
}

/**
 * A curl config file (-K, .curlrc): one option per line, with or without dashes, its value after
 * blanks, `=` or `:`, in double quotes (with \\ \" \t \n \r \v escapes) or up to the next blank.
 */
export function parseConfigText(text: string): string[] {
  const args: string[] = [];
  for (let line of text.split(/\r?\n/)) {
    line = line.replace(/^[ \t]+/, '');
    if (!line || line.startsWith('#')) continue;
    // With dashes (`--data-raw=x`) only a blank ends the name, as in curl: `=` and `:` separate after a bare name.
    const m = (line.startsWith('-') ? /^(\S+)/ : /^([^\s=:]+)/).exec(line);
    if (!m) continue;
    let name = m[1]!;
    let rest = line.slice(name.length);
    const dashed = name.startsWith('-');
    if (!dashed) name = '--' + name;
    args.push(name);
    const takesValue = optionTakesValue(name);
    if (!takesValue) continue;
    rest = rest.replace(/^[ \t]*[=:]?[ \t]*/, '');
    if (rest.startsWith('"')) {
      let value = '';
      let k = 1;
      for (; k < rest.length && rest[k] !== '"'; k++) {
        if (rest[k] === '\\' && k + 1 < rest.length) {
          const n = rest[++k]!;
          value += ({ t: '\t', n: '\n', r: '\r', v: '\v' } as Record<string, string>)[n] ?? n;
        } else value += rest[k];
      }
      args.push(value);
    } else {
      args.push(rest.replace(/[ \t].*$/, ''));
    }
  }
  return args;
}

function optionTakesValue(word: string): boolean {
  if (word.startsWith('--')) {
    const m = matchLong(word.slice(2));
    return !('error' in m) && m.option.arg === 'value';
  }
  const o = optionByShort(word.slice(1, 2));
  return Boolean(o && o.arg === 'value' && word.length === 2);
}
