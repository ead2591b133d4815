import { oneLine, UsageError } from '../errors.js';

/**
 * The last word on a request head before its bytes are made, in every client (h1.ts and
 * client.ts for HTTP/1.1, h2.ts for HTTP/2): a CR, LF or NUL in the method, the request
 * target or a header's name or value would end a line early and let the text after it go out as a
 * header or a request of its own (a token from a server's answer holding `\r\nX-Injected: yes`,
 * say). Such a request is refused whole, naming what holds the character; nothing is sent. The
 * front ends say it first where they can (a .http header's file position, an item of the command
 * line); this check is what holds whatever path a value took to get here (a script's
 * `client.global.headers`, a placeholder in a curl line, a session file's cookies).
 */

export type HeadLines = readonly (readonly [string, string])[];

const BREAK = /[\r\n\0]/;

/** The character, as a reader would name it. */
function what(c: string): string {
  return c === '\r' ? 'a line break (CR)' : c === '\n' ? 'a line break (LF)' : 'a NUL character';
}

const clip = (s: string) => oneLine(s.length > 60 ? `${s.slice(0, 57)}...` : s);

/** Undefined when the head can go on the wire; else the error that says what would break it. */
export function headProblem(method: string, target: string, headers: HeadLines): UsageError | undefined {
  let m = BREAK.exec(method);
  if (m) return new UsageError(`the method '${clip(method)}' holds ${what(m[0])}, which would split the request line: the request was not sent`);
  m = BREAK.exec(target);
  if (m) return new UsageError(`the request target '${clip(target)}' holds ${what(m[0])}, which would split the request line: the request was not sent`);
  for (let i = 0; i < headers.length; i++) {
    const [name, value] = headers[i]!;
    m = BREAK.exec(name);
    if (m) return new UsageError(`the header name '${clip(name)}' holds ${what(m[0])}, which would split the header: the request was not sent`);
    m = BREAK.exec(value);
    // The value is not shown: it may be a credential.
    if (m) return new UsageError(`the value of the header '${clip(name)}' holds ${what(m[0])} at character ${m.index + 1}, which would end the header early: the request was not sent`);
  }
  return undefined;
}

/** headProblem as a throw: the request goes no further. */
export function checkHead(method: string, target: string, headers: HeadLines): void {
  const problem = headProblem(method, target, headers);
  if (problem) throw problem;
}
