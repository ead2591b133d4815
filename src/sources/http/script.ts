import { oneLine } from '../../errors.js';
import { Engine, type Fault, loadEngine, type Outcome, type Realm } from './quickjs.js';
import { checked, jetbrainsHelper, libraryHelper } from './sandbox.js';
import { checked as checkedYac, httpyacProgram, type YacOutcome } from './sandbox-httpyac.js';

// The setup program of each realm: the text of engine/jetbrains.ts, engine/httpyac.ts and
// engine/expressions.ts, each bundled into one script by scripts/build.mjs (esbuild's `define`).
// The engine's code is never imported here: it runs only inside the engine, from this text.
declare const SLING_ENGINE_JETBRAINS: string;
declare const SLING_ENGINE_HTTPYAC: string;
declare const SLING_ENGINE_EXPRESSIONS: string;

/**
 * JetBrains HTTP Client scripts (`< {% %}` pre-request scripts, `> {% %}` response handlers),
 * httpyac's JavaScript (`{{ }}` blocks, `{{ expression }}` placeholders) and httpyac's `?? js`
 * assertions, run in QuickJS (quickjs.ts): a JavaScript engine of its own, compiled to
 * WebAssembly, with no host objects in it at all. Code from a file can reach nothing of sling's
 * process, Node, the file system, programs, modules or the environment, even if it finds a way
 * around the API it is given: there is nothing on the other side but the one host function of its
 * realm, whose every operation is listed in `call` below and takes and gives strings.
 *
 * Three realms per run, made when first needed: the JetBrains API (engine/jetbrains.ts), httpyac's
 * (engine/httpyac.ts), and one for assertion expressions (engine/expressions.ts). Each script has 10 s (an expression 1 s)
 * and the engine a heap of SCRIPT_MEMORY_MB: past either, that script fails (its request is
 * reported, the requests before it keep their output) and the engine is made anew for the next
 * one; what sling keeps (client.global values, as text) is still there. Loaded only when a file
 * has scripts.
 */
export interface ScriptHooks {
  setGlobal(name: string, text: string): void;
  getGlobal(name: string): string | undefined;
  clearGlobal(name: string): void;
  clearAll(): void;
  globalsEmpty(): boolean;
  /** request.environment.get */
  env(name: string): string | undefined;
  /** client.variables.file.get */
  fileVar(name: string): string | undefined;
  /** request.variables.get for names no script set: any variable the request sees. */
  lookup(name: string): string | undefined;
  setRequestVar(name: string, text: string, json: string | undefined): void;
  /** A request variable a script set to a value other than a string, as JSON (it keeps its type in the handler). */
  requestVarJson(name: string): string | undefined;
  /** client.global.headers.set: a header for this request (from a pre-request script) and every later one. */
  setGlobalHeader(name: string, value: string): void;
  /** client.global.headers.clear: no longer. */
  clearGlobalHeader(name: string): void;
}

export interface ScriptRequest {
  method: string;
  url: string;
  urlRaw: string;
  headers: [string, string][];
  /** The headers the file gives, as written (getRawValue()). */
  headersRaw: [string, string][];
  body: string;
  bodyRaw: string;
  iteration: number;
}

export interface ScriptResponse {
  status: number;
  headers: [string, string][];
  body: string;
  contentType: string;
  /** A stream's messages from the server (WebSocket, server-sent events, gRPC), in order. */
  messages?: { text: string; event?: string; id?: string }[];
  /** gRPC: the messages are JSON (handed to handlers parsed). */
  json?: boolean;
}

export interface ScriptResult {
  /** [test name, failure message or null]. */
  tests: [string, string | null][];
  logs: string[];
  exit: boolean;
  /** An uncaught error (or a failed assertion outside client.test). */
  error?: string;
  /** A stream's onEachMessage subscriber called unsubscribe(). */
  unsubscribed?: boolean;
}

/** JetBrains' script API that sling does not run. */
const UNSUPPORTED: [RegExp, string][] = [];

function countLines(text: string, end: number): number {
  let n = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < end; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

/** What an httpyac script or expression gives back (engine/httpyac.ts), as sandbox-httpyac.ts checks it. */
export type HttpyacOutcome = YacOutcome;

const TIMEOUT_MS = 10_000;
/** A script's request and response up to this size go into the engine as program text (one trip in); larger, as an argument. */
const INLINE_PAYLOAD = 64 * 1024;
/** What a JetBrains script may change of sling's state, told with its result (engine/jetbrains.ts). */
const CHANGES = new Set(['setGlobal', 'clearGlobal', 'clearAll', 'setRequestVar', 'setGlobalHeader', 'clearGlobalHeader']);
const EXPRESSION_MS = 1000;
/** The engine's heap, in MB (SLING_SCRIPT_MEMORY_MB changes it). */
export const SCRIPT_MEMORY_MB = 256;

/** An expression asks nothing (nor do httpyac's scripts: every value they see comes with them). */
const NO_HOOKS: ScriptHooks = {
  setGlobal() {},
  getGlobal: () => undefined,
  clearGlobal() {},
  clearAll() {},
  globalsEmpty: () => true,
  env: () => undefined,
  fileVar: () => undefined,
  lookup: () => undefined,
  setRequestVar() {},
  requestVarJson: () => undefined,
  setGlobalHeader() {},
  clearGlobalHeader() {},
};

const failed = (error: string): ScriptResult => ({ tests: [], logs: [], exit: false, error });
const failedYac = (error: string): HttpyacOutcome => ({ logs: [], tests: [], exports: {}, global: '', error });

/** Where a syntax error is: the line of the file, from the engine's `sling-script:FILE:LINE` plus the lines before the code. */
function syntaxError(o: Outcome, offset: number): string {
  const e = o.error!;
  const at = /sling-script:(.*?):(\d+)/.exec(e.stack);
  return `syntax error: ${e.message}${at ? ` (at ${at[1]}:${Number(at[2]) + offset})` : ''}`;
}

/**
 * QuickJS says "not a function" without the name Node gives (`response.body.trim is not a
 * function`): the callee is read from the program's text where the engine says the call is (the
 * `.` before a method's name, or the start of a plain name).
 */
function namedCallee(r: ScriptResult & { at?: [number, number] }, program: string): ScriptResult {
  const { at, ...rest } = r;
  if (!at || rest.error === undefined || !rest.error.startsWith('not a function')) return rest;
  const text = program.split('\n')[at[0] - 1] ?? '';
  // The engine points at the call's '(' or at the '.' before the method's name: the first '(' from
  // just before there, and the name (a.b.c) right before that '('.
  const open = text.indexOf('(', Math.max(0, at[1] - 2));
  if (open === -1 || open > at[1] + 64) return rest;
  const callee = /[\w$]+(?:\s*\.\s*[\w$]+)*\s*$/.exec(text.slice(0, open))?.[0].replace(/\s+/g, '');
  return callee ? { ...rest, error: `${callee} is ${rest.error}` } : rest;
}

/** A plain error's text: QuickJS quotes an unknown name ('x' is not defined), Node does not. */
const engineMessage = (m: string) => m.replace(/^'([\w$]+)' is not defined$/, '$1 is not defined');

export class ScriptHost {
  private engine?: Engine;
  private jetbrains?: Realm;
  private httpyac?: Realm;
  private expressions?: Realm;
  /** The hooks of the script running now. */
  private hooks: ScriptHooks = NO_HOOKS;
  private queue: Promise<unknown> = Promise.resolve();
  /** When the script running now must end (a wait inside it counts). */
  private until = 0;

  constructor(
    /** SLING_SCRIPT_MEMORY_MB. */
    private readonly memoryText: string | undefined = process.env.SLING_SCRIPT_MEMORY_MB,
    private readonly warn: (text: string) => void = (text) => {
      process.stderr.write(`sling: warning: ${oneLine(text)}\n`);
    },
  ) {}

  /** One script at a time, in the order asked. */
  run(code: string, filename: string, line: number, hooks: ScriptHooks, request: ScriptRequest, response?: ScriptResponse): Promise<ScriptResult> {
    return this.serial(async () => {
      const opened = await this.open('jetbrains');
      if (typeof opened === 'string') return failed(opened);
      const { engine, realm } = opened;
      this.hooks = hooks;
      this.until = Date.now() + TIMEOUT_MS;
      try {
        const offset = line - 1;
        if (response && response.body.length > this.bodyLimit(engine.memoryMb)) return failed(this.bodyTooLarge(engine.memoryMb, response.body.length));
        // One program, one trip into the engine (each costs more than the work of a small handler):
        // the request and response, the script as a function (on the program's first line, so that
        // its line numbers are the file's less `offset`), and the result. A large payload goes in
        // as an argument instead of program text.
        const payload = JSON.stringify({ request, response, offset });
        const inline = payload.length <= INLINE_PAYLOAD;
        if (!inline) {
          const begun = realm.call('__sling_begin', [payload], this.left());
          if (begun.fault || begun.error) return this.outOfMemory(failed(this.faultText(begun, 'the script failed')));
        }
        const program = `${inline ? `__sling_begin(${JSON.stringify(payload)}); ` : ''}__sling_run(function () {${code}\n}); __sling_result()`;
        let out = realm.eval(program, `sling-script:${filename}`, this.left());
        if (out.fault === 'time') this.apply(realm.call('__sling_changes', [], 1000, true).value);
        if (out.fault) return failed(this.faultText(out, ''));
        if (out.error) return failed(out.error.name === 'SyntaxError' ? syntaxError(out, offset) : `the script failed: ${engineMessage(out.error.message)}`);
        // Promise jobs ran after the result was made (an async test settling): the result again.
        if (out.jobs) {
          this.apply(out.value);
          out = realm.call('__sling_result', [], this.left());
          if (out.fault === 'time') this.apply(realm.call('__sling_changes', [], 1000, true).value);
          if (out.fault) return failed(this.faultText(out, ''));
        }
        return this.outOfMemory(namedCallee(checked(this.apply(out.value)) as ScriptResult, program));
      } finally {
        this.hooks = NO_HOOKS;
        this.settle();
      }
    });
  }

  /**
   * What a script uses of JetBrains' API that sling does not have, with the line (of `code`,
   * counted from `line`): said as a warning before it runs (where it calls it, it fails).
   */
  unsupported(code: string, line: number): { line: number; what: string }[] {
    const out: { line: number; what: string }[] = [];
    for (const [re, what] of UNSUPPORTED) {
      re.lastIndex = 0;
      for (let m = re.exec(code); m; m = re.exec(code)) out.push({ line: line + countLines(code, m.index), what });
    }
    return out;
  }

  /** Loads the engine ahead of the first script (a file with scripts), while requests go out. */
  warm(): void {
    this.ready().catch(() => undefined);
  }

  /**
   * An httpyac assertion's expression (assert-run.ts, expressionOf) over `input`, the response as
   * JSON: its value as JSON, or why not. In a realm holding nothing but `response`, 1 s at most.
   */
  evaluate(code: string, input: string): Promise<{ json?: string; error?: string }> {
    return this.serial(async () => {
      const opened = await this.open('expressions');
      if (typeof opened === 'string') return { error: opened };
      const { realm } = opened;
      this.until = Date.now() + EXPRESSION_MS;
      try {
        const set = realm.call('__expr_set', [input], this.left());
        if (set.fault || set.error) return { error: this.faultText(set, 'the expression failed') };
        const program = `(() => { const response = JSON.parse(__expr_take()); const v = (${code}\n); return v === undefined ? undefined : JSON.stringify(v); })()`;
        const o = realm.eval(program, 'assertion', this.left());
        if (o.fault === 'time') return { error: `the expression ran longer than ${EXPRESSION_MS} ms` };
        if (o.fault) return { error: this.faultText(o, '') };
        if (o.error) return { error: `the expression failed: ${engineMessage(o.error.message)}` };
        return o.value === undefined ? {} : { json: o.value };
      } finally {
        this.settle();
      }
    });
  }

  /** httpyac's JavaScript (httpyac-js.ts): a `{{ }}` block or a `{{ expression }}` with the named JSON values in `payload`. */
  runHttpyac(code: string, mode: 'script' | 'expr', filename: string, line: number, payload: string): Promise<HttpyacOutcome> {
    return this.serial(async () => {
      const opened = await this.open('httpyac');
      if (typeof opened === 'string') return failedYac(opened);
      const { realm } = opened;
      this.until = Date.now() + TIMEOUT_MS;
      // The code's first line is line 3 of the program (httpyacProgram).
      const offset = line - 3;
      try {
        const prepared = realm.call('__yac_prepare', [payload, String(offset)], this.left());
        if (prepared.fault || prepared.error) return failedYac(this.faultText(prepared, 'the script failed'));
        const ran = realm.eval(httpyacProgram(code, mode), `sling-script:${filename}`, this.left());
        if (ran.fault) return failedYac(this.faultText(ran, ''));
        if (ran.error) return failedYac(ran.error.name === 'SyntaxError' ? syntaxError(ran, offset) : `the script failed: ${engineMessage(ran.error.message)}`);
        const out = realm.call('__yac_result', [], this.left());
        if (out.fault) return failedYac(this.faultText(out, ''));
        return this.outOfMemory(checkedYac(out.value));
      } finally {
        this.settle();
      }
    });
  }

  /**
   * `[changes, result]` from the JetBrains realm: the changes applied to sling's state (through the
   * hooks of the script running), in the order made; the result's text back (undefined when the
   * text is not that shape: checked() says the sandbox was broken).
   */
  private apply(text: string | undefined): string | undefined {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text ?? '');
    } catch {
      return undefined;
    }
    if (!Array.isArray(parsed) || !Array.isArray(parsed[0])) return undefined;
    this.applyChanges(parsed[0]);
    return typeof parsed[1] === 'string' ? parsed[1] : undefined;
  }

  /** Changes a script made, each `[op, ...strings]` (null for no value), applied through the hooks. */
  private applyChanges(list: unknown[]) {
    for (const c of list) {
      if (!Array.isArray(c) || typeof c[0] !== 'string' || !CHANGES.has(c[0])) continue;
      try {
        hook(
          this.hooks,
          c[0],
          c.slice(1).map((a) => (typeof a === 'string' ? a : undefined)),
        );
      } catch {
        // a hook that fails changes nothing
      }
    }
  }

  /** The most of a response body (in characters) a script is handed: a quarter of the engine's heap, which holds it more than once (the text, the payload, the parsed JSON). */
  private bodyLimit(memoryMb: number): number {
    return Math.floor((memoryMb * 1024 * 1024) / 4);
  }

  private bodyTooLarge(memoryMb: number, size: number): string {
    const mb = (n: number) => `${Math.round((n / 1048576) * 10) / 10} MB`;
    return `the response body (${mb(size)}) is more than a script is handed: at most ${mb(this.bodyLimit(memoryMb))}, a quarter of the script memory (SLING_SCRIPT_MEMORY_MB=${memoryMb})`;
  }

  /**
   * Why a response body of `bytes` is not handed to a script, before it is decoded into text for
   * one (a copy of it sling would make for nothing): undefined when it may be.
   */
  refuseBody(bytes: number): string | undefined {
    let memory: number;
    try {
      memory = scriptMemory(this.memoryText);
    } catch {
      return undefined;
    }
    return bytes > this.bodyLimit(memory) ? this.bodyTooLarge(memory, bytes) : undefined;
  }

  /**
   * A script that caught the engine's "out of memory" (a try around the allocation, or the API's
   * own catch around the script) still failed for that reason: said as the limit, and the engine
   * is made anew for the next script.
   */
  private outOfMemory<T extends { error?: string }>(r: T): T {
    if (r.error === undefined || !/^out of memory(?: \(at [^)]*\))?$/.test(r.error)) return r;
    this.engine?.fault('memory');
    return { ...r, error: this.faultText({ fault: 'memory' }, '') };
  }

  private serial<T>(step: () => Promise<T>): Promise<T> {
    const result = this.queue.then(step);
    this.queue = result.catch(() => undefined);
    return result;
  }

  /** The engine and the realm of that kind (each made when first needed), or why they cannot be had. */
  private async open(kind: 'jetbrains' | 'httpyac' | 'expressions'): Promise<{ engine: Engine; realm: Realm } | string> {
    try {
      const engine = await this.ready();
      const setup = { jetbrains: SLING_ENGINE_JETBRAINS, httpyac: SLING_ENGINE_HTTPYAC, expressions: SLING_ENGINE_EXPRESSIONS }[kind];
      const realm = (this[kind] ??= engine.realm(this.call, [setup]));
      return { engine, realm };
    } catch (e) {
      return (e as Error).message;
    }
  }

  /** The engine, made anew after a fault ended the last one. */
  private async ready(): Promise<Engine> {
    if (this.engine?.alive) return this.engine;
    this.settle();
    const memory = scriptMemory(this.memoryText);
    const module = await loadEngine();
    this.engine = new Engine(module, memory);
    return this.engine;
  }

  /** After a run: when a limit or a failure ended the engine, its realms go with it (the next script makes new ones). */
  private settle() {
    if (!this.engine || this.engine.alive) return;
    for (const realm of [this.jetbrains, this.httpyac, this.expressions]) realm?.dispose();
    this.jetbrains = this.httpyac = this.expressions = undefined;
    this.engine.dispose();
    this.engine = undefined;
  }

  private left(): number {
    return Math.max(1, this.until - Date.now());
  }

  private faultText(o: Outcome, prefix: string): string {
    const texts: Record<Fault, string> = {
      time: `the script ran longer than ${TIMEOUT_MS / 1000} s`,
      memory: `the script used more than ${this.engine?.memoryMb ?? SCRIPT_MEMORY_MB} MB of memory (SLING_SCRIPT_MEMORY_MB)`,
      host: 'the script engine failed while running the script (it is started again for the next one)',
    };
    if (o.fault) return texts[o.fault];
    return `${prefix}: ${engineMessage(o.error?.message ?? 'unknown error')}`;
  }

  /** The one way out of every realm: each operation a script may ask for, strings in and out. */
  private readonly call = (op: string, args: (string | undefined)[]): string | undefined => {
    switch (op) {
      case 'warn':
        if (args[0] !== undefined) this.warn(args[0]);
        return undefined;
      case 'wait':
        wait(Math.min(Number(args[0]), this.until - Date.now()));
        return undefined;
      case 'apply': {
        let list: unknown;
        try {
          list = JSON.parse(args[0] ?? '[]');
        } catch {
          return undefined;
        }
        if (Array.isArray(list)) this.applyChanges(list);
        return undefined;
      }
      case 'hash':
      case 'random':
        return libraryHelper(op, args);
      case 'digest':
      case 'jsonPath':
        return jetbrainsHelper(op, args);
      default: {
        const answer = hook(this.hooks, op, args);
        return answer === undefined ? undefined : String(answer);
      }
    }
  };
}

const sleeper = new Int32Array(new SharedArrayBuffer(4));
/** httpyac's sleep(ms): sling waits, within the script's time limit. */
function wait(ms: number) {
  if (ms > 0 && Number.isFinite(ms)) Atomics.wait(sleeper, 0, 0, Math.min(ms, 60_000));
}

/** A question or a change a script asks of sling, by the hook's name. */
function hook(h: ScriptHooks, op: string, a: (string | undefined)[]): string | boolean | undefined {
  const [x = '', y = '', z] = a;
  switch (op) {
    case 'setGlobal':
      h.setGlobal(x, y);
      return undefined;
    case 'getGlobal':
      return h.getGlobal(x);
    case 'globalsEmpty':
      return h.globalsEmpty();
    case 'clearGlobal':
      h.clearGlobal(x);
      return undefined;
    case 'clearAll':
      h.clearAll();
      return undefined;
    case 'env':
      return h.env(x);
    case 'fileVar':
      return h.fileVar(x);
    case 'lookup':
      return h.lookup(x);
    case 'setRequestVar':
      h.setRequestVar(x, y, z);
      return undefined;
    case 'requestVarJson':
      return h.requestVarJson(x);
    case 'setGlobalHeader':
      h.setGlobalHeader(x, y);
      return undefined;
    case 'clearGlobalHeader':
      h.clearGlobalHeader(x);
      return undefined;
    default:
      return undefined;
  }
}

/** SLING_SCRIPT_MEMORY_MB, else 256. */
function scriptMemory(text: string | undefined): number {
  if (text === undefined || text === '') return SCRIPT_MEMORY_MB;
  if (!/^\d+$/.test(text) || Number(text) < 16) throw new Error(`SLING_SCRIPT_MEMORY_MB must be a whole number of megabytes, 16 or more, not '${oneLine(text)}'`);
  return Number(text);
}
