import { join } from 'node:path';
import { MAX_TIMER_MS } from '../../clock.js';
import { USER_AGENT } from '../../version.js';
import type { CurlRules, Header, RequestSettings, RequestSpec, TlsVersion } from '../../model/spec.js';
import { originOf, type ParsedUrl } from '../../model/url.js';
import { CookieJar, type CookieLimit } from '../../model/cookies.js';
import { parseConnectToRule, parseResolveRule } from '../../model/resolve.js';
import { CurlBodyError, dataBody, encodeMultipart, formPart, joinData, newBoundary, urlencodePiece, type FileAccess } from './body.js';
import { isStreamed, StreamedBody, type WireBody } from '../../model/upload.js';
import type { FileBody } from '../../model/spec.js';
import { parseCurlDate } from './dates.js';
import { noProxyMatches } from '../../model/no-proxy.js';
import { globName, isStdout } from './outputs.js';
import { customHeaders } from './headers.js';
import { AUTH, type Operation } from './operation.js';
import { CurlBuildError, withUpload, type Transfer } from './plan.js';
import { appendQuery, formatCurlUrl, hostHeader, parseCurlUrl, toParsedUrl, utf8, type CurlUrl } from './url.js';

export { CurlBuildError, planTransfers, type Transfer } from './plan.js';

/**
 * curl semantics → RequestSpecs. The headers are put together in the order curl 7.88 sends them:
 *
 *   Host, Proxy-Authorization, Authorization, Range, User-Agent, Accept, Accept-Encoding, Referer,
 *   Proxy-Connection, Transfer-Encoding, Cookie, If-(Un)Modified-Since, the -H headers in order,
 *   then Content-Length, Content-Type and Expect for a body.
 *
 * A -H header of the same name replaces curl's own (`Accept: x`), an empty one removes it
 * (`Accept:`), `X;` sends `X:` empty. The first hop is built here; for -L the command's rules go
 * in `settings.curl` as data (model/spec.ts CurlRules), and transport/redirect.ts makes each next
 * hop from the one before with them, as it does for every front end: every setting of the first
 * hop, and of `sling exec`'s flags over it, reaches every hop. The cookies (the engine's jar and
 * the -b strings) are added by the exchange as each hop goes (model/cookies.ts withJarCookies).
 */

/** What one command needs at run time besides its operations. */
export interface CommandRuntime {
  files: FileAccess;
  /** Standard input for @- and -T - (read once). */
  stdin(): string;
  /**
   * Standard input when it is large (a `< file` redirect, or a pipe past 1 MiB kept in a temporary
   * file): a FileBody sent as it is read (upload.ts), `textLines` as -d @- reads it. undefined:
   * small, stdin() reads it. Counts as reading it.
   */
  stdinLarge?(textLines: boolean): FileBody | undefined;
  /** NAME=value in front of curl and the environment (for proxies). */
  env: NodeJS.ProcessEnv;
  warn(message: string): void;
  /** A bound of the cookie jar reached (said once a run). */
  cookieWarn?(message: string, limit: CookieLimit): void;
  source: { file: string; line: number };
}

interface HopState {
  url: CurlUrl;
  /** The kind of request curl is making on this hop. */
  kind: 'GET' | 'HEAD' | 'POST' | 'PUT';
  /** On the wire (-X wins over the kind). */
  method: string;
  body?: WireBody;
  /** Headers that belong to the body (Content-Length/Type, Expect, chunked). */
  chunked: boolean;
  multipartType?: string;
  referer?: string;
}

/** Per-transfer data the after-hook needs. */
export interface TransferRun {
  transfer: Transfer;
  url: CurlUrl;
  /** Where the body went, when `sling exec` wrote it to its file as it came. */
  bodyPlan?: import('./outputs.js').BodyPlan;
}

/** Builds the requests of one command, and the runs their after-hooks use. */
export class CommandBuilder {
  readonly runs = new Map<object, TransferRun>();
  /** The command's cookie engine (-b FILE, -c): the exchange sends from it and stores into it on every hop; -c writes it. */
  jar?: CookieJar;
  private stdinUsed = false;

  constructor(
    readonly transfers: Transfer[],
    readonly rt: CommandRuntime,
  ) {}

  /** Reads standard input once: a second @- gets nothing, as in curl. */
  private readStdin(): string {
    if (this.stdinUsed) return '';
    this.stdinUsed = true;
    return this.rt.stdin();
  }

  /** Standard input as a large file, once (readStdin): undefined when it is small or was read. */
  private largeStdin(textLines: boolean): FileBody | undefined {
    if (this.stdinUsed) return undefined;
    const large = this.rt.stdinLarge?.(textLines);
    if (large) this.stdinUsed = true;
    return large;
  }

  private files(): FileAccess {
    return {
      read: (path) => (path === '-' ? this.readStdin() : this.rt.files.read(path)),
      warn: (m) => this.rt.warn(m),
      large: (path, textLines) => (path === '-' ? this.largeStdin(textLines) : this.rt.files.large?.(path, textLines)),
    };
  }

  /** -H @file reads files once per command (so `-H @-` reads standard input once). */
  private headerCache = new Map<string, string | undefined>();
  private headerFiles(): FileAccess {
    const files = this.files();
    return {
      read: (path) => {
        if (!this.headerCache.has(path)) this.headerCache.set(path, files.read(path));
        return this.headerCache.get(path);
      },
      warn: files.warn,
    };
  }

  build(): RequestSpec[] {
    const specs: RequestSpec[] = [];
    const files = this.files();
    for (const t of this.transfers) {
      const limit = t.op.speedLimit;
      if (limit !== undefined && !/^[01]$/.test(limit)) this.rt.warn(`--speed-limit ${limit}: sling gives up after --speed-time seconds without a byte; a transfer that is merely slower goes on`);
    }
    // -O with a URL that names no file: curl stops before it sends anything.
    for (const t of this.transfers) {
      if (!t.remoteName || t.output !== undefined || t.op.remoteHeaderName) continue;
      const path = t.urlText.replace(/[?#].*$/, '').replace(/^[a-z][a-z0-9+.-]*:\/\/[^/]*/i, '');
      if (path.slice(path.lastIndexOf('/') + 1) === '') throw new CurlBuildError('-O: the URL has no file name to save to (curl: "Remote file name has no length"); nothing is sent');
    }
    // The cookie engine is per curl process: -b FILE or -c turns it on for every transfer.
    const engine = this.transfers.some((t) => t.op.cookieFiles.length || t.op.cookieJar !== undefined);
    if (engine) {
      this.jar = new CookieJar({ warn: this.rt.cookieWarn });
      for (const t of this.transfers) {
        for (const f of t.op.cookieFiles) {
          if (f === '') continue;
          const text = this.rt.files.read(f);
          if (text === undefined) continue; // curl ignores a missing cookie file
          let loaded = CookieJar.fromNetscape(Buffer.from(text, 'latin1').toString('utf8')).all();
          if (t.op.junkSessionCookies) loaded = loaded.filter((c) => c.expires !== undefined);
          for (const c of loaded) this.jar.add(c);
        }
        // Each file is read once even when several operations name it.
        if (t.op.cookieFiles.length) t.op.cookieFiles = [];
      }
    }
    const dataCache = new Map<Operation, string>();
    const bodyCache = new Map<Operation, WireBody>();
    const formCache = new Map<Operation, { body: WireBody; type: string }>();
    for (const t of this.transfers) {
      const op = t.op;
      let url = parseCurlUrl(t.urlText, { defaultScheme: op.protoDefault, pathAsIs: op.pathAsIs });
      url = withUpload(url, t.upload);
      // -G puts the data in the query; otherwise --url-query does (curl uses one or the other).
      const useGetData = op.useGet && op.data.length > 0 && op.httpReq !== 'MIMEPOST' && op.httpReq !== 'PUT';
      // The data as text only for the query: as a body, large files in it are not read now (dataBody).
      if (useGetData && !dataCache.has(op)) dataCache.set(op, joinData(op.data, files));
      const data = dataCache.get(op);
      const query = useGetData ? data : op.urlQueries.length ? op.urlQueries.map((q) => (q.startsWith('+') ? q.slice(1) : urlencodePiece(q, files))).join('&') : undefined;
      if (query !== undefined) {
        url = appendQuery(parseCurlUrl(formatCurlUrl(url, true), { defaultScheme: op.protoDefault }), query);
        url = parseCurlUrl(formatCurlUrl(url, true), { defaultScheme: op.protoDefault, pathAsIs: true });
      }
      let kind: HopState['kind'] = 'GET';
      let body: WireBody | undefined;
      let chunked = false;
      let multipartType: string | undefined;
      if (t.upload !== undefined) {
        kind = 'PUT';
        if (t.upload === '-' || t.upload === '.') {
          const large = this.largeStdin(false);
          body = large ? new StreamedBody([large], large.length) : Buffer.from(this.readStdin(), 'latin1');
          chunked = true;
        } else {
          // A large file is read as it is sent (upload.ts).
          const large = files.large?.(t.upload, false);
          const content = large ? undefined : this.rt.files.read(t.upload);
          if (!large && content === undefined) throw new CurlBuildError(`cannot read the file to upload '${t.upload}'`);
          body = large ? new StreamedBody([large], large.length) : Buffer.from(content!, 'latin1');
        }
      } else if (op.httpReq === 'HEAD') kind = 'HEAD';
      else if (op.httpReq === 'MIMEPOST') {
        kind = 'POST';
        // One body (and boundary) per operation: every URL of it sends the same form.
        let form = formCache.get(op);
        if (!form) {
          let parts;
          try {
            parts = op.forms.map((f) => formPart(f.value, f.literal, files));
          } catch (e) {
            if (e instanceof CurlBodyError) throw new CurlBuildError(e.message);
            throw e;
          }
          // A -H Content-Type replaces multipart/form-data, and curl adds the boundary to it.
          const custom = customHeaders(op.headers, this.headerFiles()).find((h) => h.name.toLowerCase() === 'content-type');
          const baseType = custom ? (custom.value ?? '') : 'multipart/form-data';
          const boundary = newBoundary();
          form = { body: encodeMultipart(parts, boundary, baseType, op.formEscape), type: `${baseType}; boundary=${boundary}` };
          formCache.set(op, form);
        }
        body = form.body;
        multipartType = form.type;
      } else if (op.httpReq === 'SIMPLEPOST' && !useGetData) {
        kind = 'POST';
        // The data as a body: large files in it are read as it is sent (upload.ts).
        if (!bodyCache.has(op)) bodyCache.set(op, dataBody(op.data, files));
        body = bodyCache.get(op)!;
      }
      if (useGetData && op.httpReq === 'HEAD') kind = 'HEAD';
      const method = op.method ?? kind;
      let referer: string | undefined;
      if (op.referer !== undefined) {
        const auto = op.referer.endsWith(';auto');
        const given = auto ? op.referer.slice(0, -5) : op.referer;
        if (given) referer = given;
      }
      const hop: HopState = { url, kind, method, body, chunked, multipartType, referer };
      const spec = this.specFor(t, hop);
      this.runs.set(spec.source!, { transfer: t, url });
      specs.push(spec);
    }
    return specs;
  }

  /** The RequestSpec of the first hop, with the rules of the hops after it (settings.curl). */
  private specFor(t: Transfer, hop: HopState): RequestSpec {
    const op = t.op;
    const custom = customHeaders(op.headers, this.headerFiles());
    // --json asks for JSON both ways unless -H says otherwise.
    if (op.data.some((d) => d.kind === 'json')) {
      if (!custom.some((h) => h.name.toLowerCase() === 'content-type')) custom.push({ name: 'Content-Type', value: 'application/json', line: '' });
      if (!custom.some((h) => h.name.toLowerCase() === 'accept')) custom.push({ name: 'Accept', value: 'application/json', line: '' });
    }
    const has = (name: string) => custom.some((h) => h.name.toLowerCase() === name);
    const url = hop.url;
    const headers: Header[] = [];

    // Host: a -H Host goes first in its place (on the first host only); `Host:` removes it.
    const hostCustom = custom.find((h) => h.name.toLowerCase() === 'host');
    if (hostCustom) {
      if (hostCustom.value !== undefined) headers.push([hostCustom.name, hostCustom.value]);
    } else headers.push(['Host', hostHeader(url)]);

    // Proxy: plain HTTP goes to the proxy with the absolute URL; HTTPS is tunnelled. A --noproxy
    // host goes direct (and so does -x "").
    const direct = op.noproxy !== undefined && noProxyMatches(url.host, url.port ?? (url.scheme === 'https' ? 443 : 80), op.noproxy);
    const proxyHttp = this.proxyFor(op, 'http');
    const proxyHttps = this.proxyFor(op, 'https');
    const proxyAuthorization = proxyHttp?.credentials !== undefined && !has('proxy-authorization') ? 'Basic ' + b64(proxyHttp.credentials) : undefined;
    const viaProxy = proxyHttp !== undefined && url.scheme === 'http' && !direct;
    if (viaProxy && proxyAuthorization !== undefined) headers.push(['Proxy-Authorization', proxyAuthorization]);

    // Server authentication (the first URL's credentials: later hops send them to its origin only).
    let digest: RequestSettings['digest'];
    let authorization: string | undefined;
    const creds = this.credentials(op, url);
    if (!has('authorization')) {
      const mask = op.authMask === 0 ? AUTH.BASIC : op.authMask;
      if (mask === AUTH.BASIC && creds) authorization = 'Basic ' + b64(`${creds.user}:${creds.password}`);
      else if (mask === AUTH.BEARER && op.bearer !== undefined) authorization = `Bearer ${op.bearer}`;
      else if ((mask === AUTH.NTLM || mask === AUTH.NTLM_WB) && creds) {
        // curl opens NTLM with a fixed type-1 message; sling cannot answer the server's challenge.
        authorization = 'NTLM TlRMTVNTUAABAAAABoIIAAAAAAAAAAAAAAAAAAAAAAA=';
      }
      if (authorization !== undefined) headers.push(['Authorization', authorization]);
      if (mask & AUTH.DIGEST && creds) digest = { user: utf8(creds.user), password: utf8(creds.password) };
    }

    // Range (downloads) or Content-Range (uploads).
    const range = this.rangeValue(t, hop.url);
    if (range !== undefined && !has('range')) {
      if (hop.kind === 'GET' || hop.kind === 'HEAD') headers.push(['Range', `bytes=${range}`]);
      else if (hop.body) headers.push(['Content-Range', contentRange(range, hop.body.length)]);
    }

    if (!has('user-agent') && op.userAgent !== '') headers.push(['User-Agent', op.userAgent ?? USER_AGENT]);
    if (!has('accept')) headers.push(['Accept', '*/*']);
    // curl 7.88 offers deflate, gzip, br, zstd; sling offers what it can decode.
    if (op.compressed && !has('accept-encoding')) headers.push(['Accept-Encoding', 'deflate, gzip, br']);
    if (hop.referer !== undefined && !has('referer')) headers.push(['Referer', hop.referer]);
    const proxyConnection = !has('proxy-connection');
    if (viaProxy && proxyConnection) headers.push(['Proxy-Connection', 'Keep-Alive']);
    // A body of unknown size (-T -) goes chunked: its Transfer-Encoding is a header of the body (below).

    // Cookies go here, after curl's own headers (model/cookies.ts withJarCookies, as each hop is
    // sent): the engine's (from -b FILE and responses), then the -b strings unless -H Cookie is
    // given. With a -H Host, curl matches cookies against that host name instead of the URL's.
    const own = headers.length;

    const cond = this.timeCondition(op);
    if (cond && !has(cond[0].toLowerCase())) headers.push(cond);

    let formType: CurlRules['formType'];
    /** -H lines whose blanks after the colon are not one space: sent as written. */
    let gaps: Record<string, string> | undefined;
    for (const h of custom) {
      const lower = h.name.toLowerCase();
      if (h.value === undefined) continue;
      if (lower === 'host') continue;
      // The multipart type (with the boundary) stands in for it; a hop without the body sends it.
      if (lower === 'content-type' && hop.multipartType) {
        formType = { at: headers.length - own, header: [h.name, utf8(h.value)] };
        continue;
      }
      headers.push([h.name, h.value]);
      if (h.gap !== undefined) (gaps ??= {})[lower] = h.gap;
    }

    // The headers of the body come last: a redirect that drops the body drops them (not a -H one).
    const bodyHeaders: string[] = [];
    if (hop.body) {
      const bodyHeader = (name: string, value: string) => (headers.push([name, value]), bodyHeaders.push(name.toLowerCase()));
      if (!hop.chunked && !has('content-length') && !has('transfer-encoding')) bodyHeader('Content-Length', String(hop.body.length));
      if (hop.multipartType) bodyHeader('Content-Type', hop.multipartType);
      else if (hop.kind === 'POST' && !has('content-type')) bodyHeader('Content-Type', 'application/x-www-form-urlencoded');
      // A body of unknown size (-T -) goes chunked, its header before Expect as curl writes them.
      if (hop.chunked && !has('transfer-encoding') && !has('content-length') && (isStreamed(hop.body) || hop.body.length > 0)) bodyHeader('Transfer-Encoding', 'chunked');
      // curl asks before sending an upload, or a body over 1 MiB.
      const expect = hop.kind === 'PUT' ? hop.chunked || hop.body.length > 0 : hop.body.length > 1024 * 1024;
      if (expect && !has('expect')) bodyHeader('Expect', '100-continue');
    }

    // What curl decides again on each hop of -L, as data for transport/redirect.ts.
    const proxies: Record<string, string> = {};
    if (proxyHttp) proxies.http = proxyHttp.url;
    if (proxyHttps) proxies.https = proxyHttps.url;
    const proxyEnv = envProxies(op, this.rt.env);
    const rules: CurlRules = {
      ...(gaps ? { headerGaps: gaps } : {}),
      url,
      firstOrigin: originOf(toParsedUrl(url)),
      kind: hop.kind,
      method: op.method,
      post301: op.post301,
      post302: op.post302,
      post303: op.post303,
      trusted: op.locationTrusted,
      autoReferer: op.referer?.endsWith(';auto') === true && !has('referer'),
      host: hostCustom ? (hostCustom.value === undefined ? null : [hostCustom.name, utf8(hostCustom.value)]) : undefined,
      authorization: authorization === undefined ? undefined : utf8(authorization),
      digest,
      proxy: proxyHttp ? { authorization: proxyAuthorization === undefined ? undefined : utf8(proxyAuthorization), connection: proxyConnection } : undefined,
      noProxy: op.noproxy,
      heldProxies: direct ? { proxies, proxyEnv } : undefined,
      own,
      // curl sends -b strings on every hop, to other hosts too (unlike a -H Cookie header).
      cookies: op.cookies.length && !has('cookie') ? utf8(op.cookies.join(';')) : undefined,
      bodyHeaders,
      formType,
      range: range !== undefined && !has('range') ? range : undefined,
      requestTarget: op.requestTarget,
    };

    const lowSpeed = op.speedLimit !== undefined || op.speedTime !== undefined;
    const settings: RequestSettings = {
      follow: op.follow,
      // The command's own -L: --no-follow on sling's command line leaves it.
      followFrom: op.follow ? '-L' : undefined,
      maxRedirects: this.maxRedirects(op),
      // Set: the command's own limit, over sling exec's --max-redirects.
      maxRedirectsFrom: op.maxRedirs !== undefined ? '--max-redirs' : undefined,
      // curl: --connect-timeout bounds connecting (the TLS handshake too), -m the whole transfer.
      connectTimeoutMs: limitMs(op.connectTimeout),
      connectFrom: '--connect-timeout',
      maxTimeMs: limitMs(op.maxTime),
      failAtHead: op.fail && !op.failWithBody ? true : undefined,
      // -y/-Y: slower than the limit for that long ends the transfer. As sling measures silence, it
      // is exact for the usual `--speed-limit 1` (no byte for N seconds); a higher limit is read as 1.
      timeoutMs: lowSpeed ? limitMs(op.speedTime ?? '30') : undefined,
      // Set: sling's --timeout leaves the command's own limits alone.
      timeoutFrom: lowSpeed ? '--speed-time' : timeoutFrom(op),
      keepEncoding: !op.compressed,
      tls: {
        verify: op.insecure ? false : op.cacert ? op.cacert : true,
        ...certSettings(op),
        ...tlsTuning(op),
      },
      proxies: direct ? {} : proxies,
      proxyEnv: direct ? {} : proxyEnv,
      compress: 0,
      chunked: hop.chunked && !has('transfer-encoding') && !has('content-length'),
      digest,
      curl: rules,
      unixSocket: op.unixSocket,
      family: op.family,
      http2: op.http2,
      http10: op.http10,
      interface: op.interface,
      ...routing(op),
      retry: retrySettings(op),
      curlFraming: true,
    };
    const parsed: ParsedUrl = toParsedUrl(url);
    if (op.requestTarget !== undefined) {
      parsed.path = op.requestTarget;
      parsed.query = '';
    }
    return {
      method: hop.method,
      url: parsed,
      query: [],
      headers: headers.map(([n, v]) => [n, utf8(v)] as Header),
      body: hop.body ? (isStreamed(hop.body) ? { kind: 'stream', pieces: hop.body.pieces } : { kind: 'bytes', data: hop.body }) : { kind: 'none' },
      settings,
      source: { ...this.rt.source },
    };
  }

  private credentials(op: Operation, url: CurlUrl): { user: string; password: string } | undefined {
    if (op.user !== undefined) {
      const colon = op.user.indexOf(':');
      if (colon === -1) return { user: op.user, password: '' };
      return { user: op.user.slice(0, colon), password: op.user.slice(colon + 1) };
    }
    if (url.user !== undefined) return { user: pctDecode(url.user), password: pctDecode(url.password ?? '') };
    return undefined;
  }

  /** curl's own -x for a URL of this scheme (--noproxy aside). */
  private proxyFor(op: Operation, urlScheme: 'http' | 'https'): { url: string; credentials?: string } | undefined {
    if (op.proxy === undefined || op.proxy === '') return undefined;
    let text = op.proxy;
    const m = /^([a-z0-9]+):\/\//i.exec(text);
    const scheme = m ? m[1]!.toLowerCase() : 'http';
    if (scheme !== 'http') throw new CurlBuildError(`the proxy '${op.proxy}' is not an HTTP proxy (sling supports http:// proxies)`);
    text = m ? text.slice(m[0].length) : text;
    text = text.replace(/\/.*$/, '');
    let credentials: string | undefined;
    const at = text.lastIndexOf('@');
    if (at !== -1) {
      const userinfo = text.slice(0, at);
      text = text.slice(at + 1);
      const colon = userinfo.indexOf(':');
      credentials = colon === -1 ? pctDecode(userinfo) + ':' : `${pctDecode(userinfo.slice(0, colon))}:${pctDecode(userinfo.slice(colon + 1))}`;
    }
    if (op.proxyUser !== undefined) credentials = op.proxyUser.includes(':') ? op.proxyUser : op.proxyUser + ':';
    // curl's default proxy port is 1080.
    if (!/:\d+$/.test(text) || /^\[[^\]]*\]$/.test(text)) text += ':1080';
    if (urlScheme === 'https' && credentials !== undefined) {
      const colon = credentials.indexOf(':');
      const enc = (s: string) => encodeURIComponent(utf8(s));
      return { url: `http://${enc(credentials.slice(0, colon))}:${enc(credentials.slice(colon + 1))}@${text}`, credentials };
    }
    return { url: `http://${text}`, credentials };
  }

  private rangeValue(t: Transfer, url: CurlUrl): string | undefined {
    const op = t.op;
    if (op.continueAt !== undefined) {
      if (op.continueAt === '-') {
        // The file the body goes to (-o, or -O's name from the URL), in --output-dir: its size.
        let out =
          t.output !== undefined && !isStdout(t.output) ? globName(t.output, t.globMatches) : t.remoteName && t.output === undefined ? url.path.slice(url.path.lastIndexOf('/') + 1) : undefined;
        if (!out) return undefined;
        if (op.outputDir) out = join(op.outputDir, out);
        const size = this.rt.files.stat?.(out)?.size;
        return size ? `${size}-` : undefined;
      }
      const n = Number(op.continueAt);
      return n > 0 ? `${n}-` : undefined;
    }
    if (op.range === undefined) return undefined;
    // A bare number N asks for everything from N on.
    return /^\d+$/.test(op.range) ? `${op.range}-` : op.range;
  }

  private timeCondition(op: Operation): Header | undefined {
    if (op.timeCond === undefined) return undefined;
    let text = op.timeCond;
    let name = 'If-Modified-Since';
    if (text.startsWith('-')) {
      name = 'If-Unmodified-Since';
      text = text.slice(1);
    } else if (text.startsWith('+') || text.startsWith('=')) text = text.slice(1);
    let when = parseCurlDate(text);
    if (when === undefined) {
      when = this.rt.files.stat?.(text)?.mtimeMs;
      if (when === undefined) {
        this.rt.warn(`-z '${op.timeCond}' is neither a date nor a file name: no time condition is sent`);
        return undefined;
      }
    }
    return [name, new Date(Math.floor(when / 1000) * 1000).toUTCString()];
  }

  private maxRedirects(op: Operation): number {
    if (op.maxRedirs === undefined) return 50;
    const n = Number(op.maxRedirs);
    return n < 0 ? Number.MAX_SAFE_INTEGER : n;
  }
}

/** -m / --connect-timeout SECONDS (decimals allowed; 0 is no limit, as in curl) in milliseconds. */
function limitMs(value: string | undefined): number | undefined {
  const n = value === undefined ? 0 : Number(value);
  return n > 0 ? Math.min(Math.max(1, Math.round(n * 1000)), MAX_TIMER_MS) : undefined;
}

/**
 * The environment the proxy variables come from: none with `-x ""` (curl: no proxy at all); with
 * --noproxy, that list replaces NO_PROXY (a host it names goes direct: settings.curl.noProxy).
 * Upper-case HTTP_PROXY is not curl's.
 */
function envProxies(op: Operation, env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  if (op.proxy === '') return {};
  // curl reads http_proxy in lower case only (HTTP_PROXY may come from a CGI request's Proxy header).
  const { HTTP_PROXY: _h, ...rest } = env;
  if (op.noproxy === undefined) return rest;
  const { NO_PROXY: _a, no_proxy: _b, ...others } = rest;
  return others;
}

/** The option whose limit comes first (--max-time or --connect-timeout), for messages. */
function timeoutFrom(op: Operation): string | undefined {
  const max = op.maxTime !== undefined && Number(op.maxTime) > 0 ? Number(op.maxTime) : Infinity;
  const connect = op.connectTimeout !== undefined && Number(op.connectTimeout) > 0 ? Number(op.connectTimeout) : Infinity;
  if (max === Infinity && connect === Infinity) return undefined;
  return max <= connect ? '--max-time' : '--connect-timeout';
}

/** --tlsv1.x, --tls-max, --ciphers and --tls13-ciphers (one OpenSSL list for Node: the TLS 1.3 suites may stand in it). */
function tlsTuning(op: Operation): { minVersion?: TlsVersion; maxVersion?: TlsVersion; ciphers?: string } {
  const out: { minVersion?: TlsVersion; maxVersion?: TlsVersion; ciphers?: string } = {};
  if (op.tlsMin) out.minVersion = op.tlsMin;
  if (op.tlsMax) out.maxVersion = op.tlsMax;
  const ciphers = [op.ciphers, op.tls13Ciphers].filter((c) => c !== undefined && c !== '').join(':');
  if (ciphers) out.ciphers = ciphers;
  return out;
}

function certSettings(op: Operation): { cert?: string; certKey?: string; certKeyPass?: string } {
  const out: { cert?: string; certKey?: string; certKeyPass?: string } = {};
  if (op.cert !== undefined) {
    // -E file:password, with \: for a colon in the name (and C:\ drive letters left alone).
    const m = /^((?:[A-Za-z]:\\)?(?:\\:|[^:])*)(?::(.*))?$/s.exec(op.cert)!;
    out.cert = m[1]!.replace(/\\:/g, ':');
    if (m[2] !== undefined) out.certKeyPass = m[2];
  }
  if (op.key !== undefined) out.certKey = op.key;
  if (op.pass !== undefined) out.certKeyPass = op.pass;
  return out;
}

function contentRange(range: string, size: number): string {
  const m = /^(\d*)-(\d*)$/.exec(range);
  if (m && m[1] && m[2]) return `bytes ${m[1]}-${m[2]}/${size}`;
  if (m && m[1]) return `bytes ${m[1]}-${size - 1}/${size}`;
  return `bytes ${range}/${size}`;
}

const pctDecode = (s: string) => s.replace(/%([0-9a-fA-F]{2})/g, (_m, h: string) => String.fromCharCode(parseInt(h, 16)));
const b64 = (s: string) => Buffer.from(s, 'latin1').toString('base64');
export { utf8 };

/** curl's --retry N [--retry-delay S] [--retry-max-time S] [--retry-all-errors] [--retry-connrefused]. */
function retrySettings(op: Operation): RequestSettings['retry'] {
  const count = Number(op.retry ?? 0);
  if (!(count > 0)) return undefined;
  // Capped at the longest delay Node's timers hold (a longer one fired at once).
  const seconds = (v?: string) => (v !== undefined && Number(v) > 0 ? Math.min(Number(v) * 1000, MAX_TIMER_MS) : undefined);
  return { count, delayMs: seconds(op.retryDelay), maxTimeMs: seconds(op.retryMaxTime), allErrors: op.retryAllErrors, connRefused: op.retryConnrefused };
}

/**
 * --connect-to and --resolve as the transport's rules (transport/connect.ts applies them, the URL
 * left as it is: its host stays the Host header and the TLS name). Rules that do not read are
 * skipped; --resolve takes curl's form only (a port), and `-HOST:PORT` (drop an entry) has nothing to drop.
 */
function routing(op: Operation): Pick<RequestSettings, 'resolve' | 'connectTo'> {
  const out: Pick<RequestSettings, 'resolve' | 'connectTo'> = {};
  const resolve = op.resolve.flatMap((text) => {
    if (text.startsWith('-')) return [];
    const r = parseResolveRule(text);
    return 'error' in r || r.port === undefined ? [] : [r];
  });
  if (resolve.length) out.resolve = resolve;
  const connectTo = op.connectTo.flatMap((text) => parseConnectToRule(text) ?? []);
  if (connectTo.length) out.connectTo = connectTo;
  return out;
}
