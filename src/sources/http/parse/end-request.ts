import { checkUrl } from '../../../model/url.js';
import { CliError } from '../../../errors.js';
import type { BodyLine } from '../ast.js';
import { rawText } from '../template.js';
import { streamScheme } from '../stream-build.js';
import { trailingDirectives } from './comments.js';
import { fit, NONE, type Pass } from './pass.js';

const blankLine = (b: BodyLine) => b.kind === 'text' && b.raw.trim() === '';
const commentLine = (b: BodyLine) => b.kind === 'text' && (b.raw.startsWith('#') || b.raw.startsWith('//'));
const textLine = (b: BodyLine) => b.kind === 'text' && b.raw.trim() !== '';
const indentedComment = (b: BodyLine) => b.kind === 'text' && /^\s*(#|\/\/)/.test(b.raw);

/**
 * The end of the current request's block (at `###`, at the next request, at the end of the
 * file): what was held (blank lines, comment lines) is settled, its URL checked, its body
 * trimmed, and the request added to the file's items. `replayed`: comment lines the caller reads
 * as the next request's itself (startNextRequest).
 */
export function endRequest(p: Pass, replayed?: number[]) {
  const req = p.req;
  p.req = undefined;
  // Blank lines after the last text of a body: not body.
  p.blanks = undefined;
  // Comment lines with no body after them: not body (trailing comments, orders.http); a
  // directive among them (`# @name next` before `###`) is for the next request.
  if (p.leadComments) {
    for (const k of p.leadComments) if (p.lines[k]!.includes('@')) (p.carried ??= []).push(k);
  }
  p.leadComments = undefined;
  p.varParagraph = false;
  if (!req) return;
  trailingDirectives(p, req, replayed);
  p.urlOpen = false;
  // A URL with no placeholders is checked now: a file with a broken one sends nothing.
  if (typeof req.url === 'string' && !req.url.startsWith('/')) {
    const written = req.url.trim();
    // A stream's URL as its connection starts (ws:// is http://, grpcs:// is https://).
    const checked = req.stream || req.graphql ? streamScheme(req, written) : written;
    try {
      checkUrl(checked);
    } catch (e) {
      if (!(e instanceof CliError)) throw e;
      // The message quotes the URL as the file writes it, not as it was mapped.
      p.fail(req.line, req.urlCol, checked === written ? e.message : e.message.split(`'${checked}'`).join(`'${written}'`));
    }
  }
  // Trailing blank lines, and comments after a blank line at the end (orders.http), are not body.
  let body = req.body;
  let end = body.length;
  for (;;) {
    while (end > 0 && blankLine(body[end - 1]!)) end--;
    let k = end;
    while (k > 0 && commentLine(body[k - 1]!)) k--;
    if (k < end && k > 0 && blankLine(body[k - 1]!)) end = k;
    else break;
  }
  // The lines kept, in a list of their own length (a list that grew keeps its spare room when cut).
  req.body = body = end === body.length ? fit(body) : end === 0 ? NONE : body.slice(0, end);
  // httpyac's `# @injectVariables`: every `< file` of the body is read as `<@ file`.
  if (req.directives.injectVariables && body.some((b) => b.kind === 'file' && !b.vars)) req.body = body = body.map((b) => (b.kind === 'file' && !b.vars ? { ...b, vars: true } : b));
  // A JSON body cannot hold a line starting with # or //: such lines are comments (REST Client
  // drops every comment line of the block), as are the blank lines JSON does not need. (A body of
  // one line is that JSON line.)
  const first = body.length > 1 ? body.find(textLine) : undefined;
  if (first && first.kind === 'text' && /^\s*[[{]/.test(first.raw) && body.some(indentedComment)) {
    req.body = fit(body.filter((b) => !indentedComment(b)));
  }
  if (req.body.length) req.body[req.body.length - 1]!.eol = '';
  // httpyac: a JSON-typed body that starts with a GraphQL operation is a GraphQL request.
  if (!req.graphql && req.body.length && req.body[0]!.kind === 'text' && /^(query|mutation|subscription|fragment)\b/.test(req.body[0]!.raw)) {
    const ct = req.headers.find((h) => /^content-type$/i.test(rawText(h.name)));
    if (!ct || /json/i.test(rawText(ct.value))) req.graphql = true;
  }
  req.headers = fit(req.headers);
  req.pre = fit(req.pre);
  req.handlers = fit(req.handlers);
  req.asserts = fit(req.asserts);
  req.outputs = fit(req.outputs);
  p.out.items.push(req);
  p.state = 'pre';
}
