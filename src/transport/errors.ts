import { statSync } from 'node:fs';
import { CliError, NetworkError, TimeoutError, UsageError } from '../errors.js';

const TLS_CODES = /CERT|SELF_SIGNED|UNABLE_TO_(GET|VERIFY)|ERR_TLS|ERR_SSL|EPROTO|HOSTNAME_MISMATCH|ALTNAME/;

/** Turns a Node network error into the one-line message and exit code of docs/decisions.md (Exit codes). */
export function mapNetworkError(err: unknown, where: string, via?: string): CliError {
  if (err instanceof CliError) return err;
  const e = err as NodeJS.ErrnoException;
  const code = e.code ?? '';
  const through = via ? ` (through proxy ${via})` : '';
  // node:http2 wraps the socket's own error (a pending stream canceled because the connection failed).
  const cause = (e as { cause?: NodeJS.ErrnoException }).cause;
  if (code === 'ERR_HTTP2_STREAM_CANCEL' && cause?.code) return mapNetworkError(cause, where, via);
  // The HTTP/1.1 client's word (node:http's before it) for a connection that closed before any answer; its code
  // is ECONNRESET although nothing was reset.
  if (e.message === 'socket hang up') return new NetworkError(`${where} closed the connection without answering${through}`, undefined, { cause: err });
  // --interface: the local address could not be bound (not this machine's, or taken): the user's argument.
  if ((e as { syscall?: string }).syscall === 'bind') {
    const local = (e as { address?: string }).address;
    return new UsageError(`cannot connect from local address ${local ?? '?'} (--interface): ${code === 'EADDRNOTAVAIL' ? 'no network interface of this machine has that address' : code || e.message}`);
  }
  // --unix-socket: a path that is no socket, or one nobody listens on; on Windows a named pipe
  // (`\\.\pipe\name`), whose path has no `/`.
  const path = (e as { address?: string }).address;
  if ((e as { syscall?: string }).syscall === 'connect' && typeof path === 'string' && /[/\\]/.test(path)) {
    const pipe = /^[/\\]{2}[.?][/\\]pipe[/\\]/i.test(path);
    const why: Record<string, string> = { ENOENT: pipe ? 'no such named pipe' : 'no such file', ECONNREFUSED: 'nothing is listening on it', EACCES: 'permission denied', ENOTSOCK: 'not a socket' };
    // Linux refuses a connection to a file that is no socket as to a socket nobody listens on.
    const kind = code === 'ECONNREFUSED' && !pipe ? notASocket(path) : undefined;
    if (kind) return new NetworkError(`cannot connect to Unix socket ${path} (for ${where}): ${kind}, not a socket`, undefined, { cause: err });
    if (why[code]) return new NetworkError(`cannot connect to ${pipe ? 'named pipe' : 'Unix socket'} ${path} (for ${where}): ${why[code]}`, undefined, { cause: err });
  }
  switch (code) {
    case 'ERR_HTTP2_STREAM_ERROR':
      return new NetworkError(`${where} reset the HTTP/2 stream (${h2Code(e.message)})${through}`, undefined, { cause: err });
    case 'ERR_HTTP2_SESSION_ERROR':
    case 'ERR_HTTP2_GOAWAY_SESSION':
      return new NetworkError(`${where} closed the HTTP/2 connection (${h2Code(e.message)})${through}`, undefined, { cause: err });
    case 'ERR_HTTP2_ERROR':
      // nghttp2 could not read what came back as HTTP/2: an HTTP/1.1 server, spoken to in HTTP/2 from the first byte.
      if (/protocol error/i.test(e.message))
        return new NetworkError(`${where} did not answer in HTTP/2 (${e.message})${through}`, 'is it an HTTP/1.1 server? then leave out HTTP/2 (Prior Knowledge)', { cause: err });
      break;
    case 'ECONNREFUSED':
      // Through a proxy, the proxy is the only thing sling connects to.
      if (via) return new NetworkError(`connection refused by proxy ${via} (sending to ${where})`, 'is the proxy running on that port?', { cause: err });
      return new NetworkError(`connection refused by ${where}${through}`, 'is the server running on that port?', { cause: err });
    case 'ECONNRESET':
    case 'EPIPE':
      return new NetworkError(`connection reset by ${where}${through}`, undefined, { cause: err });
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'EAI_FAIL':
    case 'EAI_NONAME':
      return new NetworkError(`cannot resolve host name of ${where}${through}`, undefined, { cause: err });
    case 'ETIMEDOUT':
      return new TimeoutError(`timed out connecting to ${where}${through}`, { cause: err });
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
    case 'EADDRNOTAVAIL':
      return new NetworkError(`cannot reach ${where}${through} (${code})`, undefined, { cause: err });
  }
  // The certificate is good but for other names: no CA bundle fixes that; the name in the URL does.
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID') return nameMismatch(e, where, through);
  if (TLS_CODES.test(code) || /certificate|SSL|TLS/i.test(e.message ?? '')) {
    const alert = tlsAlert(e.message ?? '');
    // Each hint only where it helps: --verify for the server's certificate, --cert for a server
    // that asks for the client's, HTTP/2 for a server that speaks nothing else.
    const clientCert = alert?.includes('certificate_required');
    const serverCert = !alert && (/CERT|SELF_SIGNED|UNABLE_TO_(GET|VERIFY)|HOSTNAME_MISMATCH|ALTNAME/.test(code) || /certificate/i.test(e.message ?? ''));
    return new NetworkError(
      `TLS handshake with ${where} failed: ${alert ?? e.message}${through}`,
      serverCert
        ? 'use --verify=PATH to trust a CA bundle, or --verify=no to skip verification'
        : clientCert
          ? 'the server asks for a client certificate: give it with --cert FILE (and --cert-key FILE)'
          : alert?.includes('no_application_protocol')
            ? 'the server speaks only HTTP/2: end the .http request line with HTTP/2 (curl files: --http2)'
            : undefined,
      { cause: err },
    );
  }
  return new NetworkError(`request to ${where} failed: ${e.message ?? String(err)}`, undefined, { cause: err });
}

/** What the path is when it is no socket (a regular file, a directory...), else undefined; only asked once connecting failed. */
function notASocket(path: string): string | undefined {
  try {
    const st = statSync(path);
    if (st.isSocket()) return undefined;
    return st.isDirectory() ? 'a directory' : st.isFile() ? 'a regular file' : st.isFIFO() ? 'a named pipe (FIFO)' : 'a special file';
  } catch {
    return undefined;
  }
}

/** The certificate's names (its subjectAltName, else its CN), as `DNS:a.example, IP:10.0.0.1`. */
function certNames(cert: { subjectaltname?: string; subject?: { CN?: string | string[] } } | undefined): string[] {
  const alt = cert?.subjectaltname
    ?.split(/,\s*/)
    .map((n) => n.trim())
    .filter((n) => /^(DNS|IP Address):/.test(n))
    .map((n) => n.replace(/^IP Address:/, 'IP:'));
  if (alt?.length) return alt;
  const cn = cert?.subject?.CN;
  return cn === undefined ? [] : [`CN:${Array.isArray(cn) ? cn[0] : cn}`];
}

const MAX_NAMES = 8;

/** A certificate for other names than the URL's host: which names it has, and how to reach the server by one of them. */
function nameMismatch(e: NodeJS.ErrnoException & { host?: string; cert?: object }, where: string, through: string): NetworkError {
  const names = certNames(e.cert as Parameters<typeof certNames>[0]);
  const host = e.host ?? where.replace(/:\d+$/, '');
  const shown = names.length > MAX_NAMES ? `${names.slice(0, MAX_NAMES).join(', ')} and ${names.length - MAX_NAMES} more` : names.join(', ');
  const port = /:(\d+)$/.exec(where)?.[1] ?? '443';
  const dns = names.find((n) => n.startsWith('DNS:') && !n.includes('*'))?.slice(4);
  const address = /^[\d.]+$|:/.test(host) ? host.replace(/^\[|\]$/g, '') : 'ADDRESS';
  return new NetworkError(
    `TLS handshake with ${where} failed: the certificate is for ${shown ? `other names (${shown})` : 'other names'}, not ${host}${through}`,
    dns
      ? `use a name the certificate is for in the URL (${dns}); to reach this server by it, add --resolve ${dns}:${port}:${address}`
      : 'use a name the certificate is for in the URL, with --resolve NAME:PORT:ADDRESS if that name does not lead to this server',
    { cause: e },
  );
}

/** The connect limit reached: before TCP connected, no connection; after it (https), the TLS handshake did not finish. */
export function connectTimeout(where: string, limitText: string, tcpConnected: boolean): TimeoutError {
  if (tcpConnected) return new TimeoutError(`connected to ${where}, but the TLS handshake did not finish within ${limitText}`);
  return new TimeoutError(`could not connect to ${where} within ${limitText}`);
}

/** TLS alerts by number (RFC 8446 6): OpenSSL's messages give only the number. */
const TLS_ALERTS: Record<string, string> = {
  10: 'unexpected_message',
  20: 'bad_record_mac',
  40: 'handshake_failure',
  42: 'bad_certificate',
  43: 'unsupported_certificate',
  44: 'certificate_revoked',
  45: 'certificate_expired',
  46: 'certificate_unknown',
  47: 'illegal_parameter',
  48: 'unknown_ca',
  50: 'decode_error',
  51: 'decrypt_error',
  70: 'protocol_version',
  71: 'insufficient_security',
  80: 'internal_error',
  86: 'inappropriate_fallback',
  90: 'user_canceled',
  109: 'missing_extension',
  110: 'unsupported_extension',
  112: 'unrecognized_name',
  116: 'certificate_required',
  120: 'no_application_protocol',
};

/** OpenSSL's one-line dump (`write EPROTO 80DC...:error:0A000460:SSL routines:...:SSL alert number 120`) as a sentence. */
function tlsAlert(message: string): string | undefined {
  const m = /SSL routines:[^:]*:([^:]+):.*?SSL alert number (\d+)/s.exec(message) ?? /SSL routines:[^:]*:([^:\n]+)/.exec(message);
  if (!m) return undefined;
  const reason = m[1]!.trim();
  if (m[2] === undefined) return reason;
  return `the server sent TLS alert ${TLS_ALERTS[m[2]] ?? m[2]} (${m[2]}; ${reason})`;
}

const H2_ERRORS = [
  'NO_ERROR',
  'PROTOCOL_ERROR',
  'INTERNAL_ERROR',
  'FLOW_CONTROL_ERROR',
  'SETTINGS_TIMEOUT',
  'STREAM_CLOSED',
  'FRAME_SIZE_ERROR',
  'REFUSED_STREAM',
  'CANCEL',
  'COMPRESSION_ERROR',
  'CONNECT_ERROR',
  'ENHANCE_YOUR_CALM',
  'INADEQUATE_SECURITY',
  'HTTP_1_1_REQUIRED',
];

/** The HTTP/2 error code in node:http2's message ("... error code NGHTTP2_CANCEL" or "... error code 1"), by its RFC 9113 name. */
export function h2Code(message: string): string {
  const m = /error code (?:NGHTTP2_)?(\w+)/.exec(message);
  if (!m) return message;
  return /^\d+$/.test(m[1]!) ? h2Name(Number(m[1])) : m[1]!;
}

/** An HTTP/2 error code by its RFC 9113 name. */
export function h2Name(code: number | undefined): string {
  return code === undefined ? 'no error code' : (H2_ERRORS[code] ?? `error code ${code}`);
}

const bytes = (n: number) => `${n} byte${n === 1 ? '' : 's'}`;

type Limits = { timeoutMs?: number; timeoutFrom?: string; connectTimeoutMs?: number; connectFrom?: string; maxTimeMs?: number; deadline?: number };

/** curl's -m: the milliseconds left before the transfer's deadline (at least 1), undefined without one. */
export function timeLeft(settings: Limits): number | undefined {
  return settings.deadline === undefined ? undefined : Math.max(1, settings.deadline - Date.now());
}

/**
 * How long connecting (the TLS handshake included) may take: --connect-timeout / # @connection-timeout,
 * else --timeout; less when curl's -m ends first. `text` says it for messages.
 */
export function connectLimit(settings: Limits): { ms: number; text: string } | undefined {
  const own = settings.connectTimeoutMs ?? settings.timeoutMs;
  const left = timeLeft(settings);
  if (left !== undefined && (own === undefined || left < own)) return { ms: left, text: `${settings.maxTimeMs! / 1000}s (--max-time)` };
  if (!own) return undefined;
  const from = settings.connectTimeoutMs !== undefined ? (settings.connectFrom ?? '--connect-timeout') : (settings.timeoutFrom ?? '--timeout');
  return { ms: own, text: `${own / 1000}s (${from})` };
}

/** curl's -m reached: before the head, no answer in time; after it, the body took too long (what came of it is printed first). */
export function deadlineError(where: string, settings: Limits, headCame: boolean, bodyBytes?: number): TimeoutError {
  const limit = `${settings.maxTimeMs! / 1000}s (--max-time)`;
  if (!headCame) return new TimeoutError(`no answer from ${where} within ${limit}`);
  return new TimeoutError(`the response from ${where} took longer than ${limit}${bodyBytes === undefined ? '' : `: stopped after ${bytes(bodyBytes)} of the body`}`);
}

/** --timeout: before the head, no answer; after it, the body stalled (what came of it is printed first). */
export function timeoutError(where: string, settings: { timeoutMs?: number; timeoutFrom?: string }, headCame: boolean, info: { bodyBytes?: number }): TimeoutError {
  const limit = `${settings.timeoutMs! / 1000}s (${settings.timeoutFrom ?? '--timeout'})`;
  if (!headCame) return new TimeoutError(`no answer from ${where} within ${limit}`);
  return new TimeoutError(`${where} stopped sending the response body for longer than ${limit} after ${bytes(info.bodyBytes ?? 0)}`);
}
