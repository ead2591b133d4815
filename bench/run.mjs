#!/usr/bin/env node
// `npm run bench`: runs the benches (startup, download, pretty, exec) once per Node binary, one
// after another (never two at a time). It builds nothing: `npm run bench` builds dist/ first.
//
//   node bench/run.mjs [--node PATH]... [--only startup,download,pretty,exec] [--json] [bench flags]
//   npm run bench -- --node /usr/bin/node --node ~/n24/bin/node --runs 5 --only startup,exec
//
// --node PATH   a Node binary to run sling on; repeat it for several. Default: the paths of
//               $SLING_BENCH_NODES (separated by ':'), else $SLING_BENCH_NODE, else the Node running
//               this script.
// --only LIST   the benches to run, separated by commas (exec-http is exec too). Default: all four.
// --json        one JSON document: every bench's own JSON, with the bench and Node it belongs to.
// Any other flag goes to the benches that take it (--runs N to all four; --strict to startup;
// --size MB to download; --skip-big to pretty; --small N, --large N, --no-httpyac to exec), and a
// flag no bench takes is an error. The order is bench by bench, each on every Node in turn, so the
// runs of one bench on different Nodes are minutes apart, not a whole suite apart.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { delimiter, join, relative } from 'node:path';
import { ROOT, SLING, describeNode, fail, splitEquals, takeNodeArgs } from './common.mjs';

// Each bench's file and the flags it takes (with how many values each flag has).
const BENCHES = [
  { id: 'startup', file: 'startup.mjs', flags: { '--runs': 1, '--json': 0, '--strict': 0 } },
  { id: 'download', file: 'download.mjs', flags: { '--size': 1, '--runs': 1, '--json': 0 } },
  { id: 'pretty', file: 'pretty.mjs', flags: { '--runs': 1, '--skip-big': 0, '--json': 0 } },
  { id: 'exec', file: 'exec-http.mjs', flags: { '--runs': 1, '--small': 1, '--large': 1, '--no-httpyac': 0, '--json': 0 } },
];
const ALIASES = { 'exec-http': 'exec' };
const USAGE = 'usage: node bench/run.mjs [--node PATH]... [--only startup,download,pretty,exec] [--json] [--runs N] [other bench flags]';

function parseArgs(argv) {
  const args = splitEquals(argv);
  if (args.includes('--help') || args.includes('-h')) {
    console.log(`${USAGE}\nRuns each bench once per Node given (default: $SLING_BENCH_NODES, else $SLING_BENCH_NODE, else this Node). See bench/README.md.`);
    process.exit(0);
  }
  let nodes = takeNodeArgs(args, fail);
  if (!nodes.length) {
    const fromEnv = (process.env.SLING_BENCH_NODES || '').split(delimiter).filter(Boolean);
    nodes = fromEnv.length
      ? takeNodeArgs(
          fromEnv.flatMap((p) => ['--node', p]),
          fail,
        )
      : takeNodeArgs(['--node', process.env.SLING_BENCH_NODE || process.execPath], fail);
  }
  const opts = { nodes: nodes.map((p) => describeNode(p, fail)), only: BENCHES.map((b) => b.id), json: false, pass: [] };
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === '--only') {
      const v = args[++i];
      if (!v) fail(`--only needs a list of benches: ${BENCHES.map((b) => b.id).join(',')}`);
      opts.only = [];
      for (const name of v
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean)) {
        const id = ALIASES[name] ?? name;
        if (!BENCHES.some((b) => b.id === id)) fail(`--only: no bench '${name}' (known: ${BENCHES.map((b) => b.id).join(', ')})`);
        if (!opts.only.includes(id)) opts.only.push(id);
      }
      if (!opts.only.length) fail('--only names no bench');
    } else if (a === '--json') opts.json = true;
    else {
      const arity = BENCHES.map((b) => b.flags[a]).find((n) => n !== undefined);
      if (arity === undefined) fail(`unknown argument '${a}'\n${USAGE}`);
      const value = args.slice(i + 1, i + 1 + arity);
      if (value.length < arity) fail(`${a} needs a value`);
      opts.pass.push([a, ...value]);
      i += arity;
    }
  }
  const chosen = BENCHES.filter((b) => opts.only.includes(b.id));
  for (const [flag] of opts.pass) {
    const takers = chosen.filter((b) => flag in b.flags).map((b) => b.id);
    if (!takers.length) fail(`${flag}: none of the chosen benches (${opts.only.join(', ')}) takes it`);
    if (takers.length < chosen.length && !opts.json) console.error(`bench: note: ${flag} goes to ${takers.join(', ')} only`);
  }
  return { ...opts, chosen };
}

function main() {
  const opts = parseArgs(process.argv.slice(2));
  if (!existsSync(SLING)) fail(`${relative(process.cwd(), SLING)} does not exist: build it with \`npm run build\` (\`npm run bench\` builds first)`);
  const say = (line) => (opts.json ? process.stderr : process.stdout).write(`${line}\n`);
  say(`bench: ${opts.chosen.map((b) => b.id).join(', ')} on ${opts.nodes.length} Node${opts.nodes.length > 1 ? 's' : ''}: ${opts.nodes.map((n) => `${n.version} (${n.path})`).join(', ')}`);
  const runs = [];
  for (const bench of opts.chosen) {
    for (const node of opts.nodes) {
      const flags = opts.pass.filter(([flag]) => flag in bench.flags).flat();
      if (opts.json) flags.push('--json');
      const argv = [join(ROOT, 'bench', bench.file), '--node', node.path, ...flags];
      say('');
      say(`=== ${bench.id} on Node ${node.version} (${node.path}): node ${[`bench/${bench.file}`, ...argv.slice(1)].join(' ')}`);
      const t0 = Date.now();
      const r = spawnSync(process.execPath, argv, { cwd: ROOT, stdio: ['ignore', opts.json ? 'pipe' : 'inherit', 'inherit'], encoding: 'utf8', maxBuffer: 1 << 28 });
      const code = r.status ?? (r.signal ? `killed by ${r.signal}` : r.error?.message);
      const entry = { bench: bench.id, node: node.version, node_path: node.path, exit_code: code, seconds: Math.round((Date.now() - t0) / 100) / 10 };
      if (opts.json) {
        try {
          entry.result = JSON.parse(r.stdout);
        } catch {
          entry.output = r.stdout;
        }
      }
      runs.push(entry);
      if (code !== 0) say(`bench: ${bench.id} on Node ${node.version} failed (${typeof code === 'number' ? `exit ${code}` : code})`);
    }
  }
  const failed = runs.filter((r) => r.exit_code !== 0);
  if (opts.json) console.log(JSON.stringify({ nodes: opts.nodes, runs }, null, 2));
  else {
    say('');
    say(`bench: ${runs.length} runs, ${failed.length ? `${failed.length} failed: ${failed.map((r) => `${r.bench} on ${r.node}`).join(', ')}` : 'none failed'}`);
  }
  if (failed.length) process.exitCode = 1;
}

main();
