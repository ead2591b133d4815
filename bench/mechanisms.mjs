#!/usr/bin/env node
// Do sling's speed mechanisms still pay? (not a test) Each one is timed against the same build with
// it turned off by its environment switch, on every Node given, in interleaved rounds (the order of
// the commands rotates every round, so a slow spell of the machine is shared by all of them):
//
//   loader   the chunk loader and its V8 code cache (src/entry/loader.ts): start-up of
//            `sling --offline POST example.org a=1` (stdout /dev/null) as built, with
//            SLING_NO_COMPILE_CACHE=1 (own loader, no cache), with SLING_NO_CHUNK_LOADER=1 (Node's
//            require, with Node's module.enableCompileCache where that Node has it) and with both;
//            `node -e 0` as the floor. The caches go to a private SLING_CACHE_DIR, filled by the
//            untimed check run and the warm-ups before anything is measured.
//   poll     polling for answers (src/transport/poll.ts): `sling exec` of --requests named POST
//            requests (the file and loopback server of bench/exec-http.mjs) as built and with
//            SLING_NO_POLL=1.
//
//   node bench/mechanisms.mjs [--node PATH]... [--runs N] [--startup-runs N] [--exec-runs N]
//                             [--requests N] [--only loader,poll] [--json]
//
// --node PATH        a Node binary to run sling on; repeat for several (default: the paths of
//                    $SLING_BENCH_NODES separated by ':', else $SLING_BENCH_NODE, else this Node)
// --runs N           measured rounds for both groups (defaults: 20 for start-up, 7 for exec)
// --startup-runs N   measured rounds of the start-up commands (after 3 warm-up rounds)
// --exec-runs N      measured rounds of the exec commands (after 1 warm-up round)
// --requests N       requests in the exec file (default 1000)
// --only LIST        the mechanisms to measure, separated by commas (default: all three)
// --json             the results as JSON instead of tables
//
// The gain of a mechanism is (off - on) / off: the share of the time without it that it saves, from
// the medians; "paired" is the median of the same share computed round by round (both commands
// timed within a second or so of each other), which moves less when the machine is busy. A
// mechanism keeps its place when it gains at least 5 % on some Node measured. Every command runs
// without NODE_EXTRA_CA_CERTS, proxy variables, NODE_COMPILE_CACHE and any SLING_NO_* switch of the
// caller's own. Nothing leaves 127.0.0.1 (`--offline` sends nothing; exec talks to the loopback server).
import { spawnSync } from 'node:child_process';
import { closeSync, constants, existsSync, mkdtempSync, openSync, readFileSync, readSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join, relative } from 'node:path';
import { SLING, cleanEnv, describeNode, execFiles, median, startExecServer, fail, splitEquals, takeNodeArgs, which } from './common.mjs';

const THRESHOLD_PCT = 5;
const STARTUP_WARMUPS = 3;
const EXEC_WARMUPS = 1;
const MECHANISMS = ['loader', 'poll'];
const ALIASES = { 'chunk-loader': 'loader', polling: 'poll' };
const OFFLINE = ['--offline', 'POST', 'example.org', 'a=1'];
const USAGE = 'usage: node bench/mechanisms.mjs [--node PATH]... [--runs N] [--startup-runs N] [--exec-runs N] [--requests N] [--only loader,poll] [--json]';

function parseArgs(argv) {
  const args = splitEquals(argv);
  if (args.includes('--help') || args.includes('-h')) {
    console.log(`${USAGE}\nTimes each speed mechanism of sling against the same build with it switched off. See bench/README.md.`);
    process.exit(0);
  }
  let nodes = takeNodeArgs(args, fail);
  if (!nodes.length) {
    const fromEnv = (process.env.SLING_BENCH_NODES || '').split(delimiter).filter(Boolean);
    nodes = takeNodeArgs(
      (fromEnv.length ? fromEnv : [process.env.SLING_BENCH_NODE || process.execPath]).flatMap((p) => ['--node', p]),
      fail,
    );
  }
  const opts = { nodes: nodes.map((p) => describeNode(p, fail)), startupRuns: 20, execRuns: 7, requests: 1000, only: [...MECHANISMS], json: false };
  const count = (flag, v) => {
    if (!/^\d+$/.test(v ?? '') || Number(v) < 1) fail(`${flag} needs a whole number of at least 1, got '${v ?? ''}'`);
    return Number(v);
  };
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === '--json') opts.json = true;
    else if (a === '--runs') opts.startupRuns = opts.execRuns = count(a, args[++i]);
    else if (a === '--startup-runs') opts.startupRuns = count(a, args[++i]);
    else if (a === '--exec-runs') opts.execRuns = count(a, args[++i]);
    else if (a === '--requests') opts.requests = count(a, args[++i]);
    else if (a === '--only') {
      const v = args[++i];
      if (!v) fail(`--only needs a list: ${MECHANISMS.join(',')}`);
      opts.only = [];
      for (const name of v
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean)) {
        const id = ALIASES[name] ?? name;
        if (!MECHANISMS.includes(id)) fail(`--only: no mechanism '${name}' (known: ${MECHANISMS.join(', ')})`);
        if (!opts.only.includes(id)) opts.only.push(id);
      }
      if (!opts.only.length) fail('--only names no mechanism');
    } else fail(`unknown argument '${a}'\n${USAGE}`);
  }
  return opts;
}

// ------------------------------------------------------------------------------ running --

/** The environment of every measured command: the caller's, cleaned, with a private cache folder. */
function baseEnv(cacheDir) {
  const env = cleanEnv({ dropProxies: true });
  for (const k of Object.keys(env)) if (k.startsWith('SLING_NO_') || k === 'NODE_COMPILE_CACHE' || k === 'NODE_DISABLE_COMPILE_CACHE') delete env[k];
  env.SLING_CACHE_DIR = cacheDir;
  return env;
}

/**
 * Where a command's stdout goes: 'null' (/dev/null), 'file' (a regular file, truncated for each
 * run), 'pipe' (the write end of a FIFO that this process reads and empties after each run).
 */
class Outputs {
  constructor(work) {
    this.file = join(work, 'out.txt');
    this.fifo = join(work, 'out.fifo');
    this.pipeWhy = '';
    this.readFd = -1;
    const mk = spawnSync('mkfifo', [this.fifo], { encoding: 'utf8' });
    if (mk.status !== 0) this.pipeWhy = `mkfifo failed: ${(mk.stderr || mk.error?.message || '').trim()}`;
    else this.readFd = openSync(this.fifo, constants.O_RDONLY | constants.O_NONBLOCK);
  }

  /** The descriptor (or 'ignore') for one run, and what to do after it: returns what was written. */
  open(kind) {
    if (kind === 'null') return { stdout: 'ignore', done: () => null };
    if (kind === 'file') {
      const fd = openSync(this.file, 'w');
      return {
        stdout: fd,
        done: () => {
          closeSync(fd);
          return readFileSync(this.file, 'utf8');
        },
      };
    }
    // A reader is open (this.readFd), so opening the write end does not wait.
    const fd = openSync(this.fifo, constants.O_WRONLY);
    return {
      stdout: fd,
      done: () => {
        closeSync(fd);
        return this.drain();
      },
    };
  }

  drain() {
    const chunks = [];
    const buf = Buffer.allocUnsafe(65536);
    for (;;) {
      let n;
      try {
        n = readSync(this.readFd, buf, 0, buf.length, null);
      } catch (e) {
        if (e.code === 'EAGAIN') break;
        throw e;
      }
      if (n === 0) break;
      chunks.push(Buffer.from(buf.subarray(0, n)));
    }
    return Buffer.concat(chunks).toString('utf8');
  }

  close() {
    if (this.readFd >= 0) closeSync(this.readFd);
  }
}

/** One run of a command, timed from spawn to exit: { ms, out } or { error }. */
function runOnce(cmd, outputs, { capture = false } = {}) {
  const o = capture && cmd.stdout === 'null' ? { stdout: 'pipe', done: null } : outputs.open(cmd.stdout);
  const start = process.hrtime.bigint();
  const r = spawnSync(cmd.file, cmd.args, { cwd: cmd.cwd, env: cmd.env, stdio: ['ignore', o.stdout, capture ? 'pipe' : 'ignore'], timeout: cmd.timeoutMs, encoding: 'utf8', maxBuffer: 1 << 28 });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  const out = o.done ? o.done() : r.stdout;
  if (r.error) return { error: r.error.code === 'ETIMEDOUT' ? `took longer than ${cmd.timeoutMs / 1000} s` : r.error.message };
  if (r.status !== 0) return { error: `${r.signal ? `killed by ${r.signal}` : `exited with status ${r.status}`}${r.stderr ? `: ${r.stderr.trim().split('\n')[0]}` : ''}` };
  return { ms, out };
}

/** Interleaved rounds of `cmds` (skipped ones left out), the order rotating each round. */
function measure(cmds, outputs, warmups, runs, progress) {
  let active = cmds.filter((c) => !c.skip);
  for (const c of active) c.times = [];
  const rounds = warmups + runs;
  for (let round = 0; round < rounds; round++) {
    progress(round, rounds);
    for (let k = 0; k < active.length; k++) {
      const c = active[(round + k) % active.length];
      if (c.skip) continue;
      const r = runOnce(c, outputs);
      if (r.error) c.skip = `${r.error} (${round < warmups ? 'warm-up' : 'measured'} round ${round + 1})`;
      else if (round >= warmups) c.times.push(r.ms);
      // The rounds of a command that failed no longer line up with the others': no pairs.
    }
    active = active.filter((c) => !c.skip);
  }
  for (const c of cmds) if (!c.skip) c.median = median(c.times);
}

function countFiles(dir) {
  let n = 0;
  try {
    for (const name of readdirSync(dir)) {
      const p = join(dir, name);
      if (statSync(p).isDirectory()) n += countFiles(p);
      else n++;
    }
  } catch {}
  return n;
}

/** Files in this run's cache: sling's own (`v8/<hash>-...`) and Node's (`v8/node-<hash>-...`). */
function cacheCounts(cacheDir) {
  const root = join(cacheDir, 'v8');
  const counts = { sling_entries: 0, node_entries: 0 };
  try {
    for (const name of readdirSync(root)) counts[name.startsWith('node-') ? 'node_entries' : 'sling_entries'] += countFiles(join(root, name));
  } catch {}
  return counts;
}

function nodeFacts(node) {
  const r = spawnSync(node.path, ['-p', "[require('node:os').availableParallelism(), typeof require('node:module').enableCompileCache === 'function'].join(' ')"], {
    encoding: 'utf8',
    env: cleanEnv(),
  });
  const [cpus, cache] = (r.stdout || '').trim().split(' ');
  return { cpus: Number(cpus) || null, nodeCompileCache: cache === 'true' };
}

// ------------------------------------------------------------------------ per Node --

function measureNode(node, opts, server, progressLine) {
  const work = mkdtempSync(join(tmpdir(), 'sling-bench-mech-'));
  const cacheDir = join(work, 'cache');
  const outputs = new Outputs(work);
  const facts = nodeFacts(node);
  const env = baseEnv(cacheDir);
  const withEnv = (extra) => ({ ...env, ...extra });
  const sling = (id, label, extra, stdout, args = OFFLINE) => ({ id, label, file: node.path, args: [SLING, ...args], env: withEnv(extra), stdout, timeoutMs: 60_000, switches: extra });
  const result = { node: node.version, node_path: node.path, cpus: facts.cpus, node_compile_cache: facts.nodeCompileCache, commands: [], rows: [], notes: [] };
  try {
    // ------------------------------------------------------------ start-up commands --
    const startup = [];
    if (opts.only.includes('loader')) {
      startup.push({ id: 'floor', label: 'node -e 0', file: node.path, args: ['-e', '0'], env, stdout: 'null', timeoutMs: 60_000, switches: {} });
      startup.push(sling('default', 'sling, as built', {}, 'null'));
    }
    if (opts.only.includes('loader')) {
      startup.push(sling('no-cache', 'sling, SLING_NO_COMPILE_CACHE=1', { SLING_NO_COMPILE_CACHE: '1' }, 'null'));
      startup.push(sling('no-loader', 'sling, SLING_NO_CHUNK_LOADER=1', { SLING_NO_CHUNK_LOADER: '1' }, 'null'));
      startup.push(sling('neither', 'sling, both switches', { SLING_NO_COMPILE_CACHE: '1', SLING_NO_CHUNK_LOADER: '1' }, 'null'));
    }
    if (startup.length) {
      // An untimed run of each, in order: it must succeed and print what the build prints (this
      // also writes the caches, the default's first).
      let expected;
      for (const c of startup) {
        const r = runOnce(c, outputs, { capture: true });
        if (r.error) c.skip = `check run: ${r.error}`;
        else if (c.id !== 'floor') {
          expected ??= r.out;
          if (!/^POST \/ HTTP\/1\.1\n/.test(r.out) || r.out !== expected) c.skip = `check run: printed something else than the build as built (${JSON.stringify(r.out.slice(0, 60))}...)`;
        }
      }
      measure(startup, outputs, STARTUP_WARMUPS, opts.startupRuns, (round, rounds) => progressLine(`start-up round ${round + 1}/${rounds}`));
      result.caches = cacheCounts(cacheDir);
      if (!result.caches.sling_entries && opts.only.includes('loader')) result.notes.push(`sling's code cache in ${cacheDir} stayed empty: the cached runs ran uncached`);
      if (facts.nodeCompileCache && !result.caches.node_entries && opts.only.includes('loader')) result.notes.push("Node's compile cache stayed empty: SLING_NO_CHUNK_LOADER=1 ran uncached");
    }

    // ----------------------------------------------------------------- exec commands --
    const exec = [];
    if (opts.only.includes('poll')) {
      const file = execFiles(work, server.port, opts.requests).http;
      const execCmd = (id, label, extra) => ({ ...sling(id, label, extra, 'null', ['exec', file]), cwd: work, timeoutMs: 600_000 });
      exec.push(execCmd('poll-on', `sling exec (${opts.requests}), as built`, {}));
      exec.push(execCmd('poll-off', `sling exec (${opts.requests}), SLING_NO_POLL=1`, { SLING_NO_POLL: '1' }));
      if (facts.cpus != null && facts.cpus < 2) result.notes.push(`this Node sees ${facts.cpus} CPU: sling does not poll with one, so both exec commands sleep`);
      for (const c of exec) {
        const r = runOnce(c, outputs, { capture: true });
        const answers = r.error ? 0 : (r.out.match(/^HTTP\/1\.1 200 OK$/gm) ?? []).length;
        if (r.error) c.skip = `check run: ${r.error}`;
        else if (answers !== opts.requests) c.skip = `check run: ${answers} answers to ${opts.requests} requests`;
      }
      measure(exec, outputs, EXEC_WARMUPS, opts.execRuns, (round, rounds) => progressLine(`exec round ${round + 1}/${rounds}`));
    }

    // --------------------------------------------------------------------- results --
    const all = [...startup, ...exec];
    const byId = Object.fromEntries(all.map((c) => [c.id, c]));
    const floor = byId.floor && !byId.floor.skip ? byId.floor.median : null;
    result.floor_ms = floor;
    result.commands = all.map((c) => ({
      id: c.id,
      command: `${c.label}${c.stdout === 'null' ? '' : ` (stdout: ${c.stdout === 'file' ? 'a file' : 'a FIFO'})`}`,
      switches: c.switches,
      median_ms: c.skip ? null : c.median,
      runs_ms: c.skip ? null : c.times,
      skipped: c.skip ?? undefined,
    }));
    // [id, group, what is compared, on, off, a start-up command]
    const pairs = [
      ['code-cache', 'loader', 'code cache (vs SLING_NO_COMPILE_CACHE=1)', 'default', 'no-cache', true],
      ['chunk-loader', 'loader', 'chunk loader + cache (vs SLING_NO_CHUNK_LOADER=1)', 'default', 'no-loader', true],
      ['chunk-loader-uncached', 'loader', 'chunk loader, uncached (NO_COMPILE_CACHE vs both)', 'no-cache', 'neither', true],
      ['loader-and-cache', 'loader', 'chunk loader + cache (vs both switches)', 'default', 'neither', true],
      ['poll', 'poll', `polling, exec of ${opts.requests} (vs SLING_NO_POLL=1)`, 'poll-on', 'poll-off', false],
    ];
    for (const [id, group, mechanism, onId, offId, isStartup] of pairs) {
      if (!opts.only.includes(group)) continue;
      const on = byId[onId];
      const off = byId[offId];
      const row = { id, group, mechanism, on: onId, off: offId, on_ms: null, off_ms: null, gain_pct: null, paired_gain_pct: null };
      if (!on || !off) row.skipped = `${on ? offId : onId} not measured`;
      else if (on.skip || off.skip) row.skipped = `${on.skip ? `${onId}: ${on.skip}` : `${offId}: ${off.skip}`}`;
      else {
        row.on_ms = on.median;
        row.off_ms = off.median;
        row.gain_pct = ((off.median - on.median) / off.median) * 100;
        row.paired_gain_pct = median(on.times.map((t, i) => ((off.times[i] - t) / off.times[i]) * 100));
        // How much of sling's own start-up (above `node -e 0`) the mechanism saves.
        if (isStartup && floor != null && off.median > floor) row.gain_over_floor_pct = ((off.median - on.median) / (off.median - floor)) * 100;
      }
      result.rows.push(row);
    }
  } finally {
    outputs.close();
    rmSync(work, { recursive: true, force: true });
  }
  return result;
}

// ------------------------------------------------------------------------- report --

function verdicts(results) {
  const out = [];
  const ids = [...new Set(results.flatMap((r) => r.rows.map((row) => row.id)))];
  for (const id of ids) {
    const rows = results.map((r) => ({ node: r.node, row: r.rows.find((x) => x.id === id) })).filter((x) => x.row);
    const measured = rows.filter((x) => x.row.gain_pct != null);
    const best = measured.length ? Math.max(...measured.map((x) => x.row.gain_pct)) : null;
    out.push({
      id,
      mechanism: rows[0].row.mechanism,
      gains_pct: Object.fromEntries(rows.map((x) => [x.node, x.row.gain_pct])),
      nodes_measured: measured.length,
      keeps_place: best == null ? null : best >= THRESHOLD_PCT,
      verdict: best == null ? 'not measured' : best >= THRESHOLD_PCT ? `keeps its place (>= ${THRESHOLD_PCT} % on some Node)` : `under ${THRESHOLD_PCT} % on every Node measured`,
    });
  }
  return out;
}

const fmt = (x, digits = 1) => {
  if (x == null) return '-';
  const s = x.toFixed(digits);
  return /^-0\.?0*$/.test(s) ? s.slice(1) : s; // no "-0.0"
};

function printNode(r, opts) {
  console.log(`Node ${r.node} (${r.node_path}): ${r.cpus ?? '?'} CPUs seen; Node's own compile cache: ${r.node_compile_cache ? 'yes' : 'no'}`);
  const startupGroups = opts.only.some((g) => g !== 'poll');
  if (startupGroups)
    console.log(
      `  start-up: ${opts.startupRuns} rounds after ${STARTUP_WARMUPS} warm-ups; floor (node -e 0) ${fmt(r.floor_ms)} ms${r.caches ? `; cache files: sling ${r.caches.sling_entries}, Node ${r.caches.node_entries}` : ''}`,
    );
  if (opts.only.includes('poll')) console.log(`  exec: ${opts.execRuns} rounds after ${EXEC_WARMUPS} warm-up, ${opts.requests} requests`);
  if (opts.only.includes('loader')) {
    console.log(
      `  SLING_NO_CHUNK_LOADER=1 is Node's require ${r.node_compile_cache ? "with Node's compile cache (module.enableCompileCache)" : 'without a cache (this Node has no module.enableCompileCache)'}; "both" sets SLING_NO_COMPILE_CACHE=1 too: Node's require, no cache`,
    );
  }
  const rows = [['mechanism', 'on (ms)', 'off (ms)', 'gain %', 'paired %']];
  for (const row of r.rows) rows.push([row.mechanism, fmt(row.on_ms), fmt(row.off_ms), fmt(row.gain_pct), fmt(row.paired_gain_pct)]);
  const w = rows[0].map((_, i) => Math.max(...rows.map((x) => x[i].length)));
  const line = (x) => '  ' + x.map((cell, i) => (i === 0 ? cell.padEnd(w[i]) : cell.padStart(w[i]))).join('   ');
  console.log();
  console.log(line(rows[0]));
  console.log('  ' + w.map((n) => '-'.repeat(n)).join('   '));
  for (const x of rows.slice(1)) console.log(line(x));
  for (const row of r.rows) if (row.skipped) console.log(`  not measured: ${row.mechanism}: ${row.skipped}`);
  for (const note of r.notes) console.log(`  note: ${note}`);
  console.log();
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  if (!existsSync(SLING)) fail(`${relative(process.cwd(), SLING)} does not exist: build it with \`npm run build\` (\`npm run bench:mechanisms\` builds first)`);
  const progress = (text) => {
    if (!opts.json && process.stderr.isTTY) process.stderr.write(`\r\x1b[K${text}`);
  };
  let server;
  let serverWork;
  if (opts.only.includes('poll')) {
    if (!which('nginx')) console.error('bench: nginx is not installed: the exec rounds use a node:http server (then the server may be the limit)');
    serverWork = mkdtempSync(join(tmpdir(), 'sling-bench-mech-server-'));
    server = await startExecServer(serverWork);
  }
  const results = [];
  try {
    for (const node of opts.nodes) {
      if (!opts.json) process.stderr.write(`bench: measuring on Node ${node.version} (${node.path})...\n`);
      const r = measureNode(node, opts, server, (text) => progress(`  Node ${node.version}: ${text}`));
      progress('');
      results.push(r);
      if (!opts.json) printNode(r, opts);
    }
  } finally {
    server?.stop();
    if (serverWork) rmSync(serverWork, { recursive: true, force: true });
  }
  const v = verdicts(results);
  const failed = results.some((r) => r.rows.some((row) => row.skipped));
  if (opts.json) {
    console.log(
      JSON.stringify(
        {
          runs: { startup: opts.startupRuns, startup_warmups: STARTUP_WARMUPS, exec: opts.execRuns, exec_warmups: EXEC_WARMUPS },
          requests: opts.only.includes('poll') ? opts.requests : undefined,
          server: server?.kind,
          threshold_pct: THRESHOLD_PCT,
          gain: '(off - on) / off of the medians, in percent; paired: the median of that share per round',
          node_extra_ca_certs_removed: Boolean(process.env.NODE_EXTRA_CA_CERTS),
          nodes: results,
          verdicts: v,
        },
        null,
        2,
      ),
    );
  } else {
    console.log(`Verdicts (a mechanism keeps its place when it gains >= ${THRESHOLD_PCT} % on some Node; gain = (off - on) / off of the medians):`);
    for (const x of v) {
      const gains = Object.entries(x.gains_pct)
        .map(([n, g]) => `${fmt(g)} % on ${n}`)
        .join(', ');
      console.log(`  ${x.mechanism}: ${x.verdict}${gains ? ` [${gains}]` : ''}`);
    }
    if (process.env.NODE_EXTRA_CA_CERTS) console.log('note: NODE_EXTRA_CA_CERTS is set here; it was removed for the measured commands (Node reads it at every start)');
    if (server) console.log(`exec server: ${server.kind} on 127.0.0.1:${server.port}`);
  }
  if (failed) process.exitCode = 1;
}

await main();
