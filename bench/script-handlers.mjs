#!/usr/bin/env node
// Script engine benchmark (not a test): `sling exec` of a .http file of N requests, each with a
// JetBrains response handler (reads the JSON body, sets a global, one client.test), against a
// loopback Node server (bodies written to /dev/null); and the same file with the handlers left out, so that the handlers' own
// cost is the difference. Several builds can be timed side by side, runs interleaved, so that a
// busy machine weighs on each alike (--sling PATH, repeatable; default dist/sling.js).
//
//   node bench/script-handlers.mjs [--node PATH] [--sling PATH ...] [--requests 1000] [--runs 5] [--json]
//
// Nothing leaves 127.0.0.1.
import { spawnSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { SLING } from './common.mjs';

const args = process.argv.slice(2);
const opt = (name, def) => {
  const i = args.indexOf(name);
  return i === -1 ? def : args[i + 1];
};
const many = (name) => args.flatMap((a, i) => (a === name ? [args[i + 1]] : []));
const node = opt('--node', process.env.SLING_BENCH_NODE || process.execPath);
const slings = many('--sling').length ? many('--sling').map((s) => resolve(s)) : [SLING];
const requests = Number(opt('--requests', 1000));
const runs = Number(opt('--runs', 5));
const asJson = args.includes('--json');

const work = mkdtempSync(join(tmpdir(), 'sling-bench-handlers-'));
// The server runs in a process of its own, so that its work is not timed with sling's.
const server = spawn(
  process.execPath,
  [
    '-e',
    `const s = require('node:http').createServer((q, r) => { q.resume(); q.on('end', () => { r.writeHead(200, { 'Content-Type': 'application/json' }); r.end('{"id":42,"token":"t-' + q.url.length + '","items":[1,2,3]}'); }); });
     s.keepAliveTimeout = 60000; s.listen(0, '127.0.0.1', () => console.log(s.address().port));`,
  ],
  { stdio: ['ignore', 'pipe', 'inherit'] },
);
const port = await new Promise((resolve) => server.stdout.once('data', (d) => resolve(Number(String(d).trim()))));

// Each handler its own text (a file's handlers differ: nothing compiled once serves them all).
const handler = (i) =>
  ['> {%', `  client.global.set("token${i}", response.body.token);`, `  client.test("r${i} ok", () => { client.assert(response.status === 200 && response.body.items.length === 3); });`, '%}'].join(
    '\n',
  );
const file = (withHandlers) => Array.from({ length: requests }, (_, i) => [`### r${i}`, `GET http://127.0.0.1:${port}/r/${i}`, '', ...(withHandlers ? [handler(i), ''] : [])].join('\n')).join('\n');
writeFileSync(join(work, 'handlers.http'), file(true));
writeFileSync(join(work, 'plain.http'), file(false));

const time = (sling, name) => {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(node, [sling, 'exec', '--print=b', name], { cwd: work, stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status !== 0) {
    server.kill();
    console.error(`bench: ${sling} exec ${name}: exit ${r.status}: ${r.stderr.slice(0, 500)}`);
    process.exit(1);
  }
  return ms;
};
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
};

const results = slings.map((s) => ({ sling: s, handlers: [], plain: [] }));
// One warm-up of each, then the runs, interleaved.
for (const r of results) {
  time(r.sling, 'handlers.http');
  time(r.sling, 'plain.http');
}
for (let i = 0; i < runs; i++) {
  for (const r of results) {
    r.handlers.push(time(r.sling, 'handlers.http'));
    r.plain.push(time(r.sling, 'plain.http'));
  }
}
server.kill();
rmSync(work, { recursive: true, force: true });

const nodeVersion = spawnSync(node, ['--version'], { encoding: 'utf8' }).stdout.trim();
const rows = results.map((r) => {
  const h = median(r.handlers);
  const p = median(r.plain);
  return {
    sling: r.sling,
    node: nodeVersion,
    requests,
    runs,
    withHandlersMs: Math.round(h),
    withoutMs: Math.round(p),
    handlersMs: Math.round(h - p),
    perHandlerUs: Math.round(((h - p) * 1000) / requests),
  };
});
if (asJson) console.log(JSON.stringify(rows, null, 2));
else {
  console.log(`sling exec of ${requests} requests with and without a response handler each (Node ${nodeVersion}, median of ${runs} runs)`);
  for (const r of rows) console.log(`  ${r.sling}: ${r.withHandlersMs} ms with handlers, ${r.withoutMs} ms without: handlers ${r.handlersMs} ms (${r.perHandlerUs} µs each)`);
}
