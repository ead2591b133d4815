// A bound on the time of inputs that once took many seconds (work quadratic in their size or worse).
import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';

/** `f()`, failing when it takes more than `ms`: generous, for inputs that took 5 s or more before their fix. */
export function quickly<T>(what: string, f: () => T, ms = 1000): T {
  const t0 = performance.now();
  const value = f();
  const took = performance.now() - t0;
  assert.ok(took < ms, `${what}: ${Math.round(took)} ms, more than ${ms} ms`);
  return value;
}
