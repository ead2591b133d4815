#!/usr/bin/env node
// Start-up benchmark (not a test): wall time of short commands that do no network I/O, side by side in
// one run, with `node -e 0` as the floor every Node CLI pays. The target is sling within 1.3x of it on the same Node.
//
//   node bench/startup.mjs [--node PATH] [--runs N] [--json] [--strict]
//
// --node P   the Node binary that runs sling and `node -e 0` (default: $SLING_BENCH_NODE, else the
//            Node running this script); HTTPie, curl and httpyac are not Node-dependent here
// --runs N   measured runs per command (default 30), after 3 warm-ups
// --json     print the results as JSON instead of a table
// --strict   exit 1 when sling misses the target (default: report only)
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { SLING, benchNode, fail, nodeLine, which } from './common.mjs';

const WARMUPS = 3;
const TARGET = 1.3; // sling's median over `node -e 0`'s median
const RUN_TIMEOUT_MS = 30_000;

const USAGE = 'usage: node bench/startup.mjs [--node PATH] [--runs N] [--json] [--strict]';

function parseArgs(argv) {
  argv = [...argv];
  const opts = { runs: 30, json: false, strict: false, node: benchNode(argv, fail) };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--json') opts.json = true;
    else if (a === '--strict') opts.strict = true;
    else if (a === '--runs' || a.startsWith('--runs=')) {
      const v = a === '--runs' ? argv[++i] : a.slice('--runs='.length);
      if (!/^\d+$/.test(v ?? '') || Number(v) < 1) fail(`--runs needs a whole number of at least 1, got '${v ?? ''}'`);
      opts.runs = Number(v);
    } else if (a === '--help' || a === '-h') {
      console.log(`${USAGE}\nMeasures the start-up time of sling next to node -e 0, HTTPie, curl and httpyac.\n--node defaults to $SLING_BENCH_NODE, else the Node running this script.`);
      process.exit(0);
    } else fail(`unknown argument '${a}'\n${USAGE}`);
  }
  return opts;
}

// Every command runs with the same environment: no proxy variables, and an HTTPie configuration that
// turns off its update check (which would otherwise start a process that contacts packages.httpie.io).
// NODE_EXTRA_CA_CERTS is left out too: Node 20 reads and parses that certificate file when it starts
// (about 100 ms for a system bundle), which would hide sling's own cost behind a larger `node -e 0`.
function makeEnv(httpieConfigDir) {
  const env = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (!/^(https?|all|no|ftp|socks)_proxy$/i.test(k) && k !== 'NODE_EXTRA_CA_CERTS') env[k] = v;
  }
  env.NO_PROXY = env.no_proxy = '*';
  env.HTTPIE_CONFIG_DIR = httpieConfigDir;
  return env;
}

function candidates(node) {
  const list = [{ id: 'node', label: 'node -e 0', file: node, args: ['-e', '0'] }];
  list.push(
    existsSync(SLING)
      ? { id: 'sling', label: 'sling --offline POST example.org a=1', file: node, args: [SLING, '--offline', 'POST', 'example.org', 'a=1'] }
      : { id: 'sling', label: 'sling --offline POST example.org a=1', skip: `${relative(process.cwd(), SLING)} does not exist; build it with \`npm run build\` (\`npm run bench\` builds first)` },
  );
  // HTTPie reads a non-terminal stdin as the body and then refuses the a=1 item: --ignore-stdin.
  const tools = [
    ['httpie', 'http', ['--ignore-stdin', '--offline', 'POST', 'example.org', 'a=1']],
    ['curl', 'curl', ['--version']],
    ['httpyac', 'httpyac', ['--version']],
  ];
  for (const [id, name, args] of tools) {
    const file = which(name);
    const label = [name, ...args].join(' ');
    list.push(file ? { id, label, file, args } : { id, label, skip: `\`${name}\` is not on PATH` });
  }
  return list;
}

function timeOnce(cmd, env) {
  const start = process.hrtime.bigint();
  const r = spawnSync(cmd.file, cmd.args, { stdio: 'ignore', env, timeout: RUN_TIMEOUT_MS });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (r.error) return { error: r.error.code === 'ETIMEDOUT' ? `took longer than ${RUN_TIMEOUT_MS / 1000} s` : r.error.message };
  if (r.status !== 0) return { error: r.signal ? `killed by ${r.signal}` : `exited with status ${r.status}` };
  return { ms };
}

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
const round = (x, digits = 2) => (x == null ? null : Number(x.toFixed(digits)));

function measure(cmds, runs, env) {
  let active = cmds.filter((c) => !c.skip);
  for (const c of active) c.times = [];
  // Interleave the commands, rotating who goes first, so that a slow spell on the machine is shared
  // by all of them instead of landing on one.
  for (let pass = 0; pass < WARMUPS + runs; pass++) {
    for (let k = 0; k < active.length; k++) {
      const c = active[(pass + k) % active.length];
      if (c.skip) continue;
      const r = timeOnce(c, env);
      if (r.error) c.skip = `${r.error} (${pass < WARMUPS ? 'warm-up' : 'measured run'} ${pass + 1})`;
      else if (pass >= WARMUPS) c.times.push(r.ms);
    }
    active = active.filter((c) => !c.skip);
  }
  for (const c of cmds) {
    if (c.skip) continue;
    c.median = median(c.times);
    c.mean = mean(c.times);
    c.min = Math.min(...c.times);
    c.max = Math.max(...c.times);
  }
}

function summarize(cmds, opts) {
  const byId = Object.fromEntries(cmds.map((c) => [c.id, c]));
  const floor = byId.node.skip ? null : byId.node.median;
  const ratio = (c) => (c && !c.skip && floor ? c.median / floor : null);
  const slingRatio = ratio(byId.sling);
  const vsHttpie = !byId.sling.skip && !byId.httpie.skip ? byId.sling.median / byId.httpie.median : null;
  return {
    runs: opts.runs,
    warmups: WARMUPS,
    node: opts.node.version,
    node_path: opts.node.path,
    platform: `${process.platform} ${process.arch}`,
    results: cmds
      .filter((c) => !c.skip)
      .map((c) => ({
        id: c.id,
        command: c.label,
        median_ms: round(c.median),
        mean_ms: round(c.mean),
        min_ms: round(c.min),
        max_ms: round(c.max),
        ratio_to_node: round(ratio(c), 3),
      })),
    skipped: cmds.filter((c) => c.skip).map((c) => ({ id: c.id, command: c.label, reason: c.skip })),
    sling: {
      ratio_to_node: round(slingRatio, 3),
      ratio_to_httpie: round(vsHttpie, 3),
      target_ratio_to_node: TARGET,
      within_target: slingRatio == null ? null : slingRatio <= TARGET,
    },
  };
}

function printTable(summary) {
  const rows = [['command', 'median ms', 'mean ms', 'x node -e 0']];
  for (const r of summary.results) {
    rows.push([r.command, r.median_ms.toFixed(1), r.mean_ms.toFixed(1), r.ratio_to_node == null ? '-' : r.ratio_to_node.toFixed(2)]);
  }
  const w = rows[0].map((_, i) => Math.max(...rows.map((row) => row[i].length)));
  const fmt = (row) => row.map((cell, i) => (i === 0 ? cell.padEnd(w[i]) : cell.padStart(w[i]))).join('   ');
  console.log(`Start-up time: ${summary.runs} runs after ${summary.warmups} warm-ups each, interleaved; Node ${summary.node}, ${summary.platform}`);
  console.log(nodeLine({ version: summary.node, path: summary.node_path }) + ' (and so did node -e 0)');
  console.log();
  console.log(fmt(rows[0]));
  console.log(w.map((n) => '-'.repeat(n)).join('   '));
  for (const row of rows.slice(1)) console.log(fmt(row));
  for (const s of summary.skipped) console.log(`skipped: ${s.command}: ${s.reason}`);
  if (process.env.NODE_EXTRA_CA_CERTS) console.log('note: NODE_EXTRA_CA_CERTS is set here; it was removed for the measured commands (Node reads it at every start)');
  console.log();
  const s = summary.sling;
  if (s.ratio_to_httpie != null) {
    const faster = s.ratio_to_httpie < 1 ? ` (${(1 / s.ratio_to_httpie).toFixed(1)}x faster)` : ` (${s.ratio_to_httpie.toFixed(1)}x slower)`;
    console.log(`sling vs HTTPie (median): ${s.ratio_to_httpie.toFixed(2)}x${faster}`);
  }
  if (s.within_target == null) console.log(`target: sling within ${TARGET}x of node -e 0: not measured`);
  else console.log(`target: sling within ${TARGET}x of node -e 0: ${s.ratio_to_node.toFixed(2)}x, ${s.within_target ? 'met' : 'MISSED'}`);
}

function main() {
  const opts = parseArgs(process.argv.slice(2));
  const configDir = mkdtempSync(join(tmpdir(), 'sling-bench-'));
  let summary;
  try {
    writeFileSync(join(configDir, 'config.json'), JSON.stringify({ disable_update_warnings: true }) + '\n');
    const cmds = candidates(opts.node.path);
    if (!opts.json) {
      const n = cmds.filter((c) => !c.skip).length;
      process.stderr.write(`bench: timing ${n} commands x ${WARMUPS + opts.runs} runs...\n`);
    }
    measure(cmds, opts.runs, makeEnv(configDir));
    summary = summarize(cmds, opts);
  } finally {
    rmSync(configDir, { recursive: true, force: true });
  }
  if (opts.json) console.log(JSON.stringify(summary, null, 2));
  else printTable(summary);

  const slingSkip = summary.skipped.find((s) => s.id === 'sling');
  if (slingSkip) {
    console.error(`bench: sling was not measured: ${slingSkip.reason}`);
    process.exitCode = 1;
  } else if (opts.strict && summary.sling.within_target === false) {
    process.exitCode = 1;
  }
}

main();
