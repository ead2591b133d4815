import { UsageError } from '../../errors.js';
import type { AfterResult, Completed, ExecContext, ExecEntry } from '../../model/exec.js';
import type { RequestSpec } from '../../model/spec.js';
import { isStreamed } from '../../model/upload.js';
import { parseCurlText, type CurlSourceOptions } from '../curl/index.js';
import type { CurlNode } from './ast.js';
import { compile, expressions, type Template } from './template.js';
import { Resolution, type FileCtx, type Runtime } from './vars.js';

/**
 * A curl command in a .http file (`###` then `curl https://h/x -H 'A: 1'`, continued with `\`),
 * run as `sling exec` runs a file of curl commands: the same shell reading, options and bytes on
 * the wire (sources/curl/). Relative paths (`-d @body.json`, `-o out`) are the .http file's
 * folder's. `{{name}}` placeholders are worked out when the command's turn comes, as in a request,
 * inside each argument after the shell has read it (a value with blanks or quotes stays one
 * argument). A command without placeholders is read with the rest of the file: a malformed one
 * sends nothing; one with placeholders is read when its turn comes, and a problem then fails it
 * alone. `# @name` (or the `###` title) keeps its response for references, as for a request.
 */
export class CurlEntry implements ExecEntry {
  readonly line: number;
  readonly start?: number;
  readonly name?: string;
  /** The file, for the title line, when it is not the file being run (`run ./other.http`). */
  readonly file?: string;
  readonly runStart?: number;
  private readonly storeAs?: string;
  private inner?: ExecEntry;
  private readonly literal: boolean;

  constructor(
    private readonly rt: Runtime,
    private readonly fileCtx: FileCtx,
    private readonly node: CurlNode,
    private readonly opts: CurlSourceOptions,
    named: boolean,
    runStart?: number,
  ) {
    this.line = node.line;
    // Lines of another file (`run ./other.http`) are not the file being run's (--line).
    if (named) this.start = node.start;
    else this.file = fileCtx.path;
    this.runStart = runStart;
    this.storeAs = node.atName ?? node.title;
    if (named) this.name = this.storeAs;
    this.literal = !node.text.includes('{{');
    if (this.literal) this.inner = this.parse(opts.warn);
  }

  private parse(warn: (m: string) => void, res?: Resolution): ExecEntry | undefined {
    const { node, fileCtx: file } = this;
    let text = node.text;
    let word: ((arg: string) => string) | undefined;
    if (res) {
      // Each placeholder becomes a word the shell leaves alone (`{{$randomInt 1 9}}` would be split
      // and `$randomInt` expanded), and its value goes into the argument the shell made of it.
      const values: Template[] = [];
      let mark = '_slingPH';
      while (text.includes(mark)) mark += '_';
      text = node.text
        .split('\n')
        .map((l, k) => {
          // By hand (indexOf): a line of many `{{` without `}}` stays linear.
          let out = '';
          let from = 0;
          for (let at = l.indexOf('{{'); at !== -1; at = l.indexOf('{{', from)) {
            const end = l.indexOf('}}', at + 2);
            if (end === -1) break;
            out += l.slice(from, at) + `${mark}${values.push(compile(l.slice(at, end + 2), node.line + k, at + 1)) - 1}_`;
            from = end + 2;
          }
          return out + l.slice(from);
        })
        .join('\n');
      const marks = new RegExp(`${mark}(\\d+)_`, 'g');
      word = (arg) => (arg.includes(mark) ? arg.replace(marks, (_, n: string) => Buffer.from(res.resolve(values[Number(n)]!), 'utf8').toString('latin1')) : arg);
    }
    // Line breaks in front: the curl source's FILE:LINE:COL are the .http file's.
    text = '\n'.repeat(node.line - 1) + text;
    const script = parseCurlText(text, { ...this.opts, file: file.path, dir: file.dir, warn }, { cwd: file.dir, word });
    if (script.entries.length > 1) throw new UsageError(`${file.path}:${node.line}:${node.col}: in a .http file a curl line is one curl command; this one holds ${script.entries.length}`);
    return script.entries[0];
  }

  get label(): string {
    if (this.inner) return this.inner.label;
    const first = this.node.text
      .split('\n')[0]!
      .trim()
      .replace(/\s*\\$/, '');
    return first.length > 100 ? first.slice(0, 97) + '...' : first;
  }

  get dependsOn(): string[] {
    const deps = new Set<string>();
    for (const t of this.node.templates) for (const e of expressions(t)) if (e.kind === 'ref') deps.add(e.name);
    if (this.storeAs !== undefined) deps.delete(this.storeAs);
    return [...deps];
  }

  get wantsEarlierHeads(): boolean | undefined {
    return this.inner?.wantsEarlierHeads;
  }

  build(ctx: ExecContext) {
    if (!this.literal) this.inner = this.parse(ctx.warn, new Resolution(this.rt, this.fileCtx, this.node.line, undefined, ctx.offline));
    if (!this.inner) return null;
    return this.inner.build(ctx);
  }

  before(spec: RequestSpec): string[] | undefined {
    return this.inner?.before?.(spec);
  }

  /** The command's own cookie engine (-b FILE, -c), as in a file of curl commands. */
  cookieJar(spec: RequestSpec) {
    return this.inner?.cookieJar?.(spec);
  }

  bodyUnused(spec: RequestSpec): boolean {
    if (this.storeAs !== undefined && this.rt.keeps(this.storeAs)) return false;
    return this.inner?.bodyUnused?.(spec) ?? false;
  }

  after(done: Completed, ctx: ExecContext): AfterResult | Promise<AfterResult> {
    if (this.storeAs !== undefined && this.rt.keeps(this.storeAs)) {
      this.rt.responses.set(this.storeAs, {
        request: { method: done.request.method, url: done.url, headers: done.request.headers, body: isStreamed(done.request.body) ? Buffer.alloc(0) : done.request.body },
        response: { status: done.response.status, rawHeaders: done.response.rawHeaders, body: done.body },
      });
    }
    return this.inner?.after ? this.inner.after(done, ctx) : { failures: [] };
  }

  failed(spec: RequestSpec, error: Error, ctx: ExecContext, answered?: Completed): AfterResult | undefined {
    if (this.storeAs !== undefined) this.rt.failed.add(this.storeAs);
    return this.inner?.failed?.(spec, error, ctx, answered);
  }
}
