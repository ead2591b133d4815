import type { BodyLine, RequestNode } from '../ast.js';
import { ownLineComment } from './comments.js';
import { assertLine, handlerLine } from './handlers.js';
import { added, type Pass } from './pass.js';
import { startsRequest } from './request-line.js';
import { handlerScript, httpyacScript, YAC_OPEN, yacBlock } from './scripts.js';
import { fileVar, varsParagraph } from './variables.js';

/**
 * A line of a request's body (state 'body'): text, a file (`< ./file`, `<@ ./file`, httpyac
 * `gql < ./query.gql`), or what ends the body: a response handler, an assertion, a recorded
 * response, a paragraph of file variables, the next request after a blank line. Blank lines and
 * comment lines are held until a later line shows whose they are.
 */
export function body(p: Pass, line: string) {
  const req = p.req!;
  const ln = p.i + 1;
  if (line.trim() === '') {
    if (p.leadComments) p.leadComments.push(p.i);
    else if (p.bodyStarted) (p.blanks ??= []).push(p.i);
    p.blankBefore = true;
    p.varParagraph = false;
    return;
  }
  if (line.trim() === '/*' && ownLineComment(p)) return;
  if (p.varParagraph) {
    const t = line.trim();
    if (line.charCodeAt(0) === 64 /* @ */) return fileVar(p, t, ln, 1);
    if (t.startsWith('#') || t.startsWith('//')) {
      // A comment among them: nobody's, or a directive for the next request (`# @name next`).
      if (t.includes('@')) (p.carried ??= []).push(p.i);
      return;
    }
    // What ends the paragraph: a response handler, an assertion, the next request.
    p.varParagraph = false;
  }
  // A paragraph of file variables (comments among them) after a blank line in a body, or as the
  // whole body: `@token = {{login.response.body.token}}` after a request, as httpyac and REST
  // Client read it (see varsParagraph()).
  if ((!p.bodyStarted || p.blankBefore) && line.charCodeAt(0) === 64 /* @ */ && varsParagraph(p)) {
    p.varParagraph = true;
    return fileVar(p, line.trim(), ln, 1);
  }
  if (handlerLine(p, line, ln)) return;
  if (line.startsWith('??')) {
    assertLine(p, line.trimEnd(), ln, 1, req);
    p.state = 'after';
    return;
  }
  const atStart = !p.bodyStarted || p.blankBefore;
  if (atStart) {
    if (!p.bodyStarted && line.trimStart().startsWith('{%')) {
      p.warn(ln, 1, "a script block without '>' before it: run as a response handler (write '> {%' to say so)");
      handlerScript(p, line, ln);
      p.state = 'after';
      return;
    }
    if (/^HTTP\/\d+(\.\d+)?\s+\d{3}\b/.test(line)) {
      p.warn(ln, 1, 'a recorded response (httpyac) after the request: ignored');
      p.state = 'skip';
      p.blankBefore = false;
      return;
    }
    // After an indented request line, an indented request line starts the next request too.
    if (startsRequest(p.reqIndent !== 0 ? line.trimStart() : line)) return p.startNextRequest(line);
    if (YAC_OPEN.test(line)) return yacBlock(p, ln, 1, req);
    if (line.startsWith('{{') && !line.slice(2).includes('}}')) return httpyacScript(p, ln, 1);
    // httpyac `gql [NAME] < ./query.gql`: the GraphQL query comes from the file (NAME is the
    // operation name); variables may follow after a blank line.
    const gql = !p.bodyStarted && line.startsWith('gql') ? /^gql(?:\s+([^\s(<]+))?\s+<\s+(\S(?:.*\S)?)\s*$/.exec(line) : null;
    if (gql) {
      const col = line.indexOf(gql[2]!, 3) + 1;
      req.graphql = true;
      if (gql[1]) req.operationName = gql[1];
      req.body = added<BodyLine>(req.body, { kind: 'file', path: p.template(gql[2]!, ln, col, true), vars: false, eol: p.eol(p.i), line: ln, col });
      p.bodyStarted = true;
      return;
    }
  }
  // A comment line before the body, or after a blank line in it: whose it is shows later (the
  // body's, the next request's, or nobody's at the end of the block).
  if ((!p.bodyStarted || p.blankBefore || p.leadComments) && (line.startsWith('#') || line.startsWith('//'))) {
    (p.leadComments ??= []).push(p.i);
    return;
  }
  p.blankBefore = false;
  flushBlanks(p, req);
  // `< file`, `<@ file`, and REST Client's `<@latin1 file` (the file's encoding).
  // (`(\S(?:.*\S)?)`, not `(\S.*?)`, before `\s*$`: the lazy form was quadratic in a run of blanks, here and below.)
  const inc = line.charCodeAt(0) === 60 /* < */ ? /^<(@([\w-]+)?)?\s+(\S(?:.*\S)?)\s*$/.exec(line) : null;
  if (p.leadComments) {
    const comments = p.leadComments;
    p.leadComments = undefined;
    // Before text that is not JSON or XML, `#` lines are the body's own (Markdown, YAML, a shell script).
    const c = line.charCodeAt(0);
    if (!inc && c !== 123 /* { */ && c !== 91 /* [ */ && c !== 60 /* < */) {
      for (const k of comments) {
        const text = p.lines[k]!;
        if (text.startsWith('//')) continue;
        req.body = added<BodyLine>(req.body, { kind: 'text', t: text.trim() === '' ? '' : p.template(text, k + 1, 1, false), raw: text.trim() === '' ? '' : text, eol: p.eol(k), line: k + 1 });
      }
    }
  }
  if (inc) {
    const col = line.indexOf(inc[3]!, 1 + (inc[1]?.length ?? 0)) + 1;
    if (inc[2] && !isEncoding(inc[2])) p.fail(ln, 3, `'${inc[2]}' is not an encoding sling knows (<@latin1 ./file, <@utf-8 ./file)`);
    req.body = added<BodyLine>(req.body, { kind: 'file', path: p.template(inc[3]!, ln, col, true), vars: inc[1] !== undefined, eol: p.eol(p.i), line: ln, col, encoding: inc[2] });
  } else {
    req.body = added<BodyLine>(req.body, { kind: 'text', t: p.template(line, ln, 1, false), raw: line, eol: p.eol(p.i), line: ln });
  }
  p.bodyStarted = true;
}

/** The blank lines held inside a body, now that text follows them: body lines. */
function flushBlanks(p: Pass, req: RequestNode) {
  const blanks = p.blanks;
  if (!blanks) return;
  p.blanks = undefined;
  for (let k = 0; k < blanks.length; k++) req.body = added<BodyLine>(req.body, { kind: 'text', t: '', raw: '', eol: p.eol(blanks[k]!), line: blanks[k]! + 1 });
}

/** A file encoding TextDecoder knows (`latin1`, `utf-16le`, `windows-1252`, ...). */
function isEncoding(label: string): boolean {
  try {
    new TextDecoder(label);
    return true;
  } catch {
    return false;
  }
}
