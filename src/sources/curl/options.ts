/**
 * curl 7.88's command-line options, as one declarative table: long name, short letter, whether it
 * takes a value, and what sling does with it.
 *
 *  - `use`: shapes the request or its handling; build.ts implements it with curl's semantics.
 *  - `quiet`: changes only curl's own terminal output or tuning that does not change the request
 *    (progress meters, buffering, TCP knobs); accepted silently.
 *  - `warn`: sling understands it but cannot honour it (yet); a warning names it and the request is
 *    still sent.
 *  - `error`: not an HTTP option (FTP, SMTP, SSH, TELNET, ...) or one sling refuses to ignore (a
 *    SOCKS proxy: sending directly would bypass it); the command is an error naming it.
 *
 * Long options may be abbreviated to any unambiguous prefix (curl 7.88 does that: `--sil` is
 * `--silent`), and every boolean option has a `--no-` form. Hidden and deprecated names curl still
 * accepts are listed too, so that abbreviations are ambiguous exactly where curl finds them so.
 */
export type OptionArg = 'bool' | 'value' | 'none';
export type OptionUse = 'use' | 'quiet' | 'warn' | 'error';

export interface CurlOption {
  long: string;
  short?: string;
  arg: OptionArg;
  use: OptionUse;
  /** For warn/error: why (shown after the option name). */
  why?: string;
}

const NOT_HTTP = 'is not an HTTP option (sling only speaks HTTP and HTTPS)';
const TLS_TUNING = 'TLS tuning is not supported by sling (its TLS defaults apply)';

type Row = [long: string, short: string | undefined, arg: OptionArg, use: OptionUse, why?: string];

const ROWS: Row[] = [
  ['abstract-unix-socket', undefined, 'value', 'warn', 'Unix domain sockets are not supported; the request goes over TCP'],
  ['alt-svc', undefined, 'value', 'quiet'],
  ['anyauth', undefined, 'bool', 'use'],
  ['append', 'a', 'bool', 'error', NOT_HTTP],
  ['aws-sigv4', undefined, 'value', 'warn', 'AWS signatures are not supported; the request is sent unsigned'],
  ['basic', undefined, 'bool', 'use'],
  ['buffer', 'N', 'bool', 'quiet'],
  ['ca-native', undefined, 'bool', 'warn', TLS_TUNING],
  ['cacert', undefined, 'value', 'use'],
  ['capath', undefined, 'value', 'warn', 'a CA directory is not supported; use --cacert FILE'],
  ['cert', 'E', 'value', 'use'],
  ['cert-status', undefined, 'bool', 'warn', TLS_TUNING],
  ['cert-type', undefined, 'value', 'warn', 'only PEM certificates are supported'],
  ['ciphers', undefined, 'value', 'use'],
  ['clobber', undefined, 'bool', 'use'],
  ['compressed', undefined, 'bool', 'use'],
  ['compressed-ssh', undefined, 'bool', 'error', NOT_HTTP],
  ['config', 'K', 'value', 'use'],
  ['connect-timeout', undefined, 'value', 'use'],
  ['connect-to', undefined, 'value', 'use'],
  ['continue-at', 'C', 'value', 'use'],
  ['cookie', 'b', 'value', 'use'],
  ['cookie-jar', 'c', 'value', 'use'],
  ['create-dirs', undefined, 'bool', 'use'],
  ['create-file-mode', undefined, 'value', 'quiet'],
  ['crlf', undefined, 'bool', 'error', NOT_HTTP],
  ['crlfile', undefined, 'value', 'warn', TLS_TUNING],
  ['curves', undefined, 'value', 'warn', TLS_TUNING],
  ['data', 'd', 'value', 'use'],
  ['data-ascii', undefined, 'value', 'use'],
  ['data-binary', undefined, 'value', 'use'],
  ['data-raw', undefined, 'value', 'use'],
  ['data-urlencode', undefined, 'value', 'use'],
  ['delegation', undefined, 'value', 'warn', 'GSS-API delegation is not supported'],
  ['digest', undefined, 'bool', 'use'],
  ['disable', 'q', 'bool', 'use'],
  ['disable-eprt', undefined, 'bool', 'error', NOT_HTTP],
  ['disable-epsv', undefined, 'bool', 'error', NOT_HTTP],
  ['disallow-username-in-url', undefined, 'bool', 'use'],
  ['dns-interface', undefined, 'value', 'warn', 'DNS options are not supported (the system resolver is used)'],
  ['dns-ipv4-addr', undefined, 'value', 'warn', 'DNS options are not supported (the system resolver is used)'],
  ['dns-ipv6-addr', undefined, 'value', 'warn', 'DNS options are not supported (the system resolver is used)'],
  ['dns-servers', undefined, 'value', 'warn', 'DNS options are not supported (the system resolver is used)'],
  ['doh-cert-status', undefined, 'bool', 'warn', 'DNS over HTTPS is not supported'],
  ['doh-insecure', undefined, 'bool', 'warn', 'DNS over HTTPS is not supported'],
  ['doh-url', undefined, 'value', 'warn', 'DNS over HTTPS is not supported (the system resolver is used)'],
  ['dump-header', 'D', 'value', 'use'],
  ['egd-file', undefined, 'value', 'quiet'],
  ['engine', undefined, 'value', 'warn', TLS_TUNING],
  ['eprt', undefined, 'bool', 'error', NOT_HTTP],
  ['epsv', undefined, 'bool', 'error', NOT_HTTP],
  ['etag-compare', undefined, 'value', 'use'],
  ['etag-save', undefined, 'value', 'use'],
  ['expect100-timeout', undefined, 'value', 'quiet'],
  ['fail', 'f', 'bool', 'use'],
  ['fail-early', undefined, 'bool', 'quiet'],
  ['fail-with-body', undefined, 'bool', 'use'],
  ['false-start', undefined, 'bool', 'quiet'],
  ['form', 'F', 'value', 'use'],
  ['form-escape', undefined, 'bool', 'use'],
  ['form-string', undefined, 'value', 'use'],
  ['ftp-account', undefined, 'value', 'error', NOT_HTTP],
  ['ftp-alternative-to-user', undefined, 'value', 'error', NOT_HTTP],
  ['ftp-create-dirs', undefined, 'bool', 'error', NOT_HTTP],
  ['ftp-method', undefined, 'value', 'error', NOT_HTTP],
  ['ftp-pasv', undefined, 'bool', 'error', NOT_HTTP],
  ['ftp-port', 'P', 'value', 'error', NOT_HTTP],
  ['ftp-pret', undefined, 'bool', 'error', NOT_HTTP],
  ['ftp-skip-pasv-ip', undefined, 'bool', 'error', NOT_HTTP],
  ['ftp-ssl', undefined, 'bool', 'error', NOT_HTTP],
  ['ftp-ssl-ccc', undefined, 'bool', 'error', NOT_HTTP],
  ['ftp-ssl-ccc-mode', undefined, 'value', 'error', NOT_HTTP],
  ['ftp-ssl-control', undefined, 'bool', 'error', NOT_HTTP],
  ['ftp-ssl-reqd', undefined, 'bool', 'error', NOT_HTTP],
  ['get', 'G', 'bool', 'use'],
  ['globoff', 'g', 'bool', 'use'],
  ['happy-eyeballs-timeout-ms', undefined, 'value', 'quiet'],
  ['haproxy-protocol', undefined, 'bool', 'warn', 'the HAProxy PROXY header is not sent'],
  ['head', 'I', 'bool', 'use'],
  ['header', 'H', 'value', 'use'],
  ['help', 'h', 'bool', 'use'],
  ['hostpubmd5', undefined, 'value', 'error', NOT_HTTP],
  ['hostpubsha256', undefined, 'value', 'error', NOT_HTTP],
  ['hsts', undefined, 'value', 'warn', 'the HSTS cache is not supported'],
  ['http0.9', undefined, 'bool', 'quiet'],
  ['http1.0', '0', 'none', 'use'],
  ['http1.1', undefined, 'none', 'use'],
  ['http2', undefined, 'none', 'use'],
  ['http2-prior-knowledge', undefined, 'none', 'use'],
  ['http3', undefined, 'none', 'warn', 'sling speaks HTTP/1.1'],
  ['http3-only', undefined, 'none', 'warn', 'sling speaks HTTP/1.1'],
  ['ignore-content-length', undefined, 'bool', 'warn', 'the Content-Length of responses is always honoured'],
  ['include', 'i', 'bool', 'use'],
  ['insecure', 'k', 'bool', 'use'],
  ['interface', undefined, 'value', 'use'],
  ['ipv4', '4', 'none', 'use'],
  ['ipv6', '6', 'none', 'use'],
  ['json', undefined, 'value', 'use'],
  ['junk-session-cookies', 'j', 'bool', 'use'],
  ['keepalive', undefined, 'bool', 'quiet'],
  ['keepalive-time', undefined, 'value', 'quiet'],
  ['key', undefined, 'value', 'use'],
  ['key-type', undefined, 'value', 'warn', 'only PEM keys are supported'],
  ['krb', undefined, 'value', 'error', NOT_HTTP],
  ['krb4', undefined, 'value', 'error', NOT_HTTP],
  ['libcurl', undefined, 'value', 'warn', 'no libcurl source is written'],
  ['limit-rate', undefined, 'value', 'warn', 'transfers are not rate-limited'],
  ['list-only', 'l', 'bool', 'error', NOT_HTTP],
  ['local-port', undefined, 'value', 'warn', 'choosing the local port is not supported'],
  ['location', 'L', 'bool', 'use'],
  ['location-trusted', undefined, 'bool', 'use'],
  ['login-options', undefined, 'value', 'error', NOT_HTTP],
  ['mail-auth', undefined, 'value', 'error', NOT_HTTP],
  ['mail-from', undefined, 'value', 'error', NOT_HTTP],
  ['mail-rcpt', undefined, 'value', 'error', NOT_HTTP],
  ['mail-rcpt-allowfails', undefined, 'bool', 'error', NOT_HTTP],
  ['manual', 'M', 'bool', 'use'],
  ['max-filesize', undefined, 'value', 'warn', 'the size of the response is not limited'],
  ['max-redirs', undefined, 'value', 'use'],
  ['max-time', 'm', 'value', 'use'],
  ['metalink', undefined, 'bool', 'error', 'is not supported (curl 7.88 disabled it too)'],
  ['negotiate', undefined, 'bool', 'use'],
  ['netrc', 'n', 'bool', 'warn', '.netrc is not read for curl commands'],
  ['netrc-file', undefined, 'value', 'warn', '.netrc is not read for curl commands'],
  ['netrc-optional', undefined, 'bool', 'warn', '.netrc is not read for curl commands'],
  ['next', ':', 'none', 'use'],
  ['noproxy', undefined, 'value', 'use'],
  ['npn', undefined, 'bool', 'quiet'],
  ['alpn', undefined, 'bool', 'quiet'],
  ['ntlm', undefined, 'bool', 'use'],
  ['ntlm-wb', undefined, 'bool', 'use'],
  ['oauth2-bearer', undefined, 'value', 'use'],
  ['output', 'o', 'value', 'use'],
  ['output-dir', undefined, 'value', 'use'],
  ['parallel', 'Z', 'bool', 'quiet'],
  ['parallel-immediate', undefined, 'bool', 'quiet'],
  ['parallel-max', undefined, 'value', 'quiet'],
  ['pass', undefined, 'value', 'use'],
  ['path-as-is', undefined, 'bool', 'use'],
  ['pinnedpubkey', undefined, 'value', 'warn', 'public key pinning is not supported'],
  ['post301', undefined, 'bool', 'use'],
  ['post302', undefined, 'bool', 'use'],
  ['post303', undefined, 'bool', 'use'],
  ['preproxy', undefined, 'value', 'error', 'is not supported: sling cannot chain proxies, and sending around it would bypass it'],
  ['progress-bar', '#', 'bool', 'quiet'],
  ['progress-meter', undefined, 'bool', 'quiet'],
  ['proto', undefined, 'value', 'quiet'],
  ['proto-default', undefined, 'value', 'use'],
  ['proto-redir', undefined, 'value', 'quiet'],
  ['proxy', 'x', 'value', 'use'],
  ['proxy-anyauth', undefined, 'bool', 'warn', 'proxy authentication is always Basic'],
  ['proxy-basic', undefined, 'bool', 'use'],
  ['proxy-ca-native', undefined, 'bool', 'warn', TLS_TUNING],
  ['proxy-cacert', undefined, 'value', 'warn', 'HTTPS proxies are not supported'],
  ['proxy-capath', undefined, 'value', 'warn', 'HTTPS proxies are not supported'],
  ['proxy-cert', undefined, 'value', 'warn', 'HTTPS proxies are not supported'],
  ['proxy-cert-type', undefined, 'value', 'warn', 'HTTPS proxies are not supported'],
  ['proxy-ciphers', undefined, 'value', 'warn', 'HTTPS proxies are not supported'],
  ['proxy-crlfile', undefined, 'value', 'warn', 'HTTPS proxies are not supported'],
  ['proxy-digest', undefined, 'bool', 'warn', 'proxy authentication is always Basic'],
  ['proxy-header', undefined, 'value', 'warn', 'headers only for the proxy are not supported'],
  ['proxy-insecure', undefined, 'bool', 'warn', 'HTTPS proxies are not supported'],
  ['proxy-key', undefined, 'value', 'warn', 'HTTPS proxies are not supported'],
  ['proxy-key-type', undefined, 'value', 'warn', 'HTTPS proxies are not supported'],
  ['proxy-negotiate', undefined, 'bool', 'warn', 'proxy authentication is always Basic'],
  ['proxy-ntlm', undefined, 'bool', 'warn', 'proxy authentication is always Basic'],
  ['proxy-pass', undefined, 'value', 'warn', 'HTTPS proxies are not supported'],
  ['proxy-pinnedpubkey', undefined, 'value', 'warn', 'HTTPS proxies are not supported'],
  ['proxy-service-name', undefined, 'value', 'warn', 'proxy authentication is always Basic'],
  ['proxy-ssl-allow-beast', undefined, 'bool', 'warn', 'HTTPS proxies are not supported'],
  ['proxy-ssl-auto-client-cert', undefined, 'bool', 'warn', 'HTTPS proxies are not supported'],
  ['proxy-tls13-ciphers', undefined, 'value', 'warn', 'HTTPS proxies are not supported'],
  ['proxy-tlsauthtype', undefined, 'value', 'warn', 'HTTPS proxies are not supported'],
  ['proxy-tlspassword', undefined, 'value', 'warn', 'HTTPS proxies are not supported'],
  ['proxy-tlsuser', undefined, 'value', 'warn', 'HTTPS proxies are not supported'],
  ['proxy-tlsv1', undefined, 'none', 'warn', 'HTTPS proxies are not supported'],
  ['proxy-user', 'U', 'value', 'use'],
  ['proxy1.0', undefined, 'value', 'use'],
  ['proxytunnel', 'p', 'bool', 'warn', 'plain-HTTP requests through a proxy are not tunnelled (HTTPS always is)'],
  ['pubkey', undefined, 'value', 'error', NOT_HTTP],
  ['quote', 'Q', 'value', 'error', NOT_HTTP],
  ['random-file', undefined, 'value', 'quiet'],
  ['range', 'r', 'value', 'use'],
  ['rate', undefined, 'value', 'quiet'],
  ['raw', undefined, 'bool', 'warn', 'responses are always decoded from chunked transfer encoding'],
  ['referer', 'e', 'value', 'use'],
  ['remote-header-name', 'J', 'bool', 'use'],
  ['remote-name', 'O', 'bool', 'use'],
  ['remote-name-all', undefined, 'bool', 'use'],
  ['remote-time', 'R', 'bool', 'quiet'],
  ['remove-on-error', undefined, 'bool', 'use'],
  ['request', 'X', 'value', 'use'],
  ['request-target', undefined, 'value', 'use'],
  ['resolve', undefined, 'value', 'use'],
  ['retry', undefined, 'value', 'use'],
  ['retry-all-errors', undefined, 'bool', 'use'],
  ['retry-connrefused', undefined, 'bool', 'use'],
  ['retry-delay', undefined, 'value', 'use'],
  ['retry-max-time', undefined, 'value', 'use'],
  ['sasl-authzid', undefined, 'value', 'error', NOT_HTTP],
  ['sasl-ir', undefined, 'bool', 'error', NOT_HTTP],
  ['service-name', undefined, 'value', 'warn', 'Negotiate authentication is not supported'],
  ['sessionid', undefined, 'bool', 'quiet'],
  ['show-error', 'S', 'bool', 'quiet'],
  ['silent', 's', 'bool', 'use'],
  ['socks4', undefined, 'value', 'error', 'is not supported: sling cannot use SOCKS proxies, and sending around it would bypass it'],
  ['socks4a', undefined, 'value', 'error', 'is not supported: sling cannot use SOCKS proxies, and sending around it would bypass it'],
  ['socks5', undefined, 'value', 'error', 'is not supported: sling cannot use SOCKS proxies, and sending around it would bypass it'],
  ['socks5-basic', undefined, 'bool', 'error', 'is not supported: sling cannot use SOCKS proxies'],
  ['socks5-gssapi', undefined, 'bool', 'error', 'is not supported: sling cannot use SOCKS proxies'],
  ['socks5-gssapi-nec', undefined, 'bool', 'error', 'is not supported: sling cannot use SOCKS proxies'],
  ['socks5-gssapi-service', undefined, 'value', 'error', 'is not supported: sling cannot use SOCKS proxies'],
  ['socks5-hostname', undefined, 'value', 'error', 'is not supported: sling cannot use SOCKS proxies, and sending around it would bypass it'],
  ['speed-limit', 'Y', 'value', 'use'],
  ['speed-time', 'y', 'value', 'use'],
  ['ssl', undefined, 'bool', 'error', NOT_HTTP],
  ['ssl-allow-beast', undefined, 'bool', 'quiet'],
  ['ssl-auto-client-cert', undefined, 'bool', 'warn', TLS_TUNING],
  ['ssl-no-revoke', undefined, 'bool', 'quiet'],
  ['ssl-reqd', undefined, 'bool', 'error', NOT_HTTP],
  ['ssl-revoke-best-effort', undefined, 'bool', 'quiet'],
  ['sslv2', '2', 'none', 'warn', TLS_TUNING],
  ['sslv3', '3', 'none', 'warn', TLS_TUNING],
  ['stderr', undefined, 'value', 'quiet'],
  ['styled-output', undefined, 'bool', 'quiet'],
  ['suppress-connect-headers', undefined, 'bool', 'quiet'],
  ['tcp-fastopen', undefined, 'bool', 'quiet'],
  ['tcp-nodelay', undefined, 'bool', 'quiet'],
  ['telnet-option', 't', 'value', 'error', NOT_HTTP],
  ['tftp-blksize', undefined, 'value', 'error', NOT_HTTP],
  ['tftp-no-options', undefined, 'bool', 'error', NOT_HTTP],
  ['time-cond', 'z', 'value', 'use'],
  ['tls-max', undefined, 'value', 'use'],
  ['tls13-ciphers', undefined, 'value', 'use'],
  ['tlsauthtype', undefined, 'value', 'warn', TLS_TUNING],
  ['tlspassword', undefined, 'value', 'warn', TLS_TUNING],
  ['tlsuser', undefined, 'value', 'warn', TLS_TUNING],
  ['tlsv1', '1', 'none', 'use'],
  ['tlsv1.0', undefined, 'none', 'use'],
  ['tlsv1.1', undefined, 'none', 'use'],
  ['tlsv1.2', undefined, 'none', 'use'],
  ['tlsv1.3', undefined, 'none', 'use'],
  ['tr-encoding', undefined, 'bool', 'warn', 'compressed transfer encoding is not asked for'],
  ['trace', undefined, 'value', 'quiet'],
  ['trace-ascii', undefined, 'value', 'quiet'],
  ['trace-config', undefined, 'value', 'quiet'],
  ['trace-ids', undefined, 'bool', 'quiet'],
  ['trace-time', undefined, 'bool', 'quiet'],
  ['unix-socket', undefined, 'value', 'use'],
  ['upload-file', 'T', 'value', 'use'],
  ['url', undefined, 'value', 'use'],
  ['url-query', undefined, 'value', 'use'],
  ['use-ascii', 'B', 'bool', 'error', NOT_HTTP],
  ['user', 'u', 'value', 'use'],
  ['user-agent', 'A', 'value', 'use'],
  ['verbose', 'v', 'bool', 'quiet'],
  ['version', 'V', 'bool', 'use'],
  ['write-out', 'w', 'value', 'use'],
  ['xattr', undefined, 'bool', 'quiet'],
];

export const CURL_OPTIONS: CurlOption[] = ROWS.map(([long, short, arg, use, why]) => ({ long, short, arg, use, why }));

const BY_LONG = new Map(CURL_OPTIONS.map((o) => [o.long, o]));
const BY_SHORT = new Map(CURL_OPTIONS.filter((o) => o.short).map((o) => [o.short!, o]));

export function optionByShort(letter: string): CurlOption | undefined {
  return BY_SHORT.get(letter);
}

export function optionByLong(name: string): CurlOption | undefined {
  return BY_LONG.get(name);
}

export type LongMatch = { option: CurlOption; negated: boolean } | { error: string };

/**
 * Finds a long option the way curl 7.88 does: an exact name wins, else a unique prefix; a `no-`
 * in front negates a boolean option (`--no-location`).
 */
export function matchLong(word: string): LongMatch {
  const find = (name: string): CurlOption | 'ambiguous' | undefined => {
    const exact = BY_LONG.get(name);
    if (exact) return exact;
    const hits = CURL_OPTIONS.filter((o) => o.long.startsWith(name));
    if (hits.length === 1) return hits[0];
    return hits.length > 1 ? 'ambiguous' : undefined;
  };
  let negated = false;
  let hit = find(word);
  if (hit === undefined && word.startsWith('no-')) {
    hit = find(word.slice(3));
    negated = true;
  }
  if (hit === 'ambiguous') return { error: `option --${word} is ambiguous` };
  if (!hit) return { error: `option --${word} is unknown` };
  if (negated && hit.arg !== 'bool') return { error: `option --${word}: --no- only goes with an option that has no value` };
  return { option: hit, negated };
}
