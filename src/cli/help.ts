import { EXEC_OPTIONS, EXEC_TABLE, helpOf, metavarOf, OPTIONS, type OptionDef } from './options.js';

/** Every line of `--help` fits this many columns. */
export const HELP_WIDTH = 100;
const NAMES = 31;

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

function optionLines(options: OptionDef[], lines: string[]): void {
  let group = '';
  for (const o of options) {
    if (o.group !== group) {
      group = o.group;
      lines.push('', `${group}:`);
    }
    const names = optionNames(o);
    const text = wrap(helpOf(o), HELP_WIDTH - NAMES - 3);
    // A name too long for its column puts the help on the next line.
    if (names.length > NAMES) lines.push(`  ${names}`, ...text.map((t) => `${' '.repeat(NAMES + 3)}${t}`));
    else lines.push(`  ${names.padEnd(NAMES)} ${text[0]}`, ...text.slice(1).map((t) => `${' '.repeat(NAMES + 3)}${t}`));
  }
}

function exampleLines(examples: [string, string][], lines: string[]): void {
  lines.push('', 'Examples:');
  for (const [command, what] of examples) lines.push(`  ${command}`, `      ${what}`);
}

/** `--help`, generated from the option table so it can never miss a flag. */
export function helpText(version: string, mode: 'main' | 'exec' = 'main'): string {
  if (mode === 'exec') return execHelp(version);
  const lines = [
    `sling ${version}: a friendly, faithful, fast HTTP client`,
    '',
    'Usage:',
    '  sling [flags] [METHOD] URL [items...]',
    '  slings ...            same, with https:// as the default scheme',
    '  sling exec [--env NAME] [--type http|curl] [--offline] [FILE]   (sling help exec)',
    '  sling completions bash|zsh|fish|powershell                      (shell completions)',
    '',
    'Items:',
    '  name==value           query parameter          Header:value    request header',
    '  name=value            JSON string field        Header:         remove a default header',
    '  name:=json            raw JSON field           Header;         send an empty header',
    '  name=@file            field from a text file   name:=@file     JSON field from a file',
    '  name@file[;type=T]    file upload (multipart)  @file           file as the whole body',
    '  user[name]=a tags[]=x items[0][id]:=1 []:=1   nested JSON paths;  \\ escapes a separator',
    '',
    'URL: no scheme means http:// (slings: https://); :3000/path means http://localhost:3000/path.',
    'Method: GET, or POST when there is body data; any of the seven in any case, or a custom',
    'UPPERCASE one.',
  ];
  optionLines(OPTIONS, lines);
  lines.push(
    '',
    'Exit codes: 0 ok (any status unless --check-status), 1 error, 2 timeout, 3 too many redirects',
    '            (or 3xx), 4 HTTP 4xx, 5 HTTP 5xx (with --check-status), 6 network error,',
    '            130 interrupted.',
    'Every boolean flag has a --no-FLAG form.',
  );
  exampleLines(MAIN_EXAMPLES, lines);
  lines.push('');
  return lines.join('\n');
}

function execHelp(version: string): string {
  const lines = [
    `sling ${version}: sling exec runs a file of requests`,
    '',
    'Usage:',
    '  sling exec [options] [FILE]',
    '',
    'FILE: a .http/.rest file or a file of curl commands; none or - reads stdin. The type comes from',
    '--type, else the extension (.http .rest: http; .curl .sh: curl), else the content.',
    "The main command's output and network flags apply to every request.",
  ];
  const own = new Set(EXEC_OPTIONS.map((o) => o.long));
  optionLines([...EXEC_OPTIONS, ...EXEC_TABLE.options.filter((o) => !own.has(o.long))], lines);
  exampleLines(EXEC_EXAMPLES, lines);
  lines.push('');
  return lines.join('\n');
}
