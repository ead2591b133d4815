import { parseJson, stringifyJson, type JsonValue } from '../request/json.js';
import type { Palette } from './palette.js';

/**
 * Indents JSON (4 spaces by default, DECISIONS.md), keeping the server's key order and number text;
 * `sorted` sorts keys. Returns null when the text is not JSON, so the caller prints it as it came.
 */
export function formatJson(text: string, opts: { indent: number; sorted: boolean; palette: Palette }): string | null {
  let value: JsonValue;
  try {
    value = parseJson(text.replace(/^\uFEFF/, ''));
  } catch {
    return null;
  }
  const p = opts.palette;
  const pad = (depth: number) => (opts.indent > 0 ? '\n' + ' '.repeat(opts.indent * depth) : '');
  const sep = opts.indent > 0 ? ': ' : ': ';
  const out: string[] = [];
  const c = (colour: string, s: string) => (colour ? colour + s + p.reset : s);
  const walk = (v: JsonValue | undefined, depth: number) => {
    if (v === undefined) return void out.push(c(p.literal, 'null'));
    switch (v.t) {
      case 'obj': {
        if (v.m.size === 0) return void out.push(c(p.punct, '{}'));
        let entries = [...v.m];
        if (opts.sorted) entries = entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
        out.push(c(p.punct, '{'));
        entries.forEach(([k, x], i) => {
          out.push(pad(depth + 1), c(p.key, stringifyJson({ t: 'str', v: k }, false)), c(p.punct, sep.trimEnd()), ' ');
          walk(x, depth + 1);
          if (i < entries.length - 1) out.push(c(p.punct, ','));
        });
        out.push(pad(depth), c(p.punct, '}'));
        return;
      }
      case 'arr': {
        if (v.a.length === 0) return void out.push(c(p.punct, '[]'));
        out.push(c(p.punct, '['));
        v.a.forEach((x, i) => {
          out.push(pad(depth + 1));
          walk(x, depth + 1);
          if (i < v.a.length - 1) out.push(c(p.punct, ','));
        });
        out.push(pad(depth), c(p.punct, ']'));
        return;
      }
      case 'str':
        return void out.push(c(p.string, stringifyJson(v, false)));
      case 'num':
        return void out.push(c(p.number, v.raw));
      default:
        return void out.push(c(p.literal, stringifyJson(v)));
    }
  };
  walk(value, 0);
  return out.join('');
}

export function isJsonType(contentType: string | undefined): boolean {
  if (!contentType) return false;
  const mime = contentType.split(';')[0]!.trim().toLowerCase();
  return mime === 'application/json' || mime.endsWith('+json') || mime === 'text/json' || mime === 'application/x-json' || mime.endsWith('/json');
}
