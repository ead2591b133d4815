// Runs the built CLI (dist/sling.js) as a child process and collects what it printed.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

// This file runs from build/test/helpers/cli.js; the repository root is three levels up.
const ROOT = new URL('../../../', import.meta.url);
export const SLING_PATH = fileURLToPath(new URL('dist/sling.js', ROOT));
export const REPO_ROOT = fileURLToPath(ROOT);
export const VERSION: string = JSON.parse(readFileSync(new URL('package.json', ROOT), 'utf8')).version;
/** sling's compile cache (src/entry/loader.ts) goes to a folder of this test process, not the user's. */
const CACHE_DIR = mkdtempSync(join(tmpdir(), 'sling-test-cache-'));

export interface RunOptions {
  /** Data piped into stdin. When undefined, stdin is /dev/null ('ignore'). */
  stdin?: string | Buffer;
  /** Extra environment variables, layered over the cleaned default environment. */
  env?: Record<string, string>;
  cwd?: string;
  /** Kill the child after this many milliseconds (default 60000: a watchdog for a run that hangs). */
  timeoutMs?: number;
  /** Another copy of dist/sling.js to run (another install). */
  script?: string;
  /** Called with the child's process id once it is started (sling's own: `$$`, temporary names). */
  onSpawn?: (pid: number) => void;
  /** Measure the child's peak resident memory (RunResult.peakBytes; Linux's /proc only). */
  measurePeak?: boolean;
}

export interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stdoutBytes: Buffer;
  stderr: string;
  /** True when the child was killed because it ran longer than timeoutMs. */
  timedOut: boolean;
  /** With measurePeak: the child's peak resident memory in bytes (VmHWM as it exited); undefined when it did not exit normally. */
  peakBytes?: number;
}

/** Whether measurePeak can work here. */
export const canMeasurePeak = existsSync('/proc/self/status');

let peakRuns = 0;

/**
 * A preload (`--require`, through NODE_OPTIONS) that writes the process's VmHWM, its peak resident
 * memory, to the file named by SLING_TEST_PEAK_FILE as it exits. sling passes no NODE_OPTIONS on to
 * its script process, so the number is sling's own.
 */
function peakPreload(): string {
  const path = join(CACHE_DIR, 'peak.cjs');
  if (!existsSync(path)) {
    writeFileSync(
      path,
      "process.on('exit', () => { const fs = require('fs'); const m = /VmHWM:\\s+(\\d+)/.exec(fs.readFileSync('/proc/self/status', 'utf8')); if (m) fs.writeFileSync(process.env.SLING_TEST_PEAK_FILE, m[1]); });\n",
    );
  }
  return path;
}

/** process.env without any *_proxy variables (and without FORCE_COLOR), plus NO_COLOR=1. */
export function baseEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v === undefined) continue;
    if (/_proxy$/i.test(k)) continue;
    if (k === 'FORCE_COLOR' || k === 'NODE_TEST_CONTEXT') continue;
    env[k] = v;
  }
  env.NO_COLOR = '1';
  env.SLING_CACHE_DIR = CACHE_DIR;
  return env;
}

export function runSling(args: string[], opts: RunOptions = {}): Promise<RunResult> {
  // A watchdog for a run that hangs, not a bound on speed: generous, so a busy machine cannot trip it.
  const timeoutMs = opts.timeoutMs ?? 60_000;
  const env = { ...baseEnv(), ...(opts.env ?? {}) };
  const peakFile = opts.measurePeak ? join(CACHE_DIR, `peak-${process.pid}-${++peakRuns}.txt`) : undefined;
  if (peakFile) {
    env.NODE_OPTIONS = `${env.NODE_OPTIONS ?? ''} --require ${peakPreload()}`.trim();
    env.SLING_TEST_PEAK_FILE = peakFile;
  }
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [opts.script ?? SLING_PATH, ...args], {
      cwd: opts.cwd,
      env,
      stdio: [opts.stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    if (child.pid !== undefined) opts.onSpawn?.(child.pid);
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.stdout!.on('data', (c: Buffer) => out.push(c));
    child.stderr!.on('data', (c: Buffer) => err.push(c));
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const stdoutBytes = Buffer.concat(out);
      resolve({
        code,
        signal,
        stdout: stdoutBytes.toString('utf8'),
        stdoutBytes,
        stderr: Buffer.concat(err).toString('utf8'),
        timedOut,
        peakBytes: peakFile && existsSync(peakFile) ? Number(readFileSync(peakFile, 'utf8')) * 1024 : undefined,
      });
    });
    if (opts.stdin !== undefined && child.stdin) {
      // The CLI may legitimately exit without reading stdin: ignore EPIPE and friends.
      child.stdin.on('error', () => {});
      child.stdin.end(opts.stdin);
    }
  });
}

/**
 * Runs sling with stdout on a pipe; `onOut` sees stdout so far at each piece (and the child, to
 * signal it). For output that must show while the run is still going (a stream, Ctrl-C).
 */
export function runWatching(
  args: string[],
  onOut: (soFar: string, child: ChildProcess) => void,
  opts: { cwd?: string; env?: Record<string, string> } = {},
): Promise<{ code: number | null; signal: NodeJS.Signals | null; out: string; err: string }> {
  const child = spawn(process.execPath, [SLING_PATH, ...args], { cwd: opts.cwd, env: { ...baseEnv(), ...opts.env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d: Buffer) => {
    out += d.toString('utf8');
    onOut(out, child);
  });
  child.stderr!.on('data', (d: Buffer) => (err += d.toString('utf8')));
  // A watchdog for a run that hangs, not a bound on speed.
  const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
  return new Promise((resolve) =>
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, out, err });
    }),
  );
}
