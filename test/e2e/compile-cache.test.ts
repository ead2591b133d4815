// sling keeps V8's compiled code of its own files between runs (src/entry/loader.ts, put into
// dist/sling.js by the build). What a user can observe: the cache folder and its files, the same
// output with and without the cache, a broken or unwritable cache that changes nothing but the
// speed, old folders removed; for `sling exec` and for the main command alike.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runSling, VERSION } from '../helpers/cli.js';
import { LONG_RUN } from '../../src/exec/tiering.js';
import { httpServer, show } from '../helpers/assert.js';

async function setup(t: import('node:test').TestContext) {
  const srv = await httpServer(t, (req, res) => {
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify({ path: req.url }));
  });
  const dir = mkdtempSync(join(tmpdir(), 'sling-cc-'));
  const file = join(dir, 'api.http');
  writeFileSync(file, `# @name one\nGET ${srv.url}/one\n\n###\nPOST ${srv.url}/two\nContent-Type: application/json\n\n{"a": 1}\n`);
  const cache = join(dir, 'cache');
  const mainFolder = join(cache, 'v8', `${VERSION}-node${process.version}-${process.arch}`);
  // exec runs with a V8 flag of their own (loader.ts tuneV8), hence a folder of their own.
  const folder = `${mainFolder}-exec`;
  const run = (env: Record<string, string> = {}) => runSling(['exec', '--print=b', file], { env: { SLING_CACHE_DIR: cache, ...env } });
  return { run, cache, folder, mainFolder, dir };
}

const EXPECTED = '### one: GET http://127.0.0.1:PORT/one  (line 2)\n{"path":"/one"}\n### POST http://127.0.0.1:PORT/two  (line 5)\n{"path":"/two"}';
const normal = (s: string) => s.replace(/127\.0\.0\.1:\d+/g, '127.0.0.1:PORT').replace(/\n+/g, '\n').trim();

test('compile cache: written on the first run, used on the next, same output', async (t) => {
  const { run, folder } = await setup(t);
  const first = await run();
  assert.equal(first.code, 0, show(first));
  assert.equal(first.stderr, '');
  assert.equal(normal(first.stdout), EXPECTED);
  const files = readdirSync(folder);
  assert.ok(files.length >= 5, `cache files: ${files.join(', ')}`);
  // The chunks' entries, and (exec only) how much code the run that wrote them had made.
  assert.ok(files.every((f) => f.endsWith('.js.v8') || f === 'code-size'), files.join(', '));
  assert.match(readFileSync(join(folder, 'code-size'), 'utf8'), /^\d+$/);
  assert.ok(files.some((f) => f.startsWith('runner-')), files.join(', '));
  const before = readFileSync(join(folder, files.find((f) => f.startsWith('runner-'))!));
  const second = await run();
  assert.equal(second.code, 0, show(second));
  assert.equal(second.stderr, '');
  assert.equal(normal(second.stdout), EXPECTED);
  // A valid entry is read, not written again.
  assert.deepEqual(readFileSync(join(folder, files.find((f) => f.startsWith('runner-'))!)), before);
  const off = await run({ SLING_NO_COMPILE_CACHE: '1' });
  assert.equal(normal(off.stdout), EXPECTED);
});

test('compile cache: exec writes it all again after a run that made much more code than the one that wrote it, once', async (t) => {
  const { run, folder, dir } = await setup(t);
  assert.equal((await run()).code, 0);
  const snapshot = () => new Map(readdirSync(folder).map((f) => [f, readFileSync(join(folder, f))]));
  const small = snapshot();
  const smallCode = Number(small.get('code-size'));
  // The same small file again: nothing is written.
  assert.equal((await run()).code, 0);
  assert.deepEqual(snapshot(), small);
  // 300 requests on one connection take code paths the 2-request run never compiled.
  const srvUrl = /^# @name one\nGET (http:\/\/127\.0\.0\.1:\d+)/.exec(readFileSync(join(dir, 'api.http'), 'utf8'))![1]!;
  const many = join(dir, 'many.http');
  writeFileSync(many, Array.from({ length: 300 }, (_, i) => `###\nPOST ${srvUrl}/n${i}\nContent-Type: application/json\n\n{"i": ${i}}\n`).join('\n'));
  const runMany = () => runSling(['exec', '--print=b', many], { env: { SLING_CACHE_DIR: join(dir, 'cache') } });
  const r = await runMany();
  assert.equal(r.code, 0, show(r));
  assert.equal(r.stdout.match(/"path":"\/n\d+"/g)?.length, 300);
  const big = snapshot();
  assert.ok(Number(big.get('code-size')) > smallCode * 1.1, `${big.get('code-size')} after ${smallCode}`);
  const runner = [...big.keys()].find((f) => f.startsWith('runner-'))!;
  assert.notDeepEqual(big.get(runner), small.get(runner), 'the runner chunk was written again');
  // A run of the same size: nothing is written again.
  assert.equal((await runMany()).code, 0);
  assert.deepEqual(snapshot(), big);
  // And the small file still runs the same, from the larger cache.
  const again = await run();
  assert.equal(normal(again.stdout), EXPECTED);
  assert.deepEqual(snapshot(), big);
});

test('compile cache: a long exec run (V8 set to optimise sooner while it runs) leaves a cache the next runs accept', async (t) => {
  const { run, folder, dir } = await setup(t);
  const srvUrl = /^# @name one\nGET (http:\/\/127\.0\.0\.1:\d+)/.exec(readFileSync(join(dir, 'api.http'), 'utf8'))![1]!;
  const long = join(dir, 'long.http');
  writeFileSync(long, Array.from({ length: LONG_RUN }, (_, i) => `###\nPOST ${srvUrl}/n${i}\nContent-Type: application/json\n\n{"i": ${i}}\n`).join('\n'));
  const runLong = () => runSling(['exec', '--print=b', long], { env: { SLING_CACHE_DIR: join(dir, 'cache') }, timeoutMs: 60_000 });
  const r = await runLong();
  assert.equal(r.code, 0, show(r));
  assert.equal(r.stdout.match(/"path":"\/n\d+"/g)?.length, LONG_RUN);
  const snapshot = () => new Map(readdirSync(folder).map((f) => [f, readFileSync(join(folder, f))]));
  const written = snapshot();
  assert.ok(written.size >= 5, [...written.keys()].join(', '));
  // Entries written with V8's flags as the run changed them would be rejected by the next run
  // (V8 checks its code cache against its flags) and written again.
  const short = await run();
  assert.equal(normal(short.stdout), EXPECTED);
  assert.deepEqual(snapshot(), written);
  assert.equal((await runLong()).code, 0);
  assert.deepEqual(snapshot(), written);
});

test('compile cache: a broken entry is rejected and written again; the run is unchanged', async (t) => {
  const { run, folder } = await setup(t);
  assert.equal((await run()).code, 0);
  const files = readdirSync(folder);
  for (const f of files) writeFileSync(join(folder, f), 'not a code cache');
  const r = await run();
  assert.equal(r.code, 0, show(r));
  assert.equal(r.stderr, '');
  assert.equal(normal(r.stdout), EXPECTED);
  for (const f of files) assert.notEqual(readFileSync(join(folder, f), 'utf8'), 'not a code cache', f);
});

test('compile cache: an unusable cache folder is no error', async (t) => {
  const { run, cache } = await setup(t);
  writeFileSync(cache, 'a file where the cache folder would be');
  const r = await run();
  assert.equal(r.code, 0, show(r));
  assert.equal(r.stderr, '');
  assert.equal(normal(r.stdout), EXPECTED);
});

test('compile cache: folders of other versions are removed when a new one is made', async (t) => {
  const { run, cache, folder } = await setup(t);
  const old = join(cache, 'v8', '0.0.1-node-v18.0.0-x64');
  mkdirSync(old, { recursive: true });
  writeFileSync(join(old, 'chunk-OLD.js.v8'), 'x');
  const r = await run();
  assert.equal(r.code, 0, show(r));
  assert.ok(existsSync(folder));
  assert.equal(existsSync(old), false);
});

test('compile cache: the main command uses it too (its own chunks, same output, entries not rewritten)', async (t) => {
  const { cache, mainFolder: folder } = await setup(t);
  const run = (env: Record<string, string> = {}) => runSling(['--offline', 'POST', 'example.org/x', 'a=1'], { env: { SLING_CACHE_DIR: cache, ...env } });
  const expected = (await run({ SLING_NO_COMPILE_CACHE: '1' })).stdout;
  assert.match(expected, /^POST \/x HTTP\/1\.1\n[\s\S]*\n\n\{"a": "1"\}$/);
  assert.equal(existsSync(folder), false, 'SLING_NO_COMPILE_CACHE=1 writes nothing');
  const first = await run();
  assert.equal(first.code, 0, show(first));
  assert.equal(first.stderr, '');
  assert.equal(first.stdout, expected);
  const files = readdirSync(folder);
  // The entry's own chunks and the request path's: several files, none of the exec path's.
  assert.ok(files.length >= 5, files.join(', '));
  assert.ok(!files.some((f) => f.startsWith('runner-') || f.startsWith('http-')), files.join(', '));
  const before = files.map((f) => readFileSync(join(folder, f)));
  const second = await run();
  assert.equal(second.stdout, expected);
  assert.equal(second.stderr, '');
  assert.deepEqual(
    files.map((f) => readFileSync(join(folder, f))),
    before,
  );
});

test('compile cache: exec and the main command keep their own folders and do not reject each other\'s entries', async (t) => {
  const { run, cache, folder, mainFolder } = await setup(t);
  const main = () => runSling(['--offline', 'POST', 'example.org/x', 'a=1'], { env: { SLING_CACHE_DIR: cache } });
  assert.equal((await run()).code, 0);
  assert.equal((await main()).code, 0);
  const snapshot = (dir: string) => new Map(readdirSync(dir).map((f) => [f, readFileSync(join(dir, f))]));
  const execFiles = snapshot(folder);
  const mainFiles = snapshot(mainFolder);
  // Both sets hold the chunks both commands load (the entry's own): V8 would reject an entry written
  // under the other command's flags, and the two would rewrite each other's files on every run.
  assert.ok([...execFiles.keys()].some((f) => mainFiles.has(f)), `${[...execFiles.keys()]} / ${[...mainFiles.keys()]}`);
  for (let i = 0; i < 2; i++) {
    const r = await run();
    assert.equal(r.code, 0, show(r));
    assert.equal(normal(r.stdout), EXPECTED);
    assert.equal((await main()).code, 0);
  }
  assert.deepEqual(snapshot(folder), execFiles);
  assert.deepEqual(snapshot(mainFolder), mainFiles);
  // A new version's folder removes older ones, never this version's other folder.
  rmSync(folder, { recursive: true });
  assert.equal((await run()).code, 0);
  assert.deepEqual(snapshot(mainFolder), mainFiles);
});

test('compile cache: entries of chunks the build no longer has are removed when an entry is written', async (t) => {
  const { run, folder } = await setup(t);
  assert.equal((await run()).code, 0);
  const files = readdirSync(folder);
  writeFileSync(join(folder, 'chunk-GONE1234.js.v8'), 'an entry of an older build');
  // Nothing to write: nothing is touched.
  assert.equal((await run()).code, 0);
  assert.ok(existsSync(join(folder, 'chunk-GONE1234.js.v8')));
  // One entry missing: it is written, and the old build's entry goes.
  rmSync(join(folder, files[0]!));
  const r = await run();
  assert.equal(r.code, 0, show(r));
  assert.equal(normal(r.stdout), EXPECTED);
  assert.equal(existsSync(join(folder, 'chunk-GONE1234.js.v8')), false);
  assert.deepEqual(readdirSync(folder).sort(), [...files].sort());
});
