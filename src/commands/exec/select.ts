/**
 * --name and --line: which of a file's entries run, with the named entries they depend on before
 * them. Pure: no output, no sending; the order of dependencies is model/order.ts's.
 */
import { UsageError } from '../../errors.js';
import { dependencyOrder } from '../../model/order.js';
import type { ExecEntry } from '../../model/exec.js';

/** Lines in the text (a last line without its line break counts; an empty file has none). */
export function lineCount(text: string): number {
  let n = 0;
  for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) n++;
  return text === '' || text.endsWith('\n') ? n : n + 1;
}

/** --name / --line: the chosen entries and, before them, the named entries they depend on. */
export function select(entries: ExecEntry[], names: string[], lines: number[], lastLine: number): ExecEntry[] {
  if (!names.length && !lines.length) return entries;
  const chosen = new Set<ExecEntry>();
  for (const name of names) {
    // This file's own requests first; then one reached through `run` (it keeps its name).
    const e = entries.find((x) => x.name === name) ?? entries.find((x) => x.shownName === name);
    if (!e) {
      const known = [...new Set(entries.map((x) => x.name ?? x.shownName).filter((n) => n !== undefined))];
      throw new UsageError(`--name: no request is named '${name}'`, `names in this file: ${known.join(', ') || '(none)'}`);
    }
    chosen.add(e);
  }
  // Where an entry's block starts in the file being run: a `run` line's block for what it runs.
  const blockOf = (x: ExecEntry) => x.runStart ?? (x.file ? undefined : (x.start ?? x.line));
  for (const line of lines) {
    if (line > lastLine) throw new UsageError(`--line: the file has ${lastLine} line${lastLine === 1 ? '' : 's'}; there is no line ${line}`);
    // The request whose block holds the line (its `###`, scripts, headers, body, handlers), or
    // every request a `run` line there runs.
    let best: number | undefined;
    for (const x of entries) {
      const b = blockOf(x);
      if (b !== undefined && b <= line && (best === undefined || b > best)) best = b;
    }
    if (best === undefined) throw new UsageError(`--line: no request starts at or before line ${line}`);
    for (const x of entries) if (blockOf(x) === best) chosen.add(x);
  }
  const byName = new Map(entries.filter((e) => e.name).map((e) => [e.name!, e]));
  const need = new Set<ExecEntry>();
  const visit = (e: ExecEntry) => {
    if (need.has(e)) return;
    need.add(e);
    for (const dep of e.dependsOn ?? []) {
      const d = byName.get(dep);
      if (d) visit(d);
    }
  };
  for (const e of chosen) visit(e);
  return dependencyOrder(entries, need);
}
