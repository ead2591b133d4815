/**
 * What must happen before the process exits on Ctrl-C (a download prints how to resume it).
 * bin.ts runs these synchronously from its SIGINT handler and then exits 130.
 */
const hooks = new Set<() => void>();

export function onInterrupt(hook: () => void): () => void {
  hooks.add(hook);
  return () => hooks.delete(hook);
}

export function runInterruptHooks() {
  for (const hook of hooks) {
    try {
      hook();
    } catch {
      // exiting anyway
    }
  }
}
