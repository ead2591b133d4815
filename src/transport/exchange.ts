import { MAX_TIMER_MS } from '../clock.js';
import { CliError, NetworkError, TimeoutError, TooManyRedirectsError } from '../errors.js';
import { prepareRequest, prepareUncompressed, type PreparedRequest } from '../model/prepare.js';
import type { RequestSpec } from '../model/spec.js';
import { formatUrl, originOf } from '../model/url.js';
import { HOP_BODY_LIMIT, readHopBody } from './body.js';
import { headerIn } from '../model/headers.js';
import type { Hop } from './hop.js';
import type { ResponseHead } from '../model/exchange.js';
import { loadPublicSuffixes, publicSuffixesLoaded, withJarCookies, type CookieJar } from '../model/cookies.js';
import { redirectSpec } from './redirect.js';
import { digestAuthorization, parseDigestChallenge } from './digest.js';
import { pickProxy } from './proxy.js';
import { chooseSystemCa } from './connect.js';
import { platform } from 'node:os';
import { closeH2, closeIdle, sendRequest } from './client.js';

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

export interface ExchangeOptions {
  /** sling's environment: proxies (proxy.ts) when the spec has none of its own; SLING_NO_POLL (poll.ts). */
  env: NodeJS.ProcessEnv;
  /** Called with each request right before it is sent. */
  onRequest?(request: PreparedRequest): void | Promise<void>;
  /** Called for each intermediate response (a redirect that is followed, a digest challenge), with its body read. */
  onRedirect?(hop: Hop, body: Buffer): void | Promise<void>;
  debug?(message: string): void;
  /** Warnings (a retry that is coming). */
  warn?(message: string): void;
  /**
   * Each final answer's body is read whole before the hop is handed over (`sling exec`, which
   * prints a response behind the next request); without it the hop comes at its head, the body
   * still arriving (the main command, downloads). client.ts ClientOptions.readWhole.
   */
  readWhole?: boolean;
  /** Called once a request has been written. */
  onSent?(): void;
  /**
   * With readWhole: the caller prints a body with this head as it comes and keeps nothing (`sling
   * exec`, a request whose response no script, assertion, output file or later request reads,
   * printed piece by piece): a large or open-ended body is then handed over still arriving, as a
   * stream, instead of being read whole first.
   */
  streamable?: (head: ResponseHead) => boolean;
  /**
   * The cookie jar of this request (exec's of the run, a --session's, a curl command's -b FILE/-c
   * engine): its cookies are sent on every hop and each hop's Set-Cookie stored in it, unless the
   * spec says `noCookies`. Undefined: headers go as given.
   */
  jar?: CookieJar;
}

const TRANSIENT_STATUS = new Set([408, 429, 500, 502, 503, 504]);

/** Closes every kept-alive connection and HTTP/2 session of the process (the end of a `sling exec` run, of a main command). */
export async function closeConnections(): Promise<void> {
  closeIdle();
  await closeH2();
}

/**
 * Sends a request (following redirects when asked) and resolves with the final hop, body unread.
 * With settings.retry, transient failures are tried again as curl's --retry does: a timeout, an
 * HTTP 408/429/500/502/503/504 (a refused connection with connRefused, any error with allErrors),
 * waiting 1 s, 2 s, 4 s... (or the fixed delay, or what Retry-After asks), within maxTime.
 */
export function exchange(first: RequestSpec, opts: ExchangeOptions): Promise<Hop> {
  chooseSystemCa(opts.env, platform());
  const retry = first.settings.retry;
  // Not an async function: the promise of the one exchange is handed back as it is.
  if (!retry || retry.count <= 0) return exchangeOnce(first, opts);
  return exchangeRetrying(first, opts, retry);
}

async function exchangeRetrying(first: RequestSpec, opts: ExchangeOptions, retry: NonNullable<RequestSpec['settings']['retry']>): Promise<Hop> {
  const started = Date.now();
  for (let attempt = 0; ; attempt++) {
    let delay = retry.delayMs ?? Math.min(1000 * 2 ** attempt, 600_000);
    const left = retry.count - attempt;
    // curl's --retry-max-time: another try while the time so far is within it (the wait before it is not counted).
    const inTime = () => retry.maxTimeMs === undefined || Date.now() - started < retry.maxTimeMs;
    try {
      const hop = await exchangeOnce(first, opts);
      const status = hop.response.status;
      if (!(TRANSIENT_STATUS.has(status) || (retry.allErrors && status >= 400)) || left <= 0) return hop;
      const after = headerIn(hop.response.rawHeaders, 'retry-after');
      if (!inTime()) return hop;
      // The server's Retry-After (seconds) is the wait, over --retry-delay too, as curl 7.88 takes it;
      // one that would go past --retry-max-time ends the retries.
      if (after && /^\d+$/.test(after.trim())) {
        const secs = Number(after.trim());
        if (retry.maxTimeMs !== undefined && Math.floor((Date.now() - started) / 1000) * 1000 + secs * 1000 > retry.maxTimeMs) {
          opts.warn?.(`HTTP ${status} from ${first.url.hostHeader} asks to retry after ${secs}s, past --retry-max-time: not retried`);
          return hop;
        }
        delay = Math.min(secs * 1000, MAX_TIMER_MS);
      }
      await hopBody(hop, opts);
      opts.warn?.(`HTTP ${status} from ${first.url.hostHeader}: retrying in ${delay / 1000}s (${left} ${left === 1 ? 'retry' : 'retries'} left)`);
    } catch (e) {
      const code = ((e as { cause?: { code?: string } }).cause ?? {}).code;
      const transient = e instanceof TimeoutError || (retry.connRefused && code === 'ECONNREFUSED') || (retry.allErrors && e instanceof CliError && e.exitCode !== 1);
      if (!transient || left <= 0 || !inTime()) throw e;
      opts.warn?.(`${(e as Error).message}: retrying in ${delay / 1000}s (${left} ${left === 1 ? 'retry' : 'retries'} left)`);
    }
    await new Promise((r) => setTimeout(r, delay));
  }
}

async function exchangeOnce(first: RequestSpec, opts: ExchangeOptions): Promise<Hop> {
  // curl's -m: one deadline for this attempt, its redirects and its body (client.ts and h2.ts keep to it).
  let spec = first.settings.maxTimeMs ? { ...first, settings: { ...first.settings, deadline: Date.now() + first.settings.maxTimeMs } } : first;
  let answeredDigest = false;
  /** The hop before this one (a redirect that was followed). */
  let previous: Hop | undefined;
  for (let hops = 0; ; hops++) {
    const jar = spec.settings.noCookies ? undefined : opts.jar;
    const withCookies = jar || spec.settings.curl ? withJarCookies(spec, jar) : spec;
    const prepared = spec.settings.compress > 0 ? await prepareRequest(withCookies) : prepareUncompressed(withCookies);
    if (opts.onRequest) {
      const printed = opts.onRequest(prepared);
      if (printed) await printed;
    }
    const st = spec.settings;
    const proxy = pickProxy(spec.url, st.proxies, st.proxyEnv ?? opts.env);
    // Every HTTP/1.1 request goes through the one client (client.ts), HTTP/2 behind it; what the
    // command changes is policy: whether the body is read whole first.
    let hop: Hop;
    try {
      hop = await sendRequest(spec.url, prepared, st, { proxy, onWritten: opts.onSent, readWhole: opts.readWhole, streamable: opts.streamable, poll: !opts.env.SLING_NO_POLL });
    } catch (e) {
      // A hop after redirects failed: the redirects that came still count (curl's -w reports the
      // last answer's %{http_code} and %{num_redirects}, with the failing URL as %{url_effective}).
      // A connection that failed on a hop: which one, and where it led ("redirect 2 of 2 to URL").
      if (hops > 0 && e instanceof NetworkError) e.message += ` (redirect ${hops} of ${hops} to ${formatUrl(spec.url)})`;
      if (hops > 0 && e instanceof CliError) {
        if (e.partial) e.partial.info.redirects = hops;
        else if (!e.lastAnswer && previous) e.lastAnswer = { response: previous.response, body: Buffer.alloc(0), info: { ...previous.info, redirects: hops }, request: prepared, url: spec.url };
      }
      throw e;
    }
    previous = hop;
    if (opts.debug) opts.debug(`${prepared.method} ${formatUrl(spec.url, '')} → ${hop.response.status} (${hop.info.reused ? 'reused connection' : 'new connection'})`);
    if (jar) {
      const raw = hop.response.rawHeaders;
      // The Public Suffix List is loaded by the first answer that sets a cookie (not at start-up).
      if (!publicSuffixesLoaded() && headerIn(raw, 'set-cookie') !== undefined) await loadPublicSuffixes();
      for (let i = 0; i < raw.length; i += 2) if (raw[i]!.toLowerCase() === 'set-cookie') jar.setCookie(raw[i + 1]!, spec.url);
    }
    // Digest: answer the server's challenge once, on the same origin only (never after a hop to another one).
    if (hop.response.status === 401 && spec.settings.digest && !answeredDigest && originOf(spec.url) === originOf(first.url)) {
      const values: string[] = [];
      const raw = hop.response.rawHeaders;
      for (let i = 0; i < raw.length; i += 2) if (raw[i]!.toLowerCase() === 'www-authenticate') values.push(raw[i + 1]!);
      const challenge = parseDigestChallenge(values);
      if (challenge) {
        answeredDigest = true;
        const body = await hopBody(hop, opts);
        await opts.onRedirect?.(hop, body);
        const authorization = await digestAuthorization(challenge, spec.settings.digest, prepared.method, prepared.target);
        spec = { ...spec, headers: withAuthorization(spec, authorization) };
        hops--;
        continue;
      }
    }
    const location = headerIn(hop.response.rawHeaders, 'location');
    if (!spec.settings.follow || !REDIRECTS.has(hop.response.status) || location === undefined) {
      if (hops > 0) hop.info.redirects = hops;
      return hop;
    }
    if (hops >= spec.settings.maxRedirects) {
      // The last answer, read (curl's -w reports its %{size_download}), with the redirects followed before it.
      const last = await hopBody(hop, opts).catch(() => Buffer.alloc(0));
      // Whose limit it is: sling's --max-redirects, or curl's --max-redirs (also its default of 50).
      const e = new TooManyRedirectsError(
        `too many redirects: more than ${spec.settings.maxRedirects} (last: ${hop.response.status} to ${location})`,
        spec.settings.maxRedirectsFrom ?? (spec.settings.curl ? '--max-redirs' : undefined),
      );
      // The last answer came (curl's -w reports its %{http_code} with exit code 47).
      e.lastAnswer = { response: hop.response, body: last, info: { ...hop.info, redirects: hops }, request: hop.request, url: hop.url };
      throw e;
    }
    const body = await hopBody(hop, opts);
    await opts.onRedirect?.(hop, body);
    spec = redirectSpec(spec, hop, location);
  }
}

/**
 * The request's headers with the digest answer as its Authorization: where curl writes it for a
 * curl command (after Host and Proxy-Authorization, before User-Agent and Accept, as its Basic one),
 * else last, where HTTPie's digest handler adds it.
 */
function withAuthorization(spec: RequestSpec, authorization: string): [string, string][] {
  const headers = spec.headers.filter(([n]) => n.toLowerCase() !== 'authorization');
  let at = headers.length;
  if (spec.settings.curl) {
    at = 0;
    while (at < headers.length && /^(host|proxy-authorization)$/i.test(headers[at]![0])) at++;
  }
  return [...headers.slice(0, at), ['Authorization', authorization], ...headers.slice(at)];
}

/** An intermediate answer's body, read up to HOP_BODY_LIMIT (a warning says when it went on past that). */
async function hopBody(hop: Hop, opts: { warn?: (message: string) => void }): Promise<Buffer> {
  const body = await readHopBody(hop);
  if (hop.info.bodyCut)
    opts.warn?.(`the body of the ${hop.response.status} answer from ${hop.url.hostHeader} is over ${HOP_BODY_LIMIT / 1048576} MiB: the rest is not read (its connection is closed)`);
  return body;
}
