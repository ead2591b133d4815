import { blockComment, comment } from './comments.js';
import { curlCommand } from './curl-command.js';
import { assertLine } from './handlers.js';
import { added, clip, type Pass } from './pass.js';
import { requestLine, urlTemplate } from './request-line.js';
import { httpyacScript, preScript, script, takeLua, YAC_OPEN, yacBlock } from './scripts.js';
import { statement } from './statements.js';
import { fileVar } from './variables.js';

/**
 * A line before the request line of a block (state 'pre'): a comment (and its directive), a file
 * variable, a pre-request script, an httpyac assertion or script block, a statement (`import`,
 * `run`, ...), a curl command, or the request line itself. Anything else fails the file.
 */
export function beforeRequest(p: Pass, line: string) {
  const t = line.trim();
  if (t === '') return;
  const ln = p.i + 1;
  const col = line.length - line.trimStart().length + 1;
  if (t.startsWith('#') || t.startsWith('//')) return comment(p, t, ln, col);
  if (t.startsWith('/*')) return blockComment(p, col);
  if (t.startsWith('@')) return fileVar(p, t, ln, col);
  if (t.startsWith('<')) {
    const m = /^<\s*\{%/.exec(t);
    if (m) {
      preScript(p, line, ln);
      return;
    }
    const path = t.slice(1).trim();
    p.pending.pre = added(p.pending.pre, { path: p.template(path, ln, col + t.indexOf(path), true), line: ln, lua: takeLua(p) });
    return;
  }
  if (t.startsWith('>')) {
    p.warn(ln, col, 'a response handler with no request before it: not run');
    if (/^>\s*\{%/.test(t)) script(p, line.indexOf('{%'));
    return;
  }
  if (t.startsWith('{%')) {
    p.warn(ln, col, "a script block without '<' before it: run as a pre-request script (write '< {%' to say so)");
    preScript(p, line, ln);
    return;
  }
  if (t.startsWith('{{') && YAC_OPEN.test(t)) return yacBlock(p, ln, col, undefined);
  // `{{host}}/path` is a request line (a GET, as `example.org/path` is); httpyac's script blocks
  // open with `{{` alone on its line (`{{@request`, `{{+after`), or are code on one line.
  if (t.startsWith('{{') && !urlTemplate(t)) return httpyacScript(p, ln, col);
  if (t.startsWith('??')) return assertLine(p, t, ln, col, p.pending);
  if (statement(p, line, t, ln, col)) return;
  if (t.charCodeAt(0) === 99 /* c */ && /^curl(\.exe)?(\s|$)/.test(t)) return curlCommand(p, ln, col);
  if (!requestLine(p, line, ln)) {
    if (/^[A-Za-z]+$/.test(t)) p.fail(ln, col, `a request line needs a URL after '${t}'`);
    p.fail(ln, col, `expected a request line (METHOD URL), a comment, a variable (@name = value) or ###, got '${clip(t)}'`);
  }
}
