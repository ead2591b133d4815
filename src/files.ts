import { mkdirSync, statSync } from 'node:fs';
import { dirname } from 'node:path';

/** An existing folder (false for a file, a missing path or one that cannot be read). */
export function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/**
 * mkdir -p: makes the missing folders of `path`, one at a time, and returns the first one it made
 * (as mkdirSync's `recursive` does). Node 20's own recursive mkdir never returns where a parent
 * exists but refuses new entries with ENOENT (`/proc/x/y`); here that is the error it is.
 */
export function makeDirs(path: string, mode?: number): string | undefined {
  const missing: string[] = [];
  let p = path;
  for (;;) {
    try {
      if (statSync(p).isDirectory()) break;
      throw Object.assign(new Error(`ENOTDIR: not a directory, mkdir '${p}'`), { code: 'ENOTDIR', path: p });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    }
    const up = dirname(p);
    if (up === p) break;
    missing.push(p);
    p = up;
  }
  for (let i = missing.length - 1; i >= 0; i--) {
    try {
      mkdirSync(missing[i]!, mode === undefined ? undefined : { mode });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
  }
  return missing[missing.length - 1];
}
