/**
 * One request of a .http file as an ExecEntry (model/exec.ts): its identity and place in the file
 * (name, lines, label), its dependencies, and the hooks the runner calls around its exchange: what
 * to print before it, whether its body is read afterwards, where it is saved as it comes, and what
 * runs after the response (keeping it for references, handlers and assertions, `>> file`). Building
 * the request is entry-build.ts's (this class extends it); running scripts entry-scripts.ts's;
 * `>> file` paths and writing entry-save.ts's; dependencies entry-deps.ts's.
 */
import type { Creation } from '../../files.js';
import type { AfterResult, BodyFiles, Completed, ExecContext, ExecEntry } from '../../model/exec.js';
import type { CookieJar } from '../../model/cookies.js';
import type { RequestSpec } from '../../model/spec.js';
import { rawText } from './template.js';
import { isStreamed } from '../../model/upload.js';
import { EntryBuild, NO_LOGS, NO_PENDING, type EntryOptions, type Pending } from './entry-build.js';
import { dependencies, requestName } from './entry-deps.js';
import { runAfterSteps, unsubscribes } from './entry-scripts.js';
import { firstOperation } from './stream-build.js';
import type { RequestNode } from './ast.js';
import { outputTargets, saveOutputs } from './entry-save.js';

export type { EntryOptions, RunOverride } from './entry-build.js';
export { requestName } from './entry-deps.js';

/** A large file sent as it was read (upload.ts) is not kept: `name.request.body` of such a request is empty. */
const STREAMED = Buffer.alloc(0);

/** The result of a response nothing looks at (shared, read only). */
const NOTHING_AFTER: AfterResult = Object.freeze({ failures: Object.freeze([]) as unknown as string[] });

/**
 * One request of a file as an ExecEntry. A class, not closures: a file of 10,000 requests makes
 * 10,000 of these, and what only --name/--line or scripts need (dependencies, iterations) is
 * worked out when it is asked for.
 */
class HttpEntry extends EntryBuild implements ExecEntry {
  readonly name?: string;
  readonly line: number;
  readonly start?: number;
  readonly shownName?: string;
  readonly file?: string;
  readonly runStart?: number;
  readonly output?: { noLog?: boolean };
  private readonly storeAs?: string;
  private deps?: string[];

  constructor(o: EntryOptions) {
    super(o);
    const node = o.node;
    this.storeAs = requestName(node);
    this.name = o.named ? this.storeAs : undefined;
    // A request reached through `run` keeps its name and file in the title line.
    if (!o.named && this.storeAs !== undefined) this.shownName = this.storeAs;
    if (o.shownFile !== undefined) this.file = o.shownFile;
    this.line = node.line;
    this.start = o.shownFile === undefined ? node.start : undefined;
    this.runStart = o.runStart;
    if (node.directives.noLog) this.output = { noLog: true };
  }

  get label(): string {
    const node = this.o.node;
    const url = rawText(node.url);
    // A GRAPHQL request to a ws:// URL, or of a subscription, runs over a WebSocket: named so.
    const keyword = node.stream?.keyword ?? (node.graphql && subscriptionAsWritten(node, url) ? 'GRAPHQL' : node.method);
    return this.o.label ?? `${keyword} ${url}`;
  }

  get forceDependsOn(): string[] | undefined {
    return this.o.node.directives.forceRefs;
  }

  get dependsOn(): string[] {
    return (this.deps ??= dependencies(this.o.node, this.o.file, this.o.rt));
  }

  /** The pre-request scripts' log lines, printed under the title (then not again after the response). */
  before(spec: RequestSpec): string[] | undefined {
    const p = this.pendingOf(spec);
    if (!p || p.logs.length === 0) return undefined;
    const logs = p.logs;
    p.logs = NO_LOGS;
    return logs;
  }

  /** No response came: a reference to this request says it failed (not that it has not run). */
  failed(): undefined {
    if (this.storeAs !== undefined) this.o.rt.failed.add(this.storeAs);
    return undefined;
  }

  /** The run's one cookie jar (a request with `# @no-cookie-jar` says `noCookies`). */
  cookieJar(): CookieJar {
    return this.o.rt.jar;
  }

  /** Synchronous when nothing runs after the response (no handler, no `>> file`). */
  bodyUnused(spec: RequestSpec): boolean {
    const { rt, node } = this.o;
    if (
      (this.storeAs !== undefined && rt.keeps(this.storeAs)) ||
      node.handlers.length ||
      this.o.file.parsed.yacGlobalAfter ||
      node.asserts.length ||
      node.outputs.length ||
      this.o.file.parsed.yacResponse
    )
      return false;
    const p = this.pendingOf(spec);
    return !(p && p.logs.length);
  }

  /** `>> file` lines and nothing else reading the body: it goes to its files as it arrives, and is printed. */
  bodyFiles(answer: Omit<Completed, 'body'>): BodyFiles | undefined {
    const { rt, node } = this.o;
    if (
      !node.outputs.length ||
      node.handlers.length ||
      node.asserts.length ||
      this.o.file.parsed.yacResponse ||
      this.o.file.parsed.yacGlobalAfter ||
      (this.storeAs !== undefined && rt.keeps(this.storeAs))
    )
      return undefined;
    const p = this.pendingOf(answer.spec);
    if (!p || p.logs.length) return undefined;
    p.targets = outputTargets(this.o.file, node, p.res, answer);
    const paths = new Map<string, Creation | undefined>();
    for (const t of p.targets) if (t.path !== undefined && !paths.has(t.path)) paths.set(t.path, t.how);
    return { files: [...paths].map(([path, how]) => ({ path, how })), print: true, keepPartial: false };
  }

  /** A stream's handler that goes through its messages: whether it unsubscribes on the messages so far (entry-scripts.ts unsubscribes). */
  streamEnds(sofar: Completed): false | Promise<boolean> {
    const { rt, file, node } = this.o;
    if (!node.handlers.some((s) => !s.yac && !s.lua && (s.path !== undefined || /\bonEachMessage\b/.test(s.code ?? '')))) return false;
    const p = this.pendingOf(sofar.spec);
    return p ? unsubscribes(rt, file, node, p, sofar) : false;
  }

  after(done: Completed, ctx?: ExecContext): AfterResult | Promise<AfterResult> {
    const { rt, file, node } = this.o;
    if (ctx?.debugging) {
      const t = done.info.timings;
      const ms = (x?: number) => (x === undefined ? '-' : `${(x - t.start).toFixed(1)} ms`);
      ctx.debug(`${file.path}:${node.line}: ${done.response.status} in ${ms(t.end)} (connect ${ms(t.connect)}, first byte ${ms(t.firstByte)}; ${done.info.reused ? 'reused' : 'new'} connection)`);
    }
    // httpyac's `response` outside a handler: the last response of the run.
    if (file.parsed.yacResponse) rt.lastResponse = done;
    const pending = this.pending;
    let p: Pending | undefined;
    if (pending.length === 1) {
      p = pending[0];
      this.pending = NO_PENDING;
    } else {
      // Match by the URL object the spec was built with (the runner copies specs, not URLs).
      const at = pending.findIndex((x) => x.built.spec.url === done.spec.url);
      p = at === -1 ? pending.shift() : pending.splice(at, 1)[0];
    }
    const keep = this.storeAs !== undefined && rt.keeps(this.storeAs);
    // Nothing to run, save, keep or print after this response (the usual request).
    if (!keep && node.handlers.length === 0 && !file.parsed.yacGlobalAfter && node.asserts.length === 0 && node.outputs.length === 0 && !(p && p.logs.length)) return NOTHING_AFTER;
    return this.afterAsync(done, p, keep);
  }

  private async afterAsync(done: Completed, p: Pending | undefined, keep: boolean): Promise<AfterResult> {
    const { rt, file, node } = this.o;
    const result: AfterResult = { failures: [], log: p && p.logs.length ? [...p.logs] : [] };
    if (keep) {
      const stored = {
        request: { method: done.request.method, url: done.url, headers: done.request.headers, body: isStreamed(done.request.body) ? STREAMED : done.request.body },
        response: { status: done.response.status, rawHeaders: done.response.rawHeaders, body: done.body },
      };
      if (node.directives.loop && p) {
        // httpyac: a named loop's name is its first pass's response, `NAMEList` all of them.
        if (p.iteration === 0) {
          rt.responses.set(this.storeAs!, stored);
          rt.loopResponses.set(this.storeAs!, [done]);
        } else rt.loopResponses.get(this.storeAs!)?.push(done);
      } else rt.responses.set(this.storeAs!, stored);
    }
    if (!p) return result;
    await runAfterSteps(rt, file, node, p, done, result);
    const targets = done.saved && p.targets ? p.targets : node.outputs.length ? outputTargets(file, node, p.res, done) : [];
    saveOutputs(file, targets, done, result);
    return result;
  }
}

/** A GraphQL request that goes over a WebSocket, as written: a ws:// URL, or a body whose operation is a subscription. */
function subscriptionAsWritten(node: RequestNode, url: string): boolean {
  if (/^wss?:\/\//i.test(url.trim())) return true;
  let text = '';
  for (const b of node.body) if (b.kind === 'text') text += b.raw + '\n';
  return /^subscription\b/.test(firstOperation(text));
}

export function makeEntry(o: EntryOptions): ExecEntry {
  return new HttpEntry(o);
}
