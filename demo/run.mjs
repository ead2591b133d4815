#!/usr/bin/env node
// The first thing to run in a fresh clone (`npm run demo`): starts the loopback demo server and takes a
// short tour of sling's main command against it, showing each command line as you would type it and
// then sling's own output. Nothing leaves 127.0.0.1.
//
//   node demo/run.mjs [--bin path/to/sling.js]
//
// Exits 1 if any command's exit code is not the one expected, or if dist/sling.js is missing.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { lookup } from 'node:dns/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startDemoServer } from './server.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const COMMAND_TIMEOUT_MS = 5_000; // every demo request answers at once; a hang is a bug

function parseArgs(argv) {
  const opts = { bin: join(ROOT, 'dist', 'sling.js') };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--bin' && argv[i + 1]) opts.bin = resolve(argv[++i]);
    else if (a.startsWith('--bin=')) opts.bin = resolve(a.slice('--bin='.length));
    else if (a === '--help' || a === '-h') {
      console.log('usage: node demo/run.mjs [--bin path/to/sling.js]\nRuns a short tour of sling against a loopback demo server.');
      process.exit(0);
    } else {
      console.error(`demo: unknown argument '${a}'\nusage: node demo/run.mjs [--bin path/to/sling.js]`);
      process.exit(2);
    }
  }
  return opts;
}

// ------------------------------------------------------------- presentation --

const useColor = (() => {
  if (process.env.NO_COLOR) return false;
  if (process.env.FORCE_COLOR && process.env.FORCE_COLOR !== '0') return true;
  return Boolean(process.stdout.isTTY);
})();
const paint = (code) => (s) => (useColor ? `\x1b[${code}m${s}\x1b[0m` : s);
const bold = paint('1');
const dim = paint('2');
const green = paint('32');
const red = paint('31');

// Quote an argument the way a POSIX shell user would have to type it.
function shellQuote(arg) {
  if (arg !== '' && /^[A-Za-z0-9_\-.,:/=@%+^]+$/.test(arg)) return arg;
  return `'${arg.replace(/'/g, `'\\''`)}'`;
}

function out(line = '') {
  process.stdout.write(line + '\n');
}

// ------------------------------------------------------------------ running --

// Sling honours proxy variables; a demo against 127.0.0.1 must never be sent through one.
function childEnv() {
  const env = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (!/^(https?|all|no|ftp|socks)_proxy$/i.test(k)) env[k] = v;
  }
  env.NO_PROXY = env.no_proxy = '*';
  return env;
}

function runSling(bin, args) {
  return new Promise((done) => {
    // stdin is ignored (/dev/null): sling must not wait for a body, the way it runs in scripts and CI.
    const child = spawn(process.execPath, [bin, ...args], { stdio: ['ignore', 'inherit', 'inherit'], env: childEnv() });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, COMMAND_TIMEOUT_MS);
    child.on('error', (err) => {
      clearTimeout(timer);
      done({ code: null, error: err.message });
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (timedOut) done({ code: null, error: `no answer within ${COMMAND_TIMEOUT_MS / 1000} s (killed)` });
      else if (signal) done({ code: null, error: `killed by ${signal}` });
      else done({ code });
    });
  });
}

// `:PORT/path` is sling's shorthand for http://localhost:PORT/path. Show it when `localhost` resolves
// only to 127.0.0.1 here (the server listens there and nowhere else); otherwise spell out 127.0.0.1.
async function hostForDemo(port) {
  try {
    const addrs = await lookup('localhost', { all: true });
    if (addrs.length && addrs.every((a) => a.address === '127.0.0.1')) return `:${port}`;
  } catch {}
  return `127.0.0.1:${port}`;
}

function tour(h) {
  return [
    { note: 'GET with query-string items (name==value)', args: [`${h}/get`, 'q==sling', 'lang==en'] },
    { note: 'POST a JSON body: name=value is a string, name:=value is raw JSON', args: ['POST', `${h}/post`, 'name=Ada', 'age:=36', 'languages:=["en","fr"]'] },
    { note: 'the same items as a URL-encoded form (-f)', args: ['-f', 'POST', `${h}/post`, 'name=Ada Lovelace', 'role=analyst'] },
    { note: 'header items (Name:value)', args: [`${h}/get`, 'X-API-Key:demo-key-123', 'Accept:application/json'] },
    // Without --check-status a 401 still exits 0, so the server's answer is what shows the credentials arrived.
    {
      note: 'basic authentication (-a user:password)',
      args: ['-a', 'ada:lovelace', `${h}/basic-auth/ada/lovelace`],
      check: (sent, last) => (last?.status === 200 ? null : `the server answered ${last?.status ?? 'nothing'}, not 200: credentials not sent?`),
    },
    {
      note: 'preview the request without sending it (--offline)',
      args: ['--offline', 'POST', `${h}/post`, 'name=Ada', 'age:=36'],
      check: (sent) => (sent === 0 ? null : '--offline sent a request to the server'),
    },
    { note: 'verbose: the request as sent, then the response (-v)', args: ['-v', 'PUT', `${h}/post`, 'title=Notes', 'done:=false'] },
    { note: 'an HTTP error as an exit code (--check-status: 4xx exits 4)', args: ['--check-status', `${h}/status/404`], expect: 4 },
    {
      note: 'follow redirects (--follow): three hops to /get',
      args: ['--follow', `${h}/redirect/3`],
      check: (sent, last) => (sent === 4 && last?.path === '/get' ? null : `expected 3 redirects then /get, the server saw ${sent} request(s) ending at ${last?.path ?? 'nothing'}`),
    },
  ];
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  if (!existsSync(opts.bin)) {
    const shown = relative(process.cwd(), opts.bin) || opts.bin;
    console.error(`demo: ${shown} does not exist yet; build it first with \`npm run build\` (or run \`npm run demo\`, which builds and then runs this tour)`);
    process.exit(1);
  }

  const server = await startDemoServer();
  const failures = [];
  try {
    const h = await hostForDemo(server.port);
    out(bold('sling demo'));
    out(dim(`A demo server is listening on ${server.url} (loopback only; nothing leaves this machine).`));
    out(dim(`Each command is shown as you would type it; here \`sling\` runs \`node ${relative(process.cwd(), opts.bin) || opts.bin}\`.`));

    for (const step of tour(h)) {
      const expect = step.expect ?? 0;
      const line = ['sling', ...step.args.map(shellQuote)].join(' ');
      out(); // also ends sling's last line if its output had no final newline
      out(dim(`# ${step.note}`));
      out(bold(`$ ${line}`));
      const before = server.stats.requests;
      const result = await runSling(opts.bin, step.args);
      if (result.error) {
        out(red(`demo: ${result.error}`));
        failures.push(`${line}: ${result.error}`);
        continue;
      }
      if (expect !== 0 || result.code !== 0) {
        out(bold('$ echo $?'));
        out(String(result.code));
      }
      if (result.code !== expect) {
        out(red(`demo: expected exit status ${expect}, got ${result.code}`));
        failures.push(`${line}: exit status ${result.code}, expected ${expect}`);
      } else {
        const problem = step.check?.(server.stats.requests - before, server.stats.last);
        if (problem) {
          out(red(`demo: ${problem}`));
          failures.push(`${line}: ${problem}`);
        }
      }
    }
  } finally {
    await server.close();
  }

  out();
  if (failures.length) {
    out(red(bold(`demo: ${failures.length} command(s) did not behave as expected:`)));
    for (const f of failures) out(red(`  - ${f}`));
    process.exitCode = 1;
  } else {
    out(green('Every command behaved as expected.') + ' Next: `node dist/sling.js --help`, or `node demo/server.mjs` to keep the server running.');
  }
}

main().catch((err) => {
  console.error(`demo: ${err && err.message ? err.message : err}`);
  process.exit(1);
});
