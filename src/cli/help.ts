import { EXEC_TABLE, OPTIONS } from './options.js';

/** `--help`, generated from the option table so it can never miss a flag. */
export function helpText(version: string, mode: 'main' | 'exec' = 'main'): string {
  if (mode === 'exec') return execHelp(version);
  const lines = [
    `sling ${version}: a friendly, faithful, fast HTTP client`,
    '',
    'Usage:',
    '  sling [flags] [METHOD] URL [items...]',
    '  slings ...            same, with https:// as the default scheme',
    '  sling exec [--env NAME] [--type http|curl] [--offline] [FILE]',
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
    'Method: GET, or POST when there is body data; any of the seven in any case, or a custom UPPERCASE one.',
  ];
  let group = '';
  for (const o of OPTIONS) {
    if (o.group !== group) {
      group = o.group;
      lines.push('', `${group}:`);
    }
    const names = [o.short ? `-${o.short}` : '', ...(o.aliases ?? []).map((a) => `-${a}`), `--${o.long}${o.kind === 'value' ? ` ${o.metavar ?? 'VALUE'}` : ''}`]
      .filter(Boolean)
      .join(', ');
    lines.push(`  ${names.padEnd(34)} ${o.help}`);
  }
  lines.push(
    '',
    'Exit codes: 0 ok (any status unless --check-status), 1 error, 2 timeout, 3 too many redirects (or 3xx),',
    '            4 HTTP 4xx, 5 HTTP 5xx (with --check-status), 6 network error, 130 interrupted.',
    'Every boolean flag has a --no-FLAG form.',
    '',
  );
  return lines.join('\n');
}

function execHelp(version: string): string {
  const lines = [
    `sling ${version}: sling exec runs a file of requests`,
    '',
    'Usage:',
    '  sling exec [options] [FILE]     FILE: a .http/.rest file or a file of curl commands; none or - reads stdin',
    '',
    'The type comes from --type, else the extension (.http .rest: http; .curl .sh: curl), else the content.',
    "The main command's output and network flags apply to every request.",
  ];
  let group = '';
  for (const o of EXEC_TABLE.options) {
    if (o.group !== group) {
      group = o.group;
      lines.push('', `${group}:`);
    }
    const names = [o.short ? `-${o.short}` : '', `--${o.long}${o.kind === 'value' ? ` ${o.metavar ?? 'VALUE'}` : ''}`].filter(Boolean).join(', ');
    lines.push(`  ${names.padEnd(34)} ${o.help}`);
  }
  lines.push('');
  return lines.join('\n');
}
