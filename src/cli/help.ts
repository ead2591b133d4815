import { EXEC_OPTIONS, EXEC_TABLE, helpOf, metavarOf, OPTIONS, type OptionDef } from './options.js';

/**
 * `--help` is laid out for the terminal's width (stdout's columns), or for 80 columns when stdout is
 * not a terminal or its width is unknown; never narrower than this.
 */
export const HELP_MIN_WIDTH = 40;
export const HELP_DEFAULT_WIDTH = 80;
/** The column of options' names (their help starts 3 further); less on a narrow terminal. */
const NAMES = 31;

/** The width help is laid out for: the terminal's columns, else 80. */
export function helpWidth(columns: number | undefined): number {
  return columns && columns > 0 ? Math.max(HELP_MIN_WIDTH, Math.floor(columns)) : HELP_DEFAULT_WIDTH;
}

/** The examples that end `--help` (also the man page's EXAMPLES). */
export const MAIN_EXAMPLES: [string, string][] = [
  ['sling example.org/get', 'GET, response headers and body'],
  ['sling POST :3000/users name=ada admin:=true', 'a JSON body {"name": "ada", "admin": true}'],
  ['sling -f POST example.org/upload name=ada photo@me.jpg', 'a multipart form with a file'],
  ['sling -a ada:secret -v example.org/private', 'basic auth, and print the request too'],
  ['sling -d -o out.zip example.org/big.zip', 'download to a file, with a progress bar'],
];

/** The examples that end `sling help exec`. */
export const EXEC_EXAMPLES: [string, string][] = [
  ['sling exec --env dev api.http', 'run every request of a .http file with the dev environment'],
  ['sling exec --name login --to curl api.http', 'print the request named login as curl'],
];

/** `text` cut at spaces into lines of at most `width` columns. */
export function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  lines.push(line);
  return lines;
}

/** `-x, --long VALUE` of an option. */
export function optionNames(o: OptionDef): string {
  return [o.short ? `-${o.short}` : '', ...(o.aliases ?? []).map((a) => `-${a}`), `--${o.long}${o.kind === 'value' ? ` ${metavarOf(o)}` : ''}`].filter(Boolean).join(', ');
}

function optionLines(options: OptionDef[], lines: string[], width: number): void {
  const names = Math.min(NAMES, Math.floor(width / 3));
  let group = '';
  for (const o of options) {
    if (o.group !== group) {
      group = o.group;
      lines.push('', `${group}:`);
    }
    const name = optionNames(o);
    const text = wrap(helpOf(o), width - names - 3);
    const indent = ' '.repeat(names + 3);
    // A name too long for its column puts the help on the next line.
    if (name.length > names) lines.push(`  ${name}`, ...text.map((t) => `${indent}${t}`));
    else lines.push(`  ${name.padEnd(names)} ${text[0]}`, ...text.slice(1).map((t) => `${indent}${t}`));
  }
}

function exampleLines(examples: [string, string][], lines: string[], width: number): void {
  lines.push('', 'Examples:');
  for (const [command, what] of examples) lines.push(...hanging('  ', command, width, 4), ...hanging('      ', what, width));
}

/** `text` wrapped to `width` after `first`; the lines after the first indented as `first` is, plus `more`. */
function hanging(first: string, text: string, width: number, more = 0): string[] {
  const [head, ...rest] = wrap(text, width - first.length);
  if (!rest.length) return [first + head];
  const indent = ' '.repeat(first.length + more);
  return [first + head, ...wrap(rest.join(' '), width - indent.length).map((l) => indent + l)];
}

/** Rows of two columns (`what  meaning`), side by side when every row fits `width`, else each meaning under its row. */
function table(rows: [string, string][], width: number, lines: string[]): void {
  const left = Math.max(...rows.map(([w]) => w.length)) + 2;
  if (rows.every(([, meaning]) => 2 + left + meaning.length <= width)) for (const [what, meaning] of rows) lines.push(`  ${what.padEnd(left)}${meaning}`);
  else for (const [what, meaning] of rows) lines.push(...hanging('  ', what, width, 4), ...(meaning ? hanging('      ', meaning, width) : []));
}

/** The request items, as the Items section lists them. */
const ITEMS: [string, string][] = [
  ['name==value', 'query parameter'],
  ['name=value', 'JSON string field'],
  ['name:=json', 'raw JSON field'],
  ['name=@file', 'field from a text file'],
  ['name:=@file', 'JSON field from a file'],
  ['name@file[;type=T]', 'file upload (multipart)'],
  ['@file', 'file as the whole body'],
  ['Header:value', 'request header'],
  ['Header:', 'remove a default header'],
  ['Header;', 'send an empty header'],
  ['user[name]=a tags[]=x', 'nested JSON paths (items[0][id]:=1, []:=1)'],
  ['\\', 'escapes a separator'],
];

/** Paragraphs wrapped to `width`. */
const prose = (lines: string[], width: number, ...paragraphs: string[]) => {
  for (const p of paragraphs) lines.push(...wrap(p, width));
};

/** `--help`, generated from the option table so it can never miss a flag. */
/**
 * `--help`, generated from the option table so it can never miss a flag, laid out for `width`
 * columns (helpWidth).
 */
export function helpText(version: string, mode: 'main' | 'exec' = 'main', width = HELP_DEFAULT_WIDTH): string {
  width = Math.max(HELP_MIN_WIDTH, width);
  if (mode === 'exec') return execHelp(version, width);
  const lines: string[] = [];
  prose(lines, width, `sling ${version}: a friendly, faithful, fast HTTP client`);
  lines.push('', 'Usage:');
  table(
    [
      ['sling [flags] [METHOD] URL [items...]', ''],
      ['slings ...', 'same, with https:// as the default scheme'],
      ['sling exec [--env NAME] [--type http|curl] [--offline] [FILE]', 'run a file of requests (sling help exec)'],
      ['sling completions bash|zsh|fish|powershell', 'shell completions'],
    ],
    width,
    lines,
  );
  lines.push('', 'Items:');
  table(ITEMS, width, lines);
  lines.push('');
  prose(
    lines,
    width,
    'URL: no scheme means http:// (slings: https://); :3000/path means http://localhost:3000/path.',
    'Method: GET, or POST when there is body data; any of the seven in any case, or a custom UPPERCASE one.',
  );
  optionLines(OPTIONS, lines, width);
  lines.push('');
  lines.push(
    ...hanging(
      'Exit codes: ',
      '0 ok (any status unless --check-status), 1 error, 2 timeout, 3 too many redirects (or 3xx), 4 HTTP 4xx, 5 HTTP 5xx (with --check-status), 6 network error, 130 interrupted.',
      width,
    ),
  );
  prose(lines, width, 'Every boolean flag has a --no-FLAG form.');
  exampleLines(MAIN_EXAMPLES, lines, width);
  lines.push('');
  return lines.map((l) => l.trimEnd()).join('\n');
}

/** `sling completions --help` (also `sling help completions`). */
export function completionsHelp(version: string, shells: readonly string[], width = HELP_DEFAULT_WIDTH): string {
  width = Math.max(HELP_MIN_WIDTH, width);
  const lines: string[] = [];
  prose(lines, width, `sling ${version}: sling completions prints a shell's completion script`);
  lines.push('', 'Usage:', `  sling completions ${shells.join('|')}`, '');
  prose(
    lines,
    width,
    "The script completes the flags of sling and of sling exec, the values of a flag that takes a fixed set, and file names (after @ in request items too). Load it from the shell's start-up file, or save it where the shell looks for completions:",
  );
  lines.push('');
  table(
    [
      ['bash', 'in ~/.bashrc: source <(sling completions bash)'],
      ['zsh', 'in ~/.zshrc, after compinit: source <(sling completions zsh)'],
      ['fish', 'sling completions fish > ~/.config/fish/completions/sling.fish'],
      ['powershell', 'in $PROFILE: sling completions powershell | Out-String | Invoke-Expression'],
    ],
    width,
    lines,
  );
  lines.push('');
  prose(lines, width, 'More: docs/usage.md, "Completions and the man page".');
  lines.push('');
  return lines.map((l) => l.trimEnd()).join('\n');
}

function execHelp(version: string, width: number): string {
  const lines: string[] = [];
  prose(lines, width, `sling ${version}: sling exec runs a file of requests`);
  lines.push('', 'Usage:', '  sling exec [options] [FILE]', '');
  prose(
    lines,
    width,
    'FILE: a .http/.rest file or a file of curl commands; none or - reads stdin. The type comes from --type, else the extension (.http .rest: http; .curl .sh: curl), else the content.',
    "The main command's output and network flags apply to every request.",
  );
  const own = new Set(EXEC_OPTIONS.map((o) => o.long));
  optionLines([...EXEC_OPTIONS, ...EXEC_TABLE.options.filter((o) => !own.has(o.long))], lines, width);
  exampleLines(EXEC_EXAMPLES, lines, width);
  lines.push('');
  return lines.map((l) => l.trimEnd()).join('\n');
}
