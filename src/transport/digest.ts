/**
 * HTTP Digest authentication (RFC 7616): answers a `WWW-Authenticate: Digest` challenge with
 * qop=auth (or the legacy form without qop), MD5, SHA-256 and their -sess variants. The fields go
 * in the order curl writes them, so a replayed curl command sends the same header shape.
 */
export interface DigestChallenge {
  realm: string;
  nonce: string;
  opaque?: string;
  algorithm?: string;
  qop?: string;
  stale?: boolean;
}

/** Finds the Digest challenge in the WWW-Authenticate values of a 401 (null when there is none). */
export function parseDigestChallenge(values: string[]): DigestChallenge | null {
  for (const value of values) {
    const m = /(?:^|,\s*)Digest\s+(.*)$/i.exec(value);
    if (!m) continue;
    const params: Record<string, string> = {};
    const re = /([a-zA-Z0-9_-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^,\s]*))/g;
    let p: RegExpExecArray | null;
    while ((p = re.exec(m[1]!))) params[p[1]!.toLowerCase()] = p[2] !== undefined ? p[2].replace(/\\(.)/g, '$1') : p[3]!;
    if (params.nonce === undefined) continue;
    return {
      realm: params.realm ?? '',
      nonce: params.nonce,
      opaque: params.opaque,
      algorithm: params.algorithm,
      qop: params.qop,
      stale: params.stale?.toLowerCase() === 'true',
    };
  }
  return null;
}

export async function digestAuthorization(challenge: DigestChallenge, creds: { user: string; password: string }, method: string, uri: string, nc = 1, cnonce?: string): Promise<string> {
  const { createHash, randomBytes } = await import('node:crypto');
  const algorithm = challenge.algorithm ?? 'MD5';
  const base = algorithm.toUpperCase().replace(/-SESS$/, '');
  const hashName = base === 'SHA-256' ? 'sha256' : base === 'SHA-512-256' ? 'sha512-256' : 'md5';
  const H = (s: string) => createHash(hashName).update(s, 'utf8').digest('hex');
  cnonce ??= randomBytes(16).toString('hex');
  let ha1 = H(`${creds.user}:${challenge.realm}:${creds.password}`);
  if (/-sess$/i.test(algorithm)) ha1 = H(`${ha1}:${challenge.nonce}:${cnonce}`);
  const ha2 = H(`${method}:${uri}`);
  // qop may offer several ("auth,auth-int"): sling answers with auth.
  const qop = challenge.qop
    ?.split(',')
    .map((q) => q.trim())
    .includes('auth')
    ? 'auth'
    : undefined;
  const ncText = nc.toString(16).padStart(8, '0');
  const response = qop ? H(`${ha1}:${challenge.nonce}:${ncText}:${cnonce}:${qop}:${ha2}`) : H(`${ha1}:${challenge.nonce}:${ha2}`);
  const q = (s: string) => `"${s.replace(/(["\\])/g, '\\$1')}"`;
  let header = `Digest username=${q(creds.user)}, realm=${q(challenge.realm)}, nonce=${q(challenge.nonce)}, uri=${q(uri)}`;
  if (qop) header += `, cnonce=${q(cnonce)}, nc=${ncText}, qop=${qop}`;
  header += `, response=${q(response)}`;
  if (challenge.opaque !== undefined) header += `, opaque=${q(challenge.opaque)}`;
  if (challenge.algorithm !== undefined) header += `, algorithm=${challenge.algorithm}`;
  return header;
}
