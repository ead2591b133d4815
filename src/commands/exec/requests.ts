/**
 * What the run lays over each request a source built: the main command's network flags
 * (--timeout, --verify, --proxy, ...) and a --session's headers, credentials and cookies; and the
 * requests a source sends itself (an OAuth token request). It does not build requests (the sources
 * do) nor print them.
 */
import { basicAuth } from '../../model/basic-auth.js';
import type { Invocation } from '../../cli/invocation.js';
import { anyTransportFlag, transportSettings } from '../../cli/transport-flags.js';
import { CliError } from '../../errors.js';
import { loadTransport } from '../deliver.js';
import type { RequestSpec } from '../../model/spec.js';
type Sessions = import('../../request/session.js').SessionStore;

/** --session: the request with its host's saved headers, credentials and cookies. */
export function withSession(s: RequestSpec, sessions: Sessions): RequestSpec {
  const explicit = new Set(s.headers.map(([n]) => n.toLowerCase()).filter((n) => !DEFAULT_HEADERS.has(n)));
  const applied = sessions.apply(s, explicit, explicit.has('authorization') || s.settings.digest !== undefined);
  const auth = applied.auth;
  if (!auth) return applied.spec;
  if (auth.type === 'digest') return { ...applied.spec, settings: { ...applied.spec.settings, digest: { user: auth.user, password: auth.password ?? '' } } };
  const value = auth.type === 'bearer' ? `Bearer ${auth.user}` : basicAuth(`${auth.user}:${auth.password ?? ''}`);
  return { ...applied.spec, headers: [...applied.spec.headers, ['Authorization', value] as [string, string]] };
}

/** A request a source sends itself (an OAuth token request of a .http file), its body read whole up to `limit` bytes. */
export async function sendOwn(spec: RequestSpec, env: NodeJS.ProcessEnv, limit: number): Promise<{ status: number; body: Buffer }> {
  const { exchange, readBody } = await loadTransport();
  const hop = await exchange(spec, { env });
  // Past the limit the connection is closed rather than read on (an endless answer took 2 GB and the run).
  const body = await readBody(hop, false, limit, true);
  if (hop.info.bodyCut) throw new CliError(`the answer (HTTP ${hop.response.status}) is over ${formatLimit(limit)}: the rest is not read`);
  return { status: hop.response.status, body };
}

const formatLimit = (bytes: number) => (bytes % 1048576 === 0 ? `${bytes / 1048576} MiB` : `${bytes} bytes`);

function hasKeys(o: object): boolean {
  for (const _ in o) return true;
  return false;
}

const DEFAULT_HEADERS = new Set(['user-agent', 'accept-encoding', 'accept', 'connection']);

/** The main command's network flags apply to every request of the file (when given). */
export function applyFlags(spec: RequestSpec, inv: Invocation): RequestSpec {
  if (
    inv.timeoutMs === undefined &&
    !inv.given.has('verify') &&
    !inv.cert &&
    !inv.certKey &&
    !inv.follow &&
    !inv.noFollow &&
    !inv.given.has('max-redirects') &&
    inv.maxHeaders === undefined &&
    !hasKeys(inv.proxies) &&
    !anyTransportFlag(inv.transport)
  )
    return spec;
  const s = { ...spec.settings, tls: { ...spec.settings.tls } };
  // A limit the file sets for one request (`# @timeout`, curl's -m / --connect-timeout) is that
  // request's own: --timeout is for the others.
  if (inv.timeoutMs !== undefined && s.timeoutFrom === undefined) s.timeoutMs = inv.timeoutMs;
  // Given, --verify is every request's, `--verify yes` too (over curl's -k, a file's no-reject-unauthorized).
  if (inv.given.has('verify')) s.tls.verify = inv.verify;
  if (inv.cert) s.tls.cert = inv.cert;
  if (inv.certKey) s.tls.certKey = inv.certKey;
  if (Object.keys(inv.proxies).length) s.proxies = { ...s.proxies, ...inv.proxies };
  // `# @no-redirect` is that request's own; --follow / --no-follow are for the others.
  if (inv.follow && s.followFrom === undefined) s.follow = true;
  if (inv.noFollow && s.followFrom === undefined) s.follow = false;
  // A curl command's own --max-redirs is that command's: --max-redirects, when given (its
  // default 30 too), is for the others.
  if (inv.given.has('max-redirects') && s.maxRedirectsFrom === undefined) {
    s.maxRedirects = inv.maxRedirects;
    s.maxRedirectsFrom = '--max-redirects';
  }
  if (inv.maxHeaders !== undefined) s.maxHeaders = inv.maxHeaders;
  // --http-version, --resolve, -4/-6, --interface, --ssl, --ciphers: over what the file says.
  return { ...spec, settings: anyTransportFlag(inv.transport) ? transportSettings(inv.transport, s) : s };
}
