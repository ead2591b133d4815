import type { RequestNode } from '../ast.js';
import { directive, isRequestDirective } from '../directives.js';
import type { Pass } from './pass.js';

// Comment lines (`#`, `//`, `/* */`) and the directives in them (`# @name`, `# @no-redirect`, ...:
// what each means is ../directives.ts): which request a directive belongs to, also when it is
// written at the end of the block before that request's `###`.

/** A `#` / `//` comment line before a request line (`t` trimmed, at line `ln`, column `col`): its directive, if any, for that request. */
export function comment(p: Pass, t: string, ln: number, col: number) {
  if (!t.includes('@')) return;
  const d = directive(t, ln, col, p.pending.directives, p.onWarn, p.onFail);
  if (d?.name !== undefined) p.pending.atName = d.name;
  if (d?.import !== undefined) p.out.imports.push({ path: d.import, line: ln, col });
  if (d?.lua) p.pending.lua = true;
}

/** A `/* ... *\/` comment from the current line (its `/*` at column `col`); leaves i on its last line. */
export function blockComment(p: Pass, col: number) {
  const start = p.i;
  const first = p.lines[start]!;
  if (first.indexOf('*/', first.indexOf('/*') + 2) !== -1) return;
  for (let j = start + 1; j < p.lines.length; j++) {
    if (p.lines[j]!.includes('*/')) {
      p.i = j;
      return;
    }
  }
  p.fail(start + 1, col, "a '/*' comment without its '*/'");
}

/**
 * httpyac: a line that is only `/*` opens a comment up to the next line that is only `*\/`, also
 * among the headers, inside a body or after the handlers; a `### title` inside it is comment text.
 * True when the current line opened one (i is left on its `*\/` line); false when no such line
 * follows (then the line is what it would be without this rule).
 */
export function ownLineComment(p: Pass): boolean {
  if (p.i >= p.noCloseFrom) return false;
  for (let j = p.i + 1; j < p.lines.length; j++) {
    if (p.lines[j]!.trim() === '*/') {
      p.i = j;
      return true;
    }
  }
  p.noCloseFrom = p.i;
  return false;
}

/** The comment lines carried from the end of the last block, read as lines before the next request. */
export function replayCarried(p: Pass) {
  const carried = p.carried;
  p.carried = undefined;
  if (!carried) return;
  const at = p.i;
  for (const k of carried) {
    const t = p.lines[k]!.trim();
    p.i = k;
    comment(p, t, k + 1, p.lines[k]!.indexOf(t) + 1);
  }
  p.i = at;
}

/**
 * Directive comments at the very end of a request's block, after its headers or its body with no
 * blank line before them (`# @name next` right before `###`): the next request's, as they are
 * after a blank line (not a comment among the headers, not the last line of a text body).
 */
export function trailingDirectives(p: Pass, req: RequestNode, replayed: number[] | undefined) {
  // At the end of the file there is no next request: such a line stays where it is.
  if (p.i >= p.lines.length) return;
  let found: number[] | undefined;
  for (let k = p.i - 1; k >= req.line; k--) {
    const t = p.lines[k]!.trim();
    if (t === '') continue;
    if (!t.startsWith('#') && !t.startsWith('//')) break;
    if (isRequestDirective(t) && !replayed?.includes(k) && !p.carried?.includes(k)) (found ??= []).push(k);
  }
  if (!found) return;
  const lines = new Set(found.map((k) => k + 1));
  req.body = req.body.filter((b) => !(b.kind === 'text' && lines.has(b.line)));
  p.carried = [...(p.carried ?? []), ...found].sort((a, b) => a - b);
}
