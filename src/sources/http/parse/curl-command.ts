import type { CurlNode } from '../ast.js';
import { replayCarried } from './comments.js';
import { clip, freshPending, untouched, type Pass } from './pass.js';
import { startsRequest } from './request-line.js';

// A curl command in place of a request, and the lines after it up to the end of its block.

/**
 * A curl command in place of a request (JetBrains turns a pasted one into a request): its lines
 * up to the end of the command (a line that ends with `\`, or `^` for cmd.exe, or a quote left
 * open, goes on), up to `###` at most. The curl source reads and runs it (../curl-entry.ts).
 */
export function curlCommand(p: Pass, ln: number, col: number) {
  const start = p.i;
  let quote = '';
  let j = p.i;
  for (; j < p.lines.length; j++) {
    const l = p.lines[j]!;
    if (j > start && l.startsWith('###')) {
      j--;
      break;
    }
    let cont = false;
    for (let k = 0; k < l.length; k++) {
      const c = l[k]!;
      if (quote === "'") {
        if (c === "'") quote = '';
      } else if (c === '\\') {
        if (k === l.length - 1) cont = true;
        else if (!quote || l[k + 1] === '"' || l[k + 1] === '\\' || l[k + 1] === '$' || l[k + 1] === '`') k++;
      } else if (quote === '"') {
        if (c === '"') quote = '';
      } else if (c === "'" || c === '"') quote = c;
      else if (c === '#' && (k === 0 || /\s/.test(l[k - 1]!))) break;
    }
    if (!quote && !cont && !/\s\^$/.test(l)) break;
  }
  if (j >= p.lines.length) j = p.lines.length - 1;
  const text = p.lines.slice(start, j + 1).join('\n');
  p.i = j;
  if (!untouched(p.pending) && (p.pending.pre.length || p.pending.asserts.length || Object.keys(p.pending.directives).length > 1 || p.pending.directives.refs.length)) {
    p.warn(ln, col, 'scripts, assertions and directives other than # @name are not applied to a curl command');
  }
  const node: CurlNode = {
    kind: 'curl',
    line: ln,
    start: p.blockHasRequest ? ln : Math.min(p.blockStart, ln),
    col,
    text,
    templates: p.lines.slice(start, j + 1).map((l, k) => p.template(l, start + k + 1, 1, false)),
    atName: p.pending.atName,
    title: p.title,
  };
  p.out.items.push(node);
  p.title = undefined;
  p.pending = freshPending();
  p.blockHasRequest = true;
  p.state = 'curl';
  p.blankBefore = false;
}

/** After a curl command (state 'curl'): comments and blank lines up to `###` or the next request. */
export function afterCurl(p: Pass, line: string) {
  const t = line.trim();
  if (t === '') {
    p.blankBefore = true;
    return;
  }
  if (t.startsWith('#') || t.startsWith('//')) {
    // `# @name next` before `###`: for the next request.
    if (t.includes('@')) (p.carried ??= []).push(p.i);
    return;
  }
  // The next request or curl command, after a blank line or right after it (httpyac).
  if (startsRequest(line) || /^curl(\.exe)?\s/.test(line)) {
    p.state = 'pre';
    p.blockHasRequest = false;
    replayCarried(p);
    return p.readLine(line);
  }
  p.fail(p.i + 1, line.indexOf(t) + 1, `after a curl command, only comments up to the next ### (a response handler or an assertion is not applied to it), got '${clip(t)}'`);
}
