import { chmodSync, closeSync, fsyncSync, openSync, unlinkSync, writeSync } from 'node:fs';
import { FileTooLargeError, isDeviceName, readLimited, SETTINGS_FILE_LIMIT, utf8Text } from '../files.js';
import { makeDirs, replaceFile } from '../files.js';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { configDir } from '../cli/config.js';
import { fileProblem, UsageError } from '../errors.js';
import type { Header, RequestSpec } from '../model/spec.js';
import type { ParsedUrl } from '../model/url.js';
import { CookieJar, domainMatches, type Cookie } from '../model/cookies.js';
import { httpieHostDomain, readSession, toHttpieAuth, writtenByHttpie, type SessionData, type StoredAuth } from './session-file.js';

export type { StoredAuth };

/**
 * Sessions (`--session NAME|PATH`, `--session-read-only`): headers, credentials and cookies kept per
 * host in ~/.config/sling/sessions/HOST[_PORT]/NAME.json. Safe by default: the folder is 0700, the
 * file 0600, it is replaced atomically (write a temporary file, fsync, rename), and cookies stay
 * bound to the domain and path that set them, so a session never sends them anywhere else.
 */
interface SessionFile {
  path: string;
  host: string;
  headers: Header[];
  auth?: StoredAuth;
  /** Credentials of a kind sling does not use, kept as the file had them. */
  otherAuth?: Record<string, unknown>;
  /** The cookies read from the file, each as the file had it (written back so while the jar keeps it). */
  stored: Map<Cookie, Record<string, unknown>>;
  /** Which cookies the file held (domain, path, name): kept in it when a response replaces them, whatever their host. */
  held: Set<string>;
}

/** A cookie's identity: its domain, path and name. */
const identity = (c: Cookie) => `${c.domain}\t${c.path}\t${c.name}`;

/** Headers a session never keeps (they describe one request, not the conversation). */
const TRANSIENT = /^(content-|if-)|^(cookie|host|content-length|transfer-encoding|connection)$/i;

/** `--session ./team.json` (a path) rather than `--session work` (a name, kept in sling's folder). */
const isPath = (nameOrPath: string) => /[/\\]/.test(nameOrPath) || nameOrPath.endsWith('.json');

/**
 * A session name is a file name in every system: letters, digits, `_`, `-` and `.`, and not a name
 * Windows keeps for a device (`con` would be `con.json`, the console, there).
 */
function checkName(name: string, flag: string): void {
  if (!/^[\w.-]+$/.test(name)) throw new UsageError(`${flag} '${name}': a session name may use letters, digits, '_', '-' and '.' (or give a path)`);
  if (isDeviceName(name)) throw new UsageError(`${flag} '${name}': ${name.split('.')[0]!.toUpperCase()} is the name of a device on Windows, not of a file; choose another session name`);
}

const givenPath = (path: string, cwd: string) => (isAbsolute(path) ? path : resolve(cwd, path));

export function sessionPath(nameOrPath: string, url: ParsedUrl, env: NodeJS.ProcessEnv, cwd: string): string {
  if (isPath(nameOrPath)) return givenPath(nameOrPath, cwd);
  checkName(nameOrPath, '--session');
  return join(configDir(env), 'sessions', sessionFolder(url), `${nameOrPath}.json`);
}

/**
 * The folder of a host's named sessions, in the sessions folder: the host name with anything but
 * ASCII letters, digits, `_`, `-` and `.` as `_` (so no `/`, `\`, control character or `:`), then
 * `_PORT` unless it is the scheme's default (`localhost_3000`, `example.org`). A host of dots only,
 * or none (`http://../`), would name the folder above or the sessions folder itself: its dots are
 * `_` too (`__`), so a session never leaves its folder.
 */
export function sessionFolder(url: ParsedUrl): string {
  const defaultPort = url.scheme === 'https' ? 443 : 80;
  let host = url.hostname.replace(/[^\w.-]/g, '_');
  if (/^\.*$/.test(host)) host = '_'.repeat(Math.max(1, host.length));
  return host + (url.port !== defaultPort ? `_${url.port}` : '');
}

export class SessionStore {
  /** One jar for every session file the run touches; each file keeps the cookies of its host. */
  readonly jar: CookieJar;
  private readonly files = new Map<string, SessionFile>();
  private readonly loaded = new Map<string, unknown>();

  constructor(
    private readonly nameOrPath: string,
    private readonly env: NodeJS.ProcessEnv,
    private readonly cwd: string,
    /** The process id, in the name of a file's temporary copy. */
    private readonly pid: number,
    readonly readOnly: boolean,
    /** Says once per file that it is an HTTPie session (a note on stderr). */
    private readonly note?: (message: string) => void,
    /** A bound of the cookie jar reached (said once). */
    warn?: (message: string) => void,
  ) {
    this.jar = new CookieJar({ warn });
    // A name that can never be a file: one error before anything is sent (not one per request).
    if (!isPath(nameOrPath)) checkName(nameOrPath, readOnly ? '--session-read-only' : '--session');
    // A path is one file for every host: one that is not a session stops the run before anything is sent.
    if (isPath(nameOrPath)) this.load(givenPath(nameOrPath, cwd));
  }

  /** The JSON of a session file (undefined: no file yet), checked to be a session. */
  private load(path: string): unknown {
    if (this.loaded.has(path)) return this.loaded.get(path);
    let data: Buffer | undefined;
    try {
      data = readLimited(path, SETTINGS_FILE_LIMIT, path, 'a session file');
    } catch (e) {
      if (e instanceof FileTooLargeError) throw e;
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw new UsageError(`cannot read the session ${path}: ${(e as Error).message}`);
    }
    const text = data && utf8Text(data, path, 'the session file');
    let json: unknown;
    if (text !== undefined) {
      try {
        json = JSON.parse(text);
      } catch (e) {
        throw new UsageError(`${path}: the session file is not valid JSON (${(e as Error).message.replace(/^.*?: /, '')})`, 'fix it or delete it to start a new session');
      }
      // Any other JSON document is the user's: it is never written over with a session.
      const data = readSession(json, '');
      if ('problem' in data) throw new UsageError(`${path}: not a session file: ${data.problem}; it was left as it is`);
      if (writtenByHttpie(json)) {
        this.note?.(`${path} is an HTTPie session: its headers, cookies and credentials are used${this.readOnly ? '' : "; it is saved in HTTPie's layout, so HTTPie still reads it"}`);
      }
    }
    this.loaded.set(path, json);
    return json;
  }

  fileFor(url: ParsedUrl): SessionFile {
    const path = sessionPath(this.nameOrPath, url, this.env, this.cwd);
    let file = this.files.get(path);
    if (file) return file;
    file = { path, host: url.hostname, headers: [], stored: new Map(), held: new Set() };
    const json = this.load(path);
    if (json !== undefined) {
      const data = readSession(json, url.hostname) as SessionData;
      file.headers = data.headers;
      file.auth = data.auth;
      file.otherAuth = data.otherAuth;
      data.cookies.forEach((c, i) => {
        this.jar.add(c);
        file!.stored.set(c as Cookie, data.rawCookies[i]!);
        file!.held.add(identity(c as Cookie));
      });
    }
    this.files.set(path, file);
    return file;
  }

  /**
   * Applies the session to a request: its headers where the request has none of that name
   * (`explicit`: names the user set for this request), its credentials when the request has none,
   * and its cookie jar (`jar`, which the caller hands the exchange).
   */
  apply(spec: RequestSpec, explicit: Set<string>, hasAuth: boolean): { spec: RequestSpec; auth?: StoredAuth } {
    const file = this.fileFor(spec.url);
    const names = new Set(file.headers.map(([n]) => n.toLowerCase()));
    const headers: Header[] = spec.headers.filter(([n]) => explicit.has(n.toLowerCase()) || !names.has(n.toLowerCase()));
    for (const [n, v] of file.headers) if (!explicit.has(n.toLowerCase())) headers.push([n, v]);
    return { spec: { ...spec, headers }, auth: hasAuth ? undefined : file.auth };
  }

  /** Remembers the headers the user gave (and credentials), to be saved with the cookies. */
  record(url: ParsedUrl, given: Header[], auth?: StoredAuth, cookieItems: string[] = []) {
    const file = this.fileFor(url);
    for (const [n] of given) {
      if (TRANSIENT.test(n)) continue;
      file.headers = file.headers.filter(([x]) => x.toLowerCase() !== n.toLowerCase());
    }
    for (const [n, v] of given) if (!TRANSIENT.test(n)) file.headers.push([n, v]);
    if (auth) {
      file.auth = auth;
      file.otherAuth = undefined;
    }
    // `Cookie: a=1; b=2` items become session cookies of this host, as in HTTPie. The user's own:
    // not a server's Set-Cookie, so no rule of those (a `__Host-` prefix) stands in the way.
    for (const header of cookieItems) {
      for (const pair of header.split(';')) {
        const eq = pair.indexOf('=');
        const name = pair.slice(0, Math.max(eq, 0)).trim();
        const value = pair
          .slice(eq + 1)
          .trim()
          .replace(/^"(.*)"$/, '$1');
        if (name) this.jar.add({ name, value, domain: url.hostname.toLowerCase(), hostOnly: true, path: '/', secure: false, httpOnly: false });
      }
    }
  }

  /** Writes every session file the run touched (unless --session-read-only). */
  save() {
    if (this.readOnly) return;
    for (const file of this.files.values()) {
      // The host's cookies, and every cookie the file held that the jar still has (another domain's,
      // a path's): a cookie sling does not send to this host is never dropped from its file.
      const cookies = this.jar.all().filter((c) => file.stored.has(c) || file.held.has(identity(c)) || (c.hostOnly ? c.domain === file.host : domainMatches(file.host, c.domain)));
      // HTTPie 3.2's layout (lists of {name, value} headers and of cookies, `auth.raw_auth`), which
      // both read: a cookie for the domain and its subdomains has a leading dot, a host-only cookie
      // of a host without a dot has HTTPie's `.local` (`localhost.local`), HttpOnly is kept in
      // `rest` as Python's cookie jar has it (HTTPie refuses a cookie with keys it does not know).
      // A cookie read from the file and not changed since is written as the file had it, with any
      // attribute sling does not know; a `localhost` of an older sling becomes `localhost.local`.
      const data = {
        __meta__: { about: 'sling session file (HTTPie 3.2 layout): headers, credentials and cookies for one host', sling: '2' },
        headers: file.headers.map(([name, value]) => ({ name, value })),
        auth: file.auth ? toHttpieAuth(file.auth) : (file.otherAuth ?? { type: null, raw_auth: null }),
        cookies: cookies.map((c: Cookie) => {
          const domain = c.hostOnly ? httpieHostDomain(c.domain) : `.${c.domain}`;
          const raw = file.stored.get(c);
          if (raw) return raw.domain === c.domain && domain !== c.domain ? { ...raw, domain } : raw;
          return {
            name: c.name,
            value: c.value,
            domain,
            path: c.path,
            expires: c.expires === undefined ? null : Math.floor(c.expires / 1000),
            secure: c.secure,
            ...(c.httpOnly ? { rest: { HttpOnly: null } } : {}),
          };
        }),
      };
      // A named session's folder is sling's own (kept 0700); a folder of a path the user gave is
      // theirs: only what sling creates in it is made 0700.
      try {
        writeAtomically(file.path, JSON.stringify(data, null, 4) + '\n', !isPath(this.nameOrPath), this.pid);
      } catch (e) {
        throw new UsageError(`cannot write the session ${file.path}: ${fileProblem(e)}`);
      }
    }
  }
}

/**
 * Folders created 0700 (an existing folder is made 0700 only when `ownFolder`: sling's own), a 0600
 * temporary file written beside the target (`.TIME-PID-RANDOM.tmp`), fsync, rename over it.
 */
export function writeAtomically(path: string, text: string, ownFolder: boolean, pid: number) {
  const dir = dirname(path);
  const created = makeDirs(dir, 0o700);
  if (ownFolder) chmodSync(dir, 0o700);
  else if (created !== undefined) {
    // The umask may have taken bits from the mode given to mkdir: every folder made here is 0700.
    for (let d = dir; ; d = dirname(d)) {
      chmodSync(d, 0o700);
      if (d === created || dirname(d) === d) break;
    }
  }
  const tmp = join(dir, `.${Date.now()}-${pid}-${Math.random().toString(36).slice(2)}.tmp`);
  const fd = openSync(tmp, 'wx', 0o600);
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } catch (e) {
    closeSync(fd);
    unlinkSync(tmp);
    throw e;
  }
  closeSync(fd);
  try {
    replaceFile(tmp, path);
  } catch (e) {
    unlinkSync(tmp);
    throw e;
  }
  chmodSync(path, 0o600);
}
