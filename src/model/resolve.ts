// The text of --resolve and --connect-to rules, read into the request settings' rules. Pure: the
// transport (transport/connect.ts) applies them; the command line and curl files both parse here.
import type { ConnectToRule, ResolveRule } from './spec.js';

const IPV4 = /^(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(?:\.(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;

/**
 * Whether `text` is an IPv4 or IPv6 address (node:net's isIP, without loading node:net and the
 * stream machinery on every start: the WHATWG URL parser checks an IPv6 literal).
 */
export function isAddress(text: string): boolean {
  if (IPV4.test(text)) return true;
  if (!text.includes(':') || /[^0-9A-Fa-f:.]/.test(text)) return false;
  try {
    new URL(`http://[${text}]/`);
    return true;
  } catch {
    return false;
  }
}

const bare = (host: string) => host.replace(/^\[|\]$/g, '').toLowerCase();

/**
 * A --resolve rule: curl's HOST:PORT:ADDRESS (the address may be in brackets, and a list whose
 * first address is used), or xh's HOST:ADDRESS (every port). A host of `*` is every host, as in
 * curl; a leading `+` (curl's "shared cache, may time out") is accepted and ignored. Returns the
 * rule, or why the text is not one: 'malformed' or 'no-address' (the part after the host).
 */
export function parseResolveRule(text: string): ResolveRule | { error: 'malformed' } | { error: 'no-address'; rest: string } {
  const m = /^\+?(\[[^\]]+\]|[^:[\]]+):(.+)$/.exec(text);
  if (!m) return { error: 'malformed' };
  const host = bare(m[1]!);
  const rest = m[2]!;
  const address = (a: string) => {
    const first = a
      .split(',')[0]!
      .trim()
      .replace(/^\[|\]$/g, '');
    return isAddress(first) ? first : undefined;
  };
  const withPort = /^(\d+):(.+)$/.exec(rest);
  if (withPort) {
    const port = Number(withPort[1]);
    const a = address(withPort[2]!);
    // `host:1::2`: xh's form with an IPv6 address, not port 1.
    if (a !== undefined && port > 0 && port <= 65535) return { host, port, address: a };
  }
  const a = address(rest);
  if (a === undefined) return { error: 'no-address', rest };
  return { host, address: a };
}

/**
 * A --connect-to rule, curl's HOST1:PORT1:HOST2:PORT2 (IPv6 hosts in brackets): a connection
 * for HOST1 on PORT1 goes to HOST2 on PORT2; an empty HOST1 or PORT1 matches any, an empty HOST2
 * or PORT2 keeps the one it had. Undefined when the text is not such a rule (curl skips it too).
 */
export function parseConnectToRule(text: string): ConnectToRule | undefined {
  const m = /^(\[[^\]]*\]|[^:]*):(\d*):(\[[^\]]*\]|[^:]*):(\d*)$/.exec(text);
  if (!m) return undefined;
  const rule: ConnectToRule = {};
  if (m[1]) rule.host = bare(m[1]);
  if (m[2]) rule.port = Number(m[2]);
  if (m[3]) rule.toHost = bare(m[3]);
  if (m[4]) rule.toPort = Number(m[4]);
  return rule;
}
