// Header lookup, the one way: over the flat [name, value, name, value, ...] lists that
// ResponseHead.rawHeaders and node:http's rawHeaders use (headerIn), and over the [name, value]
// pairs of a request's header lines (headerInPairs). Names are given in lower case.

/** A header of a flat [name, value, ...] list, by its lower-case name: the first value, or all of them joined with `, ` (`joined`). */
export function headerIn(raw: readonly string[], name: string, joined = false): string | undefined {
  let found: string | undefined;
  // Lengths first: a lower-cased copy of every name, for every lookup, is a lot of strings over a thousand responses.
  for (let i = 0; i < raw.length; i += 2) {
    if (raw[i]!.length !== name.length || raw[i]!.toLowerCase() !== name) continue;
    if (!joined) return raw[i + 1];
    found = found === undefined ? raw[i + 1] : `${found}, ${raw[i + 1]}`;
  }
  return found;
}

/** The same for a list of [name, value] pairs (PreparedRequest.headers, RequestSpec.headers). */
export function headerInPairs(pairs: readonly (readonly [string, string])[], name: string, joined = false): string | undefined {
  let found: string | undefined;
  for (let i = 0; i < pairs.length; i++) {
    const n = pairs[i]![0];
    if (n.length !== name.length || n.toLowerCase() !== name) continue;
    if (!joined) return pairs[i]![1];
    found = found === undefined ? pairs[i]![1] : `${found}, ${pairs[i]![1]}`;
  }
  return found;
}

/**
 * Connection-specific headers, which HTTP/2 forbids (RFC 9113, 8.2.2): transport/h2.ts does not
 * send them, and the printer does not show them on a request that went over HTTP/2.
 */
export const H2_FORBIDDEN = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'http2-settings']);

/** Headers whose values are credentials: --debug output (which ends up in bug reports) masks them. */
export function isCredentialHeader(name: string): boolean {
  return /^(authorization|proxy-authorization|cookie)$/i.test(name);
}

/** A credential header's value as --debug shows it: `Basic ***`, `Bearer ***`, `Digest ***`, else `***`. */
export function maskedCredential(value: string): string {
  const scheme = /^(basic|bearer|digest)\s/i.exec(value);
  return `${scheme ? value.slice(0, scheme[0].length) : ''}***`;
}
