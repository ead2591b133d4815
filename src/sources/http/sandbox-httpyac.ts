/**
 * sling's side of httpyac's JavaScript (httpyac-js.ts asks, script.ts runs it; the realm's own
 * code, which runs inside the engine, is engine/httpyac.ts): the program that wraps one script or
 * expression, and `checked`, which reads its outcome back as data.
 */

/** The program that runs one script (`mode` 'script') or expression ('expr': its value is the export `$result`); the code starts on its line 3. */
export function httpyacProgram(code: string, mode: string): string {
  const body = mode === 'expr' ? `exports.$result = (${code}\n);` : code;
  // Sloppy code, as httpyac's: `with` gives the variables as globals of the code.
  return (
    `(() => { const __y = __yac; const [__e, __s] = __y.begin();\n` +
    `(async function (exports, __scope) { with (__scope) {\n${body}\n} }).call(undefined, __e, __s)` +
    `.then(async () => { for (const k of Object.keys(__e)) if (__y.isPromise(__e[k])) __e[k] = await __e[k]; __y.done(); }, (e) => __y.fail(e)); })();`
  );
}

export interface YacOutcome {
  logs: string[];
  tests: [string, string | null][];
  /** name → the value as JSON. */
  exports: Record<string, string>;
  /** $global as JSON. */
  global: string;
  error?: string;
  /** An `{{@streaming}}` block's waits and messages, in order. */
  timeline?: ({ wait: number } | { send: string })[];
}

/** An `{{@streaming}}` block's timeline as the engine said it, what is not of its shape left out. */
function timelineOf(list: unknown[]): ({ wait: number } | { send: string })[] {
  const out: ({ wait: number } | { send: string })[] = [];
  for (const step of list) {
    if (!step || typeof step !== 'object') continue;
    const s = step as { wait?: unknown; send?: unknown };
    if (typeof s.wait === 'number' && Number.isFinite(s.wait) && s.wait > 0) out.push({ wait: s.wait });
    else if (typeof s.send === 'string') out.push({ send: s.send });
  }
  return out;
}

export function checked(out: unknown): YacOutcome {
  const broken: YacOutcome = { logs: [], tests: [], exports: {}, global: '', error: 'the script broke the sandbox (its result is not readable)' };
  if (typeof out !== 'string') return broken;
  let r: Partial<Record<keyof YacOutcome, unknown>>;
  try {
    r = JSON.parse(out) as typeof r;
  } catch {
    return broken;
  }
  if (r === null || typeof r !== 'object' || !Array.isArray(r.tests) || !Array.isArray(r.logs) || typeof r.exports !== 'object' || r.exports === null) return broken;
  const exports: Record<string, string> = {};
  for (const [k, v] of Object.entries(r.exports as Record<string, unknown>)) if (typeof v === 'string') exports[k] = v;
  return {
    logs: r.logs.filter((l): l is string => typeof l === 'string'),
    tests: r.tests.filter((t): t is [string, string | null] => Array.isArray(t) && typeof t[0] === 'string' && (t[1] === null || typeof t[1] === 'string')),
    exports,
    global: typeof r.global === 'string' ? r.global : '',
    ...(typeof r.error === 'string' ? { error: r.error } : {}),
    ...(Array.isArray(r.timeline) ? { timeline: timelineOf(r.timeline) } : {}),
  };
}
