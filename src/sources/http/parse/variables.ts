import { clip, type Pass } from './pass.js';
import { startsRequest } from './request-line.js';

// File variables: `@name = value` (and httpyac's lazy `@name := value`), before a request or in a
// paragraph of their own after one.

/** httpyac's `@xpath_ns prefix=uri` (the URI may be quoted): a namespace prefix for `?? xpath`. */
const XPATH_NS = /^@xpath_ns\s+([^\s=:]*)\s*=\s*(.*)$/;
const VAR_NAME = /^[\p{L}\p{N}_.\-$]+$/u;
const ESCAPES: Record<string, string> = { n: '\n', r: '\r', t: '\t', '\\': '\\' };
const unescapeValue = (s: string) => s.replace(/\\([nrt\\])/g, (_, c: string) => ESCAPES[c]!);

/** A trimmed line written as a file variable: `@name = value`, `@name := value` (a name sling takes). */
export function isFileVar(t: string): boolean {
  if (XPATH_NS.test(t)) return true;
  const m = /^@([^\s=:]+)\s*:?=/.exec(t);
  return m !== null && VAR_NAME.test(m[1]!);
}

/** The file variable on the trimmed line `t` (line `ln`, starting at column `col`), added to the file's variables. */
export function fileVar(p: Pass, t: string, ln: number, col: number) {
  const ns = XPATH_NS.exec(t);
  if (ns) {
    const prefix = ns[1]!;
    if (!prefix) p.fail(ln, col, `@xpath_ns needs a prefix: '@xpath_ns prefix=uri', got '${clip(t)}'`);
    const quoted = /^"(.*)"$/.exec(ns[2]!);
    const text = quoted ? quoted[1]! : ns[2]!;
    (p.out.xpathNs ??= []).push({ line: ln, prefix, uri: p.template(text, ln, col + t.indexOf(ns[2]!, 9) + (quoted ? 1 : 0), true) });
    return;
  }
  // httpyac's lazy `@name := value` is read like `=`: sling works out a file variable when a request uses it.
  // (`t` is trimmed: the value needs no `\s*$`, which with `(.*?)` was quadratic in a run of blanks inside it.)
  const m = /^@([^\s=:]+)\s*:?=\s*(.*)$/.exec(t);
  if (!m) p.fail(ln, col, `a file variable is written '@name = value', got '${clip(t)}'`);
  const name = m[1]!;
  if (!VAR_NAME.test(name)) p.fail(ln, col + 1, `'${name}' is not a valid variable name (letters, digits, _ - . only)`);
  let value = p.template(m[2]!, ln, col + t.indexOf(m[2]!, name.length + 1), true);
  // REST Client's escapes in a file variable's text: \n, \r, \t and \\ (any other backslash stays).
  if (m[2]!.includes('\\')) value = typeof value === 'string' ? unescapeValue(value) : value.map((v) => (typeof v === 'string' ? unescapeValue(v) : v));
  const defs = p.out.vars.get(name);
  if (defs) defs.push({ line: ln, value });
  else p.out.vars.set(name, [{ line: ln, value }]);
}

/**
 * From the current line (which starts with `@`, not indented: an indented line is body, which is
 * how `--to http` writes such a body line) to the end of its paragraph (a blank line, `###`,
 * the end of the file, a response handler, an assertion or the next request): only file
 * variables (`@name = value`, `@name := value`) and comment lines. The lines of the paragraph
 * above the current one are comments (the caller knows). A paragraph with any other line is
 * body as written: `@mention` in a text, `@a = 1` under a line of text, a multipart part.
 */
export function varsParagraph(p: Pass): boolean {
  let vars = 0;
  for (let j = p.i; j < p.lines.length; j++) {
    const l = p.lines[j]!;
    const t = l.trim();
    if (t === '' || l.startsWith('###')) break;
    if (t.startsWith('#') || t.startsWith('//')) continue;
    if (l.charCodeAt(0) === 64 /* @ */) {
      if (!isFileVar(t)) return false;
      vars++;
      continue;
    }
    if (j > p.i && (t.startsWith('>') || t.startsWith('??') || t.startsWith('<>') || startsRequest(l))) break;
    return false;
  }
  return vars > 0;
}
