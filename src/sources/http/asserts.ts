/**
 * httpyac assertions, `?? FIELD [VALUE] PREDICATE [EXPECTED]` on a line of a request:
 *
 *   ?? status == 200
 *   ?? header content-type includes json
 *   ?? body user.name == Ada              (a property path into the JSON body)
 *   ?? js response.parsedBody.items.length > 0
 *   ?? duration < 500
 *   ?? xpath /store/book/title == Ada    (XPath 1.0 over the XML body; `@xpath_ns p=uri` binds prefixes)
 *
 * The line is read here, when the file is parsed; assert-run.ts checks it against the response.
 */

export type AssertField = 'status' | 'header' | 'body' | 'js' | 'duration' | 'xpath';

export type Predicate =
  | '=='
  | '!='
  | '>'
  | '>='
  | '<'
  | '<='
  | 'startsWith'
  | 'endsWith'
  | 'includes'
  | 'exists'
  | 'isFalse'
  | 'isNumber'
  | 'isString'
  | 'isBoolean'
  | 'isArray'
  | 'matches'
  | 'md5'
  | 'sha256'
  | 'sha512';

/** Every spelling httpyac accepts, in lower case, and what it means. */
const WORDS: Record<string, Predicate> = {
  '==': '==',
  '===': '==',
  equals: '==',
  '!=': '!=',
  '!==': '!=',
  '>': '>',
  '>=': '>=',
  '<': '<',
  '<=': '<=',
  startswith: 'startsWith',
  endswith: 'endsWith',
  includes: 'includes',
  contains: 'includes',
  exists: 'exists',
  istrue: 'exists',
  isfalse: 'isFalse',
  isnumber: 'isNumber',
  isstring: 'isString',
  isboolean: 'isBoolean',
  isarray: 'isArray',
  matches: 'matches',
  md5: 'md5',
  sha256: 'sha256',
  sha512: 'sha512',
};

const SYMBOLS = ['===', '!==', '==', '!=', '>=', '<=', '>', '<'];
const FIELDS = new Set<string>(['status', 'header', 'body', 'js', 'duration', 'xpath']);

export interface ParsedAssert {
  field: AssertField;
  /** What follows the field: a header name, a property path, an expression (may be empty). */
  value: string;
  predicate: Predicate;
  /** The predicate as written (for the test's name). */
  spelled: string;
  /** The text after the predicate (may hold {{variables}}), and where it starts in the line. */
  expected: string;
  expectedAt: number;
}

/**
 * Reads `?? ...` (the line, trimmed, starting with `??`). The predicate is the first word after the
 * field that is one (`==200` works too); a string is what is wrong with the line.
 */
export function parseAssert(line: string): ParsedAssert | string {
  const body = line.slice(2);
  // The field is a word; a predicate symbol may follow it without a space (`?? status==200`).
  const fieldMatch = /^\s*([a-z]+(?=[=!<>])|\S+)/i.exec(body);
  if (!fieldMatch) return 'an httpyac assertion needs a field: ?? status == 200';
  const field = fieldMatch[1]!;
  if (!FIELDS.has(field)) return `'${field}' is not a field httpyac asserts on (status, header, body, js, duration, xpath)`;
  const restAt = 2 + fieldMatch[0].length;
  const words = /\S+/g;
  words.lastIndex = restAt;
  for (let m = words.exec(line); m; m = words.exec(line)) {
    const word = m[0];
    let spelled: string | undefined;
    let end = m.index + word.length;
    const notEquals = word.toLowerCase() === 'not' ? /^\s+equals(?=\s|$)/i.exec(line.slice(end)) : null;
    if (WORDS[word.toLowerCase()] !== undefined) spelled = word;
    else if (notEquals) {
      spelled = 'not equals';
      end += notEquals[0].length;
    } else {
      // A symbol run into its expected value: `==200`, `>=3`.
      const sym = SYMBOLS.find((s) => word.startsWith(s));
      if (sym) {
        spelled = sym;
        end = m.index + sym.length;
      }
    }
    if (spelled === undefined) continue;
    // `field` directly followed by the predicate, or separated by the value.
    const value = line.slice(restAt, m.index).trim();
    const predicate = spelled === 'not equals' ? '!=' : WORDS[spelled.toLowerCase()]!;
    const tail = line.slice(end);
    const expected = tail.trim();
    const expectedAt = end + (tail.length - tail.trimStart().length);
    if (field === 'header' && !value) return 'an httpyac header assertion names the header: ?? header content-type includes json';
    if (field === 'xpath' && !value) return 'an httpyac xpath assertion needs an expression: ?? xpath /store/book/title == Ada';
    if (field === 'js' && !value) return 'an httpyac js assertion needs an expression: ?? js response.parsedBody.id == 1';
    return { field: field as AssertField, value, predicate, spelled, expected, expectedAt };
  }
  return `no predicate in the httpyac assertion (==, !=, <, >, includes, exists, matches, ...)`;
}
