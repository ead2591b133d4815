import { CliError, UsageError } from '../../errors.js';
import { USER_AGENT } from '../../version.js';
import { basicAuth } from '../../model/basic-auth.js';
import { headerInPairs } from '../../model/headers.js';
import type { BodyPiece, Header, RequestSpec } from '../../model/spec.js';
import { streamed } from '../../model/prepare.js';
import { wholeBody } from '../../model/upload.js';

const EMPTY_BODY = Buffer.alloc(0);
import { credentialsOf, parseUrl, type ParsedUrl } from '../../model/url.js';
import type { Directives, RequestNode } from './ast.js';
import { bodyBytes, graphqlBody, GraphqlVariablesError, type BuildOptions } from './bodies.js';
import { badHeaderChar, rawText } from './template.js';
import { asStream, graphqlOverWebSocket, streamScheme } from './stream-build.js';

/**
 * A parsed request plus resolved variables → the RequestSpec sling sends: the headers the file
 * gives, in its order, plus `User-Agent: sling/X.Y.Z` and `Accept-Encoding: gzip, deflate, br`
 * when the file does not set them (the transport adds Host and Content-Length). Redirects are
 * followed (JetBrains and REST Client do) unless `# @no-redirect`; one cookie jar per run unless
 * `# @no-cookie-jar`.
 */
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
  // The URL's placeholders first (file order: an unknown variable in the URL is the one reported).
  let urlText = res.resolve(node.url).trim();
  /** The URL as written (ws://, grpcs://), before it is mapped to the http(s) its connection starts with. */
  const writtenUrl = urlText;
  if (node.stream || node.graphql) urlText = streamScheme(node, urlText);
  const headers: Header[] = [];
  let hostIndex = -1;
  let hasAuth = false;
  let ctIndex = -1;
  let hasUA = false;
  let hasAE = false;
  const nodeHeaders = node.headers;
  for (let i = 0; i < nodeHeaders.length; i++) {
    const h = nodeHeaders[i]!;
    let name: string;
    let lower = h.lower;
    if (lower !== undefined) name = h.name as string;
    else {
      // A name from a variable is checked now (literal names were checked with the file).
      name = res.resolve(h.name).trim();
      if (!TOKEN.test(name) && !(o.lenient && name.includes('{{'))) throw new UsageError(`${at(h.line, h.col)}: '${name}' is not a valid header name`);
      lower = name.toLowerCase();
    }
    // The length is the body's, worked out when it is sent (REST Client drops the file's too): a
    // wrong one would cut the body or hang the connection.
    if (lower === 'content-length') continue;
    let value: string;
    if (typeof h.value === 'string') value = h.value;
    else {
      value = res.resolve(h.value).trim();
      const bad = badHeaderChar(value);
      if (bad) throw new UsageError(`${at(h.line, h.col)}: the value of ${name} contains ${bad.what}, which a header cannot carry`);
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

  // `OPTIONS * HTTP/1.1` (the JetBrains spec's asterisk form, RFC 9112 3.2.4): sent to the Host
  // header's server (or the `host` variable's), with `*` as the request target.
  const asterisk = urlText === '*' && node.method === 'OPTIONS';
  if (asterisk) urlText = '/';
  // The URL: absolute, scheme-less (`localhost:9999`, http), or origin-form (`/path` + Host header,
  // or httpyac's `host` variable).
  if (urlText.startsWith('/')) {
    let base: string | undefined;
    if (hostIndex !== -1) {
      // `Host: example.com`, `Host: https://example.com`, also with a base path (`example.com/api`):
      // the path goes in front of the request's, the header on the wire is only host[:port].
      const m = /^(?:(https?):\/\/)?([^/?#]*)([^?#]*)/i.exec(headers[hostIndex]![1])!;
      const authority = m[2]!;
      const scheme = m[1] ? m[1].toLowerCase() : /:(443|8443)$/.test(authority) ? 'https' : 'http';
      base = `${scheme}://${authority}${m[3]!.replace(/\/+$/, '')}`;
      headers[hostIndex] = [headers[hostIndex]![0], authority];
    } else {
      const host = res.lookup('host');
      if (host !== undefined) base = /^[a-z][a-z0-9+.-]*:\/\//i.test(host) ? host : `http://${host}`;
    }
    if (base === undefined) {
      const written = asterisk ? '*' : clip(urlText);
      if (!o.lenient) throw new UsageError(`${at(node.line, node.urlCol)}: '${written}' has no host: add a Host header (or define a variable named host)`);
      o.warn(`${at(node.line, node.urlCol)}: '${written}' has no host (no Host header, no host variable); shown with localhost`);
      base = 'http://localhost';
    }
    urlText = base.replace(/\/+$/, '') + urlText;
  }
  let url: ParsedUrl;
  // Kept from the second build on (`run #Name`, iterations): a request built once would only keep
  // its URL and body alive for the whole run, and the garbage collector would copy them around.
  const cache = node.cache ?? (node.built ? (node.cache = {}) : NO_CACHE);
  node.built = true;
  if (cache.urlText === urlText && cache.url) url = cache.url;
  else if (o.lenient && urlText.includes('{{')) url = looseUrl(urlText);
  else {
    try {
      url = parseUrl(urlText, 'http', false, node.directives.noAutoEncoding ? 'raw' : true);
      if (cache !== NO_CACHE) {
        cache.urlText = urlText;
        cache.url = url;
      }
    } catch (e) {
      if (!(e instanceof CliError)) throw e;
      if (o.lenient) {
        o.warn(`${at(node.line, node.urlCol)}: ${e.message}; shown as written`);
        url = looseUrl(urlText);
      } else throw new UsageError(`${at(node.line, node.urlCol)}: ${e.message}`);
    }
  }
  if (asterisk) url = { ...url, path: '*', query: '' };

  // Authorization conveniences both runners have: `Basic user password` / `Basic user:password`
  // are base64-encoded; `Digest user password` / `Digest user:password` (httpyac) answer the
  // server's digest challenge. The colon form is read first, as httpyac does, and only when the
  // user name has no blank and no '=' (a real `Digest username="..."` header is not one).
  let digest: { user: string; password: string } | undefined;
  for (let i = 0; hasAuth && i < headers.length; i++) {
    const [n, v] = headers[i]!;
    if (n.toLowerCase() !== 'authorization' || (o.lenient && v.includes('{{'))) continue;
    const cred = credentialForm(v);
    if (cred?.scheme === 'basic') headers[i] = [n, basicAuth(`${cred.user}:${cred.password}`)];
    if (cred?.scheme === 'digest') {
      digest = { user: cred.user, password: cred.password };
      headers.splice(i, 1);
      if (ctIndex > i) ctIndex--;
      i--;
    }
  }

  // `http://user:pass@host/`: Basic credentials, as curl and the main command send them (an
  // Authorization header of the request's own wins).
  const userinfo = credentialsOf(url);
  if (userinfo && headerInPairs(headers, 'authorization') === undefined) {
    headers.push(['Authorization', basicAuth(`${userinfo.user}:${userinfo.password}`)]);
  }
  const contentType = ctIndex === -1 ? undefined : headers[ctIndex]![1];
  // A body with no placeholders and no files is encoded once (a JSON body sent a thousand times).
  let body: Buffer;
  /** A body with a large `< file` in it: sent as it is read (upload.ts). */
  let pieces: BodyPiece[] | undefined;
  if (cache.body && cache.ct === contentType) body = cache.body;
  else {
    const got = bodyBytes(node, o, contentType);
    if (Array.isArray(got)) {
      // GraphQL needs the text whole: read now.
      if (node.graphql || node.stream) body = wholeBody(streamed(got));
      else {
        pieces = got;
        body = EMPTY_BODY;
      }
    } else body = got;
    if (node.graphql) {
      try {
        body = graphqlBody(body.toString('utf8'), node.fragments, node.operationName, node.graphqlVariables);
      } catch (e) {
        if (!(e instanceof GraphqlVariablesError)) throw e;
        if (!o.lenient) throw new UsageError(`${at(node.line, 1)}: ${e.message}`);
        o.warn(`${at(node.line, 1)}: ${e.message}; shown as written`);
      }
    }
    if (cache !== NO_CACHE && !pieces && literalBody(node)) {
      cache.body = body;
      cache.ct = contentType;
    }
  }
  const graphqlWs = node.graphql && graphqlOverWebSocket(node, writtenUrl, body);
  const stream = node.stream !== undefined || graphqlWs;
  if (node.graphql && ctIndex === -1 && !graphqlWs) headers.push(['Content-Type', 'application/json']);
  // A gRPC call's headers are its metadata: sling's own go in the call's HEADERS (grpc.ts), not here.
  if (!hasUA && node.stream?.kind !== 'grpc') headers.push(['User-Agent', USER_AGENT]);
  if (!hasAE && !stream) headers.push(['Accept-Encoding', 'gzip, deflate, br']);

  const d = node.directives;
  // No directive or version that settingsOf() reads: the run's shared settings.
  const plain = !d.noRedirect && d.timeoutMs === undefined && d.connectTimeoutMs === undefined && !d.insecure && !d.noCookieJar && !digest && node.version === undefined;
  const spec: RequestSpec = {
    method: node.method,
    url,
    query: [],
    headers,
    body: pieces ? { kind: 'stream', pieces } : body.length || node.body.length || !BODYLESS.has(node.method) ? { kind: 'bytes', data: body } : NO_BODY,
    settings: plain ? plainSettings() : settingsOf(d, digest, node.version),
    source: { file: file.path, line: node.line },
  };
  if (stream) return new Built(asStream(spec, node, body, o, graphqlWs), node);
  return new Built(spec, node);
}

function literalBody(node: RequestNode): boolean {
  for (const l of node.body) if (l.kind !== 'text' || typeof l.t !== 'string') return false;
  return true;
}

const BODYLESS = new Set(['GET', 'HEAD', 'OPTIONS', 'DELETE', 'TRACE']);

/** A request's settings from its directives (`# @no-redirect`, `# @timeout`, ...) and its HTTP version. */
function settingsOf(d: Directives, digest: RequestSpec['settings']['digest'], version: string | undefined): RequestSpec['settings'] {
  return {
    follow: !d.noRedirect,
    followFrom: d.noRedirect ? '# @no-redirect' : undefined,
    maxRedirects: 30,
    // `@timeout`: waiting for the response; `@connection-timeout`: establishing the connection.
    timeoutMs: d.timeoutMs,
    timeoutFrom: d.timeoutMs !== undefined ? '# @timeout' : undefined,
    connectTimeoutMs: d.connectTimeoutMs,
    connectFrom: d.connectTimeoutMs !== undefined ? '# @connection-timeout' : undefined,
    tls: { verify: !d.insecure },
    proxies: {},
    compress: 0,
    chunked: false,
    // Otherwise the run's jar (the runner hands it to the exchange, ExecEntry.cookieJar).
    noCookies: d.noCookieJar || undefined,
    digest,
    // `HTTP/2` (httpyac's `HTTP/2.0` too): h2 offered with ALPN over TLS, an h2c upgrade offer over
    // http:// (curl's --http2); `HTTP/2 (Prior Knowledge)`: h2 from the first byte.
    http2: version?.startsWith('HTTP/2') ? (version.endsWith(')') ? 'prior-knowledge' : 'alpn') : undefined,
  };
}

const NO_DIRECTIVES: Directives = { refs: [] };
let plainKept: RequestSpec['settings'] | undefined;
/**
 * The settings of a request with no directive that changes them (most of a file's requests): one
 * object, made once. Settings are never changed after they are made
 * (applyFlags, sessions and redirects make new ones), so they can be shared; frozen all the same.
 * Building a thousand requests makes one object of seventeen properties instead of a thousand.
 */
function plainSettings(): RequestSpec['settings'] {
  if (plainKept === undefined) {
    const settings = settingsOf(NO_DIRECTIVES, undefined, undefined);
    Object.freeze(settings.tls);
    Object.freeze(settings.proxies);
    plainKept = Object.freeze(settings);
  }
  return plainKept;
}
const NO_BODY: RequestSpec['body'] = { kind: 'none' };

/** A class rather than an object literal with a getter: one is made per request. */
class Built implements BuiltRequest {
  constructor(
    readonly spec: RequestSpec,
    private readonly node: RequestNode,
  ) {}

  get urlText(): string {
    return rawText(this.node.url);
  }

  get bodyText(): string {
    return this.node.body.map((b) => (b.kind === 'text' ? b.raw : `<${b.vars ? '@' + (b.encoding ?? '') : ''} ${rawText(b.path)}`) + b.eol).join('');
  }
}

/** `http://{{host}}/x` under --offline: the URL as written, nothing encoded or lower-cased. */
export function looseUrl(text: string): ParsedUrl {
  // `{{scheme}}://{{host}}/x`: the scheme is a placeholder too; shown as written.
  const templated = /^(\{\{[^}]*\}\}):\/\/(.*)$/s.exec(text);
  if (templated) {
    const u = looseUrl(`http://${templated[2]}`);
    return { ...u, shownOrigin: `${templated[1]}://${u.hostHeader}` };
  }
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
    shownOrigin: m[1] === undefined && m[2]!.startsWith('{{') ? m[2] : undefined,
  };
}

const NO_CACHE: NonNullable<RequestNode['cache']> = {};

const clip = (s: string) => (s.length > 60 ? s.slice(0, 57) + '...' : s);

/**
 * The user and password of `Basic user:password`, `Basic user password` or the same with `Digest`:
 * the colon form first (split at the first colon, which a Basic user name cannot hold, RFC 7617),
 * then a blank between the two. `Basic dXNlcjpwYXNz` (already encoded) and a real Digest answer
 * (`Digest username="a", ...`) are neither.
 */
function credentialForm(v: string): { scheme: 'basic' | 'digest'; user: string; password: string } | undefined {
  const m = /^(basic|digest)\s+(\S.*)$/i.exec(v);
  if (!m) return undefined;
  const scheme = m[1]!.toLowerCase() as 'basic' | 'digest';
  const rest = m[2]!;
  const colon = /^([^\s:=]*):(.*)$/s.exec(rest);
  if (colon && (scheme === 'basic' || colon[1] !== '')) return { scheme, user: colon[1]!, password: colon[2]! };
  const blank = /^(\S+)\s+(\S.*)$/s.exec(rest);
  if (blank) return { scheme, user: blank[1]!, password: blank[2]! };
  return undefined;
}
