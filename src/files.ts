import { statSync } from 'node:fs';

/** An existing folder (false for a file, a missing path or one that cannot be read). */
export function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
