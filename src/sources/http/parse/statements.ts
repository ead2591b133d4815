import type { ProtoNode, RunNode } from '../ast.js';
import type { Template } from '../template.js';
import { clip, unquote, type Pass } from './pass.js';

// Lines that stand between requests and are part of none: `import ./other.http`, JetBrains
// `run #Name (@a=1)` / `run ./other.http`, httpyac `fragment Name on Type` blocks, and the
// httpyac `proto` / `gql` imports sling skips.

/**
 * The current line (`t` trimmed, at line `ln`, column `col`) as one of these statements; false
 * when it is none. A fragment leaves i on the last line of its block.
 */
export function statement(p: Pass, line: string, t: string, ln: number, col: number): boolean {
  const c0 = t.charCodeAt(0);
  let m = c0 === 105 /* i */ ? /^import\s+(.+)$/.exec(t) : null;
  if (m) {
    p.out.imports.push({ path: unquote(m[1]!.trim()), line: ln, col });
    return true;
  }
  m = c0 === 114 /* r */ ? /^run\s+(.+)$/.exec(t) : null;
  if (m) {
    runLine(p, m[1]!, ln, col);
    return true;
  }
  m = c0 === 102 /* f */ ? /^fragment\s+([A-Za-z_]\w*)\s+on\s/.exec(t) : null;
  if (m) {
    // httpyac: a fragment block (up to a blank line or ###) is added to every GraphQL query of
    // the file that spreads it (`...Name`).
    const text = [line.trimEnd()];
    while (p.i + 1 < p.lines.length && p.lines[p.i + 1]!.trim() !== '' && !p.lines[p.i + 1]!.startsWith('###')) text.push(p.lines[++p.i]!.trimEnd());
    p.out.fragments.set(m[1]!, text.join('\n'));
    return true;
  }
  m = c0 === 112 /* p */ ? /^proto\s+<\s+(\S(?:.*\S)?)\s*$/.exec(t) : null;
  if (m) {
    protoLine(p, line, m[1]!, ln);
    return true;
  }
  m = c0 === 112 || c0 === 103 || c0 === 102 /* p g f */ ? /^(proto|gql|fragment)\s/.exec(t) : null;
  if (m) {
    const what = m[1] === 'fragment' ? 'GraphQL fragments without a name' : m[1] === 'proto' ? "proto lines other than 'proto < ./file.proto'" : 'gql imports';
    p.warn(ln, col, `httpyac ${what} are not supported: skipped`);
    if (m[1] === 'fragment') while (p.i + 1 < p.lines.length && p.lines[p.i + 1]!.trim() !== '' && !p.lines[p.i + 1]!.startsWith('###')) p.i++;
    return true;
  }
  return false;
}

/**
 * httpyac's `proto < ./file.proto`: the gRPC requests below it are described by that file. The
 * lines right under it that read `name: value` are its options (keepCase, longs, enums, defaults,
 * oneofs, includeDirs); i is left on the last of them.
 */
function protoLine(p: Pass, line: string, path: string, ln: number) {
  const col = line.indexOf(path, line.indexOf('<') + 1) + 1;
  const node: ProtoNode = { line: ln, col, path: p.template(path, ln, col, true), options: [] };
  while (p.i + 1 < p.lines.length) {
    const o = /^\s*([A-Za-z][\w-]*)\s*:\s*(\S(?:.*\S)?)\s*$/.exec(p.lines[p.i + 1]!);
    if (!o) break;
    p.i++;
    node.options.push({ name: o[1]!, value: o[2]!, line: p.i + 1 });
  }
  (p.out.protos ??= []).push(node);
}

/** `run #Name`, `run ./file.http`, with `(@name=value, ...)` overrides: `rest` is what follows `run`. */
function runLine(p: Pass, rest: string, ln: number, col: number) {
  // The overrides: from the first `(` when the line ends with `)` (found by hand: the regex that
  // did it was cubic in a run of blanks, 5,000 took 35 s).
  const text = rest.trim();
  const open = text.endsWith(')') ? text.indexOf('(') : -1;
  const target = open === -1 ? text : text.slice(0, open).trimEnd();
  const inner = open === -1 ? undefined : text.slice(open + 1, -1);
  // `run #Name (@a=1` without its `)`: said as such, not taken for a name with a parenthesis in it.
  if (inner === undefined && /\s\(@?[^\s=]+\s*=/.test(target)) {
    p.fail(ln, col, target.includes(')') ? "run: nothing may follow the variable overrides' closing ')'" : "run: the variable overrides '(@name=value, ...)' are missing their closing ')'");
  }
  const overrides: [string, Template][] = [];
  if (inner !== undefined) {
    const line = p.lines[p.i]!;
    let from = line.indexOf('(');
    for (const part of inner.split(',')) {
      // The value trimmed after the match: `(.*?)\s*$` is quadratic in a run of blanks inside it.
      const o = /^\s*@?([^\s=]+)\s*=(.*)$/.exec(part);
      if (!o) p.fail(ln, col, `run: a variable override is written '@name=value', got '${clip(part.trim())}'`);
      const value = o[2]!.trim();
      // The value's own column (for messages about its placeholders).
      const at = line.indexOf(part, from);
      const valueCol = at === -1 ? col : at + part.indexOf(value, part.indexOf('=') + 1) + 1;
      if (at !== -1) from = at + part.length;
      overrides.push([o[1]!, p.template(value, ln, valueCol, true)]);
    }
  }
  const node: RunNode = { kind: 'run', line: ln, start: p.blockHasRequest ? ln : Math.min(p.blockStart, ln), col, overrides };
  if (target.startsWith('#')) node.name = target.slice(1).trim();
  else node.path = unquote(target);
  if (!node.name && !node.path) p.fail(ln, col, 'run needs #Name or a file');
  p.out.items.push(node);
}
