import { extname } from 'node:path';

/** A shell assignment or set-up command: no .http file starts so (its variables are `@name = value`). */
const SHELL_SETUP = /^((export|readonly|local)\s+)?[A-Za-z_]\w*=|^(export|readonly)\s+[A-Za-z_]\w*\s*$|^(set|cd|shopt|source|unset|trap)(\s|$)|^\.\s/;

/** docs/decisions.md, sling exec: --type, else the extension, else the content (a first command starting with curl). */
export function detectType(file: string | undefined, text: string, given?: 'http' | 'curl'): 'http' | 'curl' {
  if (given) return given;
  const ext = file && file !== '-' ? extname(file).toLowerCase() : '';
  if (ext === '.http' || ext === '.rest') return 'http';
  if (ext === '.curl' || ext === '.sh') return 'curl';
  for (const raw of text.replace(/^\uFEFF/, '').split(/\r?\n/)) {
    const line = raw.trim();
    if (!line || line.startsWith('#') || line.startsWith('//')) continue;
    // Shell lines before the first command (`export TOKEN=...`, `A=1`, `set -e`, `cd api`): a curl file's.
    if (SHELL_SETUP.test(line) || /^(echo|printf|cat)\s.*\|\s*((sudo|time|command|nohup)\s+)*(\S*\/)?curl(\s|$)/.test(line)) return 'curl';
    return /^(\$\s+)?((sudo|time|command|exec|nohup|env)(\s+-\S+(\s+[^-\s]\S*)?)*(\s+[A-Za-z_]\w*=\S*)*\s+)*(\S*[/\\])?curl(\.exe)?(\s|$)/.test(line) ? 'curl' : 'http';
  }
  return 'http';
}
