// What the start-up path loads (bench/startup.mjs times it): `--offline` and `--version` must not
// pull in Node's network or stream modules of their own, which cost milliseconds on every start.
// Standard output is Node's process.stdout, whose stream (and for a pipe node:net) comes with any
// output: what a one-line Node program writing to the same stdout loads is allowed, nothing more.
// A check of what is loaded, not of time: a top-level `import 'node:net'` on that path fails it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SLING_PATH, baseEnv, runSling } from '../helpers/cli.js';
import { httpServer } from '../helpers/assert.js';

const HEAVY = ['net', 'http', 'https', 'tls', 'http2', 'zlib', 'stream', 'child_process'];

function modulesLoaded(args: string[], script: string = SLING_PATH): string[] {
  const dir = mkdtempSync(join(tmpdir(), 'sling-modules-'));
  try {
    const preload = join(dir, 'list.cjs');
    const out = join(dir, 'list.txt');
    writeFileSync(preload, `process.on('exit', () => require('fs').writeFileSync(${JSON.stringify(out)}, process.moduleLoadList.join('\\n')));\n`);
    const r = spawnSync(process.execPath, ['-r', preload, ...(script ? [script] : []), ...args], { env: { ...baseEnv(), SLING_CACHE_DIR: dir }, encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    return readFileSync(out, 'utf8')
      .split('\n')
      .filter((l) => l.startsWith('NativeModule '))
      .map((l) => l.slice('NativeModule '.length));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

for (const args of [['--offline', 'POST', 'example.org', 'a=1'], ['--offline', '--resolve', 'example.org:80:127.0.0.1', '--http-version', '1.1', 'example.org'], ['--version']]) {
  test(`sling ${args.join(' ')} loads none of Node's network or stream modules beyond what its stdout needs`, () => {
    const loaded = modulesLoaded(args);
    assert.ok(loaded.includes('fs'), `the list was read (${loaded.length} modules)`);
    // The same stdout (a pipe) written by Node alone.
    const stdoutNeeds = modulesLoaded(['-e', 'process.stdout.write("x")'], '');
    assert.deepEqual(
      HEAVY.filter((m) => loaded.includes(m) && !stdoutNeeds.includes(m)),
      [],
    );
  });
}

/** The chunks of dist/ a run loaded (the compile cache the chunk loader writes names each one). */
async function chunksLoaded(args: string[], cwd: string): Promise<string[]> {
  const dir = mkdtempSync(join(tmpdir(), 'sling-chunks-'));
  try {
    const r = await runSling(args, { env: { SLING_CACHE_DIR: dir }, cwd });
    assert.equal(r.code, 0, r.stderr);
    const [folder] = readdirSync(join(dir, 'v8'));
    return readdirSync(join(dir, 'v8', folder!)).map((f) => f.replace(/-[A-Z0-9]+\.js\.v8$/, ''));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('the Public Suffix List is loaded only by a run that stores a cookie, not by a request or a session without one', async (t) => {
  const s = await httpServer(t, (req, res) => {
    if (req.url === '/set') res.setHeader('Set-Cookie', 'a=1');
    res.end('ok');
  });
  const cwd = mkdtempSync(join(tmpdir(), 'sling-psl-'));
  t.after(() => rmSync(cwd, { recursive: true, force: true }));
  assert.ok(!(await chunksLoaded([`${s.url}/`], cwd)).includes('public-suffix'));
  assert.ok(!(await chunksLoaded(['--session', './s.json', `${s.url}/`], cwd)).includes('public-suffix'));
  const withCookie = await chunksLoaded(['--session', './s.json', `${s.url}/set`], cwd);
  assert.ok(withCookie.includes('session') && withCookie.includes('public-suffix'), withCookie.join(' '));
});

test('the WebSocket, gRPC and protobuf code is loaded only by a run of a file with such a request, not by a plain request or a plain .http run', async (t) => {
  const s = await httpServer(t, (_req, res) => res.end('ok'));
  const cwd = mkdtempSync(join(tmpdir(), 'sling-stream-chunks-'));
  t.after(() => rmSync(cwd, { recursive: true, force: true }));
  writeFileSync(join(cwd, 'plain.http'), `GET ${s.url}/\n`);
  writeFileSync(join(cwd, 'streams.http'), `WEBSOCKET ws://127.0.0.1:1/\n\n###\nGRPC 127.0.0.1:1/a.B/C\n\n{}\n`);
  const streamChunk = (c: string) => /^(websocket|ws-frames|graphql-ws|grpc|grpc-proto|stream-ws|stream-grpc|streams)$/.test(c);
  assert.deepEqual((await chunksLoaded([`${s.url}/`], cwd)).filter(streamChunk), []);
  assert.deepEqual((await chunksLoaded(['exec', 'plain.http'], cwd)).filter(streamChunk), []);
  const offline = await chunksLoaded(['exec', '--offline', 'streams.http'], cwd);
  assert.ok(offline.includes('streams'), offline.join(' '));
  assert.deepEqual(
    offline.filter((c) => /^(websocket|grpc-proto)$/.test(c)),
    [],
    'offline connects nothing',
  );
});
