// The colour styles: every colour of every style keeps a WCAG contrast ratio of at least 3:1 on
// the backgrounds the style is made for, computed from the xterm-256 colour sling prints (not from
// the published value it was taken from); the styles HTTPie users use most are there; the escape
// sequences are the nearest xterm-256 colours to the published ones.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { THEMES, STYLE_NAMES, isStyle, nearestXterm, paletteFor, type ColourRole } from '../../src/output/palette.js';

/** xterm-256 colour n as RGB, written out here rather than taken from the code under test. */
function rgb256(n: number): [number, number, number] {
  assert.ok(n >= 16 && n <= 255, `colour ${n}: 0-15 depend on the terminal`);
  if (n >= 232) return [8 + 10 * (n - 232), 8 + 10 * (n - 232), 8 + 10 * (n - 232)];
  const level = (i: number) => (i === 0 ? 0 : 55 + 40 * i);
  const i = n - 16;
  return [level(Math.floor(i / 36)), level(Math.floor(i / 6) % 6), level(i % 6)];
}

const hexRgb = (hex: string): [number, number, number] => {
  const v = Number.parseInt(hex.slice(1), 16);
  return [v >> 16, (v >> 8) & 255, v & 255];
};

/** WCAG 2 relative luminance. */
function luminance([r, g, b]: [number, number, number]): number {
  const lin = (c: number) => {
    const s = c / 255;
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
}

function contrast(a: [number, number, number], b: [number, number, number]): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
}

const ROLES: ColourRole[] = [
  'method',
  'url',
  'version',
  'status2xx',
  'status3xx',
  'status4xx',
  'status5xx',
  'headerName',
  'headerValue',
  'key',
  'string',
  'number',
  'literal',
  'punct',
  'meta',
  'tag',
  'attr',
  'comment',
  'keyword',
];

test('palette: the ten Pygments styles HTTPie users use most are there, and solarized stays', () => {
  for (const name of [
    'monokai',
    'solarized-dark',
    'solarized-light',
    'dracula',
    'nord',
    'github-dark',
    'gruvbox-dark',
    'gruvbox-light',
    'one-dark',
    'native',
    'solarized',
    'default',
    'auto',
    'fruity',
    'mono',
  ]) {
    assert.ok(STYLE_NAMES.includes(name), name);
  }
  assert.equal(paletteFor('solarized'), paletteFor('solarized-dark'));
  assert.notEqual(paletteFor('solarized-light'), paletteFor('solarized-dark'));
  // A name an object has by inheritance is not a style.
  for (const name of ['constructor', 'toString', '__proto__', 'hasOwnProperty']) {
    assert.equal(isStyle(name), false, name);
    assert.throws(() => paletteFor(name), /unknown --style/);
  }
});

test('palette: every colour of every style has 3:1 contrast on the backgrounds it is made for', () => {
  const failures: string[] = [];
  let checked = 0;
  for (const name of STYLE_NAMES) {
    if (name === 'auto' || name === 'mono') continue; // the terminal's own colours; none
    const theme = THEMES[name]!;
    const own = theme.background ? [theme.background] : [];
    const backgrounds = { dark: ['#000000', '#1e1e1e', ...own], light: ['#ffffff', ...own], any: ['#000000', '#1e1e1e', '#ffffff'] }[theme.on];
    const palette = paletteFor(name);
    let coloured = 0;
    for (const role of ROLES) {
      const esc = palette[role];
      if (esc === '') continue; // the terminal's own text colour
      const m = /^\x1b\[(?:1;)?38;5;(\d+)m$/.exec(esc);
      assert.ok(m, `${name} ${role}: ${JSON.stringify(esc)} is not an xterm-256 colour`);
      coloured++;
      for (const bg of backgrounds) {
        const ratio = contrast(rgb256(Number(m[1])), hexRgb(bg));
        checked++;
        if (ratio < 3) failures.push(`${name} ${role}: colour ${m[1]} on ${bg} is ${ratio.toFixed(2)}:1`);
      }
    }
    assert.ok(coloured >= 12, `${name}: only ${coloured} roles coloured`);
  }
  assert.deepEqual(failures, []);
  assert.ok(checked > 500, `only ${checked} pairs checked`);
});

test('palette: a published colour becomes the nearest xterm-256 colour', () => {
  // Exact xterm colours stay themselves; near ones go to the nearest (RGB distance).
  assert.equal(nearestXterm('#ff5f00'), 202);
  assert.equal(nearestXterm('#808080'), 244);
  assert.equal(nearestXterm('#ff4689'), 204); // monokai's Name.Tag (255,95,135)
  assert.equal(nearestXterm('#ff79c6'), 212); // dracula's pink (255,135,215)
  assert.equal(nearestXterm('#8ec07c'), 108); // gruvbox's aqua (135,175,135)
  assert.equal(nearestXterm('#000000'), 16);
  assert.equal(nearestXterm('#ffffff'), 231);
  assert.equal(nearestXterm('#767676'), 243);
  // No xterm colour (16-255) is nearer than the one chosen, over a grid of the RGB cube.
  const distance = (n: number, c: [number, number, number]) => rgb256(n).reduce((d, v, i) => d + (v - c[i]!) ** 2, 0);
  for (let r = 0; r < 256; r += 11) {
    for (let g = 3; g < 256; g += 11) {
      for (let b = 7; b < 256; b += 11) {
        const hex = `#${[r, g, b].map((v) => v.toString(16).padStart(2, '0')).join('')}`;
        const chosen = distance(nearestXterm(hex), [r, g, b]);
        for (let n = 16; n < 256; n++) if (distance(n, [r, g, b]) < chosen) assert.fail(`${hex}: ${nearestXterm(hex)}, but ${n} is nearer`);
      }
    }
  }
  // Every theme colour is exact hex, and bold only as 'bold #rrggbb'.
  for (const [name, theme] of Object.entries(THEMES)) {
    for (const [role, c] of Object.entries(theme.colours)) assert.match(c, /^(?:(?:bold )?#[0-9a-f]{6})?$/, `${name} ${role}`);
  }
  assert.equal(paletteFor('monokai').key, '\x1b[38;5;204m');
  assert.equal(paletteFor('monokai').method, '\x1b[1;38;5;148m');
  assert.equal(paletteFor('native').key, '\x1b[1;38;5;70m');
  assert.equal(paletteFor('monokai').url, '', "monokai's Name.Namespace is its plain text colour");
});
