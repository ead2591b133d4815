import { UsageError } from '../errors.js';
import { CurlUrlError, formatCurlUrl, hostHeader, resolveLocation, toParsedUrl, utf8, type CurlUrl } from '../model/curl-url.js';
import { noProxyMatches } from '../model/no-proxy.js';
import type { Body, CurlRules, Header, RequestSpec } from '../model/spec.js';
import { originOf, parseUrl } from '../model/url.js';
import type { Hop } from './hop.js';

/**
 * The one place where the next hop of a redirect is made, for every front end. It is made from the
 * hop before (its spec and the answer that redirected), so every setting of the first hop (TLS,
 * proxy, --resolve, HTTP version, address family, interface, limits) goes on to every hop; what
 * changes is the URL, the method and body, and the headers the rules name:
 *
 * - sling's own (docs/decisions.md, Network; the main command, .http files): 303, and 301/302 after POST, become a body-less
 *   GET; on a hop to another origin Authorization, Cookie and Proxy-Authorization are dropped.
 * - a curl command's `-L` (`settings.curl`, data the curl front end writes): curl 7.88's rules,
 *   below (curlHop).
 */
export function redirectSpec(spec: RequestSpec, hop: Hop, location: string): RequestSpec {
  if (spec.settings.curl) return curlHop(spec, spec.settings.curl, hop, location);
  let next: URL;
  try {
    next = new URL(location, `${spec.url.scheme}://${spec.url.hostHeader}${hop.request.target}`);
  } catch {
    throw new UsageError(`${hop.url.hostHeader} redirected to an invalid URL '${location}'`);
  }
  // `data:`, `file:`, `ftp:`, `javascript:`...: not followed, in one sentence that says so.
  if (next.protocol !== 'http:' && next.protocol !== 'https:') {
    throw new UsageError(
      `${hop.url.hostHeader} redirected to '${location.length > 100 ? `${location.slice(0, 100)}...` : location}', a ${next.protocol} URL: sling follows redirects to http:// and https:// only`,
    );
  }
  const absolute = next.href;
  const url = parseUrl(absolute);
  const status = hop.response.status;
  let { method, body } = spec;
  let headers = spec.headers;
  if ((status === 303 && method !== 'HEAD') || ((status === 301 || status === 302) && method === 'POST')) {
    method = 'GET';
    body = { kind: 'none' };
    headers = headers.filter(([n]) => !/^(content-type|content-length|content-encoding|transfer-encoding)$/i.test(n));
  }
  if (originOf(url) !== originOf(spec.url)) {
    headers = headers.filter(([n]) => !CREDENTIAL_HEADERS.has(n.toLowerCase()) && n.toLowerCase() !== 'host');
  } else {
    headers = headers.filter(([n]) => n.toLowerCase() !== 'host');
  }
  return { ...spec, method, url, query: [], headers, body };
}

const CREDENTIAL_HEADERS = new Set(['authorization', 'cookie', 'proxy-authorization']);

/** curl's own headers, in the order curl 7.88 writes them before its Cookie header. */
const OWN_ORDER = ['host', 'proxy-authorization', 'authorization', 'range', 'content-range', 'user-agent', 'accept', 'accept-encoding', 'referer', 'proxy-connection'];

/**
 * curl's -L (curl 7.88): the Location read as curl reads URLs; 301/302 turn a POST into a GET
 * (unless --post301/--post302), 303 anything but GET and HEAD (unless --post303), the body and
 * the headers curl added for it going with it; a -X method stays on every hop. Credentials (-u,
 * --oauth2-bearer, -H Authorization, -H Cookie, a -H Host) go to the first URL's origin only,
 * and come back on a hop that returns there, unless --location-trusted; -b strings and the jar's
 * cookies go to every host (model/cookies.ts). --referer ';auto' names the hop before.
 */
function curlHop(spec: RequestSpec, rules: CurlRules, hop: Hop, location: string): RequestSpec {
  let url: CurlUrl;
  try {
    url = resolveLocation(rules.url, location);
  } catch (e) {
    // curl: "Protocol not supported" or "malformed", exit 1; said with the server that sent it.
    if (e instanceof CurlUrlError) throw new UsageError(`${rules.url.host}${rules.url.port !== undefined ? `:${rules.url.port}` : ''} sent a redirect sling cannot follow: ${e.message}`);
    throw e;
  }
  const status = hop.response.status;
  let { kind, bodyHeaders, formType } = rules;
  let body: Body = spec.body;
  let headers = spec.headers;
  const toGet = (((status === 301 && !rules.post301) || (status === 302 && !rules.post302)) && kind === 'POST') || (status === 303 && !rules.post303 && kind !== 'GET' && kind !== 'HEAD');
  let chunked = spec.settings.chunked;
  if (toGet) {
    kind = 'GET';
    body = { kind: 'none' };
    chunked = false;
    // The body's headers are the last ones: curl's own, never a -H header of the same name.
    let end = headers.length;
    while (end > rules.own && bodyHeaders.includes(headers[end - 1]![0].toLowerCase())) end--;
    headers = headers.slice(0, end);
    bodyHeaders = [];
    // A -H Content-Type the multipart type stood in for goes as given now (as curl sends it).
    if (formType) {
      headers = [...headers];
      headers.splice(Math.min(rules.own + formType.at, headers.length), 0, formType.header);
      formType = undefined;
    }
  }
  const target = toParsedUrl(url);
  if (rules.requestTarget !== undefined) {
    target.path = rules.requestTarget;
    target.query = '';
  }
  const first = originOf(target) === rules.firstOrigin;
  const trusted = first || rules.trusted;

  // Proxies: a --noproxy host goes direct; the proxies come back for a hop that does not.
  let { proxies, proxyEnv } = spec.settings;
  let heldProxies = rules.heldProxies;
  const direct = rules.noProxy !== undefined && noProxyMatches(url.host, url.port ?? (url.scheme === 'https' ? 443 : 80), rules.noProxy);
  if (direct && !heldProxies) {
    heldProxies = { proxies, proxyEnv };
    proxies = {};
    proxyEnv = {};
  } else if (!direct && heldProxies) {
    ({ proxies, proxyEnv } = heldProxies);
    heldProxies = undefined;
  }

  // curl's own headers, each decided again for this hop.
  const own = new Map<string, Header>();
  for (const h of headers.slice(0, rules.own)) own.set(h[0].toLowerCase(), h);
  if (first && rules.host !== undefined) {
    if (rules.host === null) own.delete('host');
    else own.set('host', rules.host);
  } else own.set('host', ['Host', utf8(hostHeader(url))]);
  const viaProxy = rules.proxy !== undefined && url.scheme === 'http' && !direct;
  setOwn(own, 'proxy-authorization', viaProxy && rules.proxy!.authorization !== undefined ? ['Proxy-Authorization', rules.proxy!.authorization] : undefined);
  setOwn(own, 'proxy-connection', viaProxy && rules.proxy!.connection ? ['Proxy-Connection', 'Keep-Alive'] : undefined);
  setOwn(own, 'authorization', trusted && rules.authorization !== undefined ? ['Authorization', rules.authorization] : undefined);
  // An upload's Content-Range asks for that range once the hop is a GET (curl's -C / -r with -T).
  if (toGet && own.has('content-range') && rules.range !== undefined) {
    own.delete('content-range');
    own.set('range', ['Range', `bytes=${rules.range}`]);
  }
  if (rules.autoReferer) own.set('referer', ['Referer', utf8(formatCurlUrl(rules.url))]);
  const ownHeaders = [...own.entries()].sort((a, b) => OWN_ORDER.indexOf(a[0]) - OWN_ORDER.indexOf(b[0])).map(([, h]) => h);

  // The -H headers: Authorization and Cookie kept back from another host, given back on the first.
  let rest = headers.slice(rules.own);
  let withheld = rules.withheld;
  if (trusted && withheld) {
    rest = [...rest];
    for (const w of withheld) rest.splice(w.at, 0, w.header);
    withheld = undefined;
  } else if (!trusted && !withheld) {
    const kept: { at: number; header: Header }[] = [];
    rest = rest.filter((h, at) => {
      const name = h[0].toLowerCase();
      if (name !== 'authorization' && name !== 'cookie') return true;
      kept.push({ at, header: h });
      return false;
    });
    if (kept.length) withheld = kept;
  }

  const next: CurlRules = { ...rules, url, kind, bodyHeaders, formType, own: ownHeaders.length, withheld, heldProxies };
  return {
    ...spec,
    method: rules.method ?? kind,
    url: target,
    query: [],
    headers: [...ownHeaders, ...rest],
    body,
    settings: { ...spec.settings, proxies, proxyEnv, chunked, digest: trusted ? rules.digest : undefined, curl: next },
  };
}

function setOwn(own: Map<string, Header>, name: string, header: Header | undefined) {
  if (header) own.set(name, header);
  else own.delete(name);
}
