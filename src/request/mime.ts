import { readFileSync } from 'node:fs';
import { extname } from 'node:path';

/**
 * Content-Type from a file name, the way HTTPie guesses it (Python's mimetypes): the system's
 * /etc/mime.types where there is one, over a small built-in table for the common types.
 */
const BUILTIN: Record<string, string> = {
  '.json': 'application/json',
  '.txt': 'text/plain',
  '.html': 'text/html',
  '.htm': 'text/html',
  '.css': 'text/css',
  '.csv': 'text/csv',
  '.js': 'text/javascript',
  '.mjs': 'text/javascript',
  '.md': 'text/markdown',
  '.xml': 'text/xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.svg': 'image/svg+xml',
  '.webp': 'image/webp',
  '.ico': 'image/vnd.microsoft.icon',
  '.pdf': 'application/pdf',
  '.zip': 'application/zip',
  '.gz': 'application/gzip',
  '.tar': 'application/x-tar',
  '.bin': 'application/octet-stream',
  '.wasm': 'application/wasm',
  '.mp3': 'audio/mpeg',
  '.mp4': 'video/mp4',
};

let table: Map<string, string> | undefined;

function load(): Map<string, string> {
  const map = new Map(Object.entries(BUILTIN));
  try {
    for (const line of readFileSync('/etc/mime.types', 'latin1').split('\n')) {
      if (!line || line.startsWith('#')) continue;
      const [type, ...exts] = line.trim().split(/\s+/);
      for (const e of exts) map.set('.' + e, type!);
    }
  } catch {
    // No system table (Windows, minimal containers): the built-in one is enough.
  }
  return map;
}

export function guessMime(fileName: string): string | undefined {
  table ??= load();
  const ext = extname(fileName);
  if (!ext) return undefined;
  return table.get(ext) ?? table.get(ext.toLowerCase());
}
