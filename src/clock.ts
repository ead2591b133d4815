/**
 * Milliseconds on a monotonic clock, for timings (`p`, --debug, progress, reports). Not
 * `performance.now()`: the first use of the `performance` global loads node:perf_hooks, ~2 ms of
 * start-up that every request would pay.
 */
/** The longest delay Node's timers hold (2^31-1 ms, 24.8 days): a longer one fires at once, so limits are capped to it. */
export const MAX_TIMER_MS = 2_147_483_647;

export function now(): number {
  const t = process.hrtime();
  return t[0] * 1e3 + t[1] / 1e6;
}
