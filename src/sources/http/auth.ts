import { CliError, UsageError } from '../../errors.js';
import type { ExecContext } from '../../model/exec.js';
import { basicAuth } from '../../model/basic-auth.js';
import type { RequestSpec } from '../../model/spec.js';
import { parseUrl } from '../../model/url.js';
import { DynamicError } from './dynamic.js';
import type { Environment } from './env.js';
import { compile } from './template.js';
import type { Resolution } from './vars.js';

/**
 * OAuth 2.0 tokens of the JetBrains HTTP Client: `{{$auth.token("id")}}` and
 * `{{$auth.idToken("id")}}` read the configuration `id` of the environment's `Security.Auth`
 * section (http-client.env.json, the private file for secrets). sling acquires a token the first
 * time a request of the run needs it, with the Client Credentials or the Password grant, and uses
 * it for every later request of the run; when its `expires_in` has passed, it is renewed with the
 * refresh token the server gave (the refresh grant), else acquired again. Grants that need a person
 * at a browser (Authorization Code, Implicit, Device Authorization) are refused with one line.
 * Values in the configuration may hold {{variables}} (`"Token URL": "{{base}}/token"`).
 */
interface Token {
  access: string;
  id?: string;
  refresh?: string;
  /** Date.now() time after which the token is renewed; undefined: never. */
  expiresAt?: number;
}

/** The most of a token response that is read: a token is a few kB; a larger answer fails the token request. */
const TOKEN_BODY_LIMIT = 1 << 20;

const BROWSER_GRANTS: Record<string, string> = {
  authorizationcode: 'Authorization Code',
  implicit: 'Implicit',
  deviceauthorization: 'Device Authorization',
  device: 'Device Authorization',
};

export class AuthTokens {
  private readonly tokens = new Map<string, Token>();
  private readonly pending = new Map<string, Promise<void>>();
  /** A configuration whose token could not be had: later requests fail with the same reason, without asking again. */
  private readonly failures = new Map<string, { reason: string; exitCode: CliError['exitCode'] }>();

  constructor(private readonly env: Environment) {}

  /** The token for a placeholder (evalDynamic): acquired by ensure() before the request was built. */
  value(id: string, kind: 'token' | 'idToken'): string {
    const config = this.env.auth.get(id);
    if (!config) throw new DynamicError(this.noConfig(id));
    const t = this.tokens.get(id);
    if (!t)
      throw new DynamicError(
        `no token of "${id}" was acquired for this request (sling acquires one for a request whose lines or variables name it; --offline sends nothing, the token request included)`,
      );
    if (kind === 'idToken' || config.fields['Use ID Token'] === true) {
      if (t.id === undefined) throw new DynamicError(`the token response of "${id}" has no id_token`);
      return t.id;
    }
    return t.access;
  }

  /** Acquires (or renews) the tokens of these configurations that the request about to be built needs. */
  async ensure(ids: Iterable<string>, res: Resolution, ctx: ExecContext, processEnv: NodeJS.ProcessEnv, where: string): Promise<void> {
    for (const id of ids) {
      const failed = this.failures.get(id);
      if (failed) throw new CliError(`${where}: ${failed.reason}`, failed.exitCode);
      const t = this.tokens.get(id);
      if (t && (t.expiresAt === undefined || Date.now() < t.expiresAt)) continue;
      let p = this.pending.get(id);
      if (!p) {
        p = this.acquire(id, t, res, ctx, processEnv)
          .catch((e: unknown) => {
            if (!(e instanceof CliError)) throw e;
            this.failures.set(id, { reason: e.message, exitCode: e.exitCode });
          })
          .finally(() => this.pending.delete(id));
        this.pending.set(id, p);
      }
      await p;
      const now = this.failures.get(id);
      if (now) throw new CliError(`${where}: ${now.reason}`, now.exitCode);
    }
  }

  private noConfig(id: string): string {
    const known = [...this.env.auth.keys()];
    const env =
      this.env.name === undefined
        ? 'no environment is selected (--env NAME)'
        : `the environment ${this.env.name} has ${known.length ? `Security.Auth ${known.map((k) => `"${k}"`).join(', ')}` : 'no Security.Auth section'}`;
    return `no Security.Auth configuration "${id}": ${env}`;
  }

  /** Errors say `Security.Auth "id": what` (ensure() puts the request's place in front). */
  private async acquire(id: string, old: Token | undefined, res: Resolution, ctx: ExecContext, processEnv: NodeJS.ProcessEnv): Promise<void> {
    const placeholder = `Security.Auth "${id}"`;
    const fail = (message: string) => new CliError(`${placeholder}: ${message}`);
    const config = this.env.auth.get(id);
    if (!config) throw new UsageError(this.noConfig(id));
    const field = (name: string): string | undefined => {
      const v = config.fields[name];
      if (v === undefined || v === null || v === '') return undefined;
      const text = typeof v === 'string' ? v : String(v);
      return res.resolve(compile(text, 1, 1, () => `${config.files.get(name)} (Security.Auth "${id}" "${name}")`));
    };
    const type = field('Type');
    if (type === undefined || type.toLowerCase() !== 'oauth2') {
      throw fail(`"Type" is ${type === undefined ? 'missing' : JSON.stringify(type)} (in ${config.files.get('Type') ?? this.env.files.join(', ')}); sling supports "OAuth2"`);
    }
    const grantText = field('Grant Type');
    const grant = (grantText ?? '').toLowerCase().replace(/[\s_-]+/g, '');
    if (BROWSER_GRANTS[grant]) {
      throw fail(
        `the ${BROWSER_GRANTS[grant]} grant needs a person at a browser, which sling does not open; it acquires tokens with the Client Credentials and Password grants (or put a token you have in a variable)`,
      );
    }
    if (grant !== 'clientcredentials' && grant !== 'password') {
      throw fail(
        `"Grant Type" ${grantText === undefined ? 'is missing' : `${JSON.stringify(grantText)} is not one sling knows`}: "Client Credentials" or "Password" (browser grants: "Authorization Code", "Implicit", "Device Authorization")`,
      );
    }
    const tokenUrl = field('Token URL');
    if (tokenUrl === undefined) throw fail(`there is no "Token URL"`);
    const clientId = field('Client ID');
    const secret = field('Client Secret');
    const how = (field('Client Credentials') ?? 'basic').toLowerCase();
    if (!['basic', 'in body', 'none'].includes(how)) throw fail(`"Client Credentials" is "basic", "in body" or "none", got ${JSON.stringify(how)}`);

    const params: [string, string][] = [];
    if (old?.refresh !== undefined) params.push(['grant_type', 'refresh_token'], ['refresh_token', old.refresh]);
    else if (grant === 'password') {
      const user = field('Username');
      if (user === undefined) throw fail(`the Password grant needs "Username" (and "Password")`);
      params.push(['grant_type', 'password'], ['username', user], ['password', field('Password') ?? '']);
    } else params.push(['grant_type', 'client_credentials']);
    const scope = field('Scope');
    if (scope !== undefined) params.push(['scope', scope]);
    const headers: [string, string][] = [
      ['Content-Type', 'application/x-www-form-urlencoded'],
      ['Accept', 'application/json'],
    ];
    if (clientId !== undefined) {
      // RFC 6749 2.3.1: id and secret form-encoded, then joined for HTTP Basic.
      if (how === 'basic' && secret !== undefined) headers.push(['Authorization', basicAuth(`${formEncode(clientId)}:${formEncode(secret)}`)]);
      else {
        params.push(['client_id', clientId]);
        if (how === 'in body' && secret !== undefined) params.push(['client_secret', secret]);
      }
    }
    const custom = config.fields['Custom Request Parameters'];
    if (custom && typeof custom === 'object' && !Array.isArray(custom)) {
      for (const [name, v] of Object.entries(custom as Record<string, unknown>)) {
        const spec = v && typeof v === 'object' && !Array.isArray(v) ? (v as { Value?: unknown; Use?: unknown }) : { Value: v };
        if (spec.Use !== undefined && spec.Use !== 'Everywhere' && spec.Use !== 'In Token Request') continue;
        for (const one of Array.isArray(spec.Value) ? spec.Value : [spec.Value]) {
          if (one !== undefined && one !== null)
            params.push([name, res.resolve(compile(String(one), 1, 1, () => `${config.files.get('Custom Request Parameters')} (Security.Auth "${id}" "Custom Request Parameters")`))]);
        }
      }
    }

    let url;
    try {
      url = parseUrl(tokenUrl);
    } catch (e) {
      throw fail(`"Token URL" ${JSON.stringify(tokenUrl)}: ${(e as Error).message}`);
    }
    const body = Buffer.from(params.map(([k, v]) => `${formEncode(k)}=${formEncode(v)}`).join('&'));
    let spec: RequestSpec = {
      method: 'POST',
      url,
      query: [],
      headers,
      body: { kind: 'bytes', data: body },
      settings: { follow: false, maxRedirects: 30, tls: { verify: true }, proxies: {}, compress: 0, chunked: false },
    };
    spec = ctx.network ? ctx.network(spec) : spec;
    // The network flags may say --follow: a token request follows no redirect all the same (a 307 or
    // 308 to another origin would post the password and the client secret there again).
    if (spec.settings.follow) spec = { ...spec, settings: { ...spec.settings, follow: false } };
    const what = params[0]![1];
    let status: number;
    let text: string;
    try {
      if (!ctx.send) throw new CliError('this run sends no requests of its own');
      const answer = await ctx.send(spec, processEnv, TOKEN_BODY_LIMIT);
      status = answer.status;
      text = answer.body.toString('utf8');
    } catch (e) {
      if (e instanceof CliError) throw new CliError(`${placeholder}: the token request to ${tokenUrl} failed: ${e.message}`, e.exitCode);
      throw e;
    }
    let json: Record<string, unknown> | undefined;
    try {
      const parsed: unknown = JSON.parse(text);
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) json = parsed as Record<string, unknown>;
    } catch {
      json = undefined;
    }
    if (status < 200 || status > 299 || typeof json?.access_token !== 'string') {
      // A refresh token the server no longer takes: a new token with the configured grant.
      if (old?.refresh !== undefined && status >= 400 && status < 500) return this.acquire(id, undefined, res, ctx, processEnv);
      const error = json && typeof json.error === 'string' ? `: ${json.error}${typeof json.error_description === 'string' ? ` (${json.error_description})` : ''}` : '';
      const why =
        status >= 300 && status < 400
          ? `answered HTTP ${status}, a redirect, which a token request does not follow`
          : status < 200 || status > 299
            ? `answered HTTP ${status}${error}`
            : json
              ? 'answered without an access_token'
              : 'answered with a body that is not JSON';
      throw fail(`the token request (${what}) to ${tokenUrl} ${why}`);
    }
    const expires = Number(json.expires_in);
    this.tokens.set(id, {
      access: json.access_token,
      id: typeof json.id_token === 'string' ? json.id_token : undefined,
      refresh: typeof json.refresh_token === 'string' ? json.refresh_token : old?.refresh,
      expiresAt: json.expires_in !== undefined && Number.isFinite(expires) ? Date.now() + expires * 1000 : undefined,
    });
    ctx.debug(`${placeholder}: a token from ${tokenUrl} (${what})${Number.isFinite(expires) && json.expires_in !== undefined ? `, valid for ${expires} s` : ''}`);
  }
}

/** application/x-www-form-urlencoded, as URLSearchParams writes it (RFC 6749, appendix B). */
function formEncode(s: string): string {
  return new URLSearchParams([['', s]]).toString().slice(1);
}
