/**
 * Colours for the terminal. One palette object per style, so formatters never hard-code escape
 * sequences and a later theme (issue: themes) is one more entry here.
 */
export interface Palette {
  reset: string;
  method: string;
  url: string;
  version: string;
  status2xx: string;
  status3xx: string;
  status4xx: string;
  status5xx: string;
  headerName: string;
  headerValue: string;
  key: string;
  string: string;
  number: string;
  literal: string;
  punct: string;
  meta: string;
  control: string;
}

const sgr = (code: string) => `\x1b[${code}m`;

export const DARK: Palette = {
  reset: sgr('0'),
  method: sgr('1;32'),
  url: sgr('36'),
  version: sgr('34'),
  status2xx: sgr('1;32'),
  status3xx: sgr('1;33'),
  status4xx: sgr('1;31'),
  status5xx: sgr('1;35'),
  headerName: sgr('36'),
  headerValue: '',
  key: sgr('1;34'),
  string: sgr('32'),
  number: sgr('33'),
  literal: sgr('35'),
  punct: '',
  meta: sgr('2'),
  control: sgr('7'),
};

export const MONO: Palette = Object.fromEntries(Object.keys(DARK).map((k) => [k, ''])) as unknown as Palette;

export function paletteFor(style: string | undefined): Palette {
  if (style === 'mono' || style === 'none') return MONO;
  return DARK;
}

export const STYLES = ['auto', 'dark', 'mono'];
