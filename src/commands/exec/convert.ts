import { CliError, UsageError } from '../../errors.js';
import { curlCommand, ShellQuoteError } from '../../output/to-curl.js';
import type { Shell } from '../../output/shells.js';
import { httpRequest } from '../../sources/http/to-http.js';
import type { RequestSpec } from '../../model/spec.js';
import { wouldSend } from '../deliver.js';
import { neutralise } from '../../sanitize.js';
import type { ExecContext, ExecEntry } from '../../model/exec.js';
import { USER_AGENT } from '../../version.js';

/**
 * `sling exec --to curl|http FILE`: builds every request of the file as --offline would (nothing is
 * sent, variables resolved) and writes it in the other format: a bash file of curl commands, or a
 * .http file. Requests that need an earlier response (.http references) are built from what is known.
 * Control characters: the curl form writes C0, C1 and bidirectional controls in bash's own $'\xHH'
 * (to-curl.ts), so the script sends the same bytes and holds none of them raw; the comment above
 * each request shows them as visible escapes (sanitize.ts); a .http file has no escapes of its own,
 * so its text keeps them when piped (the same request) and shows them escaped on a terminal (the
 * caller's `write`), as --offline and the printer do.
 * sling's own User-Agent, which every front end adds to a request that has none, is not written
 * into a .http file: the source did not have it, and a .http runner adds its own. What a .http file
 * cannot hold is warned about once per kind of problem, with the number of requests it concerns.
 */
/** The most lines a warning that concerns many requests names. */
const MAX_LINES = 10;

export async function convertEntries(
  entries: ExecEntry[],
  to: 'curl' | 'http',
  shell: Shell,
  ctx: ExecContext,
  write: (text: string) => Promise<void> | void,
  apply: (s: RequestSpec) => RequestSpec,
  failed: (e: CliError, entry: ExecEntry) => void,
): Promise<void> {
  const offline: ExecContext = { ...ctx, offline: true };
  // Each problem once, with the requests it concerns, in the order first met.
  const problems = new Map<string, { where: string; line: string }[]>();
  let first = true;
  // A bash script starts with its interpreter; a PowerShell file with a comment; a cmd.exe batch with @echo off (REM comments).
  const comment = shell === 'cmd' ? 'REM ' : '# ';
  if (to === 'curl') await write(shell === 'posix' ? '#!/usr/bin/env bash\n' : shell === 'cmd' ? '@echo off\n' : '# PowerShell 7.3 or later (curl.exe gets each word as it is)\n');
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
      const prepared = await wouldSend(spec, entry.cookieJar?.(spec));
      const name = entry.name ?? entry.shownName;
      const where = `${name ? name + ': ' : ''}${entry.label} (${entry.file ? entry.file + ' ' : ''}line ${entry.line})`;
      // The comment naming the request: one line, its control characters visible however it is read later.
      const title = neutralise(where.replace(/\r?\n/g, ' '));
      if (to === 'curl' && spec.stream && spec.stream.kind !== 'sse') {
        // curl sends no WebSocket message from its command line, and has no gRPC.
        const why = spec.stream.kind === 'grpc' ? 'curl has no gRPC (grpcurl is the tool for it)' : 'curl cannot send WebSocket messages from its command line';
        failed(new UsageError(`${why}: the request is left out`), entry);
        await write(`\n${comment}${shell === 'cmd' ? title.replace(/[%&|<>^]/g, ' ') : title}\n${comment}left out: ${why}\n`);
        continue;
      }
      if (to === 'curl') {
        let command: string;
        try {
          command = curlCommand(spec, prepared, shell);
        } catch (e) {
          if (!(e instanceof ShellQuoteError)) throw e;
          failed(new UsageError(`--shell ${shell}: ${e.message}; the request is left out (--shell posix writes it)`), entry);
          continue;
        }
        // cmd.exe acts on % & | < > in a REM line's text too: they are left out of it.
        await write(`\n${comment}${shell === 'cmd' ? title.replace(/[%&|<>^]/g, ' ') : title}\n${command}\n`);
      } else {
        const own = { ...prepared, headers: prepared.headers.filter(([n, v]) => !(n.toLowerCase() === 'user-agent' && v === USER_AGENT)) };
        const { text, problems: found } = httpRequest(spec, own, title);
        const at = { where, line: `${entry.file ? entry.file + ' ' : ''}${entry.line}` };
        for (const p of found) problems.set(p, [...(problems.get(p) ?? []), at]);
        await write((first ? '' : '\n') + text);
      }
      first = false;
    }
  }
  for (const [problem, at] of problems) {
    if (at.length === 1) ctx.warn(`${at[0]!.where}: ${problem}`);
    else {
      const lines = at.slice(0, MAX_LINES).map((a) => a.line);
      ctx.warn(`${at.length} requests (lines ${lines.join(', ')}${at.length > MAX_LINES ? `, and ${at.length - MAX_LINES} more` : ''}): ${problem}`);
    }
  }
}
