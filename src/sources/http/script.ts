import { spawn, type ChildProcess } from 'node:child_process';
import { oneLine } from '../../errors.js';

/**
 * JetBrains HTTP Client scripts (`< {% %}` pre-request scripts, `> {% %}` response handlers),
 * run in one node:vm context per run with only the JetBrains API: `client`, `request`, `response`,
 * `jsonPath()` (and `console.log` as `client.log`). No `require`, `process`, timers, file system
 * or network. Loaded only when a file has scripts.
 *
 * The context lives in a child Node.js process of its own (sandbox.ts, started with the first
 * script of a run and kept for the rest of it), with a heap of SCRIPT_MEMORY_MB: a script that
 * takes all the memory it can ends that process, not sling. That script fails (its request is
 * reported, the requests before it keep their output), and the next script starts a new process;
 * what sling keeps (client.global values, as text) is still there. A worker thread's
 * resourceLimits would be cheaper, but a single allocation of more than 16 MB past the limit
 * (`new Array(1e7).fill(1.5)`) ends the whole process on Node 20 to 24 (V8's "Reached heap limit"),
 * where a child process's --max-old-space-size ends the child only.
 *
 * Nothing of either process's realm is handed to scripts: the API objects are built inside the
 * context by a bootstrap whose only link out is a bridge object kept in a closure, and every value
 * that crosses is a string (JSON for structures). Each script runs with a time limit (10 s): sling
 * ends the process when a script has not answered by then (the next one starts another; values a
 * script set with client.global come back as text there, as `{{name}}` gives them).
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
}

export interface ScriptResult {
  /** [test name, failure message or null]. */
  tests: [string, string | null][];
  logs: string[];
  exit: boolean;
  /** An uncaught error (or a failed assertion outside client.test). */
  error?: string;
}

/** The sandbox's code (sandbox.ts, bundled by scripts/build.mjs). */
declare const SLING_SANDBOX: string;

const TIMEOUT_MS = 10_000;
/** The script process's heap, in MB (SLING_SCRIPT_MEMORY_MB changes it). */
export const SCRIPT_MEMORY_MB = 256;

/**
 * What the child runs (`node -e`): it reads its first line, the sandbox's code as a JSON string,
 * and runs it with what it read past that line.
 */
const LOADER =
  "const fs=require('node:fs');const c=Buffer.alloc(65536);let b=Buffer.alloc(0),i;" +
  'while((i=b.indexOf(10))<0){let n;try{n=fs.readSync(0,c,0,c.length,null)}catch(e){if(e.code!=="EAGAIN")throw e;Atomics.wait(new Int32Array(new SharedArrayBuffer(4)),0,0,1);continue}if(!n)process.exit(0);b=Buffer.concat([b,c.subarray(0,n)])}' +
  "const m={exports:{}};require('node:vm').runInThisContext(JSON.parse(b.subarray(0,i).toString()),{filename:'sling-sandbox'})(require,m);m.exports.serve(b.subarray(i+1));";

interface Running {
  hooks: ScriptHooks;
  /** The result when the process ends first. */
  fail: (why: string) => unknown;
  done: (r: unknown) => void;
}

/** The script process of a run: started with the first script, started again after it died. */
interface Child {
  proc: ChildProcess;
  /** The end of its standard error (what V8 says when the heap runs out). */
  stderr: string;
  running?: Running;
  /** Ended by sling (the time limit), not by itself. */
  killed?: boolean;
}

/** JetBrains' script API that sling does not run. */
const UNSUPPORTED: [RegExp, string][] = [[/\bonEachMessage\b/g, 'response.body.onEachMessage (WebSocket and gRPC streams, which sling does not run)']];

function countLines(text: string, end: number): number {
  let n = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < end; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

/** What an httpyac script or expression gives back (sandbox-httpyac.ts). */
export interface HttpyacOutcome {
  logs: string[];
  tests: [string, string | null][];
  /** name → value as JSON. */
  exports: Record<string, string>;
  /** $global as JSON ('' when the script failed before it was read). */
  global: string;
  error?: string;
}

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

export class ScriptHost {
  private child?: Child;
  private queue: Promise<unknown> = Promise.resolve();

  /** One script at a time, in the order asked. */
  run(code: string, filename: string, line: number, hooks: ScriptHooks, request: ScriptRequest, response?: ScriptResponse): Promise<ScriptResult> {
    const result = this.queue.then(() => this.runNow(code, filename, line, hooks, request, response));
    this.queue = result.catch(() => undefined);
    return result;
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

  /** Starts the process ahead of the first script (a file with scripts), so that it boots while requests go out. */
  warm(): void {
    try {
      this.start();
    } catch {
      // said by the script that needs it
    }
  }

  /**
   * An httpyac assertion's expression (assert-run.ts, expressionOf) over `input`, the response as
   * JSON: its value as JSON, or why not. In the script process, for its memory limit.
   */
  evaluate(code: string, input: string): Promise<{ json?: string; error?: string }> {
    const result = this.queue.then(() =>
      this.exchange(['eval', code, input], NO_HOOKS, (why) => ({ error: why })).then((r) => {
        const v = r as { json?: unknown; error?: unknown };
        return typeof v.error === 'string' ? { error: v.error } : typeof v.json === 'string' ? { json: v.json } : {};
      }),
    );
    this.queue = result.catch(() => undefined);
    return result;
  }

  /** httpyac's JavaScript (httpyac-js.ts): a `{{ }}` block or a `{{ expression }}` with the named JSON values in `payload`. */
  runHttpyac(code: string, mode: 'script' | 'expr', filename: string, line: number, payload: string): Promise<HttpyacOutcome> {
    const failedYac = (error: string): HttpyacOutcome => ({ logs: [], tests: [], exports: {}, global: '', error });
    const result = this.queue.then(() => this.exchange(['yac', code, filename, line, payload, mode], NO_HOOKS, failedYac) as Promise<HttpyacOutcome>);
    this.queue = result.catch(() => undefined);
    return result;
  }

  private runNow(code: string, filename: string, line: number, hooks: ScriptHooks, request: ScriptRequest, response?: ScriptResponse): Promise<ScriptResult> {
    return this.exchange(['run', code, filename, line, JSON.stringify({ request, response })], hooks, failed) as Promise<ScriptResult>;
  }

  /** Sends one message and waits for its result, answering the questions the script asks on the way. */
  private exchange(message: unknown[], hooks: ScriptHooks, fail: (why: string) => unknown): Promise<unknown> {
    let child: Child;
    try {
      child = this.start();
    } catch (e) {
      return Promise.resolve(fail((e as Error).message));
    }
    return new Promise<unknown>((resolve) => {
      const timer = setTimeout(() => {
        child.killed = true;
        child.proc.kill('SIGKILL');
      }, TIMEOUT_MS);
      // Running, the process keeps sling waiting for it (its end too, until its pipes are read out).
      hold(child.proc, true);
      child.running = {
        hooks,
        fail,
        done: (r) => {
          clearTimeout(timer);
          child.running = undefined;
          hold(child.proc, false);
          resolve(r);
        },
      };
      child.proc.stdin!.write(JSON.stringify(message) + '\n');
    });
  }

  private start(): Child {
    if (this.child) return this.child;
    const memory = scriptMemory();
    // Nothing of sling's environment is needed there; NODE_OPTIONS (a --require, another heap size) is left out.
    const env = { ...process.env };
    delete env.NODE_OPTIONS;
    const proc = spawn(process.execPath, [`--max-old-space-size=${memory}`, '-e', LOADER], { stdio: ['pipe', 'pipe', 'pipe'], env, windowsHide: true });
    const child: Child = { proc, stderr: '' };
    this.child = child;
    // The process keeps sling running only while a script runs.
    hold(proc, false);
    proc.stdin!.on('error', () => {
      // the process is gone: its exit says why
    });
    proc.stderr!.setEncoding('utf8');
    proc.stderr!.on('data', (text: string) => {
      child.stderr = (child.stderr + text).slice(-4096);
    });
    let pending: Buffer[] = [];
    proc.stdout!.on('data', (chunk: Buffer) => {
      let from = 0;
      for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, from)) {
        const piece = chunk.subarray(from, at);
        const line = pending.length ? Buffer.concat([...pending, piece]).toString('utf8') : piece.toString('utf8');
        pending = [];
        from = at + 1;
        this.message(child, line);
      }
      if (from < chunk.length) pending.push(chunk.subarray(from));
    });
    const ended = (why: string) => {
      if (this.child === child) this.child = undefined;
      if (child.running) child.running.done(child.running.fail(why));
    };
    proc.on('error', (e) => ended(`cannot start the script process: ${(e as Error).message}`));
    // 'close', not 'exit': what V8 wrote on its way out is read by then.
    proc.on('close', (code, signal) => {
      if (child.killed) return ended(`the script ran longer than ${TIMEOUT_MS / 1000} s`);
      if (/heap out of memory|Reached heap limit|Allocation failed/i.test(child.stderr)) {
        return ended(`the script used more than ${memory} MB of memory (SLING_SCRIPT_MEMORY_MB)`);
      }
      const last = child.stderr.trim().split('\n').pop();
      ended(`the script process ended unexpectedly (${signal ? `signal ${signal}` : `exit code ${code}`})${last ? `: ${oneLine(last)}` : ''}`);
    });
    proc.stdin!.write(JSON.stringify(SLING_SANDBOX) + '\n');
    return child;
  }

  private message(child: Child, line: string) {
    let m: [string, ...unknown[]];
    try {
      m = JSON.parse(line) as typeof m;
    } catch {
      return;
    }
    const running = child.running;
    if (m[0] === 'w') {
      process.stderr.write(`sling: warning: ${oneLine(String(m[1]))}\n`);
      return;
    }
    if (!running) return;
    if (m[0] === 'r') return running.done(m[1]);
    const args = (Array.isArray(m[2]) ? m[2] : []).map((a) => (typeof a === 'string' ? a : undefined));
    let answer: string | boolean | undefined;
    try {
      answer = hook(running.hooks, String(m[1]), args);
    } catch {
      answer = undefined;
    }
    if (m[0] === 'c') child.proc.stdin!.write(answer === undefined ? '[]\n' : JSON.stringify([String(answer)]) + '\n');
  }
}

/** Whether the process (and its pipes) keep sling running. */
function hold(proc: ChildProcess, on: boolean) {
  for (const h of [proc, proc.stdout, proc.stderr] as unknown as { ref?: () => void; unref?: () => void }[]) {
    if (on) h.ref?.();
    else h.unref?.();
  }
}

/** A question or a change of the script process, by the hook's name. */
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
function scriptMemory(): number {
  const text = process.env.SLING_SCRIPT_MEMORY_MB;
  if (text === undefined || text === '') return SCRIPT_MEMORY_MB;
  if (!/^\d+$/.test(text) || Number(text) < 16) throw new Error(`SLING_SCRIPT_MEMORY_MB must be a whole number of megabytes, 16 or more, not '${oneLine(text)}'`);
  return Number(text);
}
