import { UsageError } from '../errors.js';

/**
 * The request-item grammar of HTTPie (docs/decisions.md, Request items: all of it). An item is split at the first
 * unescaped separator; when several separators start at the same place the longest wins
 * (`a:=@f` is `:=@`, not `:`). A backslash before one of the separator characters makes it
 * literal; any other backslash is kept for later stages (nested JSON paths read `\[`, `\]`, `\\`).
 */
export type Separator = '==' | '==@' | ':' | ':@' | ';' | '=' | ':=' | '=@' | ':=@' | '@';

export type ItemKind =
  | 'query' // ==
  | 'query-file' // ==@
  | 'header' // :
  | 'header-file' // :@
  | 'header-empty' // ;
  | 'data' // =
  | 'data-file' // =@
  | 'json' // :=
  | 'json-file' // :=@
  | 'file'; // @ (upload, or the whole body when the key is empty)

export interface Item {
  kind: ItemKind;
  key: string;
  value: string;
  sep: Separator;
  /** The argument as the user typed it, for error messages. */
  orig: string;
}

const SEPARATORS: [Separator, ItemKind][] = [
  // Sorted by length so that, at one position, a longer separator replaces a shorter one.
  [':', 'header'],
  [';', 'header-empty'],
  ['=', 'data'],
  ['@', 'file'],
  ['==', 'query'],
  [':=', 'json'],
  ['=@', 'data-file'],
  [':@', 'header-file'],
  ['==@', 'query-file'],
  [':=@', 'json-file'],
];
const SPECIAL = new Set([':', ';', '=', '@']);

type Token = { text: string; escaped: boolean };

function tokenize(s: string): Token[] {
  const tokens: Token[] = [{ text: '', escaped: false }];
  for (let i = 0; i < s.length; i++) {
    const ch = s[i]!;
    if (ch === '\\') {
      const next = i + 1 < s.length ? s[++i]! : '';
      if (SPECIAL.has(next)) tokens.push({ text: next, escaped: true }, { text: '', escaped: false });
      else tokens[tokens.length - 1]!.text += '\\' + next;
    } else {
      tokens[tokens.length - 1]!.text += ch;
    }
  }
  return tokens;
}

/** Parses one request item; null when it has no separator (then it is not an item at all). */
export function tryParseItem(arg: string): Item | null {
  const tokens = tokenize(arg);
  for (let t = 0; t < tokens.length; t++) {
    const tok = tokens[t]!;
    if (tok.escaped) continue;
    let bestPos = -1;
    let best: [Separator, ItemKind] | null = null;
    for (const entry of SEPARATORS) {
      const pos = tok.text.indexOf(entry[0]);
      if (pos === -1) continue;
      if (bestPos === -1 || pos < bestPos || (pos === bestPos && entry[0].length >= best![0].length)) {
        bestPos = pos;
        best = entry;
      }
    }
    if (!best) continue;
    const key =
      tokens
        .slice(0, t)
        .map((x) => x.text)
        .join('') + tok.text.slice(0, bestPos);
    const value =
      tok.text.slice(bestPos + best[0].length) +
      tokens
        .slice(t + 1)
        .map((x) => x.text)
        .join('');
    return { kind: best[1], key, value, sep: best[0], orig: arg };
  }
  return null;
}

export function parseItem(arg: string): Item {
  const item = tryParseItem(arg);
  if (!item) {
    throw new UsageError(`'${arg}' is not a request item (expected name==value, Header:value, name=value, name:=json, @file, ...)`);
  }
  return item;
}
