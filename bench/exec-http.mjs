#!/usr/bin/env node
// `sling exec` benchmark (not a test): N named POST requests in one .http file against a
// loopback server, side by side in one run with `curl -K` running the same N requests from a curl
// config file (`next` between them), and with httpyac when it can be had.
//
//   node bench/exec-http.mjs [--node PATH] [--runs N (default 5)] [--small 1000] [--large 10000] [--no-httpyac] [--json]
//
// --node: the Node binary that runs sling and the bare Node loop (default: $SLING_BENCH_NODE, else
// the Node running this script); httpyac runs on the machine's Node, curl is curl.
// Targets: sling's median for --small requests at most 1.5x curl's; --large requests at most 11x
// sling's own --small time (linear). Every client writes the responses to /dev/null. The server is
// nginx when installed (a fixed JSON answer, keep-alive without a request limit), else a Node
// server in its own process. httpyac: `httpyac` on PATH, else `npm install --no-save httpyac` into
// a temporary folder (kept for later runs); skipped, with the reason, when neither works. httpyac's
// cost grows with the square of the file, so it only runs the small file.
// Nothing leaves 127.0.0.1.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SLING, benchNode, execFiles, nodeLine, startExecServer, which } from './common.mjs';

const args = process.argv.slice(2);
const node = benchNode(args, (message) => {
  console.error(`bench: ${message}`);
  process.exit(2);
});
const opt = (name, def) => {
  const i = args.indexOf(name);
  return i === -1 ? def : Number(args[i + 1]);
};
const runs = opt('--runs', 5);
const small = opt('--small', 1000);
const large = opt('--large', 10000);
const asJson = args.includes('--json');
const log = (...m) => {
  if (!asJson) console.log(...m);
};
if (!existsSync(SLING)) {
  console.error('bench: dist/sling.js is missing: run `npm run build` first');
  process.exit(1);
}
const work = mkdtempSync(join(tmpdir(), 'sling-bench-exec-'));
// Every client runs without NODE_EXTRA_CA_CERTS: Node 20 reads and parses that file at every start
// (about 100 ms for a system bundle), a cost of the machine's set-up that curl never pays and that
// no plain-HTTP request needs. The report says when it was set.
const childEnv = { ...process.env };
delete childEnv.NODE_EXTRA_CA_CERTS;

// ------------------------------------------------------------------------- server, files --
// nginx when installed, else a Node server in its own process (bench/common.mjs).
const server = await startExecServer(work);
const serverKind = server.kind;
const port = server.port;
const stopServer = server.stop;
const f1 = execFiles(work, port, small);
const f2 = execFiles(work, port, large);

// The floor Node sets: a bare loop that sends the same requests one after another on one kept-alive
// socket and writes each answer out, with none of sling's work (no file to parse, no variables, no
// checks, no printer). It reads the way sling's exec lane reads (node:net's `onread` into one
// reused buffer, no stream events) and writes each answer with one write(2): the cheapest loop
// Node allows, so the gap between it and sling is sling's own cost. (Until the seventh session
// this loop read through the socket's 'data' events and wrote through process.stdout: 20-35 ms
// slower at 1,000 and ~50 ms slower at 10,000, which made sling look closer to the floor than it was.)
// Like sling's lane, it polls for each answer for up to 0.25 ms before sleeping (and not with one
// CPU or SLING_NO_POLL=1): without that, on a virtual machine whose idle CPU halts, the loop pays a
// wake-up per request that sling does not, and stops being a floor.
const floorScript = join(work, 'node-floor.cjs');
writeFileSync(
  floorScript,
  `const n = Number(process.argv[2]);
const POLL = !process.env.SLING_NO_POLL && require('node:os').availableParallelism() > 1;
const { writeSync } = require('node:fs');
const buf = Buffer.allocUnsafe(65536);
let i = 0, got = '', waiting = false, until = 0;
const clock = () => { const t = process.hrtime(); return t[0] * 1e3 + t[1] / 1e6; };
const poll = () => { if (waiting && clock() < until) setImmediate(poll); };
const send = () => {
  i++;
  const body = '{"id": ' + i + ', "name": "item ' + i + '"}';
  s.write('POST /items/' + i + ' HTTP/1.1\\r\\nHost: 127.0.0.1:${port}\\r\\nContent-Type: application/json\\r\\nContent-Length: ' + body.length + '\\r\\n\\r\\n' + body);
  if (POLL) { waiting = true; until = clock() + 0.25; setImmediate(poll); }
};
const onread = (k) => {
  got += buf.latin1Slice(0, k);
  if (!got.endsWith('{"ok": true}')) return;
  waiting = false;
  writeSync(1, got);
  got = '';
  if (i < n) send(); else s.end();
};
const s = require('node:net').connect({ host: '127.0.0.1', port: ${port}, noDelay: true, onread: { buffer: buf, callback: onread } });
s.on('connect', send);
`,
);

// -------------------------------------------------------------------------------- httpyac --
let httpyac = which('httpyac');
let httpyacWhy = '';
if (args.includes('--no-httpyac')) httpyacWhy = '--no-httpyac';
else if (!httpyac) {
  const dir = join(tmpdir(), 'sling-bench-httpyac');
  const bin = join(dir, 'node_modules', '.bin', 'httpyac');
  if (!existsSync(bin)) {
    mkdirSync(dir, { recursive: true });
    log('bench: installing httpyac into', dir, '(npm install --no-save httpyac) ...');
    const r = spawnSync('npm', ['install', '--no-save', '--no-audit', '--no-fund', 'httpyac'], { cwd: dir, encoding: 'utf8', timeout: 300_000 });
    if (r.status !== 0) httpyacWhy = `npm install httpyac failed: ${(r.stderr || r.error?.message || '').trim().split('\n').pop()}`;
  }
  if (existsSync(bin)) httpyac = bin;
  else httpyacWhy ||= 'httpyac is not installed and could not be installed';
}

// --------------------------------------------------------------------------------- checks --
// Every client must really send every request: one untimed run each, output counted.
function check(label, cmd, argv, n, pattern) {
  const r = spawnSync(cmd, argv, { cwd: work, env: childEnv, encoding: 'utf8', maxBuffer: 1 << 30 });
  const count = (r.stdout.match(pattern) ?? []).length;
  if (r.status !== 0 || count !== n) {
    console.error(`bench: ${label} did not answer ${n} requests (exit ${r.status}, ${count} answers): ${r.stderr.slice(0, 500)}`);
    stopServer();
    process.exit(1);
  }
}
check('curl', 'curl', ['-s', '-K', f1.curl], small, /"ok": true/g);
check('sling', node.path, [SLING, 'exec', f1.http], small, /^HTTP\/1\.1 200 OK$/gm);
check('the bare Node loop', node.path, [floorScript, String(small)], small, /"ok": true/g);
if (httpyac) {
  const r = spawnSync(httpyac, ['send', f1.http, '--all'], { cwd: work, env: childEnv, encoding: 'utf8', maxBuffer: 1 << 30 });
  if (!new RegExp(`${small} requests processed \\(${small} succeeded\\)`).test(r.stdout)) {
    httpyacWhy = `httpyac did not answer the ${small} requests: ${(r.stdout + r.stderr).trim().split('\n').pop()}`;
    httpyac = '';
  }
}

// ------------------------------------------------------------------------------- measuring --
const subjects = [
  { name: `curl -K (${small})`, cmd: 'curl', argv: ['-s', '-K', f1.curl] },
  { name: `sling exec (${small})`, cmd: node.path, argv: [SLING, 'exec', f1.http] },
  { name: `bare Node loop (${small})`, cmd: node.path, argv: [floorScript, String(small)] },
  { name: `curl -K (${large})`, cmd: 'curl', argv: ['-s', '-K', f2.curl] },
  { name: `sling exec (${large})`, cmd: node.path, argv: [SLING, 'exec', f2.http] },
  { name: `bare Node loop (${large})`, cmd: node.path, argv: [floorScript, String(large)] },
];
if (httpyac) subjects.push({ name: `httpyac send --all (${small})`, cmd: httpyac, argv: ['send', f1.http, '--all'], runs: Math.min(runs, 3) });

function time(s) {
  const t = process.hrtime.bigint();
  // httpyac only reads files under its working folder.
  const r = spawnSync(s.cmd, s.argv, { cwd: work, env: childEnv, stdio: ['ignore', 'ignore', 'pipe'], timeout: 600_000 });
  const ms = Number(process.hrtime.bigint() - t) / 1e6;
  if (r.status !== 0) throw new Error(`${s.name} failed (exit ${r.status}): ${String(r.stderr).slice(0, 300)}`);
  return ms;
}
const results = new Map(subjects.map((s) => [s.name, []]));
log(`bench: ${serverKind} on 127.0.0.1:${port}; ${runs} runs after a warm-up, interleaved`);
log(`bench: ${nodeLine(node)} (and so did the bare Node loop)`);
try {
  for (const s of subjects) time(s); // warm-up (page cache, nginx)
  for (let round = 0; round < runs; round++) {
    const order = subjects.map((_, i) => subjects[(i + round) % subjects.length]);
    for (const s of order) if (round < (s.runs ?? runs)) results.get(s.name).push(time(s));
  }
} finally {
  stopServer();
  rmSync(work, { recursive: true, force: true });
}

const median = (xs) => {
  const a = [...xs].sort((x, y) => x - y);
  return a.length % 2 ? a[(a.length - 1) / 2] : (a[a.length / 2 - 1] + a[a.length / 2]) / 2;
};
const med = Object.fromEntries([...results].map(([k, v]) => [k, median(v)]));
const curlSmall = med[`curl -K (${small})`];
const slingSmall = med[`sling exec (${small})`];
// The same ratio round by round (curl and sling timed within the same round, seconds apart): a
// busy minute slows both, so this moves less with the machine's load than the ratio of medians.
const curlRuns = results.get(`curl -K (${small})`);
const pairedSmall = median(results.get(`sling exec (${small})`).map((t, i) => t / curlRuns[i]));
const slingLarge = med[`sling exec (${large})`];
const floorSmall = med[`bare Node loop (${small})`];
const floorLarge = med[`bare Node loop (${large})`];
const report = {
  server: serverKind,
  runs,
  node: node.version,
  node_path: node.path,
  medians_ms: med,
  sling_vs_curl: slingSmall / curlSmall,
  sling_vs_curl_paired: pairedSmall,
  sling_large_vs_small: slingLarge / slingSmall,
  node_floor_vs_curl: floorSmall / curlSmall,
  sling_vs_node_floor: slingSmall / floorSmall,
  sling_vs_node_floor_large: slingLarge / floorLarge,
  httpyac: httpyac ? undefined : `skipped: ${httpyacWhy}`,
  node_extra_ca_certs_removed: Boolean(process.env.NODE_EXTRA_CA_CERTS),
  targets: { sling_vs_curl: 1.5, sling_large_vs_small: 11 },
};
if (asJson) console.log(JSON.stringify(report, null, 2));
else {
  log('');
  log('command'.padEnd(34), 'median ms'.padStart(10), '  per request');
  for (const s of subjects) {
    const n = s.name.includes(`(${large})`) ? large : small;
    log(s.name.padEnd(34), med[s.name].toFixed(0).padStart(10), `  ${((med[s.name] / n) * 1000).toFixed(0)} µs`);
  }
  if (!httpyac) log(`httpyac: skipped: ${httpyacWhy}`);
  if (process.env.NODE_EXTRA_CA_CERTS) log('note: NODE_EXTRA_CA_CERTS is set here; it was removed for every client (Node reads it at every start)');
  log('');
  log(`sling / curl -K (${small} requests): ${report.sling_vs_curl.toFixed(2)}x   (target <= 1.5x)`);
  log(`  the same, median of the rounds' own ratios: ${pairedSmall.toFixed(2)}x (each round times both within seconds)`);
  log(`sling ${large} / sling ${small}: ${report.sling_large_vs_small.toFixed(2)}x   (target <= 11x: linear)`);
  log(`bare Node loop / curl -K (${small} requests): ${report.node_floor_vs_curl.toFixed(2)}x   (the floor Node sets; sling's own cost is the rest)`);
  log(`sling / bare Node loop: ${report.sling_vs_node_floor.toFixed(2)}x at ${small}, ${report.sling_vs_node_floor_large.toFixed(2)}x at ${large}`);
  if (httpyac) log(`httpyac / sling (${small} requests): ${(med[`httpyac send --all (${small})`] / slingSmall).toFixed(1)}x`);
}
