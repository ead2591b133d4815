import type { HeaderNode } from '../ast.js';
import { badHeaderChar, concat } from '../template.js';
import { body } from './body.js';
import { blockComment } from './comments.js';
import { assertLine } from './handlers.js';
import { added, clip, type Pass } from './pass.js';
import { isMethodWord, startsRequest } from './request-line.js';

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/**
 * A line after the request line, before the blank line that opens the body (state 'headers'):
 * a URL continuation line, a header `Name: value` (or an indented line folded into the header
 * before it), a comment, an assertion; a blank line, or a line that can only be body or a
 * response handler, hands over to the body.
 */
export function headers(p: Pass, line: string) {
  const req = p.req!;
  const ln = p.i + 1;
  const c0 = line.charCodeAt(0);
  if (p.urlOpen) {
    let t = line.trim();
    // JetBrains: lines indented further than the request line continue the URL; REST Client:
    // lines starting with ? or &. (The header lines of an indented request are as indented as it.)
    const c = t.charCodeAt(0);
    if (t !== '' && (line.length - line.trimStart().length > p.reqIndent || c === 63 /* ? */ || c === 38) /* & */ && !t.startsWith('??') && !t.startsWith('#') && !t.startsWith('//')) {
      const col = line.indexOf(t) + 1;
      // `  &age=25 HTTP/1.1`: the version may end the last continuation line (kulala, JetBrains).
      const last = t.charCodeAt(t.length - 1);
      const v = req.version === undefined && ((last >= 48 && last <= 57) || last === 41) ? /(?<!\s)\s+(HTTP\/\d+(?:\.\d+)?)(\s+\(prior knowledge\))?$/i.exec(t) : null;
      if (v) {
        req.version = v[1]!.toUpperCase() + (v[2] ? ' (Prior Knowledge)' : '');
        t = t.slice(0, v.index);
      }
      req.url = concat(req.url, p.template(t, ln, col, true));
      if (v) p.urlOpen = false;
      return;
    }
  }
  p.urlOpen = false;
  if (line.trim() === '') {
    p.state = 'body';
    p.blankBefore = false;
    return;
  }
  const t = line.trimStart();
  const col = line.length - t.length + 1;
  if (t.startsWith('#') || t.startsWith('//')) return;
  // `/* ... */` between or after the headers (JetBrains docs), on one line or several.
  if (t.startsWith('/*')) return blockComment(p, col);
  if (t.startsWith('??')) return assertLine(p, t, ln, col, req);
  // httpyac: a request line right after another request starts the next request.
  if (c0 >= 65 && c0 <= 90 && isMethodWord(line) && startsRequest(line)) return p.startNextRequest(line);
  if (t.startsWith('>') || t.startsWith('<>')) {
    p.state = 'body';
    return body(p, line);
  }
  if (/^<@?\s/.test(t)) {
    p.state = 'body';
    return body(p, line);
  }
  if (t.startsWith('{') || t.startsWith('[')) {
    p.warn(ln, col, 'the body should follow a blank line after the headers; taken as the body');
    p.state = 'body';
    return body(p, line);
  }
  if (col - 1 > p.reqIndent && req.headers.length) {
    p.warn(ln, col, 'an indented line after a header (obsolete line folding): joined to the header before it');
    const h = req.headers[req.headers.length - 1]!;
    h.value = concat(h.value, ' ', p.template(t, ln, col, true));
    return;
  }
  const colon = t.indexOf(':');
  const name = colon === -1 ? '' : t.slice(0, colon).trimEnd();
  if (colon <= 0 || (!TOKEN.test(name) && !name.includes('{{'))) {
    // httpyac: any line that is not a header starts the body (a GraphQL `query {` right after them).
    p.warn(ln, col, `the body should follow a blank line after the headers; '${clip(t)}' is no header 'Name: value': taken as the body`);
    p.state = 'body';
    return body(p, line);
  }
  const valueText = t.slice(colon + 1).trim();
  const valueCol = col + t.indexOf(valueText, colon + 1);
  const bad = badHeaderChar(valueText);
  if (bad) p.fail(ln, valueCol + bad.at, `the value of ${name} contains ${bad.what}, which a header cannot carry`);
  // A literal name is kept once per file with its lower-case form (`Content-Type` on a thousand requests).
  const known = p.names.get(name);
  const nameT = known ? known[0] : p.template(name, ln, col, true);
  // `lower` is in the literal even when unknown: a property added later takes a block of its own per header.
  const header: HeaderNode = { name: nameT, lower: known ? known[1] : undefined, value: p.template(valueText, ln, valueCol, true), line: ln, col };
  if (!known && typeof nameT === 'string') {
    header.lower = nameT.toLowerCase();
    p.names.set(nameT, [nameT, header.lower]);
  }
  if (name.length === 14 && /^x-request-type$/i.test(name) && /^graphql$/i.test(valueText)) {
    req.graphql = true;
    req.graphqlVariables = true;
    return;
  }
  req.headers = added(req.headers, header);
}
