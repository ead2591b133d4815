import type { QuickJSContext, QuickJSHandle, QuickJSRuntime, QuickJSSyncVariant, QuickJSWASMModule } from 'quickjs-emscripten-core';

/**
 * The JavaScript engine of `.http` scripts: QuickJS compiled to WebAssembly (the
 * quickjs-emscripten package), run inside sling's process. It is a second engine with a heap of
 * its own in the module's linear memory and no host objects at all: no `require`, `process`,
 * file system, network, timers or modules exist in it, and none can be reached by climbing
 * prototypes, because nothing of Node's realm was ever put there. The only way out is one host
 * function per realm, which takes strings and gives back a string (or nothing); sling decides what
 * each call may do (script.ts). Values coming back are strings, read as data.
 *
 * Limits, all the engine's own: a heap of `memoryMb` (a script that allocates more gets an "out of
 * memory" error, and the runtime is thrown away), a deadline checked by the interrupt handler
 * (uncatchable inside the script: an endless loop or an endless chain of promise jobs ends there),
 * and a stack of STACK_BYTES (deep recursion is a catchable "stack overflow" inside, well before
 * Node's own stack could run out). Anything that fails on the host side while the engine runs (a
 * bug, or Node's stack after all) throws the whole WebAssembly instance away: a new one is made
 * for the next script.
 *
 * Loaded with the first script of a run (entries.ts imports script.ts only then): the
 * WebAssembly file is compiled once (15-25 ms), never on the path of a run without scripts.
 */

/** QuickJS's own stack limit: measured to end recursion inside the engine (a catchable error) before Node's stack overflows. */
const STACK_BYTES = 256 * 1024;

let modulePromise: Promise<QuickJSWASMModule> | undefined;

/** The engine (one WebAssembly instance), made on first use and again after one was thrown away. */
export function loadEngine(): Promise<QuickJSWASMModule> {
  modulePromise ??= (async () => {
    const { newQuickJSWASMModuleFromVariant } = await import('quickjs-emscripten-core');
    // The package's own variant object would load its ES-module glue, which finds the .wasm file
    // through import.meta.url: gone once bundled into sling's CommonJS chunks. Its CommonJS glue
    // looks beside itself (__dirname), where scripts/build.mjs puts the file.
    const variant: QuickJSSyncVariant = {
      type: 'sync',
      importFFI: () => import('@jitl/quickjs-wasmfile-release-sync/ffi').then((m) => m.QuickJSFFI),
      // @ts-expect-error: the glue has no type declarations of its own under this path
      importModuleLoader: () => import('../../../node_modules/@jitl/quickjs-wasmfile-release-sync/dist/emscripten-module.cjs').then((m) => m.default ?? m),
    };
    return newQuickJSWASMModuleFromVariant(variant);
  })();
  modulePromise.catch(() => {
    modulePromise = undefined;
  });
  return modulePromise;
}

/** Throws the current instance away: the next loadEngine() makes a new one. */
function discardEngine() {
  modulePromise = undefined;
}

/** The one way out of a realm: an operation's name and its string arguments; a string or nothing back. */
export type HostCall = (op: string, args: (string | undefined)[]) => string | undefined;

/** Why a run ended without a value: the engine's limits, or a failure on the host side. */
export type Fault = 'time' | 'memory' | 'host';

export interface Outcome {
  /** The value, when it is a string (anything else is dropped). */
  value?: string;
  /** An error the code threw (or a syntax error), as text read inside the engine. */
  error?: { name: string; message: string; stack: string };
  fault?: Fault;
  /** Promise jobs ran after the value was read (a value made before them may be out of date). */
  jobs?: boolean;
}

/** A runtime: one heap, one memory limit, any number of realms. */
export class Engine {
  private readonly rt: QuickJSRuntime;
  private deadline = Number.POSITIVE_INFINITY;
  private timedOut = false;
  private dead = false;
  /** Whether drain() ran a job since guard() began. */
  private ranJobs = false;

  constructor(
    module: QuickJSWASMModule,
    readonly memoryMb: number,
  ) {
    this.rt = module.newRuntime();
    this.rt.setMemoryLimit(memoryMb * 1024 * 1024);
    this.rt.setMaxStackSize(STACK_BYTES);
    this.rt.setInterruptHandler(() => {
      if (Date.now() <= this.deadline) return false;
      this.timedOut = true;
      return true;
    });
  }

  /** Whether this runtime can run more code (a fault ends it). */
  get alive(): boolean {
    return !this.dead;
  }

  /** The fault that ended it. Past a time limit the runtime is still whole: sling may read what the script left (Realm.call's `afterTimeLimit`). */
  lastFault?: Fault;

  /**
   * A realm (a global object of its own) with `setup` run in it, in order, each a program of
   * sling's own. The host function is `globalThis.__sling_host` while they run; the setup keeps
   * it in a closure and deletes the global.
   */
  realm(host: HostCall, setup: string[]): Realm {
    const ctx = this.rt.newContext();
    const fn = ctx.newFunction('host', (...args: QuickJSHandle[]) => {
      let out: string | undefined;
      try {
        const op = args[0] && ctx.typeof(args[0]) === 'string' ? ctx.getString(args[0]) : '';
        const rest = args.slice(1).map((a) => (ctx.typeof(a) === 'string' ? ctx.getString(a) : undefined));
        out = host(op, rest);
      } catch {
        out = undefined;
      }
      return out === undefined ? undefined : ctx.newString(out);
    });
    ctx.setProp(ctx.global, '__sling_host', fn);
    fn.dispose();
    const realm = new Realm(this, ctx);
    for (const [i, code] of setup.entries()) {
      const o = realm.eval(code, `sling-setup-${i}`, 5000);
      if (o.error || o.fault) {
        realm.dispose();
        throw new Error(`the script sandbox did not start: ${o.error?.message ?? o.fault}`);
      }
    }
    return realm;
  }

  /** Runs `step` within `ms`: the interrupt handler ends the code past the deadline. */
  guard(ms: number, step: () => Outcome): Outcome {
    this.deadline = Date.now() + ms;
    this.timedOut = false;
    this.ranJobs = false;
    try {
      const out = step();
      // Interrupted inside an async function, the error only rejects its promise: the deadline still ended the script.
      if (this.timedOut) return this.fault('time');
      return this.ranJobs ? { ...out, jobs: true } : out;
    } finally {
      this.deadline = Number.POSITIVE_INFINITY;
    }
  }

  /** The promise jobs the code left, run now (within the same deadline). */
  drain(): Outcome | undefined {
    for (;;) {
      if (!this.rt.hasPendingJob()) return undefined;
      this.ranJobs = true;
      const r = this.rt.executePendingJobs(1000);
      if (r.error) {
        const ctx = r.error.context;
        const o = this.outcomeOfError(ctx, r.error);
        if (o.fault) return o;
      }
    }
  }

  /** An error handle read as text, with the fault it stands for. */
  outcomeOfError(ctx: QuickJSContext, handle: QuickJSHandle): Outcome {
    let error: Outcome['error'];
    try {
      const read = (key: string) => {
        const h = ctx.getProp(handle, key);
        try {
          return ctx.typeof(h) === 'string' ? ctx.getString(h) : '';
        } finally {
          h.dispose();
        }
      };
      error =
        ctx.typeof(handle) === 'object'
          ? { name: read('name'), message: read('message'), stack: read('stack') }
          : { name: '', message: ctx.typeof(handle) === 'string' ? ctx.getString(handle) : String(ctx.dump(handle)), stack: '' };
    } catch {
      error = { name: '', message: 'an error that cannot be shown', stack: '' };
    } finally {
      handle.dispose();
    }
    if (this.timedOut) return this.fault('time');
    if (error.name === 'InternalError' && error.message === 'out of memory') return this.fault('memory');
    return { error };
  }

  /** A limit reached or the host side failed: this runtime is done. */
  fault(kind: Fault): Outcome {
    this.dead = true;
    this.lastFault ??= kind;
    if (kind === 'host') discardEngine();
    return { fault: kind };
  }

  dispose() {
    this.dead = true;
    try {
      this.rt.dispose();
    } catch {
      // a runtime left by a fault may not free cleanly: the instance goes with it
      discardEngine();
    }
  }
}

/** A global object of its own inside an Engine, reached only through its host function. */
export class Realm {
  constructor(
    private readonly engine: Engine,
    private readonly ctx: QuickJSContext,
  ) {}

  /** Evaluates a program (sloppy mode, as a classic script) within `ms`; its pending promise jobs run too. */
  eval(code: string, filename: string, ms: number): Outcome {
    const { engine, ctx } = this;
    if (!engine.alive) return { fault: 'host' };
    try {
      return engine.guard(ms, () => this.outcome(ctx.evalCode(code, filename, { type: 'global' })));
    } catch {
      return engine.fault('host');
    }
  }

  /** Calls the global function `name` with string arguments, within `ms`. */
  call(name: string, args: string[], ms: number, afterTimeLimit = false): Outcome {
    const { engine, ctx } = this;
    if (!engine.alive && !(afterTimeLimit && engine.lastFault === 'time')) return { fault: 'host' };
    try {
      return engine.guard(ms, () => {
        const fn = ctx.getProp(ctx.global, name);
        const handles = args.map((a) => ctx.newString(a));
        try {
          return this.outcome(ctx.callFunction(fn, ctx.undefined, ...handles));
        } finally {
          fn.dispose();
          for (const h of handles) h.dispose();
        }
      });
    } catch {
      return engine.fault('host');
    }
  }

  /** What an evaluation or a call gave: its value when a string, or its error; then the promise jobs it left. */
  private outcome(r: { error?: QuickJSHandle; value?: QuickJSHandle }): Outcome {
    const { engine, ctx } = this;
    if (r.error) return engine.outcomeOfError(ctx, r.error);
    const value = r.value!;
    let out: Outcome;
    try {
      out = ctx.typeof(value) === 'string' ? { value: ctx.getString(value) } : {};
    } finally {
      value.dispose();
    }
    return engine.drain() ?? out;
  }

  dispose() {
    try {
      this.ctx.dispose();
    } catch {
      // the runtime goes with it
    }
  }
}
