import type { RequestSpec } from './spec.js';
import { originOf, type ParsedUrl } from './url.js';

/**
 * A cookie jar after RFC 6265: cookies are bound to their domain (host-only unless Domain= was
 * given) and path, expire (Max-Age wins over Expires), Secure ones only go over HTTPS, and a cookie
 * is never sent to a host it was not set for. A Domain= that is a public suffix (`com`, `co.uk`,
 * `github.io`, and any name the Public Suffix List does not know, such as `test` or `localhost`:
 * its default rule) is refused unless it is the host itself (then the cookie is host-only), as
 * browsers and curl with libpsl do; the `__Secure-` and `__Host-` name prefixes are enforced
 * (RFC 6265bis). The jar is bounded: at most 150 cookies a domain and 3,000 in all (the
 * least recently set go first), and at most 8,190 bytes of cookies in one request's Cookie header
 * (curl's limit); each bound says so once, through `warn`. Adding, replacing and finding a cookie
 * cost the same however full the jar is. Sessions persist it as JSON; curl files read and write
 * the Netscape cookie-file format. Every front end (the main command's sessions, redirects, `sling
 * exec` of .http and curl files) uses this one jar.
 */
/** 400 days, in seconds: the longest a cookie is kept (RFC 6265bis). */
const MAX_AGE = 400 * 24 * 3600;
/** Cookies kept for one domain (curl's per-host bound; browsers keep 150 to 180). */
export const MAX_PER_DOMAIN = 150;
/** Cookies kept in all (RFC 6265's 3,000, Chrome's bound). */
export const MAX_COOKIES = 3000;
/** Bytes of the jar's cookies in one Cookie header (curl's MAX_COOKIE_HEADER_LEN). */
export const MAX_COOKIE_HEADER = 8190;

export interface Cookie {
  name: string;
  value: string;
  domain: string;
  /** Only the exact host (no Domain attribute). */
  hostOnly: boolean;
  path: string;
  /** Milliseconds since the epoch; undefined: a session cookie. */
  expires?: number;
  secure: boolean;
  httpOnly: boolean;
  sameSite?: string;
  /** Creation order, to send older cookies first among equal paths. */
  created: number;
}

/** Which bound a warning is about (a front end that has several jars says each once a run). */
export type CookieLimit = 'domain' | 'total' | 'header';

export interface CookieJarOptions {
  /** Told once per bound when the jar drops or leaves out a cookie to keep to it. */
  warn?: (message: string, limit: CookieLimit) => void;
}

let counter = 0;
const CONTROLS = /[\x00-\x08\x0a-\x1f\x7f]/;
const LOOPBACK = ['localhost', '127.0.0.1', '::1'];

/**
 * The public suffix of a domain name (public-suffix.ts, the Public Suffix List: a chunk of its own,
 * loaded by loadPublicSuffixes(), by a run that stores a cookie; not on the start-up path).
 */
let suffixOf: ((domain: string) => string | null) | undefined;

/** Loads the Public Suffix List once; a cookie with a Domain attribute cannot be stored before. */
export async function loadPublicSuffixes(): Promise<void> {
  suffixOf ??= (await import('./public-suffix.js')).publicSuffix;
}

export const publicSuffixesLoaded = (): boolean => suffixOf !== undefined;

/** Whether a domain is a public suffix: one of the list, or a name the list does not know (its `*` rule: `test`, `localhost`). */
export function isPublicSuffix(domain: string): boolean {
  if (!suffixOf) throw new Error('the Public Suffix List is not loaded (loadPublicSuffixes())');
  const bare = domain.replace(/\.+$/, '');
  return !bare || suffixOf(bare) === bare;
}

const isIp = (host: string) => /^[\d.]+$/.test(host) || host.includes(':');

function defaultPath(path: string): string {
  if (!path.startsWith('/')) return '/';
  const last = path.lastIndexOf('/');
  return last <= 0 ? '/' : path.slice(0, last);
}

export function domainMatches(host: string, domain: string): boolean {
  host = host.toLowerCase();
  domain = domain.toLowerCase();
  if (host === domain) return true;
  // A domain cookie matches subdomains, never an IP address.
  return host.endsWith('.' + domain) && !isIp(host);
}

export function pathMatches(requestPath: string, cookiePath: string): boolean {
  if (requestPath === cookiePath) return true;
  if (!requestPath.startsWith(cookiePath)) return false;
  return cookiePath.endsWith('/') || requestPath[cookiePath.length] === '/';
}

/** A cookie's identity in its domain: name and path (RFC 6265 5.3 step 11). */
const keyOf = (c: Cookie) => `${c.name.length}:${c.name}${c.path}`;
const expired = (c: Cookie, now: number) => c.expires !== undefined && c.expires <= now;

export class CookieJar {
  /** The cookies by domain, then by keyOf; each map in the order the cookies were last set. */
  private readonly byDomain = new Map<string, Map<string, Cookie>>();
  /** Every cookie by its `created` number, in the order they were last set (the first goes first). */
  private readonly order = new Map<number, Cookie>();
  private readonly warned = new Set<CookieLimit>();

  constructor(private readonly options: CookieJarOptions = {}) {}

  /** Stores the cookie of one Set-Cookie header value received from `url`. Returns it, or null when rejected. */
  setCookie(header: string, url: ParsedUrl, now = Date.now()): Cookie | null {
    const parts = header.split(';');
    const first = parts.shift()!;
    const eq = first.indexOf('=');
    if (eq === -1) return null;
    const name = first.slice(0, eq).trim();
    const value = first
      .slice(eq + 1)
      .trim()
      .replace(/^"(.*)"$/, '$1');
    if (!name) return null;
    // Control characters but the tab (a CR would end the Cookie header line it goes back in): the
    // cookie is dropped, as RFC 6265bis, browsers and curl ("invalid octets") do.
    if (CONTROLS.test(name) || CONTROLS.test(value)) return null;
    const host = url.hostname.toLowerCase();
    const cookie: Cookie = { name, value, domain: host, hostOnly: true, path: defaultPath(url.path), secure: false, httpOnly: false, created: counter++ };
    let maxAge: number | undefined;
    let expires: number | undefined;
    let domain: string | undefined;
    let rootPath = false;
    for (const attr of parts) {
      const i = attr.indexOf('=');
      const key = (i === -1 ? attr : attr.slice(0, i)).trim().toLowerCase();
      const val = i === -1 ? '' : attr.slice(i + 1).trim();
      // The last Domain attribute counts (RFC 6265 5.3 step 3); an empty one is ignored.
      if (key === 'domain' && val) domain = val.replace(/^\./, '').toLowerCase();
      else if (key === 'path') {
        cookie.path = val.startsWith('/') ? val : defaultPath(url.path);
        rootPath = val === '/';
      } else if (key === 'max-age' && /^-?\d+$/.test(val)) maxAge = Number(val);
      else if (key === 'expires') {
        const t = Date.parse(val);
        if (!Number.isNaN(t)) expires = t;
      } else if (key === 'secure') cookie.secure = true;
      else if (key === 'httponly') cookie.httpOnly = true;
      else if (key === 'samesite') cookie.sameSite = val;
    }
    if (domain !== undefined) {
      // A server may only set a cookie for its own domain or a parent of it, never for a public
      // suffix (`Domain=com` from a.evil.com would reach bank.com): a suffix that is the host
      // itself makes a host-only cookie (RFC 6265 5.3 step 5). IP addresses have no suffix.
      if (!domainMatches(host, domain)) return null;
      if (!isIp(host) && isPublicSuffix(domain)) {
        if (domain !== host) return null;
      } else {
        cookie.domain = domain;
        cookie.hostOnly = false;
      }
    }
    // At most 400 days ahead (RFC 6265bis, as browsers do): `Max-Age=1e21` would be written to a
    // cookie jar as `1e+21`, which curl cannot read.
    if (maxAge !== undefined) cookie.expires = now + Math.min(maxAge, MAX_AGE) * 1000;
    else if (expires !== undefined) cookie.expires = Math.min(expires, now + MAX_AGE * 1000);
    const secureOrigin = url.scheme === 'https' || LOOPBACK.includes(host);
    if (cookie.secure && !secureOrigin) return null;
    // Name prefixes (RFC 6265bis 5.7, case-insensitive): `__Secure-` only with Secure, `__Host-`
    // only with Secure, no Domain and `Path=/` (bound to this host and all its paths).
    const lower = name.slice(0, 9).toLowerCase();
    if ((lower.startsWith('__secure-') || lower.startsWith('__host-')) && !cookie.secure) return null;
    if (lower.startsWith('__host-') && (domain !== undefined || !rootPath)) return null;
    this.put(cookie, now);
    return cookie;
  }

  /** Adds a stored cookie (from a session file) as it is (the object becomes the jar's). */
  add(stored: Omit<Cookie, 'created'>) {
    const cookie = stored as Cookie;
    cookie.created = counter++;
    this.put(cookie);
  }

  private remove(bucket: Map<string, Cookie>, key: string, c: Cookie) {
    bucket.delete(key);
    this.order.delete(c.created);
    if (bucket.size === 0) this.byDomain.delete(c.domain);
  }

  private put(cookie: Cookie, now = Date.now()) {
    let bucket = this.byDomain.get(cookie.domain);
    const key = keyOf(cookie);
    const old = bucket?.get(key);
    if (old) {
      // Replaced: it keeps its creation time (the order it is sent in) and becomes the last set.
      cookie.created = old.created;
      this.remove(bucket!, key, old);
      bucket = this.byDomain.get(cookie.domain);
    }
    // An expiry in the past deletes the cookie.
    if (expired(cookie, now)) return;
    if (!bucket) this.byDomain.set(cookie.domain, (bucket = new Map()));
    bucket.set(key, cookie);
    this.order.set(cookie.created, cookie);
    if (bucket.size > MAX_PER_DOMAIN) {
      const [oldestKey, oldest] = bucket.entries().next().value!;
      this.remove(bucket, oldestKey, oldest);
      this.warn('domain', `more than ${MAX_PER_DOMAIN} cookies for ${cookie.domain}: the least recently set are dropped (at most ${MAX_PER_DOMAIN} cookies a domain)`);
    }
    if (this.order.size > MAX_COOKIES) {
      const oldest = this.order.values().next().value!;
      this.remove(this.byDomain.get(oldest.domain)!, keyOf(oldest), oldest);
      this.warn('total', `more than ${MAX_COOKIES.toLocaleString('en-US')} cookies: the least recently set are dropped (at most ${MAX_COOKIES.toLocaleString('en-US')} in the jar)`);
    }
  }

  private warn(limit: CookieLimit, message: string) {
    if (this.warned.has(limit)) return;
    this.warned.add(limit);
    this.options.warn?.(`cookies: ${message}`, limit);
  }

  /** The cookies that go to `url`: domain, path, Secure and expiry checked; longer paths first, then older. */
  matching(url: ParsedUrl, now = Date.now()): Cookie[] {
    const host = url.hostname.toLowerCase();
    const secure = url.scheme === 'https' || LOOPBACK.includes(host);
    const found: Cookie[] = [];
    // Only the buckets of the host and of its parent domains are looked at.
    for (let d = host; ; ) {
      const bucket = this.byDomain.get(d);
      if (bucket) {
        for (const [key, c] of bucket) {
          if (expired(c, now)) this.remove(bucket, key, c);
          else if ((!c.hostOnly || d === host) && pathMatches(url.path, c.path) && (!c.secure || secure)) found.push(c);
        }
      }
      const dot = d.indexOf('.');
      if (dot === -1 || isIp(host)) break;
      d = d.slice(dot + 1);
    }
    return found.sort((a, b) => b.path.length - a.path.length || a.created - b.created);
  }

  /** The Cookie header's value for `url`: at most MAX_COOKIE_HEADER bytes (the cookies after are left out, as curl does). */
  cookieHeader(url: ParsedUrl, now?: number): string | undefined {
    // An empty jar (most runs): no clock, no list.
    if (this.order.size === 0) return undefined;
    const list = this.matching(url, now);
    let header = '';
    let bytes = 0;
    for (let i = 0; i < list.length; i++) {
      const pair = `${list[i]!.name}=${list[i]!.value}`;
      const size = Buffer.byteLength(pair) + (i ? 2 : 0);
      if (bytes + size > MAX_COOKIE_HEADER) {
        this.warn(
          'header',
          `the Cookie header for ${url.hostname} would be over ${MAX_COOKIE_HEADER.toLocaleString('en-US')} bytes: ${list.length - i} of ${list.length} cookies are left out (curl's limit)`,
        );
        break;
      }
      header += (i ? '; ' : '') + pair;
      bytes += size;
    }
    return header || undefined;
  }

  /** Every live cookie (for saving a session), in the order they were last set. */
  all(now = Date.now()): Cookie[] {
    const live: Cookie[] = [];
    for (const c of [...this.order.values()]) {
      if (expired(c, now)) this.remove(this.byDomain.get(c.domain)!, keyOf(c), c);
      else live.push(c);
    }
    return live;
  }

  /** The Netscape cookie file format curl reads (-b FILE) and writes (-c FILE). */
  toNetscape(): string {
    const lines = ['# Netscape HTTP Cookie File', '# This file was generated by sling. Edit at your own risk.', ''];
    for (const c of this.all()) {
      const domain = (c.hostOnly ? '' : '.') + c.domain;
      lines.push(
        [c.httpOnly ? `#HttpOnly_${domain}` : domain, c.hostOnly ? 'FALSE' : 'TRUE', c.path, c.secure ? 'TRUE' : 'FALSE', String(c.expires ? Math.floor(c.expires / 1000) : 0), c.name, c.value].join(
          '\t',
        ),
      );
    }
    return lines.join('\n') + '\n';
  }

  static fromNetscape(text: string, options?: CookieJarOptions): CookieJar {
    const jar = new CookieJar(options);
    for (let line of text.split(/\r?\n/)) {
      let httpOnly = false;
      if (line.startsWith('#HttpOnly_')) {
        httpOnly = true;
        line = line.slice('#HttpOnly_'.length);
      } else if (line.startsWith('#') || !line.trim()) continue;
      const f = line.split('\t');
      if (f.length < 7) continue;
      const [domain, , path, secure, expires, name, value] = f as [string, string, string, string, string, string, string];
      const exp = Number(expires);
      jar.put({
        name,
        value,
        domain: domain.replace(/^\./, '').toLowerCase(),
        hostOnly: !domain.startsWith('.') && f[1] !== 'TRUE',
        path,
        secure: secure === 'TRUE',
        httpOnly,
        expires: exp > 0 ? exp * 1000 : undefined,
        created: counter++,
      });
    }
    return jar;
  }
}

/**
 * The request as it goes out with its cookies: the jar's for its URL (the jar the caller hands the
 * exchange; undefined: none) join any Cookie header it already has. A curl command's
 * (`settings.curl`) go as curl 7.88 sends them: the jar's, then the -b strings, in one Cookie header
 * right after curl's own headers, matched against the host of a -H Host on the first origin.
 */
export function withJarCookies(spec: RequestSpec, jar: CookieJar | undefined): RequestSpec {
  const curl = spec.settings.curl;
  if (curl) {
    // The URL's path as curl reads it (not a --request-target), without its query.
    const host = curl.host && originOf(spec.url) === curl.firstOrigin ? curl.host[1].replace(/:\d*$/, '').replace(/^\[(.*)\]$/, '$1') : undefined;
    const parts: string[] = [];
    const fromJar = jar?.cookieHeader({ ...spec.url, path: curl.url.path, query: '', ...(host !== undefined ? { hostname: host } : {}) });
    if (fromJar) parts.push(fromJar);
    if (curl.cookies !== undefined) parts.push(curl.cookies);
    if (!parts.length) return spec;
    const headers = [...spec.headers];
    headers.splice(curl.own, 0, ['Cookie', parts.join('; ')]);
    return { ...spec, headers };
  }
  const fromJar = jar?.cookieHeader(spec.url);
  if (!fromJar) return spec;
  const at = spec.headers.findIndex(([n]) => n.toLowerCase() === 'cookie');
  const headers = [...spec.headers];
  if (at === -1) headers.push(['Cookie', fromJar]);
  else headers[at] = [headers[at]![0], `${headers[at]![1]}; ${fromJar}`];
  return { ...spec, headers };
}
