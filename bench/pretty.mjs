#!/usr/bin/env node
// Output benchmark (not a test): colouring and indenting a 13.7 MB JSON response to a pipe
// with --pretty=all, side by side with HTTPie 3 (`http --pretty=all`) and `jq -C .` in one run, and
// peak memory; then a 1 GiB plain body piped with --pretty=none (constant memory expected).
//
//   node bench/pretty.mjs [--node PATH] [--runs N] [--skip-big] [--json]
//
// --node: the Node binary that runs sling (default: $SLING_BENCH_NODE, else the Node running this
// script; the loopback server runs on the latter). --json: the results as JSON instead of a table.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SLING, benchNode, cleanEnv, nodeLine } from './common.mjs';

const args = process.argv.slice(2);
const node = benchNode(args, (message) => {
  console.error(`bench: ${message}`);
  process.exit(2);
});
const runs = Number(args[args.indexOf('--runs') + 1]) || 5;
const asJson = args.includes('--json');
const log = (...m) => {
  if (!asJson) console.log(...m);
};
if (!existsSync(SLING)) {
  console.error('bench: dist/sling.js is missing: run `npm run build` first');
  process.exit(1);
}
const has = (cmd) => spawnSync('sh', ['-c', `command -v ${cmd}`]).status === 0;

// A 13.7 MB JSON document of the shape APIs return: an array of records.
const work = mkdtempSync(join(tmpdir(), 'sling-bench-pretty-'));
const items = [];
let i = 0;
let size = 0;
while (size < 13.7 * 1024 * 1024) {
  const rec = {
    id: i,
    uuid: `c0ffee-${i.toString(16).padStart(8, '0')}`,
    name: `User ${i}`,
    email: `user${i}@example.org`,
    active: i % 3 === 0,
    score: i * 1.25,
    tags: ['alpha', 'beta', i % 2 ? 'gamma' : 'delta'],
    address: { street: `${i} Main Street`, city: 'Springfield', zip: String(10000 + (i % 90000)) },
    note: null,
  };
  const t = JSON.stringify(rec);
  items.push(t);
  size += t.length + 1;
  i++;
}
const json = Buffer.from('[' + items.join(',') + ']');
const jsonFile = join(work, 'big.json');
writeFileSync(jsonFile, json);
const GiB = 1024 * 1024 * 1024;
const chunk = Buffer.alloc(1024 * 1024, 'x');

const server = createServer((req, res) => {
  if (req.url === '/big.json') {
    res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': json.length });
    res.end(json);
  } else if (req.url === '/gig') {
    res.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Length': GiB });
    let sent = 0;
    const pump = () => {
      while (sent < GiB) {
        sent += chunk.length;
        if (!res.write(chunk)) return res.once('drain', pump);
      }
      res.end();
    };
    pump();
  } else res.writeHead(404).end();
});
await new Promise((r) => server.listen(0, '127.0.0.1', r));
const base = `http://127.0.0.1:${server.address().port}`;

function peakOf(pid) {
  try {
    return Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) * 1024;
  } catch {
    return 0;
  }
}
function run(cmd, argv, env = {}) {
  return new Promise((resolve) => {
    const t0 = process.hrtime.bigint();
    // Without NODE_EXTRA_CA_CERTS: Node 20 parses that file at every start (~0.1 s), no cost of sling's.
    const child = spawn(cmd, argv, { stdio: ['ignore', 'pipe', 'ignore'], env: { ...cleanEnv(), ...env } });
    let bytes = 0;
    child.stdout.on('data', (c) => (bytes += c.length));
    let peak = 0;
    const poll = setInterval(() => (peak = Math.max(peak, peakOf(child.pid))), 20);
    child.on('close', (code) => {
      clearInterval(poll);
      resolve({ ms: Number(process.hrtime.bigint() - t0) / 1e6, peak, code, bytes });
    });
  });
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const httpieConfig = join(work, 'httpie');
writeFileSync(join(work, 'empty'), '');
spawnSync('mkdir', ['-p', httpieConfig]);
writeFileSync(join(httpieConfig, 'config.json'), '{"disable_update_warnings": true}');

const skipped = [];
const subjects = [
  { name: 'sling --pretty=all', cmd: node.path, argv: [SLING, '--pretty=all', '--body', `${base}/big.json`] },
  { name: 'jq -C .', cmd: 'jq', argv: ['-C', '.', jsonFile], need: 'jq' },
  { name: 'http --pretty=all', cmd: 'http', argv: ['--ignore-stdin', '--pretty=all', '--body', `${base}/big.json`], need: 'http', env: { HTTPIE_CONFIG_DIR: httpieConfig } },
].filter((s) => {
  if (s.need && !has(s.need)) {
    skipped.push(`${s.name}: \`${s.need}\` is not on PATH`);
    log(`skipped: ${skipped.at(-1)}`);
    return false;
  }
  return true;
});

log(`JSON: ${(json.length / 1048576).toFixed(1)} MB, ${i} records; ${runs} runs each (HTTPie: 1 run), median wall time, Node ${node.version}`);
log(nodeLine(node));
const rows = [];
for (const s of subjects) {
  const n = s.cmd === 'http' ? 1 : runs;
  const rs = [];
  for (let k = 0; k < n; k++) rs.push(await run(s.cmd, s.argv, s.env));
  if (rs.some((r) => r.code !== 0)) log(`warning: ${s.name} exited ${rs.map((r) => r.code).join(',')}`);
  rows.push({ name: s.name, ms: median(rs.map((r) => r.ms)), peak: Math.max(...rs.map((r) => r.peak)), bytes: rs[0].bytes, exit_codes: rs.map((r) => r.code) });
}
log('\ncommand              median s   peak memory   output');
for (const r of rows) log(`${r.name.padEnd(20)} ${(r.ms / 1000).toFixed(2).padStart(8)}   ${(r.peak / 1048576).toFixed(0).padStart(8)} MB   ${(r.bytes / 1048576).toFixed(1)} MB`);
const sling = rows[0];
const jq = rows.find((r) => r.name.startsWith('jq'));
const httpie = rows.find((r) => r.name.startsWith('http '));
log('');
if (httpie) log(`sling vs HTTPie: ${(httpie.ms / sling.ms).toFixed(1)}x faster (target >= 10x: ${httpie.ms / sling.ms >= 10 ? 'met' : 'NOT met'})`);
if (jq) log(`sling vs jq -C: ${(sling.ms / jq.ms).toFixed(2)}x jq's time (target <= 2x: ${sling.ms / jq.ms <= 2 ? 'met' : 'NOT met'})`);
if (process.env.NODE_EXTRA_CA_CERTS) log('note: NODE_EXTRA_CA_CERTS is set here; it was removed for the measured commands (Node reads it at every start)');
log(`sling peak memory: ${(sling.peak / 1048576).toFixed(0)} MB = ${(sling.peak / json.length).toFixed(1)}x the body`);

let big;
if (!args.includes('--skip-big')) {
  big = await run(node.path, [SLING, '--pretty=none', '--body', `${base}/gig`]);
  log(
    `\n1 GiB plain body, --pretty=none to a pipe: ${(big.ms / 1000).toFixed(2)} s, ${(big.bytes / GiB).toFixed(2)} GiB out, peak memory ${(big.peak / 1048576).toFixed(0)} MB (constant memory expected)`,
  );
}
server.close();
rmSync(work, { recursive: true, force: true });
if (asJson) {
  console.log(
    JSON.stringify(
      {
        runs,
        node: node.version,
        node_path: node.path,
        json_mb: json.length / 1048576,
        records: i,
        results: rows.map((r) => ({ command: r.name, median_ms: r.ms, peak_mb: r.peak / 1048576, output_mb: r.bytes / 1048576, exit_codes: r.exit_codes })),
        skipped,
        sling_vs_httpie_faster: httpie ? httpie.ms / sling.ms : null,
        sling_vs_jq: jq ? sling.ms / jq.ms : null,
        sling_peak_vs_body: sling.peak / json.length,
        big_plain_body: big ? { ms: big.ms, gib_out: big.bytes / GiB, peak_mb: big.peak / 1048576, exit_code: big.code } : null,
      },
      null,
      2,
    ),
  );
}
