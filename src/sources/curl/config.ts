import { matchLong, optionByShort } from './options.js';

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
