import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { resolve as resolvePath } from 'node:path';
import { CliError, UsageError } from '../../errors.js';
import { USER_AGENT } from '../../request/build.js';
import type { Header, RequestSpec } from '../../request/spec.js';
import { parseUrl, type ParsedUrl } from '../../request/url.js';
import type { BodyLine, RequestNode } from './ast.js';
import { compile, rawText, type Template } from './template.js';
import type { FileCtx, Resolution } from './vars.js';

/**
 * A parsed request plus resolved variables → the RequestSpec sling sends: the headers the file
 * gives, in its order, plus `User-Agent: sling/X.Y.Z` and `Accept-Encoding: gzip, deflate, br`
 * when the file does not set them (the transport adds Host and Content-Length). Redirects are
 * followed (JetBrains and REST Client do) unless `# @no-redirect`; one cookie jar per run unless
 * `# @no-cookie-jar`.
 */
export interface BuildOptions {
  res: Resolution;
  file: FileCtx;
  lenient: boolean;
  jar?: import('../../transport/cookies.js').CookieJar;
  warn(message: string): void;
}

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

export interface BuiltRequest {
  spec: RequestSpec;
  /** The URL and body as written (for scripts' getRaw()). */
  urlText: string;
  bodyText: string;
}

export function buildSpec(node: RequestNode, o: BuildOptions): BuiltRequest {
  const { res, file } = o;
  const at = (line: number, col: number) => `${file.path}:${line}:${col}`;
  const headers: Header[] = [];
  let hostIndex = -1;
  let hasAuth = false;
  let ctIndex = -1;
  let hasUA = false;
  let hasAE = false;
  for (const h of node.headers) {
    let name: string;
    let lower = h.lower;
    if (lower !== undefined) name = h.name as string;
    else {
      // A name from a variable is checked now (literal names were checked with the file).
      name = res.resolve(h.name).trim();
      if (!TOKEN.test(name) && !(o.lenient && name.includes('{{'))) throw new UsageError(`${at(h.line, h.col)}: '${name}' is not a valid header name`);
      lower = name.toLowerCase();
    }
    let value: string;
    if (typeof h.value === 'string') value = h.value;
    else {
      value = res.resolve(h.value).trim();
      if (/[\r\n\0]/.test(value)) throw new UsageError(`${at(h.line, h.col)}: the value of ${name} contains a line break`);
    }
    switch (lower) {
      case 'host':
        hostIndex = headers.length;
        break;
      case 'authorization':
        hasAuth = true;
        break;
      case 'content-type':
        ctIndex = headers.length;
        break;
      case 'user-agent':
        hasUA = true;
        break;
      case 'accept-encoding':
        hasAE = true;
        break;
    }
    headers.push([name, value]);
  }

  // The URL: absolute, scheme-less (`localhost:9999`, http), or origin-form (`/path` + Host header,
  // or httpyac's `host` variable).
  let urlText = res.resolve(node.url).trim();
  if (urlText.startsWith('/')) {
    let base: string | undefined;
    if (hostIndex !== -1) {
      const host = headers[hostIndex]![1];
      const m = /^(https?):\/\/([^/]*)/i.exec(host);
      if (m) {
        base = `${m[1]!.toLowerCase()}://${m[2]}`;
        headers[hostIndex] = [headers[hostIndex]![0], m[2]!];
      } else base = `${/:443$/.test(host) ? 'https' : 'http'}://${host}`;
    } else {
      const host = res.lookup('host');
      if (host !== undefined) base = /^[a-z][a-z0-9+.-]*:\/\//i.test(host) ? host : `http://${host}`;
    }
    if (base === undefined) {
      if (!o.lenient) throw new UsageError(`${at(node.line, node.urlCol)}: '${clip(urlText)}' has no host: add a Host header (or define a variable named host)`);
      o.warn(`${at(node.line, node.urlCol)}: '${clip(urlText)}' has no host (no Host header, no host variable); shown with localhost`);
      base = 'http://localhost';
    }
    urlText = base.replace(/\/+$/, '') + urlText;
  }
  let url: ParsedUrl;
  const cache = (node.cache ??= {});
  if (cache.urlText === urlText && cache.url) url = cache.url;
  else if (o.lenient && urlText.includes('{{')) url = looseUrl(urlText);
  else {
    try {
      url = parseUrl(urlText, 'http', false);
      cache.urlText = urlText;
      cache.url = url;
    } catch (e) {
      if (!(e instanceof CliError)) throw e;
      if (o.lenient) {
        o.warn(`${at(node.line, node.urlCol)}: ${e.message}; shown as written`);
        url = looseUrl(urlText);
      } else throw new UsageError(`${at(node.line, node.urlCol)}: ${e.message}`);
    }
  }

  // Authorization conveniences both runners have: `Basic user password` / `Basic user:password`
  // are base64-encoded; `Digest user password` answers the server's digest challenge.
  let digest: { user: string; password: string } | undefined;
  for (let i = 0; hasAuth && i < headers.length; i++) {
    const [n, v] = headers[i]!;
    if (n.toLowerCase() !== 'authorization' || (o.lenient && v.includes('{{'))) continue;
    const basic = /^basic\s+(\S+)(?:\s+(.+))?$/i.exec(v);
    if (basic) {
      const cred = basic[2] !== undefined ? `${basic[1]}:${basic[2]}` : basic[1]!.includes(':') ? basic[1]! : undefined;
      if (cred !== undefined) headers[i] = [n, 'Basic ' + Buffer.from(cred, 'utf8').toString('base64')];
    }
    const dig = /^digest\s+(\S+)\s+(.+)$/i.exec(v);
    if (dig) {
      digest = { user: dig[1]!, password: dig[2]! };
      headers.splice(i, 1);
      if (ctIndex > i) ctIndex--;
      i--;
    }
  }

  const contentType = ctIndex === -1 ? undefined : headers[ctIndex]![1];
  // A body with no placeholders and no files is encoded once (a JSON body sent a thousand times).
  let body: Buffer;
  if (cache.body && cache.ct === contentType) body = cache.body;
  else {
    body = bodyBytes(node, o, contentType);
    if (node.graphql) body = graphqlBody(body.toString('utf8'));
    if (node.body.every((l) => l.kind === 'text' && typeof l.t === 'string')) {
      cache.body = body;
      cache.ct = contentType;
    }
  }
  if (node.graphql && ctIndex === -1) headers.push(['Content-Type', 'application/json']);
  if (!hasUA) headers.push(['User-Agent', USER_AGENT]);
  if (!hasAE) headers.push(['Accept-Encoding', 'gzip, deflate, br']);

  const d = node.directives;
  const timeouts = [d.timeoutMs, d.connectTimeoutMs].filter((x): x is number => x !== undefined);
  const spec: RequestSpec = {
    method: node.method,
    url,
    query: [],
    headers,
    body: body.length || node.body.length || !['GET', 'HEAD', 'OPTIONS', 'DELETE', 'TRACE'].includes(node.method) ? { kind: 'bytes', data: body } : { kind: 'none' },
    settings: {
      follow: !d.noRedirect,
      maxRedirects: 30,
      timeoutMs: timeouts.length ? Math.max(...timeouts) : undefined,
      tls: { verify: !d.insecure },
      proxies: {},
      compress: 0,
      chunked: false,
      cookieJar: d.noCookieJar ? undefined : o.jar,
      digest,
    },
    source: { file: file.path, line: node.line },
  };
  return {
    spec,
    urlText: rawText(node.url),
    get bodyText() {
      return node.body.map((b) => (b.kind === 'text' ? b.raw : `<${b.vars ? '@' : ''} ${rawText(b.path)}`) + b.eol).join('');
    },
  };
}

/** `http://{{host}}/x` under --offline: the URL as written, nothing encoded or lower-cased. */
export function looseUrl(text: string): ParsedUrl {
  const m = /^(?:([a-z][a-z0-9+.-]*):\/\/)?([^/?#]*)([^?#]*)(?:\?([^#]*))?/i.exec(text)!;
  const scheme = m[1]?.toLowerCase() === 'https' ? 'https' : 'http';
  const host = m[2] || 'localhost';
  const port = /:(\d+)$/.exec(host);
  return {
    scheme,
    hostname: host.replace(/:\d+$/, ''),
    port: port ? Number(port[1]) : scheme === 'https' ? 443 : 80,
    hostHeader: host,
    path: m[3] || '/',
    query: m[4] ?? '',
  };
}

function readInclude(line: BodyLine & { kind: 'file' }, o: BuildOptions): Buffer | string {
  const path = o.res.resolve(line.path);
  const full = resolvePath(o.file.dir, path === '~' || path.startsWith('~/') ? homedir() + path.slice(1) : path);
  let data: Buffer;
  try {
    data = readFileSync(full);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a directory' : (e as Error).message;
    const where = `${o.file.path}:${line.line}:${line.col}`;
    if (!o.lenient) throw new UsageError(`${where}: cannot read '${path}': ${why}`);
    o.warn(`${where}: cannot read '${path}': ${why}; shown as written`);
    return `<${line.vars ? '@' : ''} ${path}`;
  }
  if (!line.vars) return data;
  // `<@ file`: the file's text with its {{variables}} substituted.
  return o.res.resolve(compile(data.toString('utf8'), line.line, line.col));
}

function bodyBytes(node: RequestNode, o: BuildOptions, contentType: string | undefined): Buffer {
  const lines = node.body;
  if (lines.length === 0) return Buffer.alloc(0);
  const ct = contentType?.toLowerCase() ?? '';
  if (ct.startsWith('multipart/')) {
    const multipart = multipartBody(node, o, contentType!);
    if (multipart) return multipart;
  }
  if (ct.startsWith('application/x-www-form-urlencoded') && lines.every((l) => l.kind === 'text')) {
    // Several lines make one form (REST Client: `&key=value` lines); spaces around = and & go.
    let s = '';
    for (const l of lines) s += o.res.resolve((l as { t: Template }).t).trim();
    return Buffer.from(s.replace(/\s*&\s*/g, '&').replace(/\s*=\s*/g, '='), 'utf8');
  }
  if (lines.length === 1 && lines[0]!.kind === 'text') return Buffer.from(o.res.resolve(lines[0]!.t), 'utf8');
  const chunks: Buffer[] = [];
  let text = '';
  for (const l of lines) {
    if (l.kind === 'text') text += o.res.resolve(l.t) + l.eol;
    else {
      const inc = readInclude(l, o);
      if (typeof inc === 'string') text += inc + l.eol;
      else {
        if (text) chunks.push(Buffer.from(text, 'utf8'));
        text = '';
        chunks.push(inc);
        if (l.eol) text = l.eol;
      }
    }
  }
  if (text) chunks.push(Buffer.from(text, 'utf8'));
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
}

/**
 * A multipart body as written, re-assembled with CRLF line breaks (as the wire format wants),
 * `< ./file` parts read as bytes, trailing blank lines of each part dropped. The delimiter lines
 * are found by the boundary as written in the Content-Type header (before variables are
 * substituted), so `boundary={{$timestamp}}` works. null: no delimiter found, send as text.
 */
function multipartBody(node: RequestNode, o: BuildOptions, contentType: string): Buffer | null {
  const ctHeader = node.headers.find((h) => /^content-type$/i.test(rawText(h.name)));
  const rawBoundary = ctHeader && /boundary=("?)([^";\s]+)\1/i.exec(rawText(ctHeader.value))?.[2];
  const boundary = /boundary=("?)([^";\s]+)\1/i.exec(contentType)?.[2];
  if (!rawBoundary || !boundary) return null;
  const open = '--' + rawBoundary;
  const close = open + '--';
  const isDelimiter = (l: BodyLine) => l.kind === 'text' && (l.raw.trim() === open || l.raw.trim() === close);
  if (!node.body.some(isDelimiter)) return null;
  const chunks: Buffer[] = [];
  let i = 0;
  const lines = node.body;
  while (i < lines.length && !isDelimiter(lines[i]!)) i++;
  while (i < lines.length) {
    const delim = lines[i] as { raw: string };
    if (delim.raw.trim() === close) {
      chunks.push(Buffer.from(`--${boundary}--\r\n`));
      break;
    }
    chunks.push(Buffer.from(`--${boundary}\r\n`));
    i++;
    // part headers up to the first blank line
    let head = '';
    while (i < lines.length && !isDelimiter(lines[i]!)) {
      const l = lines[i]!;
      if (l.kind === 'text' && l.raw.trim() === '') {
        i++;
        break;
      }
      head += (l.kind === 'text' ? o.res.resolve(l.t) : '') + '\r\n';
      i++;
    }
    chunks.push(Buffer.from(head + '\r\n'));
    let end = i;
    while (end < lines.length && !isDelimiter(lines[end]!)) end++;
    let last = end;
    while (last > i && lines[last - 1]!.kind === 'text' && (lines[last - 1] as { raw: string }).raw.trim() === '') last--;
    for (let j = i; j < last; j++) {
      const l = lines[j]!;
      if (l.kind === 'text') chunks.push(Buffer.from(o.res.resolve(l.t), 'utf8'));
      else {
        const inc = readInclude(l, o);
        chunks.push(typeof inc === 'string' ? Buffer.from(inc, 'utf8') : inc);
      }
      if (j < last - 1) chunks.push(Buffer.from('\r\n'));
    }
    chunks.push(Buffer.from('\r\n'));
    i = end;
  }
  return Buffer.concat(chunks);
}

/**
 * GraphQL (JetBrains `GRAPHQL url`, REST Client `X-REQUEST-TYPE: GraphQL`, httpyac's query
 * bodies): the query, then optionally a blank line and the variables as JSON, sent as
 * `{"query": ..., "operationName": ..., "variables": ...}`.
 */
export function graphqlBody(text: string): Buffer {
  let query = text;
  let variables: unknown;
  const blanks = /\r?\n[ \t]*\r?\n/g;
  let m: RegExpExecArray | null;
  const cuts: number[] = [];
  while ((m = blanks.exec(text))) cuts.push(m.index, m.index + m[0].length);
  for (let k = cuts.length - 2; k >= 0; k -= 2) {
    const tail = text.slice(cuts[k + 1]!).trim();
    if (!tail.startsWith('{')) continue;
    try {
      variables = JSON.parse(tail);
      query = text.slice(0, cuts[k]!);
      break;
    } catch {
      // not the variables: part of the query
    }
  }
  query = query.trim();
  const doc: Record<string, unknown> = { query };
  const op = /^\s*(query|mutation|subscription)\s+([A-Za-z_]\w*)/.exec(query);
  if (op) doc.operationName = op[2];
  if (variables !== undefined) doc.variables = variables;
  return Buffer.from(JSON.stringify(doc), 'utf8');
}

const clip = (s: string) => (s.length > 60 ? s.slice(0, 57) + '...' : s);
