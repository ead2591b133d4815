import type { ParsedUrl } from './url.js';

/**
 * A cookie jar after RFC 6265: cookies are bound to their domain (host-only unless Domain= was
 * given) and path, expire (Max-Age wins over Expires), Secure ones only go over HTTPS, and a cookie
 * is never sent to a host it was not set for. Sessions persist it as JSON; curl files read and write
 * the Netscape cookie-file format.
 */
/** 400 days, in seconds: the longest a cookie is kept (RFC 6265bis). */
const MAX_AGE = 400 * 24 * 3600;

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

let counter = 0;
const CONTROLS = /[\x00-\x08\x0a-\x1f\x7f]/;

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
  return host.endsWith('.' + domain) && !/^[\d.]+$/.test(host) && !host.includes(':');
}

export function pathMatches(requestPath: string, cookiePath: string): boolean {
  if (requestPath === cookiePath) return true;
  if (!requestPath.startsWith(cookiePath)) return false;
  return cookiePath.endsWith('/') || requestPath[cookiePath.length] === '/';
}

export class CookieJar {
  private cookies: Cookie[] = [];

  constructor(cookies: Cookie[] = []) {
    for (const c of cookies) this.put(c);
  }

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
    const cookie: Cookie = { name, value, domain: url.hostname, hostOnly: true, path: defaultPath(url.path), secure: false, httpOnly: false, created: counter++ };
    let maxAge: number | undefined;
    let expires: number | undefined;
    for (const attr of parts) {
      const i = attr.indexOf('=');
      const key = (i === -1 ? attr : attr.slice(0, i)).trim().toLowerCase();
      const val = i === -1 ? '' : attr.slice(i + 1).trim();
      if (key === 'domain' && val) {
        const d = val.replace(/^\./, '').toLowerCase();
        // A server may only set a cookie for its own domain or a parent of it.
        if (!domainMatches(url.hostname, d)) return null;
        cookie.domain = d;
        cookie.hostOnly = false;
      } else if (key === 'path') cookie.path = val.startsWith('/') ? val : defaultPath(url.path);
      else if (key === 'max-age' && /^-?\d+$/.test(val)) maxAge = Number(val);
      else if (key === 'expires') {
        const t = Date.parse(val);
        if (!Number.isNaN(t)) expires = t;
      } else if (key === 'secure') cookie.secure = true;
      else if (key === 'httponly') cookie.httpOnly = true;
      else if (key === 'samesite') cookie.sameSite = val;
    }
    // At most 400 days ahead (RFC 6265bis, as browsers do): `Max-Age=1e21` would be written to a
    // cookie jar as `1e+21`, which curl cannot read.
    if (maxAge !== undefined) cookie.expires = now + Math.min(maxAge, MAX_AGE) * 1000;
    else if (expires !== undefined) cookie.expires = Math.min(expires, now + MAX_AGE * 1000);
    if (cookie.secure && url.scheme !== 'https' && !['localhost', '127.0.0.1', '::1'].includes(url.hostname)) return null;
    this.put(cookie, now);
    return cookie;
  }

  /** Adds a stored cookie (from a session file) as it is. */
  add(cookie: Cookie) {
    cookie.created = counter++;
    this.put(cookie);
  }

  private put(cookie: Cookie, now = Date.now()) {
    const at = this.cookies.findIndex((c) => c.name === cookie.name && c.domain === cookie.domain && c.path === cookie.path);
    if (at !== -1) {
      cookie.created = this.cookies[at]!.created;
      this.cookies.splice(at, 1);
    }
    // An expiry in the past deletes the cookie.
    if (cookie.expires !== undefined && cookie.expires <= now) return;
    this.cookies.push(cookie);
  }

  /** The cookies that go to `url`: domain, path, Secure and expiry checked; longer paths first. */
  matching(url: ParsedUrl, now = Date.now()): Cookie[] {
    this.cookies = this.cookies.filter((c) => c.expires === undefined || c.expires > now);
    return this.cookies
      .filter((c) => (c.hostOnly ? c.domain === url.hostname : domainMatches(url.hostname, c.domain)))
      .filter((c) => pathMatches(url.path, c.path))
      .filter((c) => !c.secure || url.scheme === 'https' || ['localhost', '127.0.0.1', '::1'].includes(url.hostname))
      .sort((a, b) => b.path.length - a.path.length || a.created - b.created);
  }

  cookieHeader(url: ParsedUrl, now?: number): string | undefined {
    // An empty jar (most runs): no clock, no list.
    if (this.cookies.length === 0) return undefined;
    const list = this.matching(url, now);
    return list.length ? list.map((c) => `${c.name}=${c.value}`).join('; ') : undefined;
  }

  /** Every live cookie (for saving a session). */
  all(now = Date.now()): Cookie[] {
    this.cookies = this.cookies.filter((c) => c.expires === undefined || c.expires > now);
    return [...this.cookies];
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

  static fromNetscape(text: string): CookieJar {
    const jar = new CookieJar();
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

/** The jar's cookies for this URL join any Cookie header the request (a RequestSpec) already has. */
export function withJarCookies<S extends { url: ParsedUrl; headers: [name: string, value: string][] }>(spec: S, jar: CookieJar): S {
  const fromJar = jar.cookieHeader(spec.url);
  if (!fromJar) return spec;
  const at = spec.headers.findIndex(([n]) => n.toLowerCase() === 'cookie');
  const headers = [...spec.headers];
  if (at === -1) headers.push(['Cookie', fromJar]);
  else headers[at] = [headers[at]![0], `${headers[at]![1]}; ${fromJar}`];
  return { ...spec, headers };
}
