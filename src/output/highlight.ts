import type { Palette } from './palette.js';

/**
 * Highlighting (and, for XML, indentation) of markup and code bodies. Small hand-written scanners:
 * they colour what they recognise and copy everything else as it is, so a body they do not fully
 * understand is still shown whole and unchanged.
 */
const paint = (colour: string, s: string, p: Palette) => (colour && s ? colour + s + p.reset : s);

/** XML and HTML: tags, attribute names and values, comments, doctype, CDATA. */
export function highlightMarkup(text: string, p: Palette): string {
  let out = '';
  const re = /<!--[\s\S]*?(?:-->|$)|<!\[CDATA\[[\s\S]*?(?:\]\]>|$)|<![^>]*>?|<\?[\s\S]*?(?:\?>|$)|<\/?[A-Za-z_][^\s/>]*(?:\s+[^\s=/>]+(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s>]+))?)*\s*\/?>/g;
  let last = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    out += text.slice(last, m.index);
    last = m.index + m[0].length;
    const tok = m[0];
    if (tok.startsWith('<!--') || tok.startsWith('<![CDATA[')) out += paint(p.comment, tok, p);
    else if (tok.startsWith('<!') || tok.startsWith('<?')) out += paint(p.meta, tok, p);
    else {
      const t = /^(<\/?)([^\s/>]+)([\s\S]*?)(\/?>)$/.exec(tok)!;
      let attrs = '';
      // `(?<!\s)`: tried from the first blank of a run only (from each blank, a tag with 40,000 took 1.6 s).
      const ar = /(?<!\s)(\s+)([^\s=/>]+)(?:(\s*=\s*)("[^"]*"|'[^']*'|[^\s>]+))?/g;
      let a = 0;
      for (let x = ar.exec(t[3]!); x; x = ar.exec(t[3]!)) {
        attrs += t[3]!.slice(a, x.index) + x[1] + paint(p.attr, x[2]!, p) + (x[3] ?? '') + (x[4] ? paint(p.string, x[4], p) : '');
        a = x.index + x[0].length;
      }
      attrs += t[3]!.slice(a);
      out += paint(p.punct, t[1]!, p) + paint(p.tag, t[2]!, p) + attrs + paint(p.punct, t[4]!, p);
    }
  }
  return out + text.slice(last);
}

/**
 * Indents XML: one element per line, `indent` spaces a level; text-only elements stay on one line,
 * whitespace-only text between tags is dropped. Returns null for text that does not look like
 * well-nested XML (then it is shown as it came).
 */
export function indentXml(text: string, indent: number): string | null {
  const tokens = text.match(/<!--[\s\S]*?-->|<!\[CDATA\[[\s\S]*?\]\]>|<![^>]*>|<\?[\s\S]*?\?>|<[^>]+>|[^<]+/g);
  if (!tokens) return null;
  const lines: string[] = [];
  const stack: string[] = [];
  const pad = () => ' '.repeat(indent * stack.length);
  for (let k = 0; k < tokens.length; k++) {
    const tok = tokens[k]!;
    if (!tok.startsWith('<')) {
      if (tok.trim()) lines.push(pad() + tok.trim());
      continue;
    }
    if (tok.startsWith('</')) {
      const name = tok.slice(2, -1).trim();
      if (stack.pop() !== name) return null;
      lines.push(pad() + tok);
      continue;
    }
    if (tok.startsWith('<!') || tok.startsWith('<?') || tok.endsWith('/>')) {
      lines.push(pad() + tok);
      continue;
    }
    const name = /^<([^\s/>]+)/.exec(tok)?.[1];
    if (!name) return null;
    // <a>text</a> stays on one line.
    const next = tokens[k + 1];
    const after = tokens[k + 2];
    if (next !== undefined && !next.startsWith('<') && after === `</${name}>`) {
      lines.push(pad() + tok + next + after);
      k += 2;
      continue;
    }
    if (next === `</${name}>`) {
      lines.push(pad() + tok + next);
      k += 1;
      continue;
    }
    lines.push(pad() + tok);
    stack.push(name);
  }
  if (stack.length) return null;
  return lines.join('\n');
}

const JS_KEYWORDS = new Set(
  'async await break case catch class const continue debugger default delete do else export extends false finally for function if import in instanceof let new null of return static super switch this throw true try typeof undefined var void while with yield'.split(
    ' ',
  ),
);

/** JavaScript: keywords, strings, template strings, numbers, comments. */
export function highlightJs(text: string, p: Palette): string {
  const re = /\/\/[^\n]*|\/\*[\s\S]*?(?:\*\/|$)|"(?:[^"\\\n]|\\.)*"?|'(?:[^'\\\n]|\\.)*'?|`(?:[^`\\]|\\.)*`?|\b\d[\d_]*(?:\.\d+)?(?:[eE][+-]?\d+)?\b|\b[A-Za-z_$][\w$]*\b/g;
  return text.replace(re, (tok) => {
    const c = tok[0]!;
    if (tok.startsWith('//') || tok.startsWith('/*')) return paint(p.comment, tok, p);
    if (c === '"' || c === "'" || c === '`') return paint(p.string, tok, p);
    if (/\d/.test(c)) return paint(p.number, tok, p);
    return JS_KEYWORDS.has(tok) ? paint(p.keyword, tok, p) : tok;
  });
}

/** CSS: selectors, properties, values, strings, comments, at-rules. */
export function highlightCss(text: string, p: Palette): string {
  // A property name starts a word ((?<![\w-]): tried once per word, not at each of its letters) and
  // is one when a ';' or '}' comes before any '{' after its colon: looked up in `declares`, made in
  // one pass from the end (a lookahead for it from each colon was quadratic in a long run of `a:`).
  const declares = new Uint8Array(text.length + 1);
  for (let i = text.length - 1; i >= 0; i--) {
    const c = text.charCodeAt(i);
    declares[i] = c === 0x3b || c === 0x7d ? 1 : c === 0x7b ? 0 : declares[i + 1]!;
  }
  const re = /\/\*[\s\S]*?(?:\*\/|$)|"(?:[^"\\]|\\.)*"?|'(?:[^'\\]|\\.)*'?|@[\w-]+|(?<![\w-])([\w-]+)(\s*:)|-?\d+(?:\.\d+)?(?:%|[a-z]+)?|#[0-9a-fA-F]{3,8}\b/g;
  return text.replace(re, (tok: string, prop: string | undefined, colon: string | undefined, at: number) => {
    if (tok.startsWith('/*')) return paint(p.comment, tok, p);
    if (tok[0] === '"' || tok[0] === "'") return paint(p.string, tok, p);
    if (tok[0] === '@') return paint(p.keyword, tok, p);
    if (prop !== undefined) return declares[at + tok.length] ? paint(p.attr, prop, p) + colon : tok;
    return paint(p.number, tok, p);
  });
}

/** application/x-www-form-urlencoded: names, values and separators. */
export function highlightForm(text: string, p: Palette): string {
  return text
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      return eq === -1 ? paint(p.key, pair, p) : paint(p.key, pair.slice(0, eq), p) + paint(p.punct, '=', p) + paint(p.string, pair.slice(eq + 1), p);
    })
    .join(paint(p.punct, '&', p));
}

export type BodyKind = 'json' | 'xml' | 'html' | 'css' | 'js' | 'form' | 'text';

export function bodyKind(mime: string | undefined): BodyKind {
  if (!mime) return 'text';
  if (mime === 'application/json' || mime.endsWith('+json') || mime.endsWith('/json') || mime === 'application/x-json') return 'json';
  if (mime === 'text/html' || mime === 'application/xhtml+xml') return 'html';
  if (mime.endsWith('/xml') || mime.endsWith('+xml')) return 'xml';
  if (mime === 'text/css') return 'css';
  if (/javascript|ecmascript/.test(mime)) return 'js';
  if (mime === 'application/x-www-form-urlencoded') return 'form';
  return 'text';
}
