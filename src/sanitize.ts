/**
 * Text from the network must not drive the user's terminal: escape sequences could move the
 * cursor, set the window title, write the clipboard or make a hyperlink, and bidirectional controls
 * reorder what a person reads (`invoice\u202egnp.exe` reads as `invoiceexe.png`).
 *
 * The rule, for everything sling prints that comes from outside (response heads and bodies, what
 * scripts log, test names and messages, values quoted in messages): on a terminal, every C0 and C1
 * control character except tab and newline, and every bidirectional control (U+202A-U+202E,
 * U+2066-U+2069) and mark (U+200E, U+200F, U+061C), is shown as something visible: a C0 control
 * as its picture (ESC as ␛, U+241B; DEL as ␡), any other as an escape (`\x9b`, `\u202e`).
 * Piped or redirected, stdout keeps the bytes as they came (a body, a script's log: data for the
 * next program). A message on stderr is always one line with these characters as escapes
 * (errors.ts: oneLine), terminal or not.
 */
/** The bidirectional controls and marks, as a character class's contents. */
export const BIDI = '\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069';
const CONTROLS = new RegExp(`[\\x00-\\x08\\x0b\\x0c\\x0e-\\x1f\\x7f-\\x9f${BIDI}]|\\r(?!\\n)`, 'g');
/** Only what is not C0 (C1 and bidirectional controls): what valid JSON can hold raw in a string. */
const BEYOND_C0 = new RegExp(`[\\x80-\\x9f${BIDI}]`, 'g');

/** A character without a picture of its own, as a visible escape: `\x9b`, `\u202e`. */
export function escapeCode(code: number): string {
  return code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

export function neutralise(text: string, mark = '', reset = ''): string {
  return text.replace(CONTROLS, (c) => {
    const code = c.charCodeAt(0);
    let shown: string;
    if (code < 0x20) shown = String.fromCharCode(0x2400 + code);
    else if (code === 0x7f) shown = '\u2421';
    else shown = escapeCode(code);
    return mark + shown + reset;
  });
}

/**
 * Formatted JSON for a terminal: valid JSON holds no raw C0 control (the formatter's own colour
 * escapes are the only ones), but a string may hold C1 and bidirectional controls, shown as
 * escapes (without a colour mark: the string's colour goes on around them).
 */
export function neutraliseJson(out: Buffer): Buffer | string {
  // Their UTF-8 forms start with C2 (C1), D8 (U+061C) or E2 (the others): most bodies have none.
  if (!out.includes(0xc2) && !out.includes(0xd8) && !out.includes(0xe2)) return out;
  const text = out.toString('utf8');
  BEYOND_C0.lastIndex = 0;
  if (!BEYOND_C0.test(text)) return out;
  return text.replace(BEYOND_C0, (c) => escapeCode(c.charCodeAt(0)));
}

export const hasControls = (text: string) => {
  CONTROLS.lastIndex = 0;
  return CONTROLS.test(text);
};
