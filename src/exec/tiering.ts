/**
 * How V8 tiers up sling exec's code (set in src/entry/loader.ts, tuneV8, before any chunk loads;
 * lowered for long files by runExec). Constants only: the entry file bundles this module.
 *
 * A file of a thousand requests runs with an interrupt budget 30 times V8's default: its request
 * path stays in baseline code, as optimising it costs more compiler time (and ~500 more pages of
 * memory touched) than it saves in a run that short. A file of LONG_RUN requests or more gets
 * LONG_RUN_BUDGET (~4.4 times the default) once its file is parsed and the transport is loaded,
 * so that the request path is optimised after a few thousand requests. Measured (eighth session,
 * interleaved, nginx on 127.0.0.1): 10,000 requests 3,268 -> 2,769 ms with 300,000 from the start
 * (9 rounds, paired 0.78x), and 0.87x paired with it set after the parse as here; 300,000 from the
 * start for 1,000 requests: paired 0.95-0.99x in A/B runs, but ~500 more page faults and bench
 * ratios against curl of 1.27-1.29x where 2,000,000 had given 1.22-1.24x, so short files keep it.
 */
export const EXEC_BUDGET = 2_000_000;
export const LONG_RUN_BUDGET = 300_000;
export const LONG_RUN = 2_000;
export const EXEC_V8_FLAGS = `--interrupt-budget=${EXEC_BUDGET} --semi-space-growth-factor=1`;
