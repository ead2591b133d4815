import { UsageError } from '../../errors.js';
import type { Script, SourceOptions } from '../../exec/types.js';

/** Placeholder until the http front end lands: says so instead of guessing. */
export async function parseHttpFile(_text: string, opts: SourceOptions): Promise<Script> {
  throw new UsageError(`'${opts.file}': running http files with sling exec is not available yet`);
}
