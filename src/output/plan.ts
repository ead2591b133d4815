import { paletteFor, type Palette } from './palette.js';

/** What to print and how, computed once from the flags and whether stdout is a terminal. */
export interface OutputPlan {
  requestHeaders: boolean;
  requestBody: boolean;
  responseHeaders: boolean;
  responseBody: boolean;
  meta: boolean;
  /** Print the requests and responses of followed redirects too (-v, --all). */
  intermediate: boolean;
  /** Indent JSON. */
  format: boolean;
  colors: boolean;
  palette: Palette;
  /** Sort JSON keys. */
  sorted: boolean;
  sortHeaders: boolean;
  indent: number;
  xmlIndent: number;
  formatJson: boolean;
  formatXml: boolean;
  /** stdout is a terminal: neutralise control characters, hold back binary bodies. */
  terminal: boolean;
  responseCharset?: string;
  responseMime?: string;
  /** --debug output may end up in a bug report: credentials in printed requests are masked. */
  maskCredentials: boolean;
  /** --stream: print the body line by line as it arrives. */
  stream: boolean;
}

/** The flags of the command line that decide what is printed (cli/invocation.ts's Invocation extends this). */
export interface PrintFlags {
  offline: boolean;
  /** Print codes (HBhbp) as chosen; undefined: the default for the method. */
  print?: string;
  download: boolean;
  verbose: number;
  all: boolean;
  quiet: number;
  pretty?: 'all' | 'colors' | 'format' | 'none';
  style?: string;
  sorted: boolean;
  sortHeaders: boolean;
  jsonIndent: number;
  xmlIndent: number;
  formatJson: boolean;
  formatXml: boolean;
  stream: boolean;
  responseCharset?: string;
  responseMime?: string;
  debug: boolean;
}

export interface TerminalInfo {
  isTTY: boolean;
  env: NodeJS.ProcessEnv;
}

/** Which parts the print codes (HBhbp) select. */
export function printParts(codes: string) {
  return {
    requestHeaders: codes.includes('H'),
    requestBody: codes.includes('B'),
    responseHeaders: codes.includes('h'),
    responseBody: codes.includes('b'),
    meta: codes.includes('p'),
  };
}

export function defaultPrint(inv: Pick<PrintFlags, 'offline' | 'print' | 'download'>, method: string): string {
  // With --download the body goes to the file: only the headers are shown (on stderr).
  if (inv.download && !inv.offline) return (inv.print ?? 'h').replace(/b/g, '');
  if (inv.print !== undefined) return inv.print;
  if (inv.offline) return 'HB';
  return method === 'HEAD' ? 'h' : 'hb';
}

export function makePlan(inv: PrintFlags, method: string, term: TerminalInfo): OutputPlan {
  const codes = inv.quiet > 0 ? '' : defaultPrint(inv, method);
  const { env } = term;
  let format = term.isTTY;
  let colors = term.isTTY && !env.NO_COLOR && env.TERM !== 'dumb';
  if (env.FORCE_COLOR && env.FORCE_COLOR !== '0') colors = true;
  switch (inv.pretty) {
    case 'all':
      format = true;
      colors = !env.NO_COLOR || Boolean(env.FORCE_COLOR);
      break;
    case 'colors':
      format = false;
      colors = true;
      break;
    case 'format':
      format = true;
      colors = false;
      break;
    case 'none':
      format = false;
      colors = false;
      break;
  }
  return {
    ...printParts(codes),
    intermediate: inv.all || inv.verbose > 0,
    format,
    colors,
    palette: paletteFor(colors ? inv.style : 'mono'),
    sorted: inv.sorted,
    sortHeaders: inv.sortHeaders,
    indent: inv.jsonIndent,
    xmlIndent: inv.xmlIndent,
    formatJson: inv.formatJson,
    formatXml: inv.formatXml,
    terminal: term.isTTY,
    responseCharset: inv.responseCharset,
    responseMime: inv.responseMime,
    maskCredentials: inv.debug,
    stream: inv.stream,
  };
}
