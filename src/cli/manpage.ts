import { EXEC_EXAMPLES, MAIN_EXAMPLES } from './help.js';
import { EXEC_OPTIONS, helpOf, metavarOf, OPTIONS, type OptionDef } from './options.js';

/**
 * sling(1) in roff, made from the option table and the examples of `--help` by scripts/build.mjs
 * (dist/sling.1, which package.json's `man` names), so it lists exactly the flags sling takes.
 */

/** Text for roff: backslashes and dashes escaped, no line starting with a control character. */
const esc = (s: string) =>
  s
    .replace(/\\/g, '\\e')
    .replace(/-/g, '\\-')
    .replace(/^([.'])/gm, '\\&$1');

function optionEntry(o: OptionDef): string[] {
  const forms = [o.short ? `\\fB\\-${o.short}\\fR` : '', ...(o.aliases ?? []).map((a) => `\\fB\\-${a}\\fR`), `\\fB\\-\\-${esc(o.long)}\\fR`].filter(Boolean);
  const arg = o.kind === 'value' ? ` \\fI${esc(metavarOf(o))}\\fR` : '';
  const help = helpOf(o);
  return ['.TP', `${forms.join(', ')}${arg}`, `${esc(help)}${o.repeat && !help.includes('repeatable') ? ' (repeatable)' : ''}`];
}

function options(list: OptionDef[], lines: string[]): void {
  let group = '';
  for (const o of list) {
    if (o.group !== group) {
      group = o.group;
      lines.push(`.SS ${esc(group)}`);
    }
    lines.push(...optionEntry(o));
  }
}

function examples(list: [string, string][], lines: string[]): void {
  for (const [command, what] of list) lines.push('.TP', `\\fB${esc(command)}\\fR`, `${esc(what)}`);
}

export function manPage(version: string): string {
  const lines = [
    `.TH SLING 1 "" "sling ${esc(version)}" "User Commands"`,
    '.SH NAME',
    'sling, slings \\- a friendly, faithful, fast command\\-line HTTP client',
    '.SH SYNOPSIS',
    '.B sling',
    '[\\fIflags\\fR] [\\fIMETHOD\\fR] \\fIURL\\fR [\\fIitems\\fR...]',
    '.br',
    '.B slings',
    '[\\fIflags\\fR] [\\fIMETHOD\\fR] \\fIURL\\fR [\\fIitems\\fR...]',
    '.br',
    '.B sling exec',
    '[\\fIoptions\\fR] [\\fIFILE\\fR]',
    '.br',
    '.B sling completions',
    '\\fBbash\\fR|\\fBzsh\\fR|\\fBfish\\fR|\\fBpowershell\\fR',
    '.br',
    '.B sling help',
    '[\\fBexec\\fR]',
    '.SH DESCRIPTION',
    'sling sends an HTTP request built from HTTPie\\-style arguments and prints the response.',
    '\\fBslings\\fR is the same with https:// as the default scheme.',
    'A URL without a scheme means http://; \\fB:3000/path\\fR means http://localhost:3000/path.',
    'The method is GET, or POST when there is body data.',
    '.PP',
    '\\fBsling exec\\fR runs the requests of a .http/.rest file or of a file of curl commands',
    '(none or \\fB\\-\\fR reads standard input).',
    '\\fBsling completions\\fR prints a completion script for the shell.',
    '.SH REQUEST ITEMS',
    '.TP',
    '\\fIname\\fB==\\fIvalue\\fR',
    'query parameter',
    '.TP',
    '\\fIHeader\\fB:\\fIvalue\\fR',
    'request header (\\fIHeader\\fB:\\fR removes a default header, \\fIHeader\\fB;\\fR sends an empty one)',
    '.TP',
    '\\fIname\\fB=\\fIvalue\\fR',
    'JSON string field (a form field with \\fB\\-\\-form\\fR)',
    '.TP',
    '\\fIname\\fB:=\\fIjson\\fR',
    'raw JSON field',
    '.TP',
    '\\fIname\\fB=@\\fIfile\\fR, \\fIname\\fB:=@\\fIfile\\fR',
    'field from a text file, JSON field from a file',
    '.TP',
    '\\fIname\\fB@\\fIfile\\fR[\\fB;type=\\fIT\\fR]',
    'file upload (multipart)',
    '.TP',
    '\\fB@\\fIfile\\fR',
    'the file as the whole body',
    '.PP',
    'Nested JSON paths: \\fBuser[name]=a tags[]=x items[0][id]:=1\\fR; \\fB\\e\\fR escapes a separator.',
    '.SH OPTIONS',
    'Every boolean flag has a \\fB\\-\\-no\\-\\fIFLAG\\fR form.',
  ];
  options(OPTIONS, lines);
  lines.push('.SH EXEC OPTIONS', "The main command's output and network options apply to every request of the file.");
  options(EXEC_OPTIONS, lines);
  lines.push(
    '.SH EXIT STATUS',
    '0 ok (any status unless \\fB\\-\\-check\\-status\\fR), 1 error, 2 timeout, 3 too many redirects',
    '(or 3xx), 4 HTTP 4xx, 5 HTTP 5xx (with \\fB\\-\\-check\\-status\\fR), 6 network error, 130 interrupted.',
    '.SH EXAMPLES',
  );
  examples([...MAIN_EXAMPLES, ...EXEC_EXAMPLES], lines);
  lines.push(
    '.SH FILES',
    '.TP',
    '\\fI~/.config/sling/config.json\\fR (or in \\fI$SLING_CONFIG_DIR\\fR, \\fI$XDG_CONFIG_HOME/sling\\fR)',
    'default options (\\fB"default_options"\\fR)',
    '.TP',
    '\\fI~/.netrc\\fR',
    'credentials, unless \\fB\\-\\-ignore\\-netrc\\fR',
    '.SH SEE ALSO',
    'The documentation in the package: docs/usage.md, docs/exec\\-http.md.',
    '.BR curl (1)',
    '',
  );
  return lines.join('\n');
}
