/**
 * What must happen before the process exits on Ctrl-C (a download prints how to resume it).
 * bin.ts runs these synchronously from its SIGINT handler and then exits 130. A hook that returns
 * true has said on stderr that the run was interrupted (bin.ts then does not say it again); one
 * that returns a string gives bin.ts what was going on (`at api.http:12 (login)`).
 */
const hooks = new Set<() => boolean | string | void>();

export function onInterrupt(hook: () => boolean | string | void): () => void {
  hooks.add(hook);
  return () => hooks.delete(hook);
}

/** Runs the hooks; true when one of them reported the interruption itself, else what was going on, if a hook said. */
export function runInterruptHooks(): boolean | string | undefined {
  let reported = false;
  let detail: string | undefined;
  for (const hook of hooks) {
    try {
      const r = hook();
      if (r === true) reported = true;
      else if (typeof r === 'string') detail = r;
    } catch {
      // exiting anyway
    }
  }
  return reported || detail;
}
