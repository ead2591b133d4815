import { splitCredentials } from '../model/basic-auth.js';
import type { Header } from '../model/spec.js';
import type { Cookie } from '../model/cookies.js';

/**
 * What a session file is, in every layout sling meets: its own, and HTTPie's (3.2: lists of
 * `{"name", "value"}` headers and of cookies, `auth.raw_auth`; before 3.1/3.2: headers and cookies
 * as objects keyed by name, `auth.username`/`auth.password`). A JSON document that is anything else
 * (`{"notes": ...}`, `[1, 2]`, a field of the wrong type) is not a session, and `readSession` says
 * what is wrong and where, so the caller can refuse it instead of writing a session over it.
 */
export interface StoredAuth {
  type: 'basic' | 'bearer' | 'digest';
  user: string;
  password?: string;
}

export interface SessionData {
  headers: Header[];
  auth?: StoredAuth;
  /** Credentials sling does not use (an HTTPie plugin's `auth.type`): written back as they were. */
  otherAuth?: Record<string, unknown>;
  cookies: Omit<Cookie, 'created'>[];
  /** Each of `cookies` as the file has it (the same order), to be written back as it was. */
  rawCookies: Record<string, unknown>[];
}

/**
 * The domain HTTPie (Python's cookie jar) gives a host-only cookie of a host without a dot:
 * `localhost.local` for `localhost` (RFC 2965's effective host name). It sends a cookie saved as
 * `localhost` to no one, so sling saves such cookies its way, and reads them back as the host's.
 */
export function httpieHostDomain(host: string): string {
  return host.includes('.') ? host : `${host.includes(':') ? `[${host}]` : host}.local`;
}

const FIELDS = ['__meta__', 'headers', 'cookies', 'auth'];

/** A value's JSON type, for a message: `a list`, `a string`, `null`... */
function kind(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'object') return 'an object';
  return typeof v === 'number' ? 'a number' : typeof v === 'boolean' ? 'a boolean' : 'a string';
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

class NotASession extends Error {}

function expect(ok: boolean, where: string, v: unknown, wanted: string): void {
  if (!ok) throw new NotASession(`${where} is ${kind(v)}, not ${wanted}`);
}

/** An optional attribute: absent, null, or of this type. */
function optional(o: Record<string, unknown>, key: string, type: 'string' | 'number' | 'boolean', where: string | (() => string)): void {
  const v = o[key];
  // The message only when it is needed: a session may hold thousands of cookies.
  if (v === undefined || v === null || typeof v === type) return;
  expect(false, `${typeof where === 'string' ? where : where()}.${JSON.stringify(key)}`, v, `${type === 'number' ? 'a number' : `a ${type}`} or null`);
}

function readHeaders(v: unknown): Header[] {
  if (v === null || v === undefined) return [];
  if (isObject(v)) {
    return Object.entries(v).map(([name, value]) => {
      expect(typeof value === 'string', `"headers".${JSON.stringify(name)}`, value, 'a string');
      return [name, value as string];
    });
  }
  expect(Array.isArray(v), '"headers"', v, 'a list or an object of headers');
  return (v as unknown[]).map((h, i) => {
    if (Array.isArray(h) && h.length === 2 && typeof h[0] === 'string' && typeof h[1] === 'string') return [h[0], h[1]];
    if (isObject(h) && typeof h.name === 'string' && typeof h.value === 'string') return [h.name, h.value];
    throw new NotASession(`"headers"[${i}] is neither ["name", "value"] nor {"name": ..., "value": ...}`);
  });
}

/**
 * Cookies bound as they were saved. An HTTPie cookie has no `hostOnly`: its domain says it (a
 * leading dot: the domain and its subdomains; none: that host only); an empty domain (older HTTPie
 * saved cookies unbound) is bound to the session's host, never sent anywhere else.
 */
function readCookies(v: unknown, host: string, raw: Record<string, unknown>[]): SessionData['cookies'] {
  if (v === null || v === undefined) return [];
  let list: [string | number, unknown][];
  if (isObject(v)) list = Object.entries(v).map(([name, c]) => [name, isObject(c) ? { name, ...c } : c]);
  else {
    expect(Array.isArray(v), '"cookies"', v, 'a list or an object of cookies');
    list = (v as unknown[]).map((c, i) => [i, c]);
  }
  return list.map(([at, c]) => {
    // Where a cookie is, made only for a message.
    const where = () => (typeof at === 'number' ? `"cookies"[${at}]` : `"cookies".${JSON.stringify(at)}`);
    if (!isObject(c)) expect(false, where(), c, 'an object');
    const o = c as Record<string, unknown>;
    if (typeof o.name !== 'string') expect(false, `${where()}."name"`, o.name, 'a string');
    // A cookie without a value (`Set-Cookie: flag`) may be saved as null.
    optional(o, 'value', 'string', where);
    optional(o, 'domain', 'string', where);
    optional(o, 'path', 'string', where);
    optional(o, 'expires', 'number', where);
    for (const flag of ['secure', 'httpOnly', 'hostOnly']) optional(o, flag, 'boolean', where);
    if (!(o.rest === undefined || o.rest === null || isObject(o.rest))) expect(false, `${where()}."rest"`, o.rest, 'an object or null');
    raw.push(o);
    const domain = (o.domain as string | null | undefined) || '';
    // HTTPie's `localhost.local` is the host-only cookie of `localhost`, when that is the session's host.
    const bare = domain.toLowerCase() === httpieHostDomain(host.toLowerCase()) && !host.includes('.') ? host.toLowerCase() : domain.replace(/^\./, '');
    return {
      name: o.name as string,
      value: (o.value as string | null | undefined) ?? '',
      domain: bare || host,
      hostOnly: typeof o.hostOnly === 'boolean' ? o.hostOnly : !domain.startsWith('.'),
      path: (o.path as string | null | undefined) || '/',
      expires: typeof o.expires === 'number' ? o.expires * 1000 : undefined,
      secure: o.secure === true,
      // sling 1's `httpOnly`, or HTTPie's (Python's cookie jar's) `rest: {"HttpOnly": ...}`.
      httpOnly: o.httpOnly === true || (isObject(o.rest) && Object.keys(o.rest).some((k) => k.toLowerCase() === 'httponly')),
    };
  });
}

function readAuth(v: unknown, data: SessionData): void {
  if (v === null || v === undefined) return;
  expect(isObject(v), '"auth"', v, 'an object or null');
  const a = v as Record<string, unknown>;
  for (const key of ['type', 'user', 'username', 'password', 'raw_auth']) optional(a, key, 'string', '"auth"');
  const type = a.type as string | null | undefined;
  if (type === null || type === undefined) return;
  if (type === 'basic' || type === 'bearer' || type === 'digest') {
    // sling's `user`, HTTPie's `username` (before 3.0) or `raw_auth` (`user:password`, or the token).
    const user = (a.user ?? a.username) as string | null | undefined;
    if (typeof user === 'string') {
      data.auth = { type, user, ...(typeof a.password === 'string' ? { password: a.password } : {}) };
      return;
    }
    if (typeof a.raw_auth === 'string') {
      data.auth = type === 'bearer' ? { type, user: a.raw_auth } : { type, ...splitCredentials(a.raw_auth) };
      return;
    }
  }
  data.otherAuth = a;
}

/**
 * The session a file's JSON holds, for `host` (the host the session is for), or a `problem`:
 * what makes it no session file, and where (`"headers"[1] is ...`).
 */
export function readSession(json: unknown, host: string): SessionData | { problem: string } {
  if (!isObject(json)) return { problem: `it holds ${kind(json)}, not an object` };
  const data: SessionData = { headers: [], cookies: [], rawCookies: [] };
  try {
    for (const key of Object.keys(json)) {
      if (!FIELDS.includes(key)) throw new NotASession(`${JSON.stringify(key)} is not a session field (a session holds only __meta__, headers, cookies and auth)`);
    }
    const meta = json.__meta__;
    expect(meta === undefined || isObject(meta), '"__meta__"', meta, 'an object');
    // In the file's order, so the first problem named is the first one in it.
    for (const key of Object.keys(json)) {
      if (key === 'headers') data.headers = readHeaders(json.headers);
      else if (key === 'cookies') data.cookies = readCookies(json.cookies, host, data.rawCookies);
      else if (key === 'auth') readAuth(json.auth, data);
    }
  } catch (e) {
    if (e instanceof NotASession) return { problem: e.message };
    throw e;
  }
  return data;
}

/** The file was written by HTTPie (its `__meta__` names HTTPie's version, and not sling's). */
export function writtenByHttpie(json: unknown): boolean {
  const meta = isObject(json) ? json.__meta__ : undefined;
  return isObject(meta) && meta.httpie !== undefined && meta.sling === undefined;
}

/** Credentials as HTTPie 3.2 keeps them: `{"type", "raw_auth"}` (`user:password`, or the token). */
export function toHttpieAuth(auth: StoredAuth): { type: string; raw_auth: string } {
  if (auth.type === 'bearer') return { type: 'bearer', raw_auth: auth.user };
  return { type: auth.type, raw_auth: auth.password === undefined ? auth.user : `${auth.user}:${auth.password}` };
}
