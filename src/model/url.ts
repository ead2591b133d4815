import { domainToASCII } from 'node:url';
import { UsageError } from '../errors.js';

/**
 * URL rules of docs/decisions.md (URL and method) plus the normalisation HTTPie's Python stack applies, so the request
 * target a server sees is the one HTTPie would send:
 *  - `:3000/x` → `localhost:3000/x`, `:/x` → `localhost/x`, `://host` → `host`; no scheme → default;
 *  - characters that may not appear raw are percent-encoded (UTF-8), existing escapes are kept
 *    (uppercased) unless one `%` is not an escape, then every `%` is encoded (urllib3);
 *  - escapes of unreserved characters are decoded (`%41` → `A`, requests' requote_uri);
 *  - `.` and `..` segments are removed unless `--path-as-is`; the fragment is never sent.
 * `asWritten` (.http files, as REST Client's encodeurl and JetBrains' Java URI do): escapes stay
 * exactly as written, a `%` that starts no escape alone becomes `%25`, nothing is decoded;
 * `'raw'` (JetBrains' `# @no-auto-encoding`): only what cannot stand on a request line (blanks,
 * control characters, non-ASCII) is encoded, everything else goes as written.
 */
export interface ParsedUrl {
  scheme: 'http' | 'https';
  /** Host name as used for the connection and TLS (no brackets for IPv6). */
  hostname: string;
  port: number;
  /** `host[:port]` as it goes into the Host header (port only when not the default). */
  hostHeader: string;
  /** Path and query as they go on the request line (origin-form). */
  path: string;
  query: string;
  username?: string;
  password?: string;
  /**
   * Shown instead of `scheme://host` (an .http URL under --offline or --to that starts with a
   * placeholder nothing resolved, `{{host}}/api`: shown as written, with no scheme glued on).
   */
  shownOrigin?: string;
}

/** `scheme://host[:port]` as shown, or the origin as written (ParsedUrl.shownOrigin). */
export function originText(u: ParsedUrl): string {
  return u.shownOrigin ?? `${u.scheme}://${u.hostHeader}`;
}

const UNRESERVED = /[A-Za-z0-9\-._~]/;
const PATH_OK = new Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~!$&'()*+,;=:@/");
const QUERY_OK = new Set([...PATH_OK, '?']);
// .http files: `[` and `]` also stand raw (`?a[]=1`), as REST Client's encodeurl, httpyac (Node's URL) and
// curl leave them; urllib3, and so HTTPie, encodes them.
const WRITTEN_PATH_OK = new Set([...PATH_OK, '[', ']']);
const WRITTEN_QUERY_OK = new Set([...QUERY_OK, '[', ']']);

// Components made only of characters that stand raw (and no `%`): nothing to encode or decode.
const PATH_PLAIN = /^[A-Za-z0-9\-._~!$&'()*+,;=:@/]*$/;
const QUERY_PLAIN = /^[A-Za-z0-9\-._~!$&'()*+,;=:@/?]*$/;

/** Percent-encodes what may not stand raw in a path or query (urllib3's _encode_invalid_chars). */
function encodeInvalid(component: string, allowed: Set<string>): string {
  const normalised = component.replace(/%[0-9a-fA-F]{2}/g, (m) => m.toUpperCase());
  const escapes = (normalised.match(/%[0-9A-F]{2}/g) ?? []).length;
  const percents = (normalised.match(/%/g) ?? []).length;
  const keepPercent = escapes === percents;
  let out = '';
  for (const ch of normalised) {
    if ((ch === '%' && keepPercent) || allowed.has(ch)) out += ch;
    else for (const b of Buffer.from(ch, 'utf8')) out += '%' + b.toString(16).toUpperCase().padStart(2, '0');
  }
  return out;
}

/** What cannot stand on a request line at all: blanks, control characters, non-ASCII (as UTF-8). */
const RAW_OK = { has: (ch: string) => ch > ' ' && ch < '\x7f' };

/** encodeurl: what may not stand raw is percent-encoded (UTF-8); escapes stay as written, a lone `%` becomes `%25`. */
function encodeAsWritten(component: string, allowed: { has(ch: string): boolean }, raw = false): string {
  let out = '';
  for (let i = 0; i < component.length; i++) {
    const ch = component[i]!;
    if (ch === '%' && !raw) {
      out += /^[0-9A-Fa-f]{2}$/.test(component.slice(i + 1, i + 3)) ? '%' : '%25';
      continue;
    }
    if (allowed.has(ch)) {
      out += ch;
      continue;
    }
    const cp = component.codePointAt(i)!;
    if (cp > 0xffff) i++;
    for (const b of Buffer.from(String.fromCodePoint(cp), 'utf8')) out += '%' + b.toString(16).toUpperCase().padStart(2, '0');
  }
  return out;
}

/** Decodes escapes of unreserved characters (`%41` → `A`), as requests' requote_uri does. */
function unquoteUnreserved(s: string): string {
  return s.replace(/%([0-9A-Fa-f]{2})/g, (m, h: string) => {
    const c = String.fromCharCode(parseInt(h, 16));
    return UNRESERVED.test(c) ? c : m;
  });
}

/** RFC 3986 5.2.4 remove_dot_segments. */
export function removeDotSegments(path: string): string {
  if (!path.includes('.')) return path;
  const segments = path.split('/');
  const out: string[] = [];
  for (let i = 0; i < segments.length; i++) {
    const seg = segments[i]!;
    const last = i === segments.length - 1;
    if (seg === '.' || seg === '..') {
      if (seg === '..' && out.length > 1) out.pop();
      if (last) out.push('');
    } else out.push(seg);
  }
  let joined = out.join('/');
  if (path.startsWith('/') && !joined.startsWith('/')) joined = '/' + joined;
  return joined;
}

/** Python's quote_plus(s, safe=''): what a query or form item becomes on the wire. */
export function quotePlus(s: string): string {
  let out = '';
  for (const b of Buffer.from(s, 'utf8')) {
    const c = String.fromCharCode(b);
    if (b < 128 && UNRESERVED.test(c)) out += c;
    else if (b === 0x20) out += '+';
    else out += '%' + b.toString(16).toUpperCase().padStart(2, '0');
  }
  return out;
}

/** `a=1&b=2`, repeated names grouped at the first one's place (as HTTPie's multi-value dicts do). */
export function encodePairs(pairs: readonly [string, string][]): string {
  if (pairs.length === 0) return '';
  const groups = new Map<string, string[]>();
  for (const [k, v] of pairs) {
    const g = groups.get(k);
    if (g) g.push(v);
    else groups.set(k, [v]);
  }
  const parts: string[] = [];
  for (const [k, vs] of groups) for (const v of vs) parts.push(quotePlus(k) + '=' + quotePlus(v));
  return parts.join('&');
}

/** Applies the shorthands and the default scheme: the text the user meant. */
export function expandUrl(input: string, defaultScheme: string): string {
  let url = input;
  if (url.startsWith('://')) url = url.slice(3);
  const m = /^:(\d*)(.*)$/s.exec(url);
  if (m && (m[2] === '' || /^[/?#]/.test(m[2]!))) url = 'localhost' + (m[1] ? ':' + m[1] : '') + m[2];
  if (!/^[a-zA-Z][a-zA-Z0-9+.-]*:\/\//.test(url)) url = defaultScheme + '://' + url;
  return url;
}

type Origin = Pick<ParsedUrl, 'scheme' | 'hostname' | 'port' | 'hostHeader' | 'username' | 'password'>;

/** `http://host:port` prefixes already parsed (a file of requests names the same few hosts). */
const origins = new Map<string, Origin>();

/** Where the origin of an `http(s)://` URL ends (at its path, query or fragment); -1 for other input. */
function originEnd(input: string): number {
  const slash = input.startsWith('http://') ? 7 : input.startsWith('https://') ? 8 : -1;
  if (slash === -1) return -1;
  let end = slash;
  while (end < input.length) {
    const c = input.charCodeAt(end);
    if (c === 47 /* / */ || c === 63 /* ? */ || c === 35 /* # */) break;
    end++;
  }
  return end;
}

/**
 * Throws what parseUrl(input, defaultScheme) throws, without making the parsed URL when its origin
 * was seen before (only the origin can be invalid: a path and a query are encoded, never refused).
 * The .http parser checks every literal URL of a file this way before anything is sent.
 */
export function checkUrl(input: string, defaultScheme = 'http'): void {
  const end = originEnd(input);
  if (end !== -1 && origins.has(input.slice(0, end))) return;
  parseUrl(input, defaultScheme);
}

export function parseUrl(input: string, defaultScheme = 'http', pathAsIs = false, asWritten: boolean | 'raw' = false): ParsedUrl {
  // The common case, `http(s)://host[:port]/...` seen before: only the path and query are new.
  const end = originEnd(input);
  if (end !== -1) {
    const known = origins.get(input.slice(0, end));
    if (known) return withTarget(known, input.slice(end), pathAsIs, asWritten);
  }
  const url = expandUrl(input, defaultScheme);
  const bad = (why: string) => new UsageError(`invalid URL '${input}': ${why}`);
  const sm = /^([a-zA-Z][a-zA-Z0-9+.-]*):\/\//.exec(url)!;
  const scheme = sm[1]!.toLowerCase();
  if (scheme !== 'http' && scheme !== 'https') throw bad(`unsupported scheme '${scheme}' (sling speaks http and https)`);
  let rest = url.slice(sm[0].length);
  const hashAt = rest.indexOf('#');
  if (hashAt !== -1) rest = rest.slice(0, hashAt);
  const authEnd = rest.search(/[/?]/);
  const authority = authEnd === -1 ? rest : rest.slice(0, authEnd);
  rest = authEnd === -1 ? '' : rest.slice(authEnd);

  let username: string | undefined;
  let password: string | undefined;
  let hostport = authority;
  const at = authority.lastIndexOf('@');
  if (at !== -1) {
    const userinfo = authority.slice(0, at);
    hostport = authority.slice(at + 1);
    const colon = userinfo.indexOf(':');
    // Kept as written, percent escapes included: HTTPie sends URL credentials undecoded.
    const dec = (s: string) => s;
    username = dec(colon === -1 ? userinfo : userinfo.slice(0, colon));
    password = colon === -1 ? undefined : dec(userinfo.slice(colon + 1));
  }
  let hostname: string;
  let portText = '';
  if (hostport.startsWith('[')) {
    const close = hostport.indexOf(']');
    if (close === -1) throw bad("missing ']' after the IPv6 address");
    hostname = hostport.slice(1, close).toLowerCase();
    const after = hostport.slice(close + 1);
    if (after && !after.startsWith(':')) throw bad(`unexpected '${after}' after the IPv6 address`);
    portText = after.slice(1);
  } else {
    const colon = hostport.lastIndexOf(':');
    hostname = colon === -1 ? hostport : hostport.slice(0, colon);
    portText = colon === -1 ? '' : hostport.slice(colon + 1);
    // Percent escapes in a host name are decoded, as curl and the WHATWG URL do (`%41bc` is
    // `abc`); a `%` without two hex digits after it, or escapes that are not UTF-8, make no host
    // name at all: an invalid URL, as HTTPie says, not a name to look up.
    if (hostname.includes('%')) {
      let decoded: string | undefined;
      if (!/%(?![0-9a-fA-F]{2})/.test(hostname)) {
        try {
          decoded = decodeURIComponent(hostname);
        } catch {}
      }
      if (decoded === undefined || decoded.includes('%')) throw bad(`'${hostname}' is not a valid host name (a '%' there must be a percent escape of UTF-8)`);
      hostname = decoded;
    }
    if (/[^\x21-\x7e]/.test(hostname) && !/[\s]/.test(hostname)) {
      const ascii = domainToASCII(hostname);
      if (!ascii) throw bad(`'${hostname}' is not a valid host name`);
      hostname = ascii;
    }
    hostname = hostname.toLowerCase();
  }
  if (!hostname) throw bad('no host name');
  // Brackets only around an IPv6 address (`a[::1]b` printed back would be `[a[::1]b]`, another URL).
  if (/[\s/\\?#@<>^|[\]]/.test(hostname)) throw bad(`'${hostname}' is not a valid host name`);
  const defaultPort = scheme === 'https' ? 443 : 80;
  let port = defaultPort;
  if (portText !== '') {
    if (!/^\d{1,5}$/.test(portText) || Number(portText) > 65535) throw bad(`'${portText}' is not a valid port`);
    port = Number(portText);
  }
  const hostForHeader = hostname.includes(':') ? `[${hostname}]` : hostname;
  const hostHeader = port === defaultPort ? hostForHeader : `${hostForHeader}:${port}`;
  const origin: Origin = { scheme, hostname, port, hostHeader, username, password };
  // Remembered under the prefix the fast path looks up (the input started `http://` or `https://`).
  if (end !== -1 && origins.size < 256) origins.set(input.slice(0, end), origin);
  return withTarget(origin, rest, pathAsIs, asWritten);
}

/** The URL of an origin with a path and query (`rest`: from the first `/`, `?` or `#`). */
function withTarget(o: Origin, rest: string, pathAsIs: boolean, asWritten: boolean | 'raw' = false): ParsedUrl {
  const hashAt = rest.indexOf('#');
  if (hashAt !== -1) rest = rest.slice(0, hashAt);
  const q = rest.indexOf('?');
  let path = q === -1 ? rest : rest.slice(0, q);
  const query = q === -1 ? '' : rest.slice(q + 1);
  if (!pathAsIs) path = removeDotSegments(path);
  if (!PATH_PLAIN.test(path)) {
    path = asWritten === 'raw' ? encodeAsWritten(path, RAW_OK, true) : asWritten ? encodeAsWritten(path, WRITTEN_PATH_OK) : unquoteUnreserved(encodeInvalid(path, PATH_OK));
    // `%2e%2e` is decoded to `..`: a dot segment then, as urllib3 (HTTPie) and the WHATWG URL read it
    // (left, the URL printed and read again was another URL).
    if (!pathAsIs && !asWritten) path = removeDotSegments(path);
  }
  if (!path) path = '/';
  else if (path.charCodeAt(0) !== 47) path = '/' + path;
  return {
    scheme: o.scheme,
    hostname: o.hostname,
    port: o.port,
    hostHeader: o.hostHeader,
    path,
    query: QUERY_PLAIN.test(query)
      ? query
      : asWritten === 'raw'
        ? encodeAsWritten(query, RAW_OK, true)
        : asWritten
          ? encodeAsWritten(query, WRITTEN_QUERY_OK)
          : unquoteUnreserved(encodeInvalid(query, QUERY_OK)),
    username: o.username,
    password: o.password,
  };
}

/** The origin (scheme, host, port) of a URL, for cross-origin checks on redirects. */
export const originOf = (u: ParsedUrl) => `${u.scheme}://${u.hostname}:${u.port}`;

/**
 * A URL as written, with the password of its userinfo shown as `***` (`http://ada:***@host/`),
 * for --debug output; HTTPie's shorthand without a scheme (`ada:pw@host`) too. The userinfo ends
 * at the last `@` before the path, as URL parsers take it.
 */
export function maskedPassword(text: string): string {
  const m = /^([a-zA-Z][a-zA-Z0-9+.-]*:\/\/)?([^/?#]*)@/.exec(text);
  if (!m) return text;
  const colon = m[2]!.indexOf(':');
  if (colon === -1) return text;
  return `${m[1] ?? ''}${m[2]!.slice(0, colon)}:***@${text.slice(m[0].length)}`;
}

/** `host:port` with the port always there and an IPv6 address in brackets (`[::1]:8080`): for connections and messages. */
export function hostAndPort(u: Pick<ParsedUrl, 'hostname' | 'port'>): string {
  return `${u.hostname.includes(':') ? `[${u.hostname}]` : u.hostname}:${u.port}`;
}

/** The request target: path, then the URL's query and the query items. */
export function requestTarget(u: ParsedUrl, extraQuery = ''): string {
  const q = u.query === '' ? extraQuery : extraQuery === '' ? u.query : `${u.query}&${extraQuery}`;
  return q ? `${u.path}?${q}` : u.path;
}

export function formatUrl(u: ParsedUrl, extraQuery = ''): string {
  return `${originText(u)}${requestTarget(u, extraQuery)}`;
}

/** The URL's `user:password@` as the words they stand for (`us%40er` is `us@er`), as curl and HTTPie read them. */
export function credentialsOf(url: ParsedUrl): { user: string; password: string } | undefined {
  if (url.username === undefined) return undefined;
  const decode = (s: string) => {
    try {
      return decodeURIComponent(s);
    } catch {
      return s;
    }
  };
  return { user: decode(url.username), password: decode(url.password ?? '') };
}
