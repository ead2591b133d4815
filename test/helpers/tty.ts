// Runs the built CLI under a pseudo-terminal made by util-linux `script`, so that stdout.isTTY is true.
import { spawn, spawnSync } from 'node:child_process';
import { SLING_PATH, baseEnv } from './cli.js';

export const ttySkipReason = spawnSync('script', ['--version'], { stdio: 'ignore' }).status === 0 ? undefined : 'util-linux `script` not found: cannot make a pseudo-terminal';

/** A word quoted for sh. */
export const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

export interface TtyOptions {
  /** Leave NO_COLOR out of the environment (unless env sets it): colours as a terminal shows them. */
  colour?: boolean;
  /** Keep the terminal's \r\n line ends as they came. */
  keepCrLf?: boolean;
  /** The terminal's width (`stty cols`), else script's own. */
  columns?: number;
}

/** What a terminal showed (\r\n as \n unless keepCrLf), and the exit code. NO_COLOR unless env or `colour` says otherwise. */
export function runOnTty(args: string[], env: Record<string, string> = {}, opts: TtyOptions = {}): Promise<{ code: number | null; out: string }> {
  const cmd = `${opts.columns ? `stty cols ${opts.columns}; ` : ''}${[process.execPath, SLING_PATH, ...args].map(q).join(' ')}`;
  const fullEnv: Record<string, string> = { ...baseEnv(), TERM: 'xterm-256color', ...env };
  if (opts.colour && !('NO_COLOR' in env)) delete fullEnv.NO_COLOR;
  return new Promise((resolve) => {
    // -e: return the child's exit code; -q: no "Script started" banner.
    const child = spawn('script', ['-qec', cmd, '/dev/null'], { env: fullEnv, stdio: ['pipe', 'pipe', 'pipe'] });
    child.stdin.end();
    const chunks: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => chunks.push(c));
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      const out = Buffer.concat(chunks).toString('utf8');
      resolve({ code, out: opts.keepCrLf ? out : out.replace(/\r\n/g, '\n') });
    });
  });
}
