#!/usr/bin/env node
// Download benchmark (not a test): 1 GiB from a fast local server to a file, sling vs `curl -o`,
// measured side by side in one run. Reports median wall time, throughput, the ratio to curl, and
// peak memory (VmHWM polled from /proc). Targets: >= 0.9x curl's throughput, < 100 MB.
//
//   node bench/download.mjs [--node PATH] [--size MB] [--runs N (default 15)] [--json]
//
// --node: the Node binary that runs sling (default: $SLING_BENCH_NODE, else the Node running this
// script); the Node fallback server stays on the Node running this script.
// The server is nginx with sendfile when `nginx` is installed (Debian: nginx-light), else a small
// Node server (then the server, not the client, may be the limit; the report says which was used).
// Everything stays on 127.0.0.1; files go to /dev/shm when it exists, to keep disk noise out.
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, openSync, closeSync, readFileSync, rmSync, writeFileSync, writeSync, createReadStream, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomFillSync } from 'node:crypto';
import { SLING, benchNode, cleanEnv, nodeLine } from './common.mjs';

const args = process.argv.slice(2);
const node = benchNode(args, (message) => {
  console.error(`bench: ${message}`);
  process.exit(2);
});
const opt = (name, def) => {
  const i = args.indexOf(name);
  return i === -1 ? def : Number(args[i + 1]);
};
const sizeMB = opt('--size', 1024);
const runs = opt('--runs', 15);
const asJson = args.includes('--json');
if (!existsSync(SLING)) {
  console.error('bench: dist/sling.js is missing: run `npm run build` first');
  process.exit(1);
}
const which = (cmd) => spawnSync('sh', ['-c', `command -v ${cmd}`], { encoding: 'utf8' }).stdout.trim() || (existsSync(`/usr/sbin/${cmd}`) ? `/usr/sbin/${cmd}` : '');

const base = existsSync('/dev/shm') ? '/dev/shm' : tmpdir();
const work = mkdtempSync(join(base, 'sling-bench-dl-'));
const www = join(work, 'www');
spawnSync('mkdir', ['-p', www, join(work, 'tmp'), join(work, 'logs')]);
// nginx's worker runs as an unprivileged user: it must be able to read the file.
chmodSync(work, 0o755);
chmodSync(www, 0o755);
const source = join(www, 'big.bin');
{
  // Random bytes (not a sparse file): nothing along the way can shortcut zeros.
  const fd = openSync(source, 'w');
  const chunk = Buffer.allocUnsafe(1 << 20);
  for (let i = 0; i < sizeMB; i++) {
    randomFillSync(chunk);
    let at = 0;
    while (at < chunk.length) at += writeSync(fd, chunk, at, chunk.length - at);
  }
  closeSync(fd);
}

// --------------------------------------------------------------- server --
let server;
let serverKind;
let port;
const nginx = which('nginx');
if (nginx) {
  port = 20000 + Math.floor(Math.random() * 20000);
  const conf = join(work, 'nginx.conf');
  writeFileSync(
    conf,
    `worker_processes 1; daemon on; pid ${work}/nginx.pid; error_log ${work}/logs/error.log;
events { worker_connections 64; }
http { access_log off; sendfile on; tcp_nopush on;
  client_body_temp_path ${work}/tmp; proxy_temp_path ${work}/tmp; fastcgi_temp_path ${work}/tmp; uwsgi_temp_path ${work}/tmp; scgi_temp_path ${work}/tmp;
  server { listen 127.0.0.1:${port}; root ${www}; } }\n`,
  );
  const r = spawnSync(nginx, ['-c', conf, '-p', work], { encoding: 'utf8' });
  if (r.status !== 0) {
    console.error(`bench: nginx did not start: ${r.stderr.trim()}`);
    process.exit(1);
  }
  serverKind = 'nginx (sendfile)';
  server = { close: () => spawnSync(nginx, ['-c', conf, '-p', work, '-s', 'stop']) };
} else {
  const s = createServer((req, res) => {
    res.writeHead(200, { 'Content-Length': String(statSync(source).size) });
    createReadStream(source, { highWaterMark: 1 << 20 }).pipe(res);
  });
  await new Promise((r) => s.listen(0, '127.0.0.1', r));
  port = s.address().port;
  serverKind = 'node:http (nginx not found: install nginx-light for the reference setup)';
  server = { close: () => s.close() };
}
const url = `http://127.0.0.1:${port}/big.bin`;

// ------------------------------------------------------------- measuring --
function peakOf(pid) {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

function runOnce(cmd, argv, out) {
  return new Promise((resolve) => {
    const t0 = process.hrtime.bigint();
    // Without NODE_EXTRA_CA_CERTS: Node 20 parses that file at every start (~0.1 s), no cost of sling's.
    const child = spawn(cmd, argv, { stdio: 'ignore', env: cleanEnv() });
    let peak = 0;
    const poll = setInterval(() => (peak = Math.max(peak, peakOf(child.pid))), 10);
    child.on('close', (code) => {
      clearInterval(poll);
      const ms = Number(process.hrtime.bigint() - t0) / 1e6;
      const ok = code === 0 && existsSync(out) && statSync(out).size === sizeMB * 1024 * 1024;
      rmSync(out, { force: true });
      resolve({ ms, peak, ok, code });
    });
  });
}

const subjects = [];
const curl = which('curl');
if (curl) subjects.push({ name: 'curl -o', cmd: curl, argv: (out) => ['-s', '-o', out, url] });
else console.log('skipped: curl is not on PATH');
subjects.push({ name: 'sling -o', cmd: node.path, argv: (out) => [SLING, '-q', '-o', out, url] });

const results = Object.fromEntries(subjects.map((s) => [s.name, []]));
for (let round = 0; round < runs + 1; round++) {
  const order = round % 2 ? [...subjects].reverse() : subjects;
  for (const s of order) {
    const out = join(work, `out-${s.name.replace(/\W/g, '')}.bin`);
    const r = await runOnce(s.cmd, s.argv(out), out);
    if (!r.ok) {
      console.error(`bench: ${s.name} failed (exit ${r.code})`);
      process.exitCode = 1;
    }
    if (round > 0) results[s.name].push(r); // round 0 warms the page cache
  }
}
server.close();
rmSync(work, { recursive: true, force: true });

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const summary = subjects.map((s) => {
  const rs = results[s.name];
  const ms = median(rs.map((r) => r.ms));
  return { name: s.name, medianMs: ms, mbPerS: (sizeMB / ms) * 1000, peakMB: Math.max(...rs.map((r) => r.peak)) / 1048576 };
});
const curlRow = summary.find((r) => r.name === 'curl -o');
const slingRow = summary.find((r) => r.name === 'sling -o');
if (asJson) {
  console.log(JSON.stringify({ sizeMB, runs, server: serverKind, node: node.version, node_path: node.path, summary, ratio: curlRow ? slingRow.mbPerS / curlRow.mbPerS : null }, null, 2));
} else {
  console.log(`Download of ${sizeMB} MiB from ${serverKind} to ${base}, ${runs} runs after a warm-up, Node ${node.version}`);
  console.log(nodeLine(node));
  console.log('');
  console.log('command     median s   MB/s     peak memory');
  for (const r of summary) console.log(`${r.name.padEnd(10)}  ${(r.medianMs / 1000).toFixed(2).padStart(8)}  ${r.mbPerS.toFixed(0).padStart(6)}   ${r.peakMB.toFixed(1)} MB`);
  if (process.env.NODE_EXTRA_CA_CERTS) console.log('note: NODE_EXTRA_CA_CERTS is set here; it was removed for the measured commands (Node reads it at every start)');
  if (curlRow) {
    const ratio = slingRow.mbPerS / curlRow.mbPerS;
    console.log('');
    console.log(
      `sling throughput vs curl: ${ratio.toFixed(2)}x (target >= 0.9x: ${ratio >= 0.9 ? 'met' : 'NOT met'}); sling peak memory ${slingRow.peakMB.toFixed(1)} MB (target < 100 MB: ${slingRow.peakMB < 100 ? 'met' : 'NOT met'})`,
    );
  }
}
