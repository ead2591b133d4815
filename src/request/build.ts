import { basename, resolve } from 'node:path';
import type { Invocation } from '../cli/invocation.js';
import { anyTransportFlag, transportSettings } from '../cli/transport-flags.js';
import { UsageError, tooDeep } from '../errors.js';
import { expandHome, FileTooLargeError, readLimited, TEXT_FILE_LIMIT, utf8Text } from '../files.js';
import type { Item } from '../cli/items.js';
import { formText, jsonString, parseJson, JsonSyntaxError, type JsonValue } from '../model/json.js';
import { guessMime } from './mime.js';
import { parsePath, setPath } from './nested-json.js';
import type { Body, FileBody, Header, MultipartPart, RequestSpec } from '../model/spec.js';
import { largeFile } from '../model/upload.js';
import type { StoredAuth } from './session.js';
import { parseUrl } from '../model/url.js';
import { basicAuth, splitCredentials } from '../model/basic-auth.js';
import { USER_AGENT } from '../version.js';

export const JSON_ACCEPT = 'application/json, */*;q=0.5';
export const FORM_TYPE = 'application/x-www-form-urlencoded; charset=utf-8';

export interface BuildContext {
  cwd: string;
  /** Reads the request body from standard input; null when stdin is not a body source. */
  readStdin(): Promise<Buffer | FileBody | null>;
  /** Asks for a password on the terminal; throws when there is none. */
  /** `where`: host[:port] of the request, as the prompt names it (HTTPie says the same). */
  askPassword(user: string, where: string): Promise<string>;
  /** The environment (HOME, NETRC, SLING_CONFIG_DIR). */
  env: NodeJS.ProcessEnv;
  /** The process id (in the name of a session file's temporary copy). */
  pid: number;
  /** Set by buildRequest when --session is used: run.ts saves it after the exchange. */
  session?: import('./session.js').SessionStore;
  /** A note on stderr (an HTTPie session file read). */
  note?: (message: string) => void;
  /** A warning on stderr (a bound of the session's cookie jar reached). */
  warn?: (message: string) => void;
}

const DATA_KINDS = new Set(['data', 'data-file', 'json', 'json-file']);

function readItemFile(item: Item, cwd: string, path = item.value): Buffer {
  try {
    // A small file, or a device (a large file or a pipe is an upload.ts FileBody instead).
    return readLimited(resolve(cwd, expandHome(path)), TEXT_FILE_LIMIT, path, "a request item's file read whole");
  } catch (e) {
    if (e instanceof FileTooLargeError) throw new UsageError(`item '${item.orig}': ${e.message}`);
    const code = (e as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a directory' : code === 'EACCES' ? 'permission denied' : (e as Error).message;
    throw new UsageError(`item '${item.orig}': cannot read '${path}': ${why}`);
  }
}

/** A file to send as it is: a FileBody when it is large (read as it is sent, upload.ts), else its bytes. */
function uploadFile(item: Item, cwd: string, path = item.value): Buffer | FileBody {
  return largeFile(resolve(cwd, expandHome(path)), path) ?? readItemFile(item, cwd, path);
}

function readTextFile(item: Item, cwd: string): string {
  const data = readItemFile(item, cwd);
  // A byte order mark goes; a UTF-16 file (PowerShell's `>`) is refused with what to do.
  const text = utf8Text(data, `item '${item.orig}': '${item.value}'`, 'the file');
  if (text.includes('\0')) throw new UsageError(`item '${item.orig}': '${item.value}' looks like a binary file; upload it with name@file instead`);
  return text;
}

function parseJsonItem(item: Item, text: string, from: string): JsonValue {
  try {
    return parseJson(text);
  } catch (e) {
    // A long item is shown by its start: the message stays one readable line.
    const shown = item.orig.length > 100 ? `${item.orig.slice(0, 100)}...` : item.orig;
    if (tooDeep(e)) throw new UsageError(`item '${shown}': ${from} is nested too deeply to work through (${(e as Error).message})`);
    const why = e instanceof JsonSyntaxError ? e.message : String(e);
    throw new UsageError(`item '${shown}': ${from} is not valid JSON (${why})`);
  }
}

/** The value a data item contributes: a JSON string for `=`, any JSON value for `:=`. */
function dataValue(item: Item, cwd: string): JsonValue {
  switch (item.kind) {
    case 'data':
      return jsonString(item.value);
    case 'data-file':
      return jsonString(readTextFile(item, cwd));
    case 'json':
      return parseJsonItem(item, item.value, item.value.length > 60 ? 'the value' : `'${item.value}'`);
    default:
      return parseJsonItem(item, readTextFile(item, cwd), `the content of '${item.value}'`);
  }
}

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

function checkHeader(item: Item, name: string, value: string) {
  if (!TOKEN.test(name)) throw new UsageError(`item '${item.orig}': '${name}' is not a valid header name`);
  if (/[\r\n\0]/.test(value)) throw new UsageError(`item '${item.orig}': a header value cannot contain a line break`);
}

export function randomBoundary(): string {
  let s = '';
  for (let i = 0; i < 32; i++) s += '0123456789abcdef'[Math.floor(Math.random() * 16)];
  return s;
}

/** Builds the request of the main command from its invocation. */
export async function buildRequest(inv: Invocation, ctx: BuildContext): Promise<RequestSpec> {
  if (inv.url === undefined) throw new UsageError(`no URL given${inv.method ? ` after the method ${inv.method}` : ''}`, 'usage: sling [flags] [METHOD] URL [items...]');
  const url = parseUrl(inv.url, inv.defaultScheme, inv.pathAsIs);
  const version = inv.transport.httpVersion;
  // xh fails there too (reqwest: UserUnsupportedVersion); cleartext HTTP/2 needs prior knowledge.
  if (version === '2' && url.scheme === 'http' && !inv.transport.unixSocket) {
    throw new UsageError(
      `--http-version 2 negotiates HTTP/2 in the TLS handshake (ALPN), which http:// has not`,
      'for HTTP/2 in clear text (h2c) use --http-version 2-prior-knowledge; or use https://',
    );
  }
  if (version === '1.0' && inv.chunked) throw new UsageError('--chunked needs HTTP/1.1: HTTP/1.0 has no chunked bodies (--http-version 1.0)');
  const { cwd } = ctx;

  const query: [string, string][] = [];
  const userHeaders: (Header | [string, null])[] = [];
  const data: Item[] = [];
  const uploads: Item[] = [];
  const bodyFiles: Item[] = [];
  for (const item of inv.items) {
    switch (item.kind) {
      case 'query':
        query.push([item.key, item.value]);
        break;
      case 'query-file':
        // HTTPie drops the trailing line break of a file read into a query parameter.
        query.push([item.key, readTextFile(item, cwd).replace(/\n+$/, '')]);
        break;
      case 'header':
      case 'header-file': {
        const value = item.kind === 'header' ? item.value.trim() : readTextFile(item, cwd).trim();
        checkHeader(item, item.key, value);
        userHeaders.push([item.key, item.kind === 'header' && value === '' ? null : value]);
        break;
      }
      case 'header-empty':
        if (item.value !== '') throw new UsageError(`item '${item.orig}': 'Header;' sends an empty header and takes no value (did you mean '${item.key}:${item.value}'?)`);
        checkHeader(item, item.key, '');
        userHeaders.push([item.key, '']);
        break;
      case 'file':
        (item.key === '' ? bodyFiles : uploads).push(item);
        break;
      default:
        data.push(item);
    }
  }

  if (bodyFiles.length > 1) throw new UsageError(`only one @file can be the request body (got ${bodyFiles.map((i) => i.orig).join(', ')})`);
  const bodyFile = bodyFiles[0];
  if (bodyFile && (data.length || uploads.length)) {
    throw new UsageError(`'${bodyFile.orig}' sends a file as the whole body; it cannot be combined with data items such as '${(data[0] ?? uploads[0])!.orig}'`);
  }
  if (inv.raw !== undefined && (data.length || uploads.length || bodyFile)) {
    throw new UsageError(`--raw sets the whole body; it cannot be combined with '${(data[0] ?? uploads[0] ?? bodyFile)!.orig}'`);
  }

  const multipart = inv.multipart || uploads.length > 0;
  const formish = inv.form || multipart;
  let body: Body = { kind: 'none' };
  let contentType: string | undefined;
  let jsonish = false;

  if (bodyFile) {
    const file = uploadFile(bodyFile, cwd);
    body = Buffer.isBuffer(file) ? { kind: 'bytes', data: file } : { kind: 'stream', pieces: [file] };
    contentType = guessMime(bodyFile.value) ?? (formish ? FORM_TYPE : 'application/json');
    jsonish = !formish;
  } else if (inv.raw !== undefined) {
    // An empty --raw sends no body (and so no JSON headers), as HTTPie does.
    if (inv.raw !== '') {
      body = { kind: 'bytes', data: Buffer.from(inv.raw, 'utf8') };
      contentType = formish ? FORM_TYPE : 'application/json';
      jsonish = !formish;
    } else if (formish) contentType = FORM_TYPE;
  } else if (multipart) {
    const parts: MultipartPart[] = [];
    for (const item of inv.items) {
      if (DATA_KINDS.has(item.kind)) {
        const text = formText(dataValue(item, cwd));
        if (text === null) throw new UsageError(`item '${item.orig}': objects and arrays cannot be sent as form fields (drop --form/--multipart to send JSON)`);
        parts.push({ name: item.key, data: Buffer.from(text, 'utf8') });
      } else if (item.kind === 'file' && item.key !== '') {
        let path = item.value;
        let type: string | undefined;
        const m = /^(.*);type=(.*)$/.exec(path);
        if (m) {
          path = m[1]!;
          type = m[2]!;
        }
        parts.push({ name: item.key, filename: basename(path), contentType: type ?? guessMime(path), data: uploadFile(item, cwd, path) });
      }
    }
    // Parts that share a name are sent together, at the first one's place (as HTTPie does).
    const order = new Map<string, MultipartPart[]>();
    for (const part of parts) order.set(part.name, [...(order.get(part.name) ?? []), part]);
    const boundary = inv.boundary ?? randomBoundary();
    body = { kind: 'multipart', parts: [...order.values()].flat(), boundary };
    contentType = `multipart/form-data; boundary=${boundary}`;
  } else if (inv.form) {
    if (data.length) {
      const pairs: [string, string][] = [];
      for (const item of data) {
        const text = formText(dataValue(item, cwd));
        if (text === null) throw new UsageError(`item '${item.orig}': objects and arrays cannot be sent as form fields (drop --form to send JSON)`);
        pairs.push([item.key, text]);
      }
      body = { kind: 'form', pairs };
    }
    // HTTPie states the form type even without fields.
    contentType = FORM_TYPE;
  } else if (data.length) {
    let doc: JsonValue | undefined;
    for (const item of data) doc = setPath(doc, parsePath(item.key, item.orig), dataValue(item, cwd), item.orig);
    body = { kind: 'json', value: doc! };
    contentType = 'application/json';
    jsonish = true;
  }

  if (body.kind === 'none' && !inv.ignoreStdin) {
    const piped = await ctx.readStdin();
    if (piped && piped.length > 0) {
      body = Buffer.isBuffer(piped) ? { kind: 'stdin', data: piped } : { kind: 'stream', pieces: [piped], stdin: true };
      contentType = formish ? FORM_TYPE : 'application/json';
      jsonish = !formish;
    }
  }

  if (inv.json) {
    jsonish = true;
    if (body.kind !== 'none' && !bodyFile) contentType = 'application/json';
  }

  // The method follows the data the user gave, not the encoding: `--multipart` alone stays GET.
  const hasData = data.length > 0 || uploads.length > 0 || bodyFile !== undefined || inv.raw !== undefined || body.kind === 'stdin' || (body.kind === 'stream' && body.stdin === true);
  const method = inv.method ?? (hasData ? 'POST' : 'GET');

  const headers: (Header | [string, null])[] = [
    ['User-Agent', USER_AGENT],
    ['Accept-Encoding', inv.download ? 'identity' : 'gzip, deflate, br'],
    ['Accept', jsonish ? JSON_ACCEPT : '*/*'],
    ['Connection', 'keep-alive'],
  ];
  // Credentials: -a, else the URL's, else the session's (below), else ~/.netrc; an explicit
  // Authorization item wins over all of them.
  let auth: StoredAuth | undefined;
  if (inv.auth !== undefined) {
    if (inv.authType === 'bearer') auth = { type: 'bearer', user: inv.auth };
    else {
      const { user, password } = splitCredentials(inv.auth);
      auth = { type: inv.authType, user, password: password ?? (await ctx.askPassword(user, url.hostHeader)) };
    }
  } else if (url.username !== undefined) {
    // As written, escapes and all, as HTTPie sends them (curl decodes them: .http files do too).
    auth = { type: inv.authType === 'digest' ? 'digest' : 'basic', user: url.username, password: url.password ?? '' };
  }
  const givenAuth = auth;
  const hasAuthItem = userHeaders.some(([n, v]) => n.toLowerCase() === 'authorization' && v !== null);
  if (contentType !== undefined) headers.push(['Content-Type', contentType]);
  // A multipart Content-Type of the user's own (multipart/mixed, ...) still needs the boundary.
  if (body.kind === 'multipart') {
    for (const h of userHeaders) {
      if (h[0].toLowerCase() === 'content-type' && h[1] && /^multipart\//i.test(h[1]) && !/boundary=/i.test(h[1])) {
        h[1] = `${h[1]}; boundary=${body.boundary}`;
      }
    }
  }

  // User header items replace a default of the same name (all of its values); `Name:` removes it.
  const userNames = new Set(userHeaders.map(([n]) => n.toLowerCase()));
  const merged: Header[] = [];
  for (const h of headers) if (!userNames.has(h[0].toLowerCase()) && h[1] !== null) merged.push(h as Header);
  for (const [n, v] of userHeaders) {
    // `Name:` also takes back values given earlier on the line.
    if (v === null) {
      for (let i = merged.length - 1; i >= 0; i--) if (merged[i]![0].toLowerCase() === n.toLowerCase()) merged.splice(i, 1);
      continue;
    }
    merged.push([n, v]);
  }

  let spec: RequestSpec = {
    method,
    url,
    query,
    headers: merged,
    body,
    settings: {
      follow: inv.follow || inv.download,
      maxRedirects: inv.maxRedirects,
      timeoutMs: inv.timeoutMs,
      tls: { verify: inv.verify, cert: inv.cert, certKey: inv.certKey, certKeyPass: inv.certKeyPass },
      proxies: inv.proxies,
      compress: inv.compress,
      chunked: inv.chunked,
      maxHeaders: inv.maxHeaders,
    },
  };
  if (anyTransportFlag(inv.transport)) spec = { ...spec, settings: transportSettings(inv.transport, spec.settings) };

  if (inv.session !== undefined) {
    const { SessionStore } = await import('./session.js');
    const store = new SessionStore(inv.session, ctx.env, cwd, ctx.pid, inv.sessionReadOnly, ctx.note, ctx.warn);
    const explicit = new Set(userHeaders.map(([n]) => n.toLowerCase()));
    const applied = store.apply(spec, explicit, auth !== undefined || hasAuthItem);
    spec = applied.spec;
    auth ??= applied.auth;
    const cookieItems = userHeaders.filter(([n, v]) => n.toLowerCase() === 'cookie' && v).map(([, v]) => v!);
    if (cookieItems.length) spec = { ...spec, headers: spec.headers.filter(([n]) => n.toLowerCase() !== 'cookie') };
    store.record(
      url,
      userHeaders.filter((h): h is Header => h[1] !== null),
      givenAuth,
      cookieItems,
    );
    ctx.session = store;
  }
  if (!auth && !hasAuthItem && !inv.ignoreNetrc) {
    const { netrcCredentials } = await import('./netrc.js');
    const found = netrcCredentials(url.hostname, ctx.env);
    if (found) auth = { type: inv.authType === 'digest' ? 'digest' : 'basic', user: found.login, password: found.password };
  }
  if (auth && !hasAuthItem) {
    if (auth.type === 'digest') spec = { ...spec, settings: { ...spec.settings, digest: { user: auth.user, password: auth.password ?? '' } } };
    else {
      const value = auth.type === 'bearer' ? `Bearer ${auth.user}` : basicAuth(`${auth.user}:${auth.password ?? ''}`);
      // Authorization goes where a default header would: after the defaults, before Content-Type.
      const at = spec.headers.findIndex(([n]) => n.toLowerCase() === 'content-type');
      const headers = [...spec.headers];
      headers.splice(at === -1 ? headers.length : at, 0, ['Authorization', value]);
      spec = { ...spec, headers };
    }
  }
  return spec;
}
