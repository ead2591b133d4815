import { createRequire } from 'node:module';
import { JETBRAINS_SETUP } from './build/src/sources/http/sandbox.js';
const { newQuickJSWASMModuleFromVariant } = await import('quickjs-emscripten-core');
const require = createRequire(import.meta.url);
const variant = { type: 'sync', importFFI: () => import('@jitl/quickjs-wasmfile-release-sync/ffi').then((m) => m.QuickJSFFI), importModuleLoader: async () => require('./node_modules/@jitl/quickjs-wasmfile-release-sync/dist/emscripten-module.cjs') };
const mod = await newQuickJSWASMModuleFromVariant(variant);
const rt = mod.newRuntime(); rt.setMemoryLimit(256 << 20); rt.setMaxStackSize(256 * 1024);
let ticks = 0; rt.setInterruptHandler(() => { ticks++; return false; });
const ctx = rt.newContext();
const fn = ctx.newFunction('host', (...a) => undefined); ctx.setProp(ctx.global, '__sling_host', fn); fn.dispose();
let t = performance.now();
const r0 = ctx.evalCode(JETBRAINS_SETUP, 'setup', { type: 'global' }); if (r0.error) { console.log(ctx.dump(r0.error)); process.exit(1); } r0.value.dispose();
console.log('setup ms', performance.now() - t);
const payload = JSON.stringify({ request: { method: 'GET', url: 'http://x/r/1', urlRaw: 'http://x/r/1', headers: [['User-Agent','sling']], headersRaw: [], body: '', bodyRaw: '', iteration: 0 }, response: { status: 200, headers: [['content-type','application/json'],['content-length','40']], body: '{"id":42,"token":"t","items":[1,2,3]}', contentType: 'application/json' }, offset: 3 });
const code = '\n  client.global.set("token", response.body.token);\n  client.test("ok", () => { client.assert(response.status === 200 && response.body.items.length === 3); });\n';
const call = (name, args) => { const f = ctx.getProp(ctx.global, name); const hs = args.map((a) => ctx.newString(a)); const r = ctx.callFunction(f, ctx.undefined, ...hs); f.dispose(); hs.forEach((h) => h.dispose()); if (r.error) { console.log(ctx.dump(r.error)); r.error.dispose(); return; } const v = ctx.typeof(r.value) === 'string' ? ctx.getString(r.value) : undefined; r.value.dispose(); return v; };
const N = 1000; const ph = { begin: 0, eval: 0, jobs: 0, result: 0 };
for (let i = 0; i < N; i++) {
  let a = performance.now(); call('__sling_begin', [payload]); let b = performance.now(); ph.begin += b - a;
  const r = ctx.evalCode(`__sling_run(function () {${code}\n});`, 'sling-script:a.http', { type: 'global' }); if (r.error) console.log(ctx.dump(r.error)); else r.value.dispose();
  a = performance.now(); ph.eval += a - b;
  while (rt.hasPendingJob()) rt.executePendingJobs(1000);
  b = performance.now(); ph.jobs += b - a;
  call('__sling_result', []); a = performance.now(); ph.result += a - b;
}
for (const k in ph) ph[k] = (ph[k] * 1000 / N).toFixed(1) + ' µs';
console.log(ph, 'interrupt calls', ticks);
