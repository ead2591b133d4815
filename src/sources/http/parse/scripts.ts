import type { RequestNode, ScriptNode } from '../ast.js';
import { added, clip, fit, type Pass } from './pass.js';

// Scripts: JetBrains `{% ... %}` blocks (`< {% %}` before the request, `> {% %}` after it), Lua
// ones (kulala, rest.nvim: recognised and skipped), and httpyac `{{ ... }}` blocks.

/**
 * An httpyac script block opens with a line that is `{{` alone (blanks around it; httpyac's
 * `{{+` and `{{@response`-style event forms too) and ends at a line that is `}}` alone. A line
 * `{{name}}/path` is a request line, not a script.
 */
export const YAC_OPEN = /^\s*\{\{(@js\s+)?(\+|@)?(request|streaming|response|after|responseLogging)?\s*$/i;
const YAC_CLOSE = /^\s*\}\}\s*$/;

/** Reads `{% ... %}` starting at column `at` of the current line; leaves i on the closing line. */
export function script(p: Pass, at: number): string {
  const start = p.i;
  const first = p.lines[start]!;
  const close = first.indexOf('%}', at + 2);
  if (close !== -1) {
    trailing(p, first, close + 2, start + 1);
    return first.slice(at + 2, close);
  }
  const parts = [first.slice(at + 2)];
  for (let j = start + 1; j < p.lines.length; j++) {
    const l = p.lines[j]!;
    // No script line starts with ###: the block was left open, and the next request begins.
    if (l.startsWith('###')) p.fail(start + 1, at + 1, `a script block '{%' without its closing '%}' before the ### on line ${j + 1}`);
    const c = l.indexOf('%}');
    if (c !== -1) {
      parts.push(l.slice(0, c));
      trailing(p, l, c + 2, j + 1);
      p.i = j;
      return parts.join('\n');
    }
    parts.push(l);
  }
  p.fail(start + 1, at + 1, "a script block '{%' without its closing '%}'");
}

/** `< {% %}` (the current line, number `ln`): a pre-request script for the next request. */
export function preScript(p: Pass, line: string, ln: number) {
  const code = script(p, line.indexOf('{%'));
  p.pending.pre = added(p.pending.pre, { code, line: ln, lua: takeLua(p, code) });
}

/** `> {% %}` (the current line, number `ln`): a response handler of the current request. */
export function handlerScript(p: Pass, line: string, ln: number) {
  const code = script(p, line.indexOf('{%'));
  p.req!.handlers = added(p.req!.handlers, { code, line: ln, lua: takeLua(p, code) });
}

function trailing(p: Pass, line: string, from: number, ln: number) {
  if (line.slice(from).trim() !== '') p.warn(ln, from + 1, `text after '%}' is ignored: '${clip(line.slice(from).trim())}'`);
}

/** `# @lang=lua` before the script, or a script that reads as Lua (`-- lua`, `local x = ...`). */
export function takeLua(p: Pass, code?: string): boolean {
  const lua = p.pending.lua;
  p.pending.lua = false;
  if (lua) return true;
  const first =
    code
      ?.split('\n')
      .find((l) => l.trim() !== '')
      ?.trim() ?? '';
  return first.startsWith('--') || /^local\s+[A-Za-z_]\w*\s*=/.test(first);
}

/**
 * An httpyac script block (YAC_OPEN on the current line, at column `col`; leaves i on its `}}`):
 * before the request line it runs before the request (in a region without a request, before
 * every request of the file), after the request (`req`) once its response is in. `{{+` runs
 * before every request; `{{@response` / `{{@after` after the region's response (`{{+response`,
 * `{{+after`, or in a region without a request: after every response); `{{@streaming` is what a
 * WebSocket or gRPC request sends over time; the other events (`{{@request`, `{{@responseLogging`)
 * are not run.
 */
export function yacBlock(p: Pass, ln: number, col: number, req: RequestNode | undefined) {
  const m = YAC_OPEN.exec(p.lines[p.i]!)!;
  let j = p.i + 1;
  while (j < p.lines.length && !YAC_CLOSE.test(p.lines[j]!) && !p.lines[j]!.startsWith('###')) j++;
  if (j >= p.lines.length || !YAC_CLOSE.test(p.lines[j]!)) p.fail(ln, col, "an httpyac script block '{{' without its closing '}}' (a line of its own)");
  const code = p.lines.slice(p.i + 1, j).join('\n');
  p.i = j;
  const event = m[3]?.toLowerCase();
  if (event === 'streaming' && m[2] === '@' && (req?.stream || !req)) {
    // (One before the request line is that request's: requestLine() warns when it is not a stream.)
    // httpyac's `{{@streaming}}`: what a WebSocket or gRPC request sends over time (entry-build.ts).
    const node: ScriptNode = { code, line: ln, yac: true };
    if (req) req.streaming = node;
    else p.pending.streaming = node;
    return;
  }
  if ((event && event !== 'response' && event !== 'after') || (!event && m[2] === '@')) {
    p.warn(ln, col, `httpyac script events ('${p.lines[ln - 1]!.trim()}') are not run: skipped`);
    return;
  }
  if (/\bresponse\b|\btest\s*\.\s*[a-zA-Z]/.test(code)) p.out.yacResponse = true;
  const node: ScriptNode = { code, line: ln, yac: true };
  if (m[2] === '+') node.every = true;
  if (event) {
    // After the response: this request's, or every request's.
    if (m[2] === '+') p.out.yacGlobalAfter = [...(p.out.yacGlobalAfter ?? []), node];
    else if (req) req.handlers = added(req.handlers, node);
    else p.pending.post = [...(p.pending.post ?? []), node];
    return;
  }
  if (m[2] === '+') p.out.yacGlobal = [...(p.out.yacGlobal ?? []), node];
  else if (req) {
    req.handlers = added(req.handlers, node);
    p.state = 'after';
  } else p.pending.pre = added(p.pending.pre, node);
}

/** httpyac blocks before `###` in a region without a request: the file's global scripts. */
export function yacGlobals(p: Pass) {
  if (p.pending.post) {
    p.out.yacGlobalAfter = [...(p.out.yacGlobalAfter ?? []), ...p.pending.post];
    p.pending.post = undefined;
  }
  const pre = p.pending.pre;
  if (!pre.some((s) => s.yac)) return;
  p.out.yacGlobal = [...(p.out.yacGlobal ?? []), ...pre.filter((s) => s.yac)];
  p.pending.pre = fit(pre.filter((s) => !s.yac));
}

/** `{{ js }}` with code on the `{{` line, on one line or several (not a block httpyac runs): skipped with a warning. */
export function httpyacScript(p: Pass, ln: number, col: number) {
  const first = p.lines[p.i]!;
  if (!first.slice(first.indexOf('{{') + 2).includes('}}')) {
    let j = p.i + 1;
    while (j < p.lines.length && !p.lines[j]!.trim().startsWith('}}') && !p.lines[j]!.startsWith('###')) j++;
    if (j >= p.lines.length || p.lines[j]!.startsWith('###')) p.fail(ln, col, "an httpyac script block '{{' without its closing '}}'");
    p.i = j;
  }
  // httpyac runs only a block whose `{{` and `}}` stand alone on their lines (it sends this one as a URL, and fails).
  p.warn(ln, col, "'{{' with code on its line is not an httpyac script block ('{{' and '}}' go on lines of their own): skipped");
}
