import type { ParsedUrl } from '../model/url.js';
import { basicAuth } from '../model/basic-auth.js';
import { noProxyMatches } from '../model/no-proxy.js';

/**
 * Which proxy a request goes through: `--proxy` first (per scheme, then for all), then the
 * environment (HTTP_PROXY, HTTPS_PROXY, ALL_PROXY, lower case too), unless NO_PROXY matches.
 */
export function pickProxy(url: ParsedUrl, flags: Record<string, string>, env: NodeJS.ProcessEnv): string | undefined {
  const fromFlags = flags[url.scheme] ?? flags.all;
  if (fromFlags) return fromFlags;
  const e = envProxies(env);
  const proxy = (url.scheme === 'http' ? e.http : url.scheme === 'https' ? e.https : get(env, `${url.scheme}_proxy`)) ?? e.all;
  if (!proxy) return undefined;
  // CGI environments set HTTP_PROXY from a request header ("httpoxy"): curl ignores the upper-case
  // form there, and so do we.
  if (url.scheme === 'http' && e.cgi) return undefined;
  if (noProxyMatches(url.hostname, url.port, e.noProxy)) return undefined;
  return proxy;
}

const get = (env: NodeJS.ProcessEnv, name: string) => env[name.toLowerCase()] || env[name.toUpperCase()] || undefined;

interface EnvProxies {
  http?: string;
  https?: string;
  all?: string;
  noProxy?: string;
  cgi: boolean;
}

/** The proxy variables of an environment, read once (`sling exec` asks for every request). */
const envCache = new WeakMap<NodeJS.ProcessEnv, EnvProxies>();
function envProxies(env: NodeJS.ProcessEnv): EnvProxies {
  let e = envCache.get(env);
  if (!e) {
    e = { http: get(env, 'http_proxy'), https: get(env, 'https_proxy'), all: get(env, 'all_proxy'), noProxy: get(env, 'no_proxy'), cgi: !env.http_proxy && Boolean(env.REQUEST_METHOD) };
    envCache.set(env, e);
  }
  return e;
}

export interface ProxyTarget {
  url: URL;
  /** `Proxy-Authorization` value from credentials in the proxy URL. */
  authorization?: string;
  /** The proxy URL with the password hidden, for messages. */
  display: string;
}

export function parseProxy(text: string): ProxyTarget {
  let u: URL;
  try {
    u = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `http://${text}`);
  } catch {
    throw new Error(`invalid proxy URL '${text}'`);
  }
  // What sling speaks to a proxy is plain HTTP (and CONNECT for HTTPS targets): an https://,
  // socks5:// or ftp:// proxy would get bytes it cannot read, so it is refused by name.
  if (u.protocol !== 'http:') throw new Error(`the proxy '${text.replace(/\/\/[^/@]*@/, '//***@')}' speaks ${u.protocol.slice(0, -1)}://, and sling only talks to HTTP proxies (http://)`);
  let authorization: string | undefined;
  if (u.username) {
    const creds = `${decodeURIComponent(u.username)}:${decodeURIComponent(u.password)}`;
    authorization = basicAuth(creds);
  }
  const display = `${u.protocol}//${u.username ? (u.password ? `${u.username}:***@` : `${u.username}@`) : ''}${u.host}`;
  return { url: u, authorization, display };
}
