/**
 * Building a .http request into its RequestSpec(s), the first half of an HttpEntry (entries.ts
 * extends it): variables resolved, `# @disabled`, `# @sleep`, `run` overrides, pre-request scripts
 * (JetBrains and httpyac), httpyac's `# @loop`, JetBrains request iterations, global headers. What is
 * built is kept (`pending`) for the hooks after the response. Nothing here sends or reads a response.
 */
import { MAX_TIMER_MS } from '../../clock.js';
import { UsageError } from '../../errors.js';
import type { ExecContext } from '../../model/exec.js';
import type { RequestSpec } from '../../model/spec.js';
import type { RequestNode, ScriptNode } from './ast.js';
import type { OutgoingMessage } from '../../model/stream.js';
import { buildSpec, type BuiltRequest } from './request.js';
import { clearExports, evalJs, mayNeedJs, prepareJs, runYacScript, streamingTimeline, truthy, yacRequest } from './httpyac-js.js';
import { yacText } from './vars.js';
import { compile, expressions, rawText, type Template } from './template.js';
import { Resolution, type FileCtx, type Runtime } from './vars.js';
import { runScript, scriptHost, warmScripts, yacGlobals } from './entry-scripts.js';
import { templatesOf } from './entry-deps.js';
import type { OutputTarget } from './entry-save.js';

/** `@name=value` of a `run` line, with the file and line it is written on (where its placeholders are worked out). */
export interface RunOverride {
  name: string;
  value: Template;
  file: FileCtx;
  line: number;
}

/** One request of a file → one ExecEntry (a `run #Name` line makes another one of the same request). */
export interface EntryOptions {
  rt: Runtime;
  file: FileCtx;
  node: RequestNode;
  /** `run #Name (@var=value)` / `run ./file (@var=value)`. */
  overrides?: RunOverride[];
  /** The block start of the main file's `run` line this entry comes from (ExecEntry.runStart). */
  runStart?: number;
  /** Shown instead of the request's own name (for `run #Name`). */
  label?: string;
  /** Whether the entry carries the request's name (for --name); `run` copies do not. */
  named: boolean;
  /** The request's file for title lines, when it is not the file being run. */
  shownFile?: string;
}

export interface Pending {
  built: BuiltRequest;
  res: Resolution;
  iteration: number;
  logs: string[];
  /** Where `>> file` lines put the body, decided from the head when the runner wrote it as it came. */
  targets?: OutputTarget[];
}

export const NO_LOGS: string[] = [];
export const NO_PENDING: Pending[] = [];

/** The building of one request of a file; entries.ts's HttpEntry adds what runs around the exchange. */
export class EntryBuild {
  protected pending: Pending[] = NO_PENDING;
  protected overrides?: Map<string, string>;
  /** httpyac JavaScript may run before this request (global or pre-request blocks, JavaScript placeholders). */
  protected yac?: boolean;

  constructor(protected readonly o: EntryOptions) {}

  /** Synchronous for a request with no script, no `# @sleep` and no `run` overrides (most requests). */
  build(ctx: ExecContext): RequestSpec | RequestSpec[] | null | Promise<RequestSpec | RequestSpec[] | null> {
    const { node } = this.o;
    const d = node.directives;
    if (d.refs.length) for (const r of d.refs) if (!this.o.rt.requestNames.has(r)) throw new UsageError(`${this.o.file.path}:${node.line}: # @ref ${r}: no request is named '${r}'`);
    if (node.pre.length || node.handlers.length || node.asserts.length) warmScripts(node, ctx.offline);
    this.yac ??= yacGlobals(this.o.file).length > 0 || mayNeedJs(templatesOf(node), { file: this.o.file, line: node.line, rt: this.o.rt }, this.o.rt.requestNames);
    if (this.yac && (yacGlobals(this.o.file).length || node.pre.some((s) => s.yac))) warmScripts(node, ctx.offline, true);
    if (d.disabled || d.sleepMs || d.sleepText || this.o.overrides || node.pre.length || this.yac || d.disabledJs || d.loop || node.streaming) return this.buildAsync(ctx);
    const res = new Resolution(this.o.rt, this.o.file, node.line, undefined, ctx.offline);
    return this.buildWith(ctx, res, NO_LOGS);
  }

  protected async buildAsync(ctx: ExecContext): Promise<RequestSpec | RequestSpec[] | null> {
    const { rt, file, node } = this.o;
    const d = node.directives;
    if (d.disabled) {
      ctx.warn(`${file.path}:${node.line}: # @disabled: not sent`);
      return null;
    }
    let sleepMs = d.sleepMs;
    if (d.sleepText !== undefined) {
      // `# @sleep {{delay}}`: a number once the variables are in (httpyac); anything else is not waited.
      const text = new Resolution(rt, file, node.line, undefined, true).resolve(compile(d.sleepText, node.line, 1)).trim();
      if (/^\d+$/.test(text)) sleepMs = Math.min(Number(text), MAX_TIMER_MS);
      else ctx.warn(`${file.path}:${node.line}: # @sleep ${d.sleepText} is '${text}', not milliseconds: not waited`);
    }
    if (sleepMs && !ctx.offline) await new Promise((r) => setTimeout(r, sleepMs));
    if (this.o.overrides && !this.overrides) {
      this.overrides = new Map(this.o.overrides.map((o) => [o.name, new Resolution(rt, o.file, o.line, undefined, ctx.offline).resolve(o.value)]));
    }
    const res = new Resolution(rt, file, node.line, this.overrides, ctx.offline);
    let logs = NO_LOGS;
    // httpyac: the blocks of regions without a request run before every request of the file.
    // httpyac: the blocks of regions without a request run before every request of the file (an
    // `# @import`ed file's first, as httpyac runs them).
    const globals = yacGlobals(file);
    if (node.pre.length || globals.length) {
      logs = [];
      // This request's region runs again: its earlier exports are gone (httpyac).
      clearExports(res, node);
      for (const s of [...globals, ...node.pre]) {
        if (s.yac) {
          // A block of a region without a request keeps its exports as its own; the others as this request's region's.
          const region = globals.includes(s) && !s.every ? s : node;
          if (region === s) clearExports(res, s);
          const from = (globals.includes(s) && file.imported?.find((f) => f.parsed.yacGlobal?.includes(s))?.path) || file.path;
          const r = await runYacScript(await scriptHost(), s, res, region, yacRequest(node, this.previewRequest(res)), undefined, from);
          logs.push(...r.logs, ...r.tests.map(([name, failure]) => (failure === null ? `✓ ${name}` : `✗ ${name}: ${failure}`)));
          if (r.error) {
            const msg = `${from}:${s.line}: the ${globals.includes(s) ? 'global' : 'pre-request'} script failed: ${r.error}`;
            if (!ctx.offline) throw new UsageError(msg);
            ctx.warn(msg);
          }
          if (r.cancel) {
            ctx.warn(`${file.path}:${s.line}: the script exported $cancel: not sent`);
            return null;
          }
          continue;
        }
        if (s.lua) {
          rt.warnOnce(`${file.path}:${s.line}`, `${file.path}:${s.line}: Lua scripts (rest.nvim, kulala) are not run`);
          continue;
        }
        // What the script sees as `request` (url, headers, body): the request with what is known
        // so far substituted, and what is not yet known (a variable the script itself sets) as
        // written, as JetBrains' tryGetSubstituted() does. Built again after each script.
        const r = await runScript(rt, file, node, s, { res, built: this.preview(res), iteration: 0 });
        logs.push(...r.logs);
        if (r.error) {
          const msg = `${file.path}:${s.line}: the pre-request script failed: ${r.error}`;
          // --offline shows the request anyway: a script is not a reason to fail a preview.
          if (!ctx.offline) throw new UsageError(msg);
          ctx.warn(msg);
        }
        // client.exit() ends that script; the request is still sent (JetBrains).
      }
    }
    if (d.disabledJs) {
      // httpyac's `# @disabled EXPRESSION`: JavaScript, after the scripts before the request.
      const { code, line } = d.disabledJs;
      const out = await evalJs(await scriptHost(), code, line, res);
      if (out.error !== undefined) throw new UsageError(`${file.path}:${line}: # @disabled ${code}: ${out.error}`);
      if (truthy(out.json)) {
        ctx.warn(`${file.path}:${node.line}: # @disabled ${code} is true: not sent`);
        return null;
      }
    }
    if (d.loop) return this.buildLoop(ctx, res, logs, d.loop);
    if (this.yac) await prepareJs(scriptHost, templatesOf(node), res, yacRequest(node));
    const built = this.buildWith(ctx, res, logs);
    if (node.streaming && !Array.isArray(built) && built.stream) return this.withTimeline(ctx, res, built, node.streaming);
    return built;
  }

  /**
   * httpyac's `{{@streaming}}` block of a WebSocket or gRPC request: its sends, each after the
   * waits before it, become the stream's messages, and the stream ends once its last wait is over
   * (httpyac closes it when the block's promise settles).
   */
  private async withTimeline(ctx: ExecContext, res: Resolution, spec: RequestSpec, block: ScriptNode): Promise<RequestSpec> {
    const { file, node } = this.o;
    const r = await streamingTimeline(await scriptHost(), block, res, node, yacRequest(node));
    for (const l of r.logs) ctx.debug(`${file.path}:${block.line}: ${l}`);
    if (r.error) {
      const msg = `${file.path}:${block.line}: the streaming script failed: ${r.error}`;
      if (!ctx.offline) throw new UsageError(msg);
      ctx.warn(msg);
    }
    const messages: OutgoingMessage[] = [...spec.stream!.messages];
    let wait = 0;
    for (const step of r.timeline) {
      if ('wait' in step) wait += Math.min(step.wait, MAX_TIMER_MS);
      else {
        messages.push({ text: step.send, waitForServer: false, delayMs: wait });
        wait = 0;
      }
    }
    return { ...spec, stream: { ...spec.stream!, messages, endAfterMs: Math.min(wait, MAX_TIMER_MS) } };
  }

  /**
   * httpyac's `# @loop for N` / `# @loop for NAME of LIST`: the request once per pass, each with
   * `$index` (from 0) and the loop variable (a list element, with its type for JavaScript).
   */
  protected async buildLoop(ctx: ExecContext, res: Resolution, logs: string[], loop: NonNullable<RequestNode['directives']['loop']>): Promise<RequestSpec[] | null> {
    const { rt, file, node } = this.o;
    let items: (string | undefined)[];
    if (loop.iterable !== undefined) {
      const out = await evalJs(await scriptHost(), loop.iterable, loop.line, res);
      if (out.error !== undefined) throw new UsageError(`${file.path}:${loop.line}: # @loop for ${loop.variable} of ${loop.iterable}: ${out.error}`);
      let list: unknown;
      try {
        list = out.json === undefined ? undefined : JSON.parse(out.json);
      } catch {
        list = undefined;
      }
      // httpyac: anything but a list makes no pass.
      items = Array.isArray(list) ? list.map((x) => (x === undefined ? undefined : JSON.stringify(x))) : [];
    } else items = new Array<undefined>(loop.count ?? 0).fill(undefined);
    if (items.length === 0) {
      ctx.warn(`${file.path}:${loop.line}: # @loop makes no pass: not sent`);
      return null;
    }
    const opts = { file, lenient: ctx.offline, warn: ctx.warn };
    const all: Pending[] = [];
    for (let i = 0; i < items.length; i++) {
      const overrides = new Map(this.overrides ?? []);
      const loopVars = new Map<string, string>([['$index', String(i)]]);
      overrides.set('$index', String(i));
      const item = items[i];
      if (loop.variable !== undefined && item !== undefined) {
        overrides.set(loop.variable, yacText(item));
        loopVars.set(loop.variable, item);
      }
      const r = new Resolution(rt, file, node.line, overrides, ctx.offline);
      r.loopVars = loopVars;
      for (const [n, v] of res.requestVars) r.requestVars.set(n, v);
      if (this.yac || loop.variable !== undefined) await prepareJs(scriptHost, templatesOf(node), r, yacRequest(node));
      const built = buildSpec(node, { ...opts, res: r });
      if (rt.globalHeaders.size) addGlobalHeaders(built.spec, rt.globalHeaders);
      all.push({ built, res: r, iteration: i, logs: i === 0 ? logs : NO_LOGS });
    }
    this.pending = all;
    return all.map((b) => b.built.spec);
  }

  /**
   * The request as httpyac's code sees it before it is sent: the URL as written (httpyac 6.16.7
   * gives `{{host}}/a?v={{v}}` there), the headers and body with what is known so far.
   */
  protected previewRequest(res: Resolution) {
    const spec = this.preview(res)?.spec;
    if (!spec) return undefined;
    return { method: spec.method, url: rawText(this.o.node.url), headers: spec.headers, body: spec.body.kind === 'bytes' ? spec.body.data.toString('utf8') : undefined };
  }

  /** The request as a pre-request script sees it; undefined when even a lenient build fails. */
  protected preview(res: Resolution): BuiltRequest | undefined {
    const { rt, file, node } = this.o;
    try {
      const loose = new Resolution(rt, file, node.line, this.overrides, true);
      loose.silent = true;
      for (const [n, v] of res.requestVars) loose.requestVars.set(n, v);
      return buildSpec(node, { res: loose, file, lenient: true, warn: () => {} });
    } catch {
      return undefined;
    }
  }

  protected buildWith(ctx: ExecContext, res: Resolution, logs: string[]): RequestSpec | RequestSpec[] {
    const { rt, file, node } = this.o;
    const opts = { res, file, lenient: ctx.offline, warn: ctx.warn };
    // JetBrains request iterations: `{{$.list..id}}` over a list a pre-request script set.
    if (!res.hasRequestVars()) return this.buildOnce(res, opts, logs);
    res.pathMemo = new Map();
    const all: Pending[] = [];
    try {
      let count = 1;
      for (const t of templatesOf(node)) for (const e of expressions(t)) if (e.kind === 'jsonpath') count = Math.max(count, safeCount(res, e.name));
      if (count === 1) return this.buildOnce(res, opts, logs);
      for (let i = 0; i < count; i++) {
        const r = i === 0 ? res : res.sibling();
        r.iteration = i;
        const built = buildSpec(node, { ...opts, res: r });
        if (rt.globalHeaders.size) addGlobalHeaders(built.spec, rt.globalHeaders);
        all.push({ built, res: r, iteration: i, logs: i === 0 ? logs : NO_LOGS });
      }
    } finally {
      // Scripts run next (response handlers): the variables may change from here on.
      res.pathMemo = undefined;
      for (const p of all) p.res.pathMemo = undefined;
    }
    this.pending = all;
    return all.map((b) => b.built.spec);
  }

  protected buildOnce(res: Resolution, opts: Parameters<typeof buildSpec>[1], logs: string[]): RequestSpec {
    const built = buildSpec(this.o.node, opts);
    if (this.o.rt.globalHeaders.size) addGlobalHeaders(built.spec, this.o.rt.globalHeaders);
    this.pending = [{ built, res, iteration: 0, logs }];
    return built.spec;
  }

  /** The build of a spec (the runner may copy a spec, never its URL object). */
  protected pendingOf(spec: RequestSpec): Pending | undefined {
    return this.pending.find((x) => x.built.spec === spec || x.built.spec.url === spec.url);
  }
}

function safeCount(res: Resolution, path: string): number {
  try {
    return res.requestPathAll(path).length;
  } catch {
    return 1;
  }
}

/** client.global.headers.set: each header the request does not give itself. */
function addGlobalHeaders(spec: RequestSpec, globals: Map<string, [string, string]>) {
  for (const [lower, header] of globals) if (!spec.headers.some(([n]) => n.toLowerCase() === lower)) spec.headers.push([header[0], header[1]]);
}
