import { CliError } from '../../errors.js';
import { curlCommand } from '../../output/to-curl.js';
import { httpRequest } from '../../sources/http/to-http.js';
import type { RequestSpec } from '../../model/spec.js';
import { wouldSend } from '../deliver.js';
import type { ExecContext, ExecEntry } from '../../model/exec.js';

/**
 * `sling exec --to curl|http FILE`: builds every request of the file as --offline would (nothing is
 * sent, variables resolved) and writes it in the other format: a bash file of curl commands, or a
 * .http file. Requests that need an earlier response (.http references) are built from what is known.
 */
export async function convertEntries(
  entries: ExecEntry[],
  to: 'curl' | 'http',
  ctx: ExecContext,
  write: (text: string) => Promise<void> | void,
  apply: (s: RequestSpec) => RequestSpec,
  failed: (e: CliError, entry: ExecEntry) => void,
): Promise<void> {
  const offline: ExecContext = { ...ctx, offline: true };
  let first = true;
  if (to === 'curl') await write('#!/usr/bin/env bash\n');
  for (const entry of entries) {
    let built: Awaited<ReturnType<ExecEntry['build']>>;
    try {
      built = await entry.build(offline);
    } catch (e) {
      // One request that cannot be built (a `run` of a missing file): said, and the rest converted, as exec goes on.
      if (!(e instanceof CliError)) throw e;
      failed(e, entry);
      continue;
    }
    if (built === null) continue;
    for (const raw of Array.isArray(built) ? built : [built]) {
      const spec = apply(raw);
      const prepared = await wouldSend(spec);
      const name = entry.name ?? entry.shownName;
      const where = `${name ? name + ': ' : ''}${entry.label} (${entry.file ? entry.file + ' ' : ''}line ${entry.line})`;
      if (to === 'curl') {
        await write(`\n# ${where.replace(/\n/g, ' ')}\n${curlCommand(spec, prepared)}\n`);
      } else {
        const { text, problems } = httpRequest(spec, prepared, where.replace(/\n/g, ' '));
        for (const p of problems) ctx.warn(`${where}: ${p}`);
        await write((first ? '' : '\n') + text);
      }
      first = false;
    }
  }
}
