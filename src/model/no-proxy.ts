/**
 * Whether a NO_PROXY list (or curl's --noproxy) names a host: the one reading of such a list, for
 * sling's own requests (transport/proxy.ts) and a curl command's (sources/curl/build.ts).
 * Entries are separated by commas (and blanks); `*` names every host; `example.com`,
 * `.example.com` and `*.example.com` name it and every host under it; `host:port` only that port;
 * IPv6 addresses may be written in brackets. Case does not matter.
 */
export function noProxyMatches(hostname: string, port: number | undefined, list: string | undefined): boolean {
  if (!list) return false;
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  for (let entry of list.split(/[,\s]+/)) {
    entry = entry.trim().toLowerCase();
    if (!entry) continue;
    if (entry === '*') return true;
    let only: number | undefined;
    const m = /^(.*):(\d+)$/.exec(entry);
    // `host:8080` and `[::1]:8080` end in a port; `::1` (more than one colon, no brackets) is an address.
    if (m && (entry.startsWith('[') ? m[1]!.endsWith(']') : !m[1]!.includes(':'))) {
      entry = m[1]!;
      only = Number(m[2]);
    }
    if (only !== undefined && only !== port) continue;
    entry = entry.replace(/^\[|\]$/g, '');
    if (entry.startsWith('*.')) entry = entry.slice(1);
    if (host === entry.replace(/^\./, '') || (entry.startsWith('.') ? host.endsWith(entry) : host.endsWith('.' + entry))) return true;
  }
  return false;
}
