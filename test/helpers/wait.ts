// Waiting for an event instead of for a time: a test that sleeps "long enough" fails on a slow or
// busy machine. When the test cannot be told of the event (bytes written to a file, a process in a
// state that only shows in its output), it looks for it every few milliseconds until it holds.
import { existsSync, readFileSync } from 'node:fs';

/**
 * Resolves once `check()` holds, looking every 10 ms. After `limitMs` (a safety net for a run that
 * hangs, generous on purpose: never a bound on speed) it rejects, naming `what` it waited for.
 */
export async function until(what: string, check: () => boolean, limitMs = 60_000): Promise<void> {
  const started = Date.now();
  while (!check()) {
    if (Date.now() - started > limitMs) throw new Error(`waited ${limitMs / 1000} s for ${what}, in vain`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** The text of `path`, or '' while it does not exist. */
export const textOf = (path: string): string => (existsSync(path) ? readFileSync(path, 'utf8') : '');
