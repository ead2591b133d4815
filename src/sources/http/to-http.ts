import type { PreparedRequest } from '../../model/prepare.js';
import { headerInPairs } from '../../model/headers.js';
import type { RequestSpec } from '../../model/spec.js';
import { originText, parseUrl, requestTarget } from '../../model/url.js';
import { wholeBody } from '../../model/upload.js';
// The parser's own test: what it would read as a request is what must not stay as it is.
import { isFileVar, startsRequest } from './parse.js';

/**
 * A request as a JetBrains HTTP Client request (`sling exec --to http`): request line, the wire
 * headers but Host and Content-Length (sling adds them back), a blank line and the body. Redirects
 * are followed by .http runners unless `# @no-redirect`; a body that is not text cannot be written
 * into a .http file and is left out with a comment (the caller warns).
 */
export interface HttpText {
  text: string;
  /** Why the converted request will not be the same (for a warning). */
  problems: string[];
}

/** RFC 9110 token: what a .http request's header name may be. */
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const has = (headers: [string, string][], name: string) => headers.some(([n]) => n.toLowerCase() === name);

export function httpRequest(spec: RequestSpec, prepared: PreparedRequest, title: string): HttpText {
  if (spec.stream) return streamText(spec, prepared, title);
  const problems: string[] = [];
  const lines: string[] = [`### ${title}`];
  if (!spec.settings.follow) lines.push('# @no-redirect');
  // A .http file shares one jar between its requests: not a request that keeps out of it, nor a
  // curl command (without -b FILE or -c it has no jar; with them, the cookies it sends are its own).
  if (spec.settings.noCookies || spec.settings.curl) lines.push('# @no-cookie-jar');
  // A target a .http runner would encode differently (`{`, `"`, a `%` that starts no escape, as
  // curl -g sends them): JetBrains' `# @no-auto-encoding` keeps it as written.
  const url = `${originText(spec.url)}${prepared.target}`;
  const readBack = (mode: boolean | 'raw') => {
    try {
      return requestTarget(parseUrl(url, 'http', false, mode));
    } catch {
      return undefined;
    }
  };
  if (readBack(true) !== prepared.target) {
    if (readBack('raw') === prepared.target) lines.push('# @no-auto-encoding');
    else problems.push(`the target '${prepared.target}' cannot be written so that a .http runner sends it byte for byte`);
  }
  const st = spec.settings;
  if (st.timeoutMs !== undefined) lines.push(`# @timeout ${st.timeoutMs} ms`);
  else if (st.maxTimeMs !== undefined) {
    // curl's -m limits the whole transfer; the nearest a .http file has limits each wait.
    lines.push(`# @timeout ${st.maxTimeMs} ms`);
    problems.push(`-m ${st.maxTimeMs / 1000} limits the whole transfer, which no .http directive does: written as # @timeout, which limits each wait for the server`);
  }
  if (st.connectTimeoutMs !== undefined) lines.push(`# @connection-timeout ${st.connectTimeoutMs} ms`);
  if (spec.settings.tls.verify !== true) problems.push('TLS settings (-k, --cacert) have no place in a .http file');
  if (Object.keys(spec.settings.proxies).length) problems.push('the proxy has no place in a .http file');
  const version = spec.settings.http2 === 'alpn' ? ' HTTP/2' : spec.settings.http2 ? ' HTTP/2 (Prior Knowledge)' : '';
  lines.push(`${prepared.method} ${originText(spec.url)}${prepared.target}${version}`);
  for (const [name, value] of prepared.headers) {
    const lower = name.toLowerCase();
    if ((lower === 'host' && value === spec.url.hostHeader) || lower === 'content-length') continue;
    // A name a .http file cannot hold (curl sends `-H 'Bad Name: v'` as written): left out, with a
    // warning, rather than written into a file that no runner (sling included) would read.
    if (!HEADER_NAME.test(name)) {
      problems.push(`the header '${name}' is not a valid header name, which a .http file cannot carry: left out`);
      continue;
    }
    lines.push(`${name}: ${value}`);
  }
  if (spec.settings.digest) lines.push(`Authorization: Digest ${spec.settings.digest.user} ${spec.settings.digest.password}`);
  if (spec.settings.follow && spec.settings.maxRedirects < 30) problems.push(`a limit of ${spec.settings.maxRedirects} redirects has no place in a .http file (runners follow up to 30)`);
  // .http runners read {{...}} as a placeholder; there is no way to write it literally.
  const body = wholeBody(prepared.body);
  if (lines.some((l, i) => i > 0 && l.includes('{{')) || body.includes('{{')) problems.push("'{{' would be read as a variable placeholder by a .http runner, not sent as written");
  // .http runners add these when the file has none; say what sling would send instead.
  if (!has(prepared.headers, 'accept-encoding')) problems.push('a .http runner adds Accept-Encoding');
  if (body.length) {
    const text = body.toString('utf8');
    if (!Buffer.from(text, 'utf8').equals(body) || /[\x00-\x08\x0b\x0c\x0e-\x1f]/.test(text)) {
      problems.push(`the ${body.length}-byte body is not text and was left out`);
      lines.push('', '# (binary body left out)');
    } else {
      // A body line a .http runner would read as something else: a new request (`###`, a request
      // line after a blank line), a file reference (`< file`, `<@ file`), a response handler or
      // output (`>`, `>>`), a saved-response reference (`<>`), an httpyac assertion (`??`), a script
      // (`{%`): indented (no .http syntax writes it as it is), with a warning.
      const bodyLines = text.split('\n');
      const safe = bodyLines.map((l, i) => (/^(###|<@?\s|>|<>|\?\?|\{%)/.test(l) || ((i === 0 || bodyLines[i - 1]!.trim() === '') && startsRequest(l)) ? ' ' + l : l));
      indentVarParagraphs(safe);
      if (safe.join('\n') !== text)
        problems.push('body lines that a .http runner would read as syntax (###, <, <@, >, >>, <>, ??, {%, a request line after a blank line, a paragraph of @name = value lines) were indented');
      if (/^\r?\n/.test(text)) problems.push('blank lines at the start of the body are dropped (a .http body starts at its first line with text)');
      const ct = headerInPairs(prepared.headers, 'content-type') ?? '';
      if (/^application\/x-www-form-urlencoded/i.test(ct) && /\n|\s[=&]|[=&]\s/.test(text)) {
        problems.push('a form body with line breaks or blanks around = and & is sent differently by a .http runner (it joins the lines and trims those blanks)');
      }
      lines.push('', safe.join('\n').replace(/\r\n/g, '\n'));
      if (text.includes('\r\n')) problems.push("CRLF line ends in the body become the file's line ends");
      if (/\n$/.test(text)) problems.push("the body's final line break is dropped (a .http body cannot end with one)");
      if (/^multipart\//i.test(headerInPairs(prepared.headers, 'content-type') ?? '') && /\n\r?\n--/.test(text)) {
        problems.push('a multipart part that ends with a line break loses it (a .http runner drops blank lines at the end of a part)');
      }
      if (/^(#|\/\/)/.test(text)) problems.push('body lines starting with # or // at the start of the body may be read as comments');
      else if (/^\s*[[{]/.test(text) && /\n\s*(#|\/\/)/.test(text)) problems.push('lines starting with # or // in a JSON body are read as comments by a .http runner');
      if (/^multipart\//i.test(headerInPairs(prepared.headers, 'content-type') ?? '') && /(^|[^\r])\n/.test(text)) {
        problems.push('line breaks inside multipart parts become CRLF (a .http runner writes every line of a multipart body with CRLF)');
      }
    }
  }
  return { text: lines.join('\n') + '\n', problems };
}

/**
 * A stream request (WebSocket, server-sent events, gRPC, a GraphQL subscription) as a .http file
 * writes it: its proto lines, its keyword and URL in the scheme it was written with, its headers,
 * and its messages with JetBrains' `===` separators.
 */
function streamText(spec: RequestSpec, prepared: PreparedRequest, title: string): HttpText {
  const stream = spec.stream!;
  const problems: string[] = [];
  const lines: string[] = [`### ${title}`];
  for (const p of stream.grpc?.protos ?? []) {
    lines.push(`proto < ${p.file}`);
    for (const [name, value] of Object.entries(p.options)) lines.push(`${name}: ${typeof value === 'string' ? value : JSON.stringify(value)}`);
    const dirs = p.includeDirs.slice(1);
    if (dirs.length) lines.push(`includeDirs: ${JSON.stringify(dirs)}`);
    lines.push('');
  }
  if (spec.settings.timeoutMs !== undefined) lines.push(`# @timeout ${spec.settings.timeoutMs} ms`);
  let origin = originText(spec.url);
  if (spec.url.shownOrigin === undefined) origin = origin.replace(/^http/, stream.kind === 'websocket' ? 'ws' : stream.kind === 'grpc' ? 'grpc' : 'http');
  lines.push(`${stream.keyword} ${origin}${prepared.target}`);
  for (const [name, value] of prepared.headers) {
    const lower = name.toLowerCase();
    if ((lower === 'host' && value === spec.url.hostHeader) || lower === 'content-length') continue;
    if (HEADER_NAME.test(name)) lines.push(`${name}: ${value}`);
    else problems.push(`the header '${name}' is not a valid header name, which a .http file cannot carry: left out`);
  }
  if (stream.graphql) {
    lines.push('', stream.graphql.query);
    if (stream.graphql.variables !== undefined) lines.push('', JSON.stringify(stream.graphql.variables, null, 2));
  } else if (stream.messages.length) {
    lines.push('');
    stream.messages.forEach((m, i) => {
      // The first message needs a separator only to wait for the server (its greeting) before it goes.
      if (m.waitForServer) for (let k = 0; k < (m.waitCount ?? 1); k++) lines.push('=== wait-for-server');
      else if (i > 0) lines.push('===');
      lines.push(m.text);
    });
  }
  return { text: lines.join('\n') + '\n', problems };
}

/**
 * A paragraph of the body made only of `@name = value` lines (and comment lines) is read as file
 * variables (sling, httpyac): its `@` lines are indented, which keeps them body.
 */
function indentVarParagraphs(lines: string[]) {
  for (let i = 0; i < lines.length; ) {
    let j = i;
    while (j < lines.length && lines[j]!.trim() !== '') j++;
    let vars = 0;
    let other = false;
    for (let k = i; k < j; k++) {
      const l = lines[k]!;
      if (l.charCodeAt(0) === 64 && isFileVar(l.trim())) vars++;
      else if (!/^\s*(#|\/\/)/.test(l)) other = true;
    }
    if (vars && !other) for (let k = i; k < j; k++) if (lines[k]!.charCodeAt(0) === 64) lines[k] = ' ' + lines[k];
    i = j + 1;
  }
}
