import type { FileAccess } from './body.js';

/**
 * curl's list of -H headers: `Name: value` is sent (and replaces curl's own header of that name),
 * `Name:` only removes curl's own, `Name;` sends the header empty, `@file` reads one header a line.
 */
export interface CustomHeader {
  name: string;
  /** undefined: a removal (`Name:`); '' with empty: send it empty (`Name;`). */
  value?: string;
  line: string;
  /** The blanks between the colon and the value as written, when they are not one space (`-H 'X-A:1'`): curl sends the line as written. */
  gap?: string;
}

/** -H values as curl's custom header list: `Name: value`, `Name:` (remove), `Name;` (send empty). */
export function customHeaders(raw: string[], files: FileAccess): CustomHeader[] {
  const lines: string[] = [];
  for (const h of raw) {
    if (h.startsWith('@')) {
      const text = files.read(h.slice(1));
      if (text === undefined) {
        files.warn(`cannot read headers from the file '${h.slice(1)}'`);
        continue;
      }
      for (const line of text.split('\n')) {
        const l = line.replace(/\r$/, '');
        if (l.trim()) lines.push(l);
      }
    } else lines.push(h);
  }
  const out: CustomHeader[] = [];
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon !== -1) {
      const name = line.slice(0, colon);
      // A header without a name is not sent.
      if (!name) continue;
      const value = line.slice(colon + 1).replace(/^[ \t]+/, '');
      const gap = line.slice(colon + 1, line.length - value.length);
      // `Name:` with nothing after the colon removes curl's own header of that name.
      out.push({ name, value: value.replace(/[ \t\r\n]+$/, '') === '' ? undefined : value, line, ...(gap !== ' ' ? { gap } : {}) });
      continue;
    }
    // `Name;` sends the header with an empty value; anything after the `;` makes it ignored.
    const semi = line.indexOf(';');
    if (semi !== -1 && line.slice(semi + 1).trim() === '') out.push({ name: line.slice(0, semi), value: '', line });
  }
  return out;
}
