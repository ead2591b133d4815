import type { ExecEntry } from './exec.js';

/**
 * The entries in file order, except that a request another one refers to (`{{login.response...}}`,
 * httpyac's `# @ref login`) and that comes later in the file runs first, once. `keep`: only these.
 * `onDemand`: entries that run only when one refers to them (the requests of imported files).
 */
export function dependencyOrder(entries: ExecEntry[], keep?: Set<ExecEntry>, onDemand: ExecEntry[] = []): ExecEntry[] {
  const byName = new Map<string, ExecEntry>();
  for (const e of entries) if (e.name !== undefined && !byName.has(e.name)) byName.set(e.name, e);
  // Requests of imported files: run only when an entry refers to them.
  for (const e of onDemand) if (e.name !== undefined && !byName.has(e.name)) byName.set(e.name, e);
  const out: ExecEntry[] = [];
  const seen = new Set<ExecEntry>();
  const visit = (e: ExecEntry) => {
    if (seen.has(e)) return;
    seen.add(e);
    const ranBefore = e.forceDependsOn ? new Set(out) : undefined;
    for (const dep of e.dependsOn ?? []) {
      const d = byName.get(dep);
      if (d && (!keep || keep.has(d))) visit(d);
    }
    // `# @forceRef login`: login again, right before this one, when it ran earlier already.
    for (const dep of e.forceDependsOn ?? []) {
      const d = byName.get(dep);
      if (d && d !== e && ranBefore!.has(d)) out.push(d);
    }
    if (!keep || keep.has(e)) out.push(e);
  };
  for (const e of entries) visit(e);
  return out;
}
