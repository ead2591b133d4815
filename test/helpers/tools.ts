// Programs of the system that some tests compare sling with (curl, HTTPie's `http`). Outside CI a
// missing one skips those tests, with the reason printed. Under CI=true it is a failure: CI installs
// both (.ci/run), and a comparison that skips silently there would let CI pass without comparing.
import { spawnSync } from 'node:child_process';

/** The programs whose comparisons must run under CI=true, with the Debian package that has them. */
export const COMPARED = { curl: 'curl', http: 'httpie' } as const;

/**
 * Why the comparison with the real `tool` cannot run here (a reason to skip), or undefined when
 * `tool --version` runs. Under CI=true (in `env`) a missing tool throws instead, so the test file
 * that asks fails with this line.
 */
export function comparisonToolMissing(tool: keyof typeof COMPARED, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const r = spawnSync(tool, ['--version'], { encoding: 'utf8', env });
  if (!r.error && r.status === 0) return undefined;
  const reason = `${tool} (Debian package ${COMPARED[tool]}) is not installed: the comparison with real ${tool === 'http' ? 'HTTPie' : tool} is skipped`;
  if (env.CI === 'true') throw new Error(`${tool} (Debian package ${COMPARED[tool]}) is not installed, and under CI=true the comparison with it must run, not skip: install it (.ci/run does)`);
  return reason;
}
