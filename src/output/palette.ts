import { UsageError } from '../errors.js';

/**
 * Colours for the terminal. Formatters ask the palette for a role (key, string, tag...), never for
 * an escape sequence, so a style is one entry in STYLES.
 *
 * `default` uses mid-tone 256-colour hues readable on dark and light backgrounds; `auto` uses the
 * terminal's own 16 colours, so it follows the user's theme; the others are 256-colour themes.
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
  /** Markup: tag names, attribute names, comments; code: keywords. */
  tag: string;
  attr: string;
  comment: string;
  keyword: string;
}

const sgr = (code: string) => `\x1b[${code}m`;
const c256 = (n: number, bold = false) => `\x1b[${bold ? '1;' : ''}38;5;${n}m`;

const AUTO: Palette = {
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
  tag: sgr('1;34'),
  attr: sgr('36'),
  comment: sgr('2'),
  keyword: sgr('35'),
};

const MONOKAI: Palette = {
  ...AUTO,
  method: c256(148, true),
  url: c256(81),
  version: c256(141),
  status2xx: c256(148, true),
  status3xx: c256(186, true),
  status4xx: c256(208, true),
  status5xx: c256(197, true),
  headerName: c256(81),
  key: c256(197),
  string: c256(186),
  number: c256(141),
  literal: c256(141),
  meta: c256(242),
  tag: c256(197),
  attr: c256(148),
  comment: c256(242),
  keyword: c256(197),
};

const SOLARIZED: Palette = {
  ...AUTO,
  method: c256(64, true),
  url: c256(37),
  version: c256(61),
  status2xx: c256(64, true),
  status3xx: c256(136, true),
  status4xx: c256(166, true),
  status5xx: c256(160, true),
  headerName: c256(33),
  key: c256(33),
  string: c256(37),
  number: c256(125),
  literal: c256(166),
  meta: c256(245),
  tag: c256(33),
  attr: c256(136),
  comment: c256(245),
  keyword: c256(64),
};

const FRUITY: Palette = {
  ...AUTO,
  method: c256(202, true),
  url: c256(32),
  version: c256(33),
  status2xx: c256(34, true),
  status3xx: c256(214, true),
  status4xx: c256(202, true),
  status5xx: c256(197, true),
  headerName: c256(202),
  key: c256(202),
  string: c256(32),
  number: c256(33),
  literal: c256(202, true),
  meta: c256(28),
  tag: c256(202, true),
  attr: c256(33),
  comment: c256(28),
  keyword: c256(202, true),
};

/** The default: mid-tone 256-colour hues that keep their contrast on dark and on light backgrounds. */
const DEFAULT: Palette = {
  ...AUTO,
  method: c256(34, true),
  url: c256(31),
  version: c256(61),
  status2xx: c256(34, true),
  status3xx: c256(136, true),
  status4xx: c256(160, true),
  status5xx: c256(125, true),
  headerName: c256(31),
  key: c256(33),
  string: c256(34),
  number: c256(166),
  literal: c256(127),
  meta: c256(244),
  tag: c256(33),
  attr: c256(130),
  comment: c256(244),
  keyword: c256(127),
};

export const MONO: Palette = Object.fromEntries(Object.keys(AUTO).map((k) => [k, ''])) as unknown as Palette;

/** The styles `--style` knows. */
export const STYLES: Record<string, Palette> = { default: DEFAULT, auto: AUTO, monokai: MONOKAI, solarized: SOLARIZED, fruity: FRUITY, mono: MONO };
export const DARK = AUTO;

export function paletteFor(style: string | undefined): Palette {
  if (style === undefined) return DEFAULT;
  const p = STYLES[style];
  if (!p) throw new UsageError(`unknown --style '${style}'`, `styles: ${Object.keys(STYLES).join(', ')}`);
  return p;
}
