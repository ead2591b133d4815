/**
 * What must happen before the process exits on Ctrl-C (a download prints how to resume it).
 * bin.ts runs these synchronously from its SIGINT handler and then exits 130. A hook that returns
 * true has said on stderr that the run was interrupted (bin.ts then does not say it again).
 */
const hooks = new Set<() => boolean | void>();

export function onInterrupt(hook: () => boolean | void): () => void {
  hooks.add(hook);
  return () => hooks.delete(hook);
}

/** Runs the hooks; true when one of them reported the interruption itself. */
export function runInterruptHooks(): boolean {
  let reported = false;
  for (const hook of hooks) {
    try {
      if (hook() === true) reported = true;
    } catch {
      // exiting anyway
    }
  }
  return reported;
}
