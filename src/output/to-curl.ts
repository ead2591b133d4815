import { originText } from '../model/url.js';
import type { PreparedRequest } from '../model/prepare.js';
import type { RequestSpec } from '../model/spec.js';
import { wholeBody } from '../model/upload.js';
import { BIDI } from '../sanitize.js';
import type { Shell } from './shells.js';

/**
 * A request as the curl command line that sends the same bytes (`sling --curl`, `sling exec --to
 * curl`): the wire form's headers, with curl's own defaults taken away where sling does not send
 * them (`-H 'Accept:'`, `-H 'User-Agent:'`, `-H 'Content-Type:'`), the body exactly (`--data-raw`
 * text, `$'...'` bytes, or `printf ... |` when it holds NUL bytes), and the settings as options.
 * The command is for bash by default, or for PowerShell or cmd.exe (`Shell`); sling's own curl
 * readers read each back (the round trip sends the same request). All of sling's quoting for a
 * shell is here: the resume hint of a cut download uses `quoteWord` too.
 */

/** A word that a shell cannot take as it is (a line break for cmd.exe, bytes that are not UTF-8): the message says which and what to do. */
export class ShellQuoteError extends Error {}

/** A word quoted for `shell`. */
export function quoteWord(s: string, shell: Shell): string {
  if (shell === 'powershell') return powershellWord(s);
  if (shell === 'cmd') return cmdWord(s);
  return shellWord(s);
}

/**
 * Bare words PowerShell passes to a program as written: an option (`-H`, `--data-raw`), digits, or
 * a word that starts with a letter. Others are quoted: `0x10` and `1e3` would be numbers (16,
 * 1000), `-D.x` is split in two, `@x` is splatting, `,` makes a list.
 */
const PS_SAFE = /^(--?[A-Za-z][A-Za-z0-9-]*|[0-9]+|[A-Za-z][A-Za-z0-9_/:=%+.-]*)$/;
/** Characters PowerShell takes as quotes besides ' and " (typographic quotes). */
const PS_QUOTES = /[\u2018-\u201e]/;
const PS_ESCAPES: Record<string, string> = { '\0': '`0', '\x07': '`a', '\b': '`b', '\x1b': '`e', '\f': '`f', '\n': '`n', '\r': '`r', '\t': '`t', '\v': '`v', '`': '``', '"': '`"', $: '`$' };

/**
 * A word for PowerShell: as it is, in '...' (`''` for a quote), or in "..." with backtick escapes
 * when it holds control characters or typographic quotes (`` `n ``, `` `e ``, `` `u{85} ``: neither
 * the terminal showing it nor an editor is driven by them). `` `e `` and `` `u{} `` need PowerShell 6
 * or later. It reaches curl.exe as it is under PowerShell 7.3's argument passing.
 */
export function powershellWord(s: string): string {
  if (PS_SAFE.test(s)) return s;
  if (!ESCAPED.test(s) && !PS_QUOTES.test(s)) return "'" + s.replace(/'/g, "''") + "'";
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (PS_ESCAPES[ch] !== undefined) out += PS_ESCAPES[ch];
    else if (ESCAPED_CHAR.test(ch) || PS_QUOTES.test(ch) || c < 0x20 || c === 0x7f) out += `\`u{${c.toString(16)}}`;
    else out += ch;
  }
  return out + '"';
}

const CMD_SAFE = /^[A-Za-z0-9_/:=+,.@-]+$/;

/**
 * A word for cmd.exe: as it is, or quoted the Microsoft C runtime's way (how curl.exe splits its
 * command line: `"..."`, `\"` for a quote, backslashes doubled before one) with every character
 * cmd.exe acts on escaped by `^` (the quotes too, so that cmd.exe never enters its quoted mode and
 * every `%`, `&`, `|`, `<`, `>`, `(`, `)`, `!` is taken as written). A line break, another control
 * character or a NUL cannot be on a cmd.exe command line: a ShellQuoteError.
 */
export function cmdWord(s: string): string {
  if (s !== '' && CMD_SAFE.test(s)) return s;
  if (/[\x00-\x08\x0a-\x1f\x7f]/.test(s) || ESCAPED.test(s.replace(/\t/g, ''))) {
    throw new ShellQuoteError('a value with a line break or another control character cannot be written for cmd.exe');
  }
  let quoted = '"';
  for (let i = 0; i < s.length; i++) {
    let n = 0;
    while (s[i] === '\\') {
      n++;
      i++;
    }
    if (i === s.length) quoted += '\\'.repeat(n * 2);
    else if (s[i] === '"') quoted += '\\'.repeat(n * 2 + 1) + '"';
    else quoted += '\\'.repeat(n) + s[i];
  }
  quoted += '"';
  return quoted.replace(/[\^&|<>()%!"]/g, '^$&');
}

/** How a command goes on over several lines, and its program's name, in each shell. */
const LAYOUT: Record<Shell, { program: string; next: string }> = {
  posix: { program: 'curl', next: ' \\\n  ' },
  // PowerShell 5.1's `curl` is Invoke-WebRequest: curl.exe is the program.
  powershell: { program: 'curl.exe', next: ' `\n  ' },
  cmd: { program: 'curl', next: ' ^\n  ' },
};

const SAFE = /^[A-Za-z0-9_/:=@%+,.^-]+$/;

/** What a word can only hold in $'...': C0 and C1 controls, DEL, and bidirectional controls (sanitize.ts). */
const ESCAPED = new RegExp(`[\\x00-\\x08\\x0b-\\x1f\\x7f-\\x9f${BIDI}]`);
const ESCAPED_CHAR = new RegExp(`^[\\x80-\\x9f${BIDI}]$`);

/**
 * A word for bash: as it is, in '...', or in $'...' when it holds control characters. C1 and
 * bidirectional controls are written as the \xHH of their UTF-8 bytes, which bash turns back into
 * the same bytes: the command is the same, and neither a terminal showing it nor an editor opening
 * the script is driven or reordered by them.
 */
export function shellWord(s: string): string {
  if (s !== '' && SAFE.test(s)) return s;
  if (ESCAPED.test(s)) return ansiC(Buffer.from(s, 'utf8'));
  return "'" + s.replace(/'/g, "'\\''") + "'";
}

/** $'...' for bytes: printable ASCII as it is, UTF-8 text kept but for C1 and bidirectional controls, everything else as \xHH. */
function ansiC(bytes: Buffer): string {
  const text = bytes.toString('utf8');
  const exact = Buffer.from(text, 'utf8').equals(bytes);
  let out = "$'";
  if (exact) {
    for (const ch of text) {
      const c = ch.codePointAt(0)!;
      if (ch === '\\' || ch === "'") out += '\\' + ch;
      else if (ch === '\n') out += '\\n';
      else if (ch === '\r') out += '\\r';
      else if (ch === '\t') out += '\\t';
      else if (c < 0x20 || c === 0x7f) out += '\\x' + c.toString(16).padStart(2, '0');
      else if (ESCAPED_CHAR.test(ch)) for (const b of Buffer.from(ch, 'utf8')) out += '\\x' + b.toString(16).padStart(2, '0');
      else out += ch;
    }
  } else {
    for (const b of bytes) {
      if (b === 0x5c || b === 0x27) out += '\\' + String.fromCharCode(b);
      else if (b >= 0x20 && b < 0x7f) out += String.fromCharCode(b);
      else out += '\\x' + b.toString(16).padStart(2, '0');
    }
  }
  return out + "'";
}

/** printf's format for bytes that include NUL (which no argument can carry). */
function printfFormat(bytes: Buffer): string {
  let out = '';
  for (const b of bytes) {
    if (b === 0x25) out += '%%';
    else if (b === 0x5c) out += '\\\\';
    else if (b >= 0x20 && b < 0x7f && b !== 0x27) out += String.fromCharCode(b);
    else out += '\\' + b.toString(8).padStart(3, '0');
  }
  return "'" + out + "'";
}

const has = (headers: [string, string][], name: string) => headers.some(([n]) => n.toLowerCase() === name);

/** Where a download goes (`sling -d`, `-o FILE`, `-C`): written by curl the same way. */
export interface CurlSave {
  /** `-o FILE` (`-` is standard output); none: the name comes from the answer or the URL. */
  output?: string;
  /** `-C`: go on from the end of the file. */
  resume?: boolean;
}

export function curlCommand(spec: RequestSpec, prepared: PreparedRequest, shell: Shell = 'posix', save?: CurlSave): string {
  // One option (with its value) per line, as browsers' "Copy as cURL" writes it.
  const opts: string[] = [];
  const shellWord = (w: string) => quoteWord(w, shell);
  let prefix = '';
  const url = `${originText(spec.url)}${prepared.target}`;
  // A large file's bytes are read to be written out (an exporter writes the body into the command).
  const body = wholeBody(prepared.body);
  const hasBody = body.length > 0 || spec.body.kind !== 'none';
  // curl's method: GET, POST with a body; -I sends HEAD (-X HEAD would wait for a body).
  if (prepared.method === 'HEAD' && !hasBody) opts.push('-I');
  else if (prepared.method !== (hasBody ? 'POST' : 'GET')) opts.push(`-X ${shellWord(prepared.method)}`);
  // curl globs {} and [] and squashes /./ and /../ unless told not to.
  if (/[{}[\]]/.test(url)) opts.push('-g');
  if (/\/\.\.?(\/|$)/.test(prepared.target.replace(/\?.*$/, ''))) opts.push('--path-as-is');

  const headers = prepared.headers;
  const header = (h: string) => opts.push(`-H ${shellWord(h)}`);
  let compressed = false;
  for (const [name, value] of headers) {
    const lower = name.toLowerCase();
    if (lower === 'host' && value === spec.url.hostHeader) continue;
    // curl works the length out from the body; without one (a DELETE) it sends none, sling `Content-Length: 0`.
    if (lower === 'content-length' && !has(headers, 'transfer-encoding') && hasBody) continue;
    header(value === '' ? `${name};` : `${name}: ${value}`);
    // curl decodes a compressed response only with --compressed (which keeps this header as given):
    // without it the printed command would write gzip bytes to the terminal.
    if (lower === 'accept-encoding' && /\b(gzip|deflate|br)\b/i.test(value)) compressed = true;
  }
  if (compressed) opts.push('--compressed');
  // Take away curl's defaults that sling does not send.
  if (!has(headers, 'user-agent')) header('User-Agent:');
  if (!has(headers, 'accept')) header('Accept:');
  if (hasBody && !has(headers, 'content-type')) header('Content-Type:');
  if (body.length > 1024 * 1024 && !has(headers, 'expect')) header('Expect:');

  if (hasBody) {
    const text = body.toString('utf8');
    // NUL bytes cannot be an argument, and a body over 64 kB could pass the system's limit on one
    // argument (128 kB on Linux): printf is a bash builtin, which has no such limit.
    const exact = Buffer.from(text, 'utf8').equals(body);
    if (shell !== 'posix') {
      // No printf, no $'...' bytes, and a command line of at most 8,191 (cmd.exe) or 32,767 characters (Windows).
      const limit = shell === 'cmd' ? 6 * 1024 : 24 * 1024;
      if (body.includes(0) || !exact) throw new ShellQuoteError('the body holds NUL bytes or bytes that are not UTF-8 text, which a Windows command line cannot carry');
      if (body.length > limit) throw new ShellQuoteError(`the body is over ${limit / 1024} KiB, more than a ${shell === 'cmd' ? 'cmd.exe' : 'Windows'} command line holds`);
      opts.push(`--data-raw ${shellWord(text)}`);
    } else if (body.includes(0) || body.length > 64 * 1024) {
      prefix = `printf -- ${printfFormat(body)} | `;
      opts.push('--data-binary @-');
    } else if (exact) opts.push(`--data-raw ${shellWord(text)}`);
    else opts.push(`--data-raw ${ansiC(body)}`);
  }

  const s = spec.settings;
  if (s.follow) opts.push('-L', `--max-redirs ${s.maxRedirects}`);
  // sling's --timeout / # @timeout (the longest silence, connecting included) is curl's
  // --connect-timeout for the connection and a low-speed limit (under 1 byte/s for that many whole
  // seconds) for the rest; # @connection-timeout is --connect-timeout; a curl command's -m stays -m.
  const connect = s.connectTimeoutMs ?? s.timeoutMs;
  if (connect !== undefined) opts.push(`--connect-timeout ${connect / 1000}`);
  if (s.timeoutMs !== undefined) opts.push(`--speed-limit 1 --speed-time ${Math.max(1, Math.ceil(s.timeoutMs / 1000))}`);
  if (s.maxTimeMs !== undefined) opts.push(`-m ${s.maxTimeMs / 1000}`);
  if (s.tls.verify === false) opts.push('-k');
  else if (typeof s.tls.verify === 'string') opts.push(`--cacert ${shellWord(s.tls.verify)}`);
  if (s.tls.cert) opts.push(`-E ${shellWord(s.tls.cert.replace(/:/g, '\\:'))}`);
  if (s.tls.certKey) opts.push(`--key ${shellWord(s.tls.certKey)}`);
  if (s.tls.certKeyPass) opts.push(`--pass ${shellWord(s.tls.certKeyPass)}`);
  const proxy = s.proxies[spec.url.scheme] ?? s.proxies.all;
  if (proxy) opts.push(`-x ${shellWord(proxy)}`);
  if (s.http2) opts.push(s.http2 === 'alpn' ? '--http2' : '--http2-prior-knowledge');
  if (s.http10) opts.push('--http1.0');
  if (s.unixSocket) opts.push(`--unix-socket ${shellWord(s.unixSocket)}`);
  // curl's --resolve names the port: a rule for every port is written for the URL's.
  for (const r of s.resolve ?? []) opts.push(`--resolve ${shellWord(`${r.host}:${r.port ?? spec.url.port}:${r.address.includes(':') ? `[${r.address}]` : r.address}`)}`);
  if (s.family) opts.push(`-${s.family}`);
  if (s.interface) opts.push(`--interface ${shellWord(s.interface)}`);
  const tlsFlag: Record<string, string> = { TLSv1: '1.0', 'TLSv1.1': '1.1', 'TLSv1.2': '1.2', 'TLSv1.3': '1.3' };
  if (s.tls.minVersion) opts.push(`--tlsv${tlsFlag[s.tls.minVersion]}`);
  if (s.tls.maxVersion) opts.push(`--tls-max ${tlsFlag[s.tls.maxVersion]}`);
  if (s.tls.ciphers) opts.push(`--ciphers ${shellWord(s.tls.ciphers)}`);
  if (s.digest) opts.push('--digest', `-u ${shellWord(`${s.digest.user}:${s.digest.password}`)}`);
  // A download: to the file named (-o), else under the name the answer's Content-Disposition
  // gives or the URL's last segment (-O -J, which never overwrite a file either); -C as curl's `-C -`,
  // which goes on from the file's size as sling does.
  if (save) {
    if (save.output !== undefined) opts.push(`-o ${shellWord(save.output)}`);
    else opts.push('-O', '-J');
    if (save.resume) opts.push('-C -');
  }
  const layout = LAYOUT[shell];
  return [`${prefix}${layout.program} ${shellWord(url)}`, ...opts].join(layout.next);
}
