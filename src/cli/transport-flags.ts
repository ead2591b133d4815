import { UsageError } from '../errors.js';
import { parseResolveRule } from '../model/resolve.js';
import type { RequestSettings, ResolveRule, TlsVersion } from '../model/spec.js';

/**
 * The transport flags of the command line (xh's names, where xh has the flag): --http-version,
 * --unix-socket, --resolve, -4/-6, --interface, --ssl, --ciphers, checked here and turned into the
 * request settings they stand for. Undefined fields were not given.
 */
export interface TransportFlags {
  httpVersion?: '1.0' | '1.1' | '2' | '2-prior-knowledge';
  unixSocket?: string;
  resolve: ResolveRule[];
  family?: 4 | 6;
  interface?: string;
  /** --ssl: the one TLS version to use; `auto` (given) the newest both sides have, whatever a file pins. */
  tlsVersion?: TlsVersion | 'auto';
  ciphers?: string;
}

/** --ssl's choices (the parser takes HTTPie's `ssl2.3` for auto and `tls1.0` for tls1): the version each pins. */
const SSL_VERSIONS: Record<string, TlsVersion | 'auto'> = { auto: 'auto', tls1: 'TLSv1', 'tls1.1': 'TLSv1.1', 'tls1.2': 'TLSv1.2', 'tls1.3': 'TLSv1.3' };

/**
 * The flags' values as the parser checked them against the option table (a choice of
 * --http-version or --ssl as the table writes it, no empty --unix-socket), read into settings.
 */
export function transportFlags(values: { one(name: string): string | undefined; all(name: string): string[]; flag(name: string): boolean }): TransportFlags {
  const out: TransportFlags = { resolve: [] };
  const version = values.one('http-version');
  if (version !== undefined) out.httpVersion = version as TransportFlags['httpVersion'];
  out.unixSocket = values.one('unix-socket');
  for (const text of values.all('resolve')) out.resolve.push(resolveRule(text));
  if (values.flag('ipv4') && values.flag('ipv6')) throw new UsageError('-4 (--ipv4) and -6 (--ipv6) exclude each other: give one');
  if (values.flag('ipv4')) out.family = 4;
  if (values.flag('ipv6')) out.family = 6;
  out.interface = values.one('interface');
  const ssl = values.one('ssl');
  if (ssl !== undefined) out.tlsVersion = SSL_VERSIONS[ssl];
  out.ciphers = values.one('ciphers');
  return out;
}

/** A --resolve rule (model/resolve.ts reads it); a malformed one is a usage error. */
export function resolveRule(text: string): ResolveRule {
  const r = parseResolveRule(text);
  if (!('error' in r)) return r;
  const why = r.error === 'malformed' ? 'is malformed' : `has no IP address after the host (got '${r.rest}')`;
  throw new UsageError(`--resolve '${text}' ${why}: use HOST:PORT:ADDRESS or HOST:ADDRESS, e.g. example.com:443:127.0.0.1`);
}

/** The request settings the flags stand for, over those a request has (undefined: not given). */
export function transportSettings(f: TransportFlags, settings: RequestSettings): RequestSettings {
  const s: RequestSettings = { ...settings };
  if (f.httpVersion === '1.0') {
    s.http10 = true;
    s.http2 = undefined;
  } else if (f.httpVersion === '1.1') {
    s.http10 = undefined;
    s.http2 = undefined;
  } else if (f.httpVersion === '2') {
    s.http10 = undefined;
    s.http2 = 'alpn';
    s.noH2cUpgrade = true;
  } else if (f.httpVersion === '2-prior-knowledge') {
    s.http10 = undefined;
    s.http2 = 'prior-knowledge';
  }
  if (f.unixSocket !== undefined) s.unixSocket = f.unixSocket;
  if (f.resolve.length) s.resolve = [...f.resolve, ...(settings.resolve ?? [])];
  if (f.family !== undefined) s.family = f.family;
  if (f.interface !== undefined) s.interface = f.interface;
  if (f.tlsVersion !== undefined || f.ciphers !== undefined) {
    s.tls = { ...settings.tls };
    if (f.tlsVersion === 'auto') s.tls.minVersion = s.tls.maxVersion = undefined;
    else if (f.tlsVersion !== undefined) s.tls.minVersion = s.tls.maxVersion = f.tlsVersion;
    if (f.ciphers !== undefined) s.tls.ciphers = f.ciphers;
  }
  return s;
}

/** Were any transport flags given? */
export const anyTransportFlag = (f: TransportFlags): boolean =>
  f.httpVersion !== undefined || f.unixSocket !== undefined || f.resolve.length > 0 || f.family !== undefined || f.interface !== undefined || f.tlsVersion !== undefined || f.ciphers !== undefined;
