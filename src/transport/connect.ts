import type { Socket } from 'node:net';
import type { ConnectionOptions, TLSSocket } from 'node:tls';
import { FileTooLargeError, readLimited, SETTINGS_FILE_LIMIT } from '../files.js';
import { isIP } from 'node:net';
import { networkInterfaces } from 'node:os';
import { NetworkError, TimeoutError, UsageError } from '../errors.js';
import type { RequestSettings } from '../model/spec.js';
import { hostAndPort, type ParsedUrl } from '../model/url.js';
import { now } from '../clock.js';
import { connectLimit, mapNetworkError } from './errors.js';
import { parseProxy, type ProxyTarget } from './proxy.js';
import { HeadReader, requestBytes } from './h1.js';
import { incompleteHead } from './head.js';
import type { Timings } from '../model/exchange.js';

/**
 * What the HTTP/1.1 client (client.ts) and HTTP/2 (h2.ts) need to reach a server: TLS options, a CONNECT tunnel through a proxy, the proxy as given, and the header lines
 * a proxy or an h2c upgrade offer add.
 */

/** Methods whose request may go again when a kept-alive connection dies unanswered (RFC 9110, 9.2.2). */
export const IDEMPOTENT = new Set(['GET', 'HEAD', 'OPTIONS', 'TRACE', 'PUT', 'DELETE']);

let tlsMod: typeof import('node:tls') | undefined;

export async function loadTls(): Promise<typeof import('node:tls')> {
  tlsMod ??= await import('node:tls');
  return tlsMod;
}

/** The proxy of a request (proxy.ts pickProxy), parsed; a malformed one is the user's error. */
export function proxyTarget(text: string | undefined): ProxyTarget | undefined {
  if (!text) return undefined;
  try {
    return parseProxy(text);
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
}

/**
 * The TLS options of a request (certificate checks, CA bundle, client certificate), offering
 * http/1.1 by ALPN. node:tls must be loaded first (loadTls) when a client certificate is given.
 */
export function tlsOptions(settings: RequestSettings, servername: string): ConnectionOptions {
  const { tls } = settings;
  const read = (path: string, what: string) => {
    try {
      return readLimited(path, SETTINGS_FILE_LIMIT, path, `a ${what}`);
    } catch (e) {
      if (e instanceof FileTooLargeError) throw e;
      throw new UsageError(`cannot read ${what} '${path}': ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (e as Error).message}`);
    }
  };
  const opts: ConnectionOptions = { rejectUnauthorized: tls.verify !== false, servername: /^[\d.]+$|:/.test(servername) ? undefined : servername };
  if (typeof tls.verify === 'string') opts.ca = read(tls.verify, 'CA bundle');
  else if (tls.verify !== false && systemCaWanted) addSystemCa(opts);
  if (tls.cert) opts.cert = read(tls.cert, 'client certificate');
  if (tls.certKey) opts.key = read(tls.certKey, 'client certificate key');
  else if (tls.cert) opts.key = opts.cert;
  if (tls.certKeyPass) opts.passphrase = tls.certKeyPass;
  opts.ALPNProtocols = ['http/1.1'];
  if (tls.cert) checkClientCert(tls.cert, tls.certKey, opts);
  if (tls.minVersion) opts.minVersion = tls.minVersion;
  if (tls.maxVersion) opts.maxVersion = tls.maxVersion;
  const order = ['TLSv1', 'TLSv1.1', 'TLSv1.2', 'TLSv1.3'];
  // A newest version under Node's default oldest (TLS 1.2): the oldest goes down with it (curl's --tls-max 1.1).
  if (tls.maxVersion && !tls.minVersion && order.indexOf(tls.maxVersion) < 2) opts.minVersion = 'TLSv1';
  if (tls.minVersion && tls.maxVersion && order.indexOf(tls.minVersion) > order.indexOf(tls.maxVersion)) {
    throw new UsageError(`no TLS version is left: the oldest allowed (${tls.minVersion}) is newer than the newest (${tls.maxVersion})`);
  }
  // OpenSSL 3 refuses TLS 1.0 and 1.1 at its default security level: asked for, they are allowed.
  const old = tls.maxVersion === 'TLSv1' || tls.maxVersion === 'TLSv1.1';
  if (tls.ciphers || old) opts.ciphers = `${tls.ciphers ?? 'DEFAULT'}${old && !tls.ciphers?.includes('@SECLEVEL') ? ':@SECLEVEL=0' : ''}`;
  if (tls.ciphers) checkCiphers(tls.ciphers, opts);
  return opts;
}

/** Whether tlsOptions() needs node:tls loaded first (loadTls): it checks a client certificate or a cipher list with it, or adds the system's CA store. */
export const tlsChecks = (settings: RequestSettings): boolean => Boolean(settings.tls.cert || settings.tls.ciphers || (systemCaWanted && defaultVerify(settings)));

/** Certificates are checked against the default CA store: no --verify=no, no --verify PATH or --cacert. */
const defaultVerify = (settings: RequestSettings) => settings.tls.verify !== false && typeof settings.tls.verify !== 'string';

let systemCaWanted = false;
/** The system's CA store added (set as Node's default), its certificates for each connection, or nothing (Node has no such API). */
let systemCa: 'default' | string[] | null | undefined;

/**
 * Whether requests with the default certificate checks trust the system's CA store besides Node's
 * bundled roots (and NODE_EXTRA_CA_CERTS): on Windows and macOS, as curl.exe and macOS's curl
 * trust what the system trusts (a company's TLS inspection root in the Windows store, say); not on
 * Linux, where the system's bundle is mostly the roots Node bundles and reading it costs 50-100 ms
 * a run (NODE_USE_SYSTEM_CA=1, Node's own switch, adds it there). SLING_SYSTEM_CA=1 or 0 says so
 * on any system. Called by exchange() for each request; the store is read at the first HTTPS
 * connection that uses it, never at start-up.
 */
export function chooseSystemCa(env: NodeJS.ProcessEnv, platform: string): void {
  const said = env.SLING_SYSTEM_CA;
  systemCaWanted = said === '1' ? true : said === '0' ? false : platform === 'win32' || platform === 'darwin';
}

/**
 * The system's store added to the CA certificates, where Node offers it (tls.getCACertificates
 * with 'system': Node 22.15 and 23.3 on; not Node 20): once as Node's default
 * (tls.setDefaultCACertificates, Node 22.19 and 24.5 on), else as each connection's `ca`.
 */
function addSystemCa(opts: ConnectionOptions): void {
  if (systemCa === undefined) {
    const t = tlsMod as (typeof import('node:tls') & { getCACertificates?: (type: string) => string[]; setDefaultCACertificates?: (certs: string[]) => void }) | undefined;
    systemCa = null;
    if (t && typeof t.getCACertificates === 'function') {
      try {
        const all = [...new Set([...t.getCACertificates('default'), ...t.getCACertificates('system')])];
        if (typeof t.setDefaultCACertificates === 'function') {
          t.setDefaultCACertificates(all);
          systemCa = 'default';
        } else systemCa = all;
      } catch {
        // A store that cannot be read: Node's own roots, as before.
      }
    }
  }
  if (Array.isArray(systemCa)) opts.ca = systemCa;
}

const checkedCiphers = new Set<string>();
/** A cipher list OpenSSL matches nothing in is the user's error, before anything is sent. */
function checkCiphers(ciphers: string, opts: ConnectionOptions) {
  if (checkedCiphers.has(ciphers)) return;
  try {
    tlsMod!.createSecureContext({ ciphers: opts.ciphers, minVersion: opts.minVersion, maxVersion: opts.maxVersion });
  } catch (e) {
    throw new UsageError(`--ciphers '${ciphers}' names no cipher OpenSSL knows: ${(e as Error).message.replace(/^error:[0-9A-F]+:/, '')}`, 'list them with: openssl ciphers -v');
  }
  checkedCiphers.add(ciphers);
}

/**
 * Where a connection to the URL goes, as node:net (and node:tls, node:http) take it: the Unix
 * socket, or host and port (after --connect-to, then the --resolve address in place of the host)
 * with -4/-6, and the local address to bind (--interface). The URL's host stays the TLS name
 * (tlsOptions) and the Host header.
 */
export function socketTarget(url: ParsedUrl, settings: RequestSettings): { path: string } | { host: string; port: number; family?: number; localAddress?: string } {
  if (settings.unixSocket) return { path: settings.unixSocket };
  const to = destination(url, settings);
  const out: { host: string; port: number; family?: number; localAddress?: string } = { host: resolved(to, settings) ?? to.hostname, port: to.port };
  if (settings.interface) out.localAddress = localAddress(settings.interface, settings.family);
  const local = out.localAddress ? isIP(out.localAddress) : 0;
  if (settings.family && local && local !== settings.family) {
    throw new UsageError(`--interface ${settings.interface} is an IPv${local} address, and -${settings.family} (--ipv${settings.family}) connects over IPv${settings.family} only`);
  }
  const family = settings.family ?? local;
  const host = out.host.replace(/^\[|\]$/g, '');
  const literal = isIP(host);
  // Both given as addresses of different families: no connection can be made (curl fails to connect, exit 7).
  if (family && literal && literal !== family) {
    const why = settings.family ? `-${family} (--ipv${family}) connects over IPv${family} only` : `the local address ${out.localAddress} (--interface) is IPv${family}`;
    throw new NetworkError(`cannot connect to ${hostAndPort({ hostname: host, port: to.port })}: ${host} is an IPv${literal} address, and ${why}`);
  }
  // localhost is this machine's loopback in either family, whatever the hosts file lists (curl does the same).
  if (family && /^localhost\.?$|\.localhost\.?$/i.test(host)) out.host = family === 6 ? '::1' : '127.0.0.1';
  if (family) out.family = family;
  return out;
}

/** What, besides the URL's origin, makes a connection different (a pool or session key part): socket, family, --connect-to, --resolve, --interface. */
export function connectionKey(settings: RequestSettings): string {
  if (!settings.unixSocket && !settings.family && !settings.resolve && !settings.connectTo && !settings.interface) return '';
  return `${settings.unixSocket ?? ''}|${settings.family ?? ''}|${JSON.stringify(settings.connectTo ?? '')}|${JSON.stringify(settings.resolve ?? '')}|${settings.interface ?? ''}`;
}

/**
 * The host and port a connection for the URL is made to, by name: the URL's, or those of the
 * first --connect-to rule that matches them (curl's order: --connect-to, then --resolve on what
 * it gives). A tunnel through a proxy asks for this one too, as curl's CONNECT does.
 */
export function destination(url: ParsedUrl, settings: RequestSettings): { hostname: string; port: number } {
  if (!settings.connectTo) return url;
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  const rule = settings.connectTo.find((r) => (r.host === undefined || r.host === host) && (r.port === undefined || r.port === url.port));
  return rule ? { hostname: rule.toHost ?? host, port: rule.toPort ?? url.port } : url;
}

/** The address --resolve gives a host and port, if a rule matches them. */
function resolved(to: { hostname: string; port: number }, settings: RequestSettings): string | undefined {
  if (!settings.resolve) return undefined;
  const host = to.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return settings.resolve.find((r) => (r.host === host || r.host === '*') && (r.port === undefined || r.port === to.port))?.address;
}

/**
 * --interface: an address is taken as it is (binding it fails when it is not this machine's); a
 * name is a network interface of this machine, whose first address of the family asked for (-4 /
 * -6), else its first IPv4 address, else its first, is used.
 */
function localAddress(name: string, family: 4 | 6 | undefined): string {
  const bare = name.replace(/^\[|\]$/g, '');
  if (isIP(bare)) return bare;
  const all = networkInterfaces();
  const addresses = all[name];
  if (!addresses?.length) {
    const names = Object.keys(all);
    throw new UsageError(`--interface '${name}' is neither an IP address nor a network interface of this machine${names.length ? ` (it has ${names.join(', ')})` : ''}`);
  }
  const of = (f: number) => addresses.find((a) => (a.family === 'IPv4' ? 4 : 6) === f);
  const pick = family ? of(family) : (of(4) ?? addresses[0]);
  if (!pick) throw new UsageError(`network interface '${name}' (--interface) has no IPv${family} address`);
  return pick.address;
}

const checkedCerts = new Set<string>();
/**
 * A client certificate or key that OpenSSL cannot use is an error naming the file, before anything
 * is sent (node:https would only say "PEM routines::no start line"). Checked once per pair of files.
 */
function checkClientCert(cert: string, certKey: string | undefined, opts: ConnectionOptions) {
  const key = `${cert}\0${certKey ?? ''}\0${opts.passphrase ?? ''}`;
  if (checkedCerts.has(key)) return;
  const why = (e: unknown) => (e as Error).message.replace(/^error:[0-9A-F]+:/, '');
  try {
    tlsMod!.createSecureContext({ cert: opts.cert });
  } catch (e) {
    throw new UsageError(`--cert '${cert}' is not a usable PEM certificate: ${why(e)}`);
  }
  try {
    tlsMod!.createSecureContext({ cert: opts.cert, key: opts.key, passphrase: opts.passphrase });
  } catch (e) {
    const where = certKey ? `--cert-key '${certKey}'` : `--cert '${cert}' (no --cert-key: the key is looked for in the same file)`;
    throw new UsageError(`${where}: the private key cannot be used: ${why(e)}`);
  }
  checkedCerts.add(key);
}

/**
 * Opens a CONNECT tunnel through an HTTP proxy and starts TLS inside it. The CONNECT request and
 * the proxy's answer are the HTTP/1.1 codec's (h1.ts: `CONNECT host:port`, Host, the proxy's
 * credentials and `Connection: close`, as node:http wrote them before; interim answers skipped).
 * TLS offers what tlsOptions() offers (http/1.1), or the protocols of `alpn` (HTTP/2's `h2` for a
 * gRPC call, h2.ts).
 */
export async function tunnel(proxy: ProxyTarget, url: ParsedUrl, settings: RequestSettings, timings: Timings, alpn?: string[]): Promise<TLSSocket> {
  const tls = await loadTls();
  const socket = await openTunnel(proxy, url, settings, timings);
  const authority = hostAndPort(destination(url, settings));
  return await new Promise<TLSSocket>((resolve, reject) => {
    const limit = connectLimit(settings);
    const options = tlsOptions(settings, url.hostname);
    if (alpn) options.ALPNProtocols = alpn;
    const tlsSock = tls.connect({ socket, ...options }, () => {
      timings.tls = now();
      // The handshake's limit only: the requests on the tunnel keep their own.
      if (limit) tlsSock.setTimeout(0);
      resolve(tlsSock);
    });
    if (limit) tlsSock.setTimeout(limit.ms, () => tlsSock.destroy(new TimeoutError(`TLS handshake with ${authority} timed out`)));
    tlsSock.once('error', (e) => reject(mapNetworkError(e, authority, proxy.display)));
  });
}

/**
 * The CONNECT tunnel alone, its socket paused at the first byte from the server: what tunnel()
 * starts TLS in, and what a ws:// WebSocket (websocket.ts) and an h2c gRPC call (h2.ts) speak in
 * as it is.
 */
export async function openTunnel(proxy: ProxyTarget, url: ParsedUrl, settings: RequestSettings, timings: Timings): Promise<Socket> {
  const net = await import('node:net');
  const authority = hostAndPort(destination(url, settings));
  const headers: [string, string][] = [['Host', authority]];
  if (proxy.authorization) headers.push(['Proxy-Authorization', proxy.authorization]);
  headers.push(['Connection', 'close']);
  const where = `proxy ${proxy.display}`;
  return await new Promise<Socket>((resolve, reject) => {
    const sock = net.connect({ host: proxy.url.hostname.replace(/^\[|\]$/g, ''), port: Number(proxy.url.port || 80), noDelay: true });
    const heads = new HeadReader(where, where, settings);
    let settled = false;
    const fail = (e: unknown) => {
      if (settled) return;
      settled = true;
      sock.destroy();
      reject(mapNetworkError(e, where));
    };
    // The tunnel is part of connecting (curl's --connect-timeout counts it), as is its TLS handshake.
    const limit = connectLimit(settings);
    if (limit) sock.setTimeout(limit.ms, () => fail(new TimeoutError(`${where} did not answer within ${limit.text}`)));
    const onData = (data: Buffer) => {
      let rest: Buffer | undefined;
      try {
        rest = heads.read(data);
      } catch (e) {
        return fail(e);
      }
      if (rest === undefined) return;
      settled = true;
      sock.off('data', onData);
      sock.pause();
      if (limit) sock.setTimeout(0);
      timings.connect = now();
      const head = heads.head!;
      if (head.status !== 200) {
        sock.destroy();
        return reject(new NetworkError(`${where} refused the tunnel to ${authority}: ${head.status} ${head.reason}`.trim()));
      }
      // Bytes after the proxy's answer are the server's: TLS reads them first.
      if (rest.length) sock.unshift(Buffer.from(rest));
      resolve(sock);
    };
    sock.on('data', onData);
    sock.once('connect', () => sock.write(requestBytes({ method: 'CONNECT', target: authority, headers, body: Buffer.alloc(0) }, headers, authority, false, false)));
    sock.on('error', fail);
    sock.once('close', () => fail(heads.partial ? incompleteHead(where) : Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' })));
  });
}

/**
 * The header lines of a request sent to a proxy in plain HTTP (absolute URL on the request line):
 * Proxy-Authorization last, and for curl files curl's own `Proxy-Connection: Keep-Alive` after its
 * default headers (Host, User-Agent, Accept), before the user's, unless the user gave one.
 */
export function proxyHeaders(headers: readonly (readonly [string, string])[], proxy: ProxyTarget, curlFraming: boolean): [string, string][] {
  const out = headers.map(([n, v]) => [n, v] as [string, string]);
  if (proxy.authorization) out.push(['Proxy-Authorization', proxy.authorization]);
  if (curlFraming && !out.some(([n]) => /^proxy-connection$/i.test(n))) {
    let at = 0;
    for (let i = 0; i < out.length; i++) if (/^(host|user-agent|accept)$/i.test(out[i]![0])) at = i + 1;
    out.splice(at, 0, ['Proxy-Connection', 'Keep-Alive']);
  }
  return out;
}

/**
 * curl's --http2 on http:// (direct): the HTTP/1.1 request offers an upgrade to h2c, next to any
 * Connection or Upgrade header of the user's (as curl 7.88 sends it), after its Accept line and
 * before the user's headers and the body's.
 */
export function h2cOfferHeaders(headers: readonly (readonly [string, string])[]): [string, string][] {
  const out = headers.map(([n, v]) => [n, v] as [string, string]);
  let at = out.length;
  for (let i = 0; i < out.length; i++) if (out[i]![0].toLowerCase() === 'accept') at = i + 1;
  out.splice(at, 0, ['Connection', 'Upgrade, HTTP2-Settings'], ['Upgrade', 'h2c'], ['HTTP2-Settings', H2C_SETTINGS]);
  return out;
}

/** What curl 7.88 offers in HTTP2-Settings (base64url SETTINGS payload): at most 100 concurrent streams, a 32 MiB window, no server push. */
const H2C_SETTINGS = 'AAMAAABkAAQCAAAAAAIAAAAA';
