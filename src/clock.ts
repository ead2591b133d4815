/**
 * Milliseconds on a monotonic clock, for timings (`p`, --debug, progress, reports). Not
 * `performance.now()`: the first use of the `performance` global loads node:perf_hooks, ~2 ms of
 * start-up that every request would pay.
 */
export function now(): number {
  const [s, ns] = process.hrtime();
  return s * 1e3 + ns / 1e6;
}
