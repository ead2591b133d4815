import { STYLE_NAMES, STYLE_SYNONYMS } from '../output/palette.js';

/**
 * The one declarative table of the commands' options: names, what each takes (its choices, its
 * kind of number), its default and its help. The argv parser, `--help`, the man page and the
 * completion scripts all read it; no other file lists the values an option takes. Names and short
 * letters follow HTTPie where HTTPie has the option, so that muscle memory and scripts carry over.
 */
export type OptionKind = 'flag' | 'count' | 'value';

export interface OptionDef {
  /** Long name without dashes; also the key in the parsed option record. */
  long: string;
  short?: string;
  /** Extra short letters (e.g. `-c` for `--continue`, as docs/decisions.md, Downloads, asks). */
  aliases?: string[];
  kind: OptionKind;
  /** Values accumulate instead of the last one winning. */
  repeat?: boolean;
  /** A flag that also takes one of these values after `=` (`--curl=cmd`; never the next word). */
  equalsValue?: readonly string[];
  /** The value's name in help; without it, the choices joined by `|` (and `PATH` with `orFile`). */
  metavar?: string;
  group: string;
  /** `{choices}` stands for the choices (with their notes), `{default}` for the default. */
  help: string;
  /**
   * The values it takes when they are a fixed set, in the order help, errors and completions give
   * them; the parser takes no other (but `synonyms`, `orFile`).
   */
  choices?: readonly string[];
  /** Other spellings the parser takes for a choice, never offered: `1` for --http-version 1.0. */
  synonyms?: Readonly<Record<string, string>>;
  /** What help says after a choice: `H request headers`, `solarized (= solarized-dark)`. */
  notes?: Readonly<Record<string, string>>;
  /** Choices are read whatever their case (`--ssl TLS1.2`). */
  caseless?: boolean;
  /** The choices are letters, any of them in any order (--print HBh); completions offer these. */
  letters?: readonly string[];
  /** Besides the choices, the path of a file that exists, named so in the error (--verify's CA bundle). */
  orFile?: string;
  /** Values refused with a reason of their own (--ssl ssl3). */
  refused?: Readonly<Record<string, string>>;
  /** A number: `seconds` a positive decimal, `whole` 0, 1, 2, ... */
  number?: 'seconds' | 'whole';
  /** An empty (or blank) value is refused: `--NAME needs <needs>`. */
  needs?: string;
  /** The value when the option is not given, as it would be written. */
  default?: string;
  /** The value must match this pattern (whole), or it is refused: `--NAME needs <form.is>, got 'x'`. */
  form?: { pattern: RegExp; is: string };
  /** The value is `KEY:VALUE` pairs, comma-separated (--format-options): each key and what it takes. */
  keys?: Readonly<Record<string, 'N' | 'BOOL'>>;
}

export const OPTIONS: OptionDef[] = [
  // General
  { long: 'help', kind: 'flag', group: 'General', help: 'show this help (-h alone on the line also does)' },
  { long: 'version', kind: 'flag', group: 'General', help: 'print the version (sling X.Y.Z)' },
  { long: 'debug', kind: 'flag', group: 'General', help: 'like -v, plus timings, connection reuse and redirect hops on stderr; stack traces' },
  { long: 'offline', kind: 'flag', group: 'General', help: 'build and print the request without sending it' },
  {
    long: 'curl',
    kind: 'flag',
    equalsValue: ['posix', 'powershell', 'cmd'],
    group: 'General',
    help: 'print the curl command that sends the same request, and send nothing; --curl=powershell or --curl=cmd writes it for that shell (default posix: bash)',
  },
  { long: 'ignore-stdin', short: 'I', kind: 'flag', group: 'General', help: 'never read a request body from standard input' },
  { long: 'default-scheme', kind: 'value', metavar: 'SCHEME', group: 'General', help: 'scheme for URLs without one (default http; https for slings)' },
  // Output
  {
    long: 'print',
    short: 'p',
    kind: 'value',
    metavar: 'WHAT',
    group: 'Output',
    help: 'what to print: {choices} (m = p)',
    choices: ['H', 'B', 'h', 'b', 'p'],
    synonyms: { m: 'p' },
    notes: { H: 'request headers', B: 'request body', h: 'response headers', b: 'response body', p: 'properties' },
    letters: ['H', 'B', 'h', 'b', 'p', 'HB', 'hb', 'HBhb'],
  },
  { long: 'headers', short: 'h', kind: 'flag', group: 'Output', help: 'print only the response headers (--print=h)' },
  { long: 'body', short: 'b', kind: 'flag', group: 'Output', help: 'print only the response body (--print=b)' },
  { long: 'meta', short: 'm', kind: 'flag', group: 'Output', help: 'print only the properties of the exchange (--print=p)' },
  { long: 'verbose', short: 'v', kind: 'count', group: 'Output', help: 'print the request too (--print=HBhb) and the responses of followed redirects; -vv adds properties' },
  { long: 'all', kind: 'flag', group: 'Output', help: 'print the intermediate requests and responses of followed redirects' },
  { long: 'quiet', short: 'q', kind: 'count', group: 'Output', help: 'print nothing but warnings and errors; -qq: errors only' },
  { long: 'pretty', kind: 'value', group: 'Output', help: 'formatting and colours (default: all on a terminal, none otherwise)', choices: ['all', 'colors', 'format', 'none'] },
  {
    long: 'style',
    short: 's',
    kind: 'value',
    metavar: 'STYLE',
    group: 'Output',
    help: "colour style: {choices} (HTTPie's other names, pie, pie-dark, pie-light and Pygments' styles, pick the nearest of these)",
    choices: STYLE_NAMES,
    synonyms: STYLE_SYNONYMS,
    notes: { solarized: '(= solarized-dark)' },
    default: 'default',
  },
  { long: 'sorted', kind: 'flag', group: 'Output', help: 'sort response headers and JSON keys when formatting' },
  { long: 'unsorted', kind: 'flag', group: 'Output', help: 'keep headers and JSON keys in the order received (default)' },
  {
    long: 'format-options',
    kind: 'value',
    repeat: true,
    metavar: 'OPTS',
    group: 'Output',
    help: '{keys} (comma-separated)',
    keys: { 'json.indent': 'N', 'json.sort_keys': 'BOOL', 'json.format': 'BOOL', 'headers.sort': 'BOOL', 'xml.indent': 'N', 'xml.format': 'BOOL' },
  },
  { long: 'response-charset', kind: 'value', metavar: 'CHARSET', group: 'Output', help: 'decode the response body with this charset' },
  {
    long: 'response-mime',
    kind: 'value',
    metavar: 'MIME',
    group: 'Output',
    help: 'format the response body as this media type (type/subtype)',
    // A media type's two tokens (RFC 9110 5.6.2), as HTTPie asks for type/subtype; parameters may follow.
    form: { pattern: /^[-!#$%&'*+.^_`|~0-9A-Za-z]+\/[-!#$%&'*+.^_`|~0-9A-Za-z]+\s*(;.*)?$/s, is: 'a media type, type/subtype (application/json)' },
  },
  { long: 'stream', short: 'S', kind: 'flag', group: 'Output', help: 'print the response body as it arrives' },
  // Request body
  { long: 'json', short: 'j', kind: 'flag', group: 'Request', help: 'send data items as a JSON object (the default) and ask for JSON' },
  { long: 'form', short: 'f', kind: 'flag', group: 'Request', help: 'send data items as a URL-encoded form (multipart when a file is attached)' },
  { long: 'multipart', kind: 'flag', group: 'Request', help: 'send data items as multipart/form-data' },
  { long: 'boundary', kind: 'value', metavar: 'TEXT', group: 'Request', help: 'multipart boundary to use' },
  { long: 'raw', kind: 'value', metavar: 'TEXT', group: 'Request', help: 'send TEXT as the request body' },
  { long: 'chunked', kind: 'flag', group: 'Request', help: 'send the body with Transfer-Encoding: chunked' },
  { long: 'compress', short: 'x', kind: 'count', group: 'Request', help: 'deflate the request body when that makes it smaller (-xx: always)' },
  { long: 'path-as-is', kind: 'flag', group: 'Request', help: 'keep ./ and ../ segments of the URL path' },
  { long: 'max-headers', kind: 'value', metavar: 'N', group: 'Request', help: 'fail when the response has more than N headers', number: 'whole' },
  // Authentication
  { long: 'auth', short: 'a', kind: 'value', metavar: 'USER[:PASS]|TOKEN', group: 'Authentication', help: 'credentials (basic) or token (bearer)' },
  { long: 'auth-type', short: 'A', kind: 'value', group: 'Authentication', help: 'authentication scheme (default {default})', choices: ['basic', 'bearer', 'digest'], default: 'basic' },
  { long: 'ignore-netrc', kind: 'flag', group: 'Authentication', help: 'do not read credentials from ~/.netrc (or $NETRC)' },
  // Sessions
  { long: 'session', kind: 'value', metavar: 'NAME|PATH', group: 'Sessions', help: 'keep headers, credentials and cookies for the host in a session, and update it' },
  { long: 'session-read-only', kind: 'value', metavar: 'NAME|PATH', group: 'Sessions', help: 'use a session without updating it' },
  // Network
  { long: 'follow', short: 'F', kind: 'flag', group: 'Network', help: 'follow redirects' },
  { long: 'max-redirects', kind: 'value', metavar: 'N', group: 'Network', help: 'most redirects to follow (default {default}); more is exit 3', number: 'whole', default: '30' },
  { long: 'timeout', kind: 'value', metavar: 'SECONDS', group: 'Network', help: 'longest wait for the connection and for each next chunk of the response', number: 'seconds' },
  { long: 'proxy', kind: 'value', repeat: true, metavar: '[SCHEME:]URL', group: 'Network', help: 'proxy for every scheme, or for one (repeatable); HTTPS goes through CONNECT' },
  { long: 'check-status', kind: 'flag', group: 'Network', help: 'exit 3/4/5 on a 3xx/4xx/5xx response' },
  {
    long: 'http-version',
    kind: 'value',
    group: 'Network',
    help: 'HTTP version: 2 offers HTTP/2 over TLS (ALPN) and falls back to 1.1; 2-prior-knowledge speaks it from the first byte (also http://)',
    choices: ['1.0', '1.1', '2', '2-prior-knowledge'],
    // xh takes `1` for 1.0 too.
    synonyms: { '1': '1.0' },
  },
  {
    long: 'unix-socket',
    kind: 'value',
    metavar: 'PATH',
    group: 'Network',
    help: 'connect to this Unix domain socket (the URL still gives Host and the TLS name)',
    needs: 'the path of a socket',
  },
  { long: 'resolve', kind: 'value', repeat: true, metavar: 'HOST[:PORT]:ADDRESS', group: 'Network', help: 'connect to ADDRESS for HOST (on PORT only, when given) without DNS (repeatable)' },
  { long: 'ipv4', short: '4', kind: 'flag', group: 'Network', help: 'resolve host names to IPv4 addresses only' },
  { long: 'ipv6', short: '6', kind: 'flag', group: 'Network', help: 'resolve host names to IPv6 addresses only' },
  {
    long: 'interface',
    kind: 'value',
    metavar: 'NAME|ADDRESS',
    group: 'Network',
    help: 'connect from this local address, or from the address of this network interface',
    needs: 'a network interface name or a local IP address',
  },
  {
    long: 'verify',
    kind: 'value',
    group: 'SSL',
    help: 'verify TLS certificates (default {default}), skip it (no), or trust the CA bundle at PATH',
    choices: ['yes', 'no'],
    synonyms: { true: 'yes', '1': 'yes', false: 'no', '0': 'no' },
    caseless: true,
    orFile: 'the path of a CA bundle',
    default: 'yes',
  },
  { long: 'cert', kind: 'value', metavar: 'FILE', group: 'SSL', help: 'client certificate (PEM; may contain the key)' },
  { long: 'cert-key', kind: 'value', metavar: 'FILE', group: 'SSL', help: 'private key of the client certificate' },
  { long: 'cert-key-pass', kind: 'value', metavar: 'PASS', group: 'SSL', help: 'passphrase of the private key' },
  {
    long: 'ssl',
    kind: 'value',
    group: 'SSL',
    help: 'use this TLS version only ({default}, the default: the newest both sides have)',
    choices: ['auto', 'tls1', 'tls1.1', 'tls1.2', 'tls1.3'],
    // HTTPie's names: ssl2.3 negotiates (auto); ssl3 exists there only where Python's OpenSSL still has it.
    synonyms: { 'ssl2.3': 'auto', 'tls1.0': 'tls1' },
    refused: { ssl3: "SSL 3.0 is not supported (Node's OpenSSL has no SSL 3.0)" },
    caseless: true,
    default: 'auto',
  },
  {
    long: 'ciphers',
    kind: 'value',
    metavar: 'LIST',
    group: 'SSL',
    help: 'OpenSSL cipher list to offer, e.g. ECDHE-ECDSA-AES128-GCM-SHA256 (TLS 1.3 suites too)',
    needs: 'an OpenSSL cipher list',
  },
  // Downloads
  { long: 'download', short: 'd', kind: 'flag', group: 'Downloads', help: 'save the response body to a file' },
  { long: 'output', short: 'o', kind: 'value', metavar: 'FILE', group: 'Downloads', help: 'save the response body to FILE (implies --download; - is stdout)' },
  { long: 'continue', short: 'C', aliases: ['c'], kind: 'flag', group: 'Downloads', help: 'resume a partial download: with --download and -o FILE, the file to resume' },
];

/** Options of `sling exec` on top of the main command's output and network options. */
export const EXEC_OPTIONS: OptionDef[] = [
  { long: 'type', short: 't', kind: 'value', group: 'Exec', help: 'the file type (default: from the extension, else from the content)', choices: ['http', 'curl'] },
  { long: 'env', kind: 'value', metavar: 'NAME', group: 'Exec', help: 'environment to use: of http-client.env.json (and the private file), of httpyac (.httpyac.json, NAME.env)' },
  { long: 'env-file', kind: 'value', metavar: 'PATH', group: 'Exec', help: 'the environment file to use instead of looking for http-client.env.json' },
  { long: 'fail-fast', kind: 'flag', group: 'Exec', help: 'stop at the first request that fails' },
  { long: 'name', kind: 'value', repeat: true, metavar: 'NAME', group: 'Exec', help: 'run only the request with this name (and the requests it depends on)' },
  { long: 'line', kind: 'value', repeat: true, metavar: 'N', group: 'Exec', help: 'run only the request at line N', number: 'whole' },
  { long: 'report', kind: 'value', group: 'Exec', help: 'write a JUnit report of the run: --report junit [FILE] (report.xml by default)', choices: ['junit'] },
  { long: 'report-file', kind: 'value', metavar: 'FILE', group: 'Exec', help: 'where --report writes' },
  { long: 'to', kind: 'value', group: 'Exec', help: 'convert the file instead of running it', choices: ['curl', 'http'] },
  { long: 'shell', kind: 'value', group: 'Exec', help: 'the shell --to curl writes for (default {default}: bash)', choices: ['posix', 'powershell', 'cmd'], default: 'posix' },
];

export interface OptionTable {
  byLong: Map<string, OptionDef>;
  byShort: Map<string, OptionDef>;
  options: OptionDef[];
}

function table(options: OptionDef[]): OptionTable {
  const byLong = new Map(options.map((o) => [o.long, o]));
  const byShort = new Map<string, OptionDef>();
  for (const o of options) {
    if (o.short) byShort.set(o.short, o);
    for (const a of o.aliases ?? []) byShort.set(a, o);
  }
  return { byLong, byShort, options };
}

export const MAIN_TABLE = table(OPTIONS);
let anyTable: OptionTable | undefined;
/** Both commands' options (made when asked for): where `exec` stands when options come before it. */
export const bothTables = (): OptionTable => (anyTable ??= table([...OPTIONS, ...EXEC_OPTIONS]));
/** The main command's options that `sling exec` does not take. */
export const MAIN_ONLY: readonly string[] = ['download', 'output', 'continue', 'raw', 'multipart', 'boundary', 'default-scheme', 'curl'];
export const EXEC_TABLE = table([...OPTIONS.filter((o) => !MAIN_ONLY.includes(o.long)), ...EXEC_OPTIONS]);

// What help, the man page, completions and errors show of an option, derived from its entry.

/** The value's name: the metavar, else the choices (`all|colors|format|none`, `yes|no|PATH`). */
export const metavarOf = (o: OptionDef): string => o.metavar ?? (o.choices ? [...o.choices, ...(o.orFile ? ['PATH'] : [])].join('|') : 'VALUE');

/** The values completions offer: the letter combinations of --print, else the choices. */
export const offeredValues = (o: OptionDef): readonly string[] | undefined => o.letters ?? o.choices;

/** `a, b or c`. */
export function listOr(words: readonly string[]): string {
  return words.length < 2 ? words.join('') : `${words.slice(0, -1).join(', ')} or ${words.at(-1)}`;
}

/** `--format-options`' keys as help and errors list them: `json.indent:N, json.format:BOOL, ...`. */
export const keysText = (o: OptionDef): string =>
  Object.entries(o.keys ?? {})
    .map(([k, v]) => `${k}:${v}`)
    .join(', ');

/** The help text, `{choices}`, `{keys}` and `{default}` filled in. */
export function helpOf(o: OptionDef): string {
  if (!o.help.includes('{')) return o.help;
  const choices = (o.choices ?? []).map((c) => {
    let text = c;
    if (o.notes?.[c]) text += ` ${o.notes[c]}`;
    if (c === o.default) text += ' (the default)';
    return text;
  });
  return o.help
    .replace('{choices}', choices.join(', '))
    .replace('{keys}', keysText(o))
    .replace('{default}', o.default ?? '');
}
