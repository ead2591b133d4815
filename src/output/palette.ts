import { UsageError } from '../errors.js';

/**
 * Colours for the terminal. Formatters ask the palette for a role (key, string, tag...), never for
 * an escape sequence, so a style is one entry in THEMES.
 *
 * `default` uses mid-tone 256-colour hues readable on dark and light backgrounds; `auto` uses the
 * terminal's own 16 colours, so it follows the user's theme; the others are 256-colour themes
 * written as '#rrggbb' (or 'bold #rrggbb') and shown as the nearest xterm-256 colour. Their
 * escape sequences are made only when a coloured output asks for the style (paletteFor).
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

/** The roles a theme colours; a role it leaves out is in the terminal's own text colour. */
export type ColourRole = Exclude<keyof Palette, 'reset' | 'control'>;

export interface Theme {
  /**
   * The terminals the theme is made for: `dark` ones (black or near it), `light` ones (white or
   * near it), or `any`. test/unit/palette.test.ts checks every colour's contrast on them.
   */
  on: 'dark' | 'light' | 'any';
  /** The background colour the style was published with. */
  background?: string;
  colours: Partial<Record<ColourRole, string>>;
}

const sgr = (code: string) => `\x1b[${code}m`;

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

export const MONO: Palette = Object.fromEntries(Object.keys(AUTO).map((k) => [k, ''])) as unknown as Palette;

/**
 * A theme from a Pygments style's published colours, by token: method is Name.Function, the URL
 * Name.Namespace, the HTTP version Keyword.Reserved, header names and attributes Name.Attribute,
 * JSON keys and tags Name.Tag, strings String, numbers Number, true/false/null Keyword.Constant,
 * notes and comments Comment, keywords Keyword (as HTTPie's lexers use them). A token the style
 * leaves in its plain text colour is '' here: the terminal's own. The status line is coloured by
 * class with the style's green, yellow, orange and red. The method and the status are bold.
 */
function pygments(
  on: Theme['on'],
  background: string,
  t: {
    function: string;
    namespace: string;
    reserved: string;
    attribute: string;
    tag: string;
    string: string;
    number: string;
    constant: string;
    comment: string;
    keyword: string;
    status: [string, string, string, string];
  },
): Theme {
  const bold = (c: string) => (c && !c.startsWith('bold ') ? `bold ${c}` : c);
  return {
    on,
    background,
    colours: {
      method: bold(t.function),
      url: t.namespace,
      version: t.reserved,
      status2xx: bold(t.status[0]),
      status3xx: bold(t.status[1]),
      status4xx: bold(t.status[2]),
      status5xx: bold(t.status[3]),
      headerName: t.attribute,
      key: t.tag,
      string: t.string,
      number: t.number,
      literal: t.constant,
      meta: t.comment,
      tag: t.tag,
      attr: t.attribute,
      comment: t.comment,
      keyword: t.keyword,
    },
  };
}

/**
 * The default: mid-tone hues (xterm-256 colours) that keep 3:1 contrast on black, #1e1e1e and
 * white. Once #00af00, #5f5faf, #af005f and #af00af: each was under 3:1 on white or on #1e1e1e
 * and is now its nearest neighbour that is not.
 */
const DEFAULT: Theme = {
  on: 'any',
  colours: {
    method: 'bold #008700',
    url: '#0087af',
    version: '#5f5fd7',
    status2xx: 'bold #008700',
    status3xx: 'bold #af8700',
    status4xx: 'bold #d70000',
    status5xx: 'bold #d7005f',
    headerName: '#0087af',
    key: '#0087ff',
    string: '#008700',
    number: '#d75f00',
    literal: '#d700d7',
    meta: '#808080',
    tag: '#0087ff',
    attr: '#af5f00',
    comment: '#808080',
    keyword: '#d700d7',
  },
};

/** sling's own, after Pygments' fruity (background #111111), in xterm-256 colours. */
const FRUITY: Theme = {
  on: 'dark',
  background: '#111111',
  colours: {
    method: 'bold #ff5f00',
    url: '#0087d7',
    version: '#0087ff',
    status2xx: 'bold #00af00',
    status3xx: 'bold #ffaf00',
    status4xx: 'bold #ff5f00',
    status5xx: 'bold #ff005f',
    headerName: '#ff5f00',
    key: '#ff5f00',
    string: '#0087d7',
    number: '#0087ff',
    literal: 'bold #ff5f00',
    meta: '#008700',
    tag: 'bold #ff5f00',
    attr: '#0087ff',
    comment: '#008700',
    keyword: 'bold #ff5f00',
  },
};

// Pygments' style definitions (pygments/styles/*.py), resolved token by token. A colour changed to
// keep 3:1 contrast says so, with the published value.

const MONOKAI = pygments('dark', '#272822', {
  function: '#a6e22e',
  namespace: '',
  reserved: '#66d9ef',
  attribute: '#a6e22e',
  tag: '#ff4689',
  string: '#e6db74',
  number: '#ae81ff',
  constant: '#66d9ef',
  comment: '#959077',
  keyword: '#66d9ef',
  status: ['#a6e22e', '#e6db74', '#ff4689', '#ed007e'],
});

// Solarized: the same accents on both; the base tones swap.
const SOLARIZED_ACCENTS = {
  function: '#268bd2',
  namespace: '#268bd2',
  reserved: '#859900',
  attribute: '',
  tag: '#268bd2',
  string: '#2aa198',
  number: '#2aa198',
  constant: '#2aa198',
  keyword: '#859900',
  // Red #dc322f's nearest is the orange's #d75f00: the next nearest, #d75f5f.
  status: ['#859900', '#b58900', '#cb4b16', '#d75f5f'] as [string, string, string, string],
};
// Comments: base01, published #586e75 (dark) and #93a1a1 (light), are 2.8:1 on #002b36 and 2.5:1
// on #fdf6e3: the greys #767676 and #8a8a8a. Cyan #2aa198 (xterm #00af87) is 2.6:1 on #fdf6e3:
// #008787 on the light one.
const SOLARIZED_DARK = pygments('dark', '#002b36', { ...SOLARIZED_ACCENTS, comment: '#767676' });
const SOLARIZED_LIGHT = pygments('light', '#fdf6e3', {
  ...SOLARIZED_ACCENTS,
  string: '#008787',
  number: '#008787',
  constant: '#008787',
  comment: '#8a8a8a',
});

const DRACULA = pygments('dark', '#282a36', {
  function: '#50fa7b',
  namespace: '',
  reserved: '#ff79c6',
  attribute: '#50fa7b',
  tag: '#ff79c6',
  string: '#bd93f9',
  number: '#ffb86c',
  constant: '#ff79c6',
  // Published #6272a4: its nearest, #5f5faf, is 2.5:1 on #282a36.
  comment: '#5f87af',
  keyword: '#ff79c6',
  status: ['#50fa7b', '#f1fa8c', '#ffb86c', '#ff5555'],
});

const NORD = pygments('dark', '#2e3440', {
  function: '#88c0d0',
  namespace: '#8fbcbb',
  reserved: 'bold #81a1c1',
  attribute: '#8fbcbb',
  tag: '#81a1c1',
  string: '#a3be8c',
  number: '#b48ead',
  constant: 'bold #81a1c1',
  // Published #616e87 is 2.4:1 on #2e3440 (and its nearest, #5f5f87, 2.1:1).
  comment: '#878787',
  keyword: 'bold #81a1c1',
  // Red, published #bf616a: its nearest, #af5f5f, is 2.8:1 on #2e3440.
  status: ['#a3be8c', '#ebcb8b', '#d08770', '#d75f5f'],
});

const GITHUB_DARK = pygments('dark', '#0d1117', {
  function: 'bold #d2a8ff',
  namespace: '#ff7b72',
  reserved: '#ff7b72',
  attribute: '',
  tag: '#7ee787',
  string: '#a5d6ff',
  number: '#a5d6ff',
  constant: '#79c0ff',
  comment: '#8b949e',
  keyword: '#ff7b72',
  status: ['#56d364', '#ffa657', '#ff7b72', '#f85149'],
});

const GRUVBOX_DARK = pygments('dark', '#282828', {
  function: '#8ec07c',
  namespace: '#8ec07c',
  reserved: '#fb4934',
  attribute: '#fabd2f',
  tag: '#8ec07c',
  string: '#b8bb26',
  number: '#d3869b',
  constant: '#fb4934',
  comment: '#928374',
  keyword: '#fb4934',
  status: ['#b8bb26', '#fabd2f', '#fe8019', '#fb4934'],
});

const GRUVBOX_LIGHT = pygments('light', '#fbf1c7', {
  function: '#427b58',
  namespace: '#427b58',
  reserved: '#9d0006',
  // Yellow, published #b57614: its nearest, #af8700, is 2.9:1 on #fbf1c7; the next nearest.
  attribute: '#af5f00',
  tag: '#427b58',
  string: '#79740e',
  number: '#8f3f71',
  constant: '#9d0006',
  comment: '#928374',
  keyword: '#9d0006',
  // Orange #af3a03's nearest is the yellow's #af5f00: its next nearest, #d75f00.
  status: ['#79740e', '#af5f00', '#d75f00', '#9d0006'],
});

const ONE_DARK = pygments('dark', '#282c34', {
  function: 'bold #61afef',
  namespace: '#e06c75',
  reserved: '#c678dd',
  attribute: '#e06c75',
  tag: '#e06c75',
  string: '#98c379',
  number: '#d19a66',
  constant: '#e5c07b',
  comment: '#7f848e',
  keyword: '#c678dd',
  status: ['#98c379', '#e5c07b', '#d19a66', '#e06c75'],
});

const NATIVE = pygments('dark', '#202020', {
  function: '#71adff',
  namespace: '#71adff',
  reserved: 'bold #6ebf26',
  attribute: '#bbbbbb',
  tag: 'bold #6ebf26',
  string: '#ed9d13',
  number: '#51b2fd',
  constant: 'bold #6ebf26',
  comment: '#ababab',
  keyword: 'bold #6ebf26',
  status: ['#6ebf26', '#ffa500', '#ff3a3a', '#e50808'],
});

/** The 256-colour themes by name (`auto` and `mono` are not themes: they have fixed palettes). */
export const THEMES: Readonly<Record<string, Theme>> = {
  default: DEFAULT,
  monokai: MONOKAI,
  'solarized-dark': SOLARIZED_DARK,
  'solarized-light': SOLARIZED_LIGHT,
  solarized: SOLARIZED_DARK,
  dracula: DRACULA,
  nord: NORD,
  'github-dark': GITHUB_DARK,
  'gruvbox-dark': GRUVBOX_DARK,
  'gruvbox-light': GRUVBOX_LIGHT,
  'one-dark': ONE_DARK,
  native: NATIVE,
  fruity: FRUITY,
};

/** The names `--style` takes, in the order help and errors list them. */
export const STYLE_NAMES: readonly string[] = ['default', 'auto', ...Object.keys(THEMES).filter((n) => n !== 'default'), 'mono'];

/**
 * HTTPie's style names that are not sling's (its own pie styles and the Pygments styles `http --help`
 * lists), each read as the nearest sling style, so that an HTTPie user's options work unchanged:
 * a style for any background, or for a light one, is `default`; a dark one the sling style nearest
 * in hues; the colourless ones `mono`. docs/usage.md lists them.
 */
// biome-ignore format: a word list, one background a line
export const STYLE_SYNONYMS: Readonly<Record<string, string>> = {
  // HTTPie's own (pie is its universal style; pie-dark and pie-light its variants for a background).
  pie: 'default', 'pie-dark': 'default', 'pie-light': 'default',
  // Light backgrounds.
  abap: 'default', arduino: 'default', autumn: 'default', borland: 'default', colorful: 'default', emacs: 'default',
  friendly: 'default', igor: 'default', lilypond: 'default', lovelace: 'default', manni: 'default', murphy: 'default',
  'paraiso-light': 'default', pastie: 'default', perldoc: 'default', rainbow_dash: 'default', sas: 'default',
  staroffice: 'default', stata: 'default', 'stata-light': 'default', tango: 'default', trac: 'default', vs: 'default',
  xcode: 'default',
  // Dark backgrounds.
  inkpot: 'native', rrt: 'native', vim: 'native', material: 'one-dark', 'stata-dark': 'one-dark',
  'nord-darker': 'nord', 'paraiso-dark': 'monokai', zenburn: 'gruvbox-dark',
  // No colours, only bold and italics.
  bw: 'mono', algol: 'mono', algol_nu: 'mono', friendly_grayscale: 'mono',
};

/** `solarized` is `solarized-dark`, its name before the light variant came. */
export const STYLE_ALIASES: Readonly<Record<string, string>> = { solarized: 'solarized-dark' };

export function isStyle(name: string): boolean {
  return STYLE_NAMES.includes(name);
}

export function unknownStyle(name: string): UsageError {
  return new UsageError(`unknown --style '${name}'`, `styles: ${STYLE_NAMES.join(', ')}`);
}

const LEVELS = [0, 95, 135, 175, 215, 255];

/** The RGB of xterm-256 colour n (16-255: the 6×6×6 cube, then 24 greys). */
export function xtermRgb(n: number): [number, number, number] {
  if (n >= 232) {
    const v = 8 + 10 * (n - 232);
    return [v, v, v];
  }
  const i = n - 16;
  return [LEVELS[Math.floor(i / 36)]!, LEVELS[Math.floor(i / 6) % 6]!, LEVELS[i % 6]!];
}

/** The index (0-5) of the cube level nearest to a channel value. */
function nearestLevel(c: number): number {
  let i = 0;
  while (i < 5 && Math.abs(LEVELS[i + 1]! - c) < Math.abs(LEVELS[i]! - c)) i++;
  return i;
}

/**
 * The xterm-256 colour nearest to '#rrggbb' (in RGB distance): the nearest of the 6×6×6 cube
 * (channel by channel) or the nearest grey (to the mean), whichever is nearer. Colours 0-15 are
 * left out: terminals redefine them.
 */
export function nearestXterm(hex: string): number {
  const v = Number.parseInt(hex.slice(1), 16);
  const rgb = [v >> 16, (v >> 8) & 255, v & 255];
  const cube = rgb.map(nearestLevel);
  const cubeIndex = 16 + 36 * cube[0]! + 6 * cube[1]! + cube[2]!;
  const grey = Math.min(23, Math.max(0, Math.round((rgb[0]! + rgb[1]! + rgb[2]! - 24) / 30)));
  let dCube = 0;
  let dGrey = 0;
  for (let i = 0; i < 3; i++) {
    dCube += (LEVELS[cube[i]!]! - rgb[i]!) ** 2;
    dGrey += (8 + 10 * grey - rgb[i]!) ** 2;
  }
  return dGrey < dCube ? 232 + grey : cubeIndex;
}

function build(theme: Theme): Palette {
  const p: Palette = { ...MONO, reset: AUTO.reset, control: AUTO.control };
  for (const [role, colour] of Object.entries(theme.colours) as [ColourRole, string][]) {
    if (!colour) continue;
    const bold = colour.startsWith('bold ');
    p[role] = `\x1b[${bold ? '1;' : ''}38;5;${nearestXterm(bold ? colour.slice(5) : colour)}m`;
  }
  return p;
}

const built = new Map<Theme, Palette>();

export function paletteFor(style: string | undefined): Palette {
  const name = style ?? 'default';
  if (name === 'auto') return AUTO;
  if (name === 'mono') return MONO;
  if (!Object.hasOwn(THEMES, name)) throw unknownStyle(name);
  const theme = THEMES[name]!;
  let p = built.get(theme);
  if (!p) built.set(theme, (p = build(theme)));
  return p;
}
