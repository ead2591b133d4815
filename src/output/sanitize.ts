/**
 * Text from the network must not drive the user's terminal: escape sequences could move the
 * cursor, set the window title or write the clipboard. On a terminal every C0/C1 control
 * character except tab and newline is shown as a visible picture (ESC as ␛, U+241B).
 */
// eslint-disable-next-line no-control-regex
const CONTROLS = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\x80-\x9f]|\r(?!\n)/g;

export function neutralise(text: string, mark = '', reset = ''): string {
  return text.replace(CONTROLS, (c) => {
    const code = c.charCodeAt(0);
    let shown: string;
    if (code < 0x20) shown = String.fromCharCode(0x2400 + code);
    else if (code === 0x7f) shown = '\u2421';
    else shown = `\\x${code.toString(16)}`;
    return mark + shown + reset;
  });
}

export const hasControls = (text: string) => {
  CONTROLS.lastIndex = 0;
  return CONTROLS.test(text);
};
