/**
 * What must happen before the process exits on Ctrl-C (a download prints how to resume it), and
 * (onExit, below) whenever it exits.
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

/**
 * What must happen however the process ends (its end, a failure, Ctrl-C, a closed stdout, an
 * uncaught error): the folder standard input was spooled to is removed (model/upload.ts). bin.ts
 * runs these from the process's 'exit' event, so they must be synchronous.
 */
const exitHooks = new Set<() => void>();

export function onExit(hook: () => void): () => void {
  exitHooks.add(hook);
  return () => exitHooks.delete(hook);
}

export function runExitHooks(): void {
  for (const hook of exitHooks) {
    try {
      hook();
    } catch {
      // exiting anyway
    }
  }
}
