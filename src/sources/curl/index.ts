import { UsageError } from '../../errors.js';
import type { Script, SourceOptions } from '../../exec/types.js';

/** Placeholder until the curl front end lands: says so instead of guessing. */
export async function parseCurlFile(_text: string, opts: SourceOptions): Promise<Script> {
  throw new UsageError(`'${opts.file}': running curl files with sling exec is not available yet`);
}
