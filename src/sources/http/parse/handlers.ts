import type { AssertNode } from '../ast.js';
import { parseAssert } from '../asserts.js';
import { ownLineComment } from './comments.js';
import { added, clip, type Pass } from './pass.js';
import { startsRequest } from './request-line.js';
import { handlerScript, httpyacScript, takeLua, YAC_OPEN, yacBlock } from './scripts.js';
import { fileVar, isFileVar } from './variables.js';

// What a request does with its response, written after its body: response handlers (`> {% %}`,
// `> ./file.js`), outputs (`>> file`, `>>! file`), JetBrains' `<> saved-response` lines, httpyac
// `?? ...` assertions; and the lines after them up to the end of the request's block.

/** `> {% %}`, `> ./file.js`, `>> file`, `>>! file`, `<> ref` (the current line, number `ln`); true when the line was one. */
export function handlerLine(p: Pass, line: string, ln: number): boolean {
  const req = p.req!;
  if (line.startsWith('<>')) {
    // JetBrains writes `<> 2024-01-01T000000.200.json` (a saved response to compare with): nothing to run.
    p.state = 'after';
    return true;
  }
  if (!line.startsWith('>')) return false;
  const out = /^>>(!?)\s*(\S(?:.*\S)?)\s*$/.exec(line);
  if (out) {
    req.outputs = added(req.outputs, { path: p.template(out[2]!, ln, line.indexOf(out[2]!) + 1, true), overwrite: out[1] === '!', line: ln });
    p.state = 'after';
    return true;
  }
  if (/^>\s*\{%/.test(line)) {
    handlerScript(p, line, ln);
    p.state = 'after';
    return true;
  }
  const file = /^>\s+(\S(?:.*\S)?)\s*$/.exec(line);
  if (file) {
    req.handlers = added(req.handlers, { path: p.template(file[1]!, ln, line.indexOf(file[1]!) + 1, true), line: ln, lua: takeLua(p) });
    p.state = 'after';
    return true;
  }
  return false;
}

/** httpyac `?? ...` (t trimmed; col where it starts): kept for its request (`into`: the request, or what comes before it), or a warning. */
export function assertLine(p: Pass, t: string, ln: number, col: number, into: { asserts: AssertNode[] }) {
  const a = parseAssert(t);
  if (typeof a === 'string') return p.warn(ln, col, `${a}: skipped`);
  into.asserts = added(into.asserts, { line: ln, a, expected: p.template(a.expected, ln, col + a.expectedAt, false) });
}

/** A line after the response handlers of the current request (state 'after'). */
export function afterHandlers(p: Pass, line: string) {
  const ln = p.i + 1;
  const t = line.trim();
  if (t === '') {
    p.blankBefore = true;
    return;
  }
  if (t.startsWith('#') || t.startsWith('//')) {
    const m = /^(?:#|\/\/)\s*@lang\s*=?\s*lua\b/i.exec(t);
    if (m) p.pending.lua = true;
    // `# @name next` after the handlers, before `###`: for the next request.
    else if (t.includes('@')) (p.carried ??= []).push(p.i);
    return;
  }
  if (t === '/*' && ownLineComment(p)) return;
  if (handlerLine(p, line, ln)) return;
  if (t.startsWith('??')) return assertLine(p, t, ln, 1, p.req!);
  if (p.blankBefore && startsRequest(line)) return p.startNextRequest(line);
  if (YAC_OPEN.test(line)) return yacBlock(p, ln, 1, p.req);
  // `@token = {{login.response.body.token}}` after the response handler: a file variable.
  if (t.charCodeAt(0) === 64 /* @ */ && isFileVar(t)) return fileVar(p, t, ln, line.indexOf(t) + 1);
  if (line.startsWith('{{') && !line.slice(2).includes('}}')) return httpyacScript(p, ln, 1);
  p.warn(ln, 1, `text after the response handler is ignored: '${clip(t)}'`);
}
