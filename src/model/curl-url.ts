import { removeDotSegments, type ParsedUrl } from './url.js';

/**
 * URLs the way curl 7.88 reads them, which is not the way HTTPie does (src/model/url.ts):
 *  - no scheme: http://, or https:// for... nothing (curl guesses ftp:// for `ftp.` hosts and the
 *    like, which sling refuses as not HTTP); `--proto-default` changes it;
 *  - the path keeps its escapes as written (`%2e%2E` stays), `.` and `..` segments are squashed
 *    unless --path-as-is, bytes above 0x7f are percent-encoded in lower case (`ü` → `%c3%bc`);
 *  - the query is sent exactly as written, raw UTF-8 included, and a bare `?` stays;
 *  - the fragment is dropped; spaces and control characters anywhere are an error ("malformed");
 *  - credentials go up to the first `@` and are percent-decoded for Basic auth.
 * All strings are byte strings (latin1, one char per byte).
 */
export interface CurlUrl {
  scheme: 'http' | 'https';
  /** Credentials as written in the URL (still percent-encoded). */
  user?: string;
  password?: string;
  /** Host as written; IPv6 addresses keep their brackets. */
  host: string;
  port?: number;
  path: string;
  /** undefined: no `?` at all; '' : a bare `?`. */
  query?: string;
}

export class CurlUrlError extends Error {}

const GUESSED: Record<string, string> = { ftp: 'ftp', dict: 'dict', ldap: 'ldap', imap: 'imap', smtp: 'smtp', pop3: 'pop3' };

/** RFC 3986 remove_dot_segments, as curl applies it to the path (escapes are not dots). */
export function squashDots(path: string): string {
  if (!path.includes('.')) return path;
  const joined = removeDotSegments(path);
  // curl's result always starts at the root.
  return joined.startsWith('/') ? joined : '/' + joined;
}

/** Bytes above 0x7f in the path are percent-encoded with lower-case hex (curl's urlencode_str). */
function encodeHigh(s: string): string {
  let out = '';
  for (const ch of s) {
    const b = ch.charCodeAt(0);
    out += b > 0x7f ? '%' + b.toString(16).padStart(2, '0') : ch;
  }
  return out;
}

export function parseCurlUrl(text: string, opts: { defaultScheme?: string; pathAsIs?: boolean } = {}): CurlUrl {
  // curl refuses control characters and spaces anywhere in a URL.
  if (/[\x00-\x20\x7f]/.test(text)) throw new CurlUrlError(`malformed URL '${text}': it contains a space or a control character`);
  let rest = text;
  let scheme: string;
  // A scheme is followed by one to three slashes (curl tolerates `http:/host` and `http:///host`).
  const sm = /^([a-zA-Z][a-zA-Z0-9+.-]*):\/{1,3}/.exec(rest);
  if (sm) {
    scheme = sm[1]!.toLowerCase();
    rest = rest.slice(sm[0].length);
  } else {
    const guess = /^([a-z0-9]+)\./i.exec(rest);
    scheme = (guess && GUESSED[guess[1]!.toLowerCase()]) || (opts.defaultScheme ?? 'http').toLowerCase();
  }
  if (scheme !== 'http' && scheme !== 'https') throw new CurlUrlError(`'${text}': the ${scheme}:// scheme is not HTTP (sling only speaks HTTP and HTTPS)`);
  const hashAt = rest.indexOf('#');
  if (hashAt !== -1) rest = rest.slice(0, hashAt);
  const authEnd = rest.search(/[/?]/);
  let authority = authEnd === -1 ? rest : rest.slice(0, authEnd);
  rest = authEnd === -1 ? '' : rest.slice(authEnd);
  const url: CurlUrl = { scheme, host: '', path: '/' };
  const at = authority.indexOf('@');
  if (at !== -1) {
    const userinfo = authority.slice(0, at);
    authority = authority.slice(at + 1);
    const colon = userinfo.indexOf(':');
    url.user = colon === -1 ? userinfo : userinfo.slice(0, colon);
    if (colon !== -1) url.password = userinfo.slice(colon + 1);
  }
  let portText: string | undefined;
  if (authority.startsWith('[')) {
    const close = authority.indexOf(']');
    if (close === -1) throw new CurlUrlError(`malformed URL '${text}': no ']' after the IPv6 address`);
    url.host = authority.slice(0, close + 1);
    const after = authority.slice(close + 1);
    if (after && !after.startsWith(':')) throw new CurlUrlError(`malformed URL '${text}'`);
    if (after) portText = after.slice(1);
  } else {
    const colon = authority.lastIndexOf(':');
    url.host = colon === -1 ? authority : authority.slice(0, colon);
    if (colon !== -1) portText = authority.slice(colon + 1);
  }
  if (!url.host) throw new CurlUrlError(`malformed URL '${text}': no host name`);
  if (/[@\\"<>^`{|}]/.test(url.host)) throw new CurlUrlError(`malformed URL '${text}': bad host name '${url.host}'`);
  if (portText !== undefined) {
    if (!/^\d{1,5}$/.test(portText) || Number(portText) > 65535) throw new CurlUrlError(`malformed URL '${text}': bad port number '${portText}'`);
    url.port = Number(portText);
  }
  const q = rest.indexOf('?');
  let path = q === -1 ? rest : rest.slice(0, q);
  if (q !== -1) url.query = rest.slice(q + 1);
  if (!path) path = '/';
  if (!opts.pathAsIs) path = squashDots(path);
  url.path = encodeHigh(path);
  return url;
}

const defaultPort = (u: CurlUrl) => (u.scheme === 'https' ? 443 : 80);

export function hostHeader(u: CurlUrl): string {
  return u.port !== undefined && u.port !== defaultPort(u) ? `${u.host}:${u.port}` : u.host;
}

/** The URL as curl prints it back (credentials and fragment left out). */
export function formatCurlUrl(u: CurlUrl, withCredentials = false): string {
  let auth = '';
  if (withCredentials && u.user !== undefined) auth = u.user + (u.password !== undefined ? ':' + u.password : '') + '@';
  const port = u.port !== undefined ? `:${u.port}` : '';
  return `${u.scheme}://${auth}${u.host}${port}${u.path}${u.query !== undefined ? '?' + u.query : ''}`;
}

/**
 * Appends to the query as curl's `curl_url_set(..., CURLU_APPENDQUERY)` does for -G and --url-query:
 * a `&` unless the query is empty or already ends with one, and every escape of the appended part
 * in lower-case hex (curl 7.88 rewrites `%2F` to `%2f` there). An empty result drops the `?`.
 */
export function appendQuery(u: CurlUrl, extra: string): CurlUrl {
  const lowered = extra.replace(/%([0-9a-fA-F]{2})/g, (_m, h: string) => '%' + h.toLowerCase());
  const old = u.query ?? '';
  const query = old ? old + (old.endsWith('&') ? '' : '&') + lowered : lowered;
  return { ...u, query: query === '' ? undefined : query };
}

/** A ParsedUrl for the transport: the URL's host (--connect-to and --resolve are settings), path and query as byte strings. */
export function toParsedUrl(u: CurlUrl): ParsedUrl {
  const bare = u.host.startsWith('[') ? u.host.slice(1, -1) : u.host;
  const port = u.port ?? defaultPort(u);
  // The request target must keep a bare `?`: requestTarget() only adds one for a non-empty query.
  const target = u.query === '' ? { path: u.path + '?', query: '' } : { path: u.path, query: u.query ?? '' };
  return {
    scheme: u.scheme,
    hostname: bare.toLowerCase(),
    port,
    hostHeader: hostHeader(u),
    ...target,
  };
}

/**
 * curl's URL globbing: `{a,b}` alternatives and `[1-9]`, `[01-10]`, `[a-z]`, `[1-9:2]` ranges, the
 * last pattern varying fastest. A backslash makes `{ } [ ] ,` literal. Returns the URLs and, for
 * each, the text each pattern matched (for `#1` in output names).
 */
export function expandGlob(text: string): { url: string; matches: string[] }[] {
  type Piece = string | string[];
  const pieces: Piece[] = [];
  let lit = '';
  let i = 0;
  const bad = (why: string): never => {
    throw new CurlUrlError(`bad URL glob in '${text}' at position ${i + 1}: ${why} (use -g to turn globbing off)`);
  };
  while (i < text.length) {
    const c = text[i]!;
    if (c === '\\' && i + 1 < text.length && '{}[],'.includes(text[i + 1]!)) {
      lit += text[i + 1];
      i += 2;
    } else if (c === '{') {
      const close = text.indexOf('}', i);
      if (close === -1) bad("unmatched '{'");
      const body = text.slice(i + 1, close);
      if (body.includes('{')) bad('nested braces are not supported');
      if (body === '') bad('empty braces (curl: "empty string within braces")');
      if (lit) pieces.push(lit);
      lit = '';
      pieces.push(body.split(','));
      i = close + 1;
    } else if (c === '[') {
      const close = text.indexOf(']', i);
      if (close === -1) bad("unmatched '['");
      const body = text.slice(i + 1, close);
      // An IPv6 address in brackets is not a range.
      if (/^[0-9a-fA-F:.]*:[0-9a-fA-F:.%a-zA-Z]*$/.test(body) && body.includes(':') && !/^\d+-\d+:\d+$/.test(body) && !/^[a-zA-Z]-[a-zA-Z]:\d+$/.test(body)) {
        lit += text.slice(i, close + 1);
        i = close + 1;
        continue;
      }
      if (lit) pieces.push(lit);
      lit = '';
      pieces.push(rangeValues(body, bad));
      i = close + 1;
    } else if (c === '}' || c === ']') {
      bad(`unmatched '${c}'`);
    } else {
      lit += c;
      i++;
    }
  }
  if (lit) pieces.push(lit);
  let out: { url: string; matches: string[] }[] = [{ url: '', matches: [] }];
  for (const p of pieces) {
    if (typeof p === 'string') out = out.map((o) => ({ url: o.url + p, matches: o.matches }));
    else {
      // Counted before they are made: `{a,b}` and `[1-1000]` patterns multiply.
      if (out.length * p.length > MAX_URLS) bad('too many URLs');
      out = out.flatMap((o) => p.map((v) => ({ url: o.url + v, matches: [...o.matches, v] })));
    }
  }
  return out;
}

/** The most URLs one glob expands to. */
const MAX_URLS = 100_000;

function rangeValues(body: string, bad: (why: string) => never): string[] {
  let m = /^([a-zA-Z])-([a-zA-Z])(?::(\d+))?$/.exec(body);
  if (m) {
    const from = m[1]!.charCodeAt(0);
    const to = m[2]!.charCodeAt(0);
    const step = m[3] ? Number(m[3]) : 1;
    if (to < from || step < 1 || m[1]! <= 'Z' !== m[2]! <= 'Z') bad(`bad range [${body}]`);
    const out: string[] = [];
    for (let c = from; c <= to; c += step) out.push(String.fromCharCode(c));
    return out;
  }
  m = /^(\d+)-(\d+)(?::(\d+))?$/.exec(body);
  if (m) {
    const from = Number(m[1]);
    const to = Number(m[2]);
    const step = m[3] ? Number(m[3]) : 1;
    if (to < from || step < 1) bad(`bad range [${body}]`);
    // Counted before they are made: `[0-99999999999]` would fill memory (past 2^53, `n += step` stops counting).
    if ((to - from) / step >= MAX_URLS) bad('too many URLs');
    // A leading zero pads every number to the width of the first one.
    const width = m[1]!.startsWith('0') ? m[1]!.length : 0;
    const out: string[] = [];
    for (let n = from; n <= to; n += step) out.push(String(n).padStart(width, '0'));
    return out;
  }
  return bad(`bad range [${body}]`);
}

/** Resolves a Location against the URL it came from (curl keeps the path's escapes as sent). */
export function resolveLocation(base: CurlUrl, location: string): CurlUrl {
  const clean = location.replace(/ /g, '%20');
  if (/^[a-zA-Z][a-zA-Z0-9+.-]*:\/\//.test(clean)) return parseCurlUrl(clean);
  // A scheme without slashes (`data:text/plain,hi`, `mailto:x`): an absolute URL to curl too, and
  // not one it speaks ("Protocol not supported", exit 1); never a path relative to the last URL.
  const other = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(clean);
  if (other && !/^(https?)$/i.test(other[1]!))
    throw new CurlUrlError(`'${clean.length > 100 ? `${clean.slice(0, 100)}...` : clean}': the ${other[1]!.toLowerCase()}: scheme is not HTTP (sling only speaks HTTP and HTTPS)`);
  const origin = `${base.scheme}://${base.host}${base.port !== undefined ? ':' + base.port : ''}`;
  if (clean.startsWith('//')) return parseCurlUrl(`${base.scheme}:${clean}`);
  if (clean.startsWith('/')) return parseCurlUrl(origin + clean);
  if (clean.startsWith('?')) return parseCurlUrl(origin + base.path + clean);
  if (clean.startsWith('#') || clean === '') return base;
  const dir = base.path.slice(0, base.path.lastIndexOf('/') + 1);
  return parseCurlUrl(origin + dir + clean);
}

/** A byte string as the text the transport sends back out as the same UTF-8 bytes. */
export const utf8 = (s: string): string => Buffer.from(s, 'latin1').toString('utf8');
