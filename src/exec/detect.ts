import { extname } from 'node:path';

/** DECISIONS.md: --type, else the extension, else the content (a first command starting with curl). */
export function detectType(file: string | undefined, text: string, given?: 'http' | 'curl'): 'http' | 'curl' {
  if (given) return given;
  const ext = file && file !== '-' ? extname(file).toLowerCase() : '';
  if (ext === '.http' || ext === '.rest') return 'http';
  if (ext === '.curl' || ext === '.sh') return 'curl';
  for (const raw of text.replace(/^\uFEFF/, '').split(/\r?\n/)) {
    const line = raw.trim();
    if (!line || line.startsWith('#') || line.startsWith('//')) continue;
    return /^(\$\s+)?curl(\.exe)?(\s|$)/.test(line) ? 'curl' : 'http';
  }
  return 'http';
}
