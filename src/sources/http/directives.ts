import { MAX_TIMER_MS } from '../../clock.js';
import type { Directives } from './ast.js';

/**
 * `# @directive value` / `// @directive value` comment lines: JetBrains (`@name`, `@no-redirect`,
 * `@no-cookie-jar`, `@timeout`, `@connection-timeout`, `@no-log`, `@no-auto-encoding`), REST Client
 * (`@name`, `@prompt`, `@note`), httpyac (`@ref`, `@forceRef`, `@disabled`, `@sleep`, `@injectVariables`,
 * `@no-reject-unauthorized`, `@title`, `@description`) and rest.nvim/kulala (`@lang=lua`).
 * Anything else is an unknown directive (a warning), except `# @host = x`: a commented-out file
 * variable, silently a comment. Returns the request name or the Lua marker when the line gives one.
 */
/** The directives of one request that directive() reads (`@noRedirect` spelled `no-redirect`); `@import` is the file's. */
const REQUEST_DIRECTIVES = new Set([
  'name',
  'no-redirect',
  'no-cookie-jar',
  'timeout',
  'connection-timeout',
  'no-log',
  'inject-variables',
  'no-auto-encoding',
  'note',
  'title',
  'description',
  'ref',
  'force-ref',
  'disabled',
  'sleep',
  'no-reject-unauthorized',
  'lang',
  'prompt',
  'use-os-credentials',
  'loop',
]);

/** `# @name x`, `// @noRedirect`: a comment line holding a request's directive sling knows (`# @todo` is not one). */
export function isRequestDirective(t: string): boolean {
  const m = /^(?:#|\/\/)\s*@([A-Za-z][\w.-]*)/.exec(t);
  return m !== null && REQUEST_DIRECTIVES.has(m[1]!.replace(/[A-Z]/g, (c) => '-' + c.toLowerCase()));
}

/** `# @timeout 30`, `30 s`, `500 ms`, `2 m`: milliseconds (at most what a timer holds). */
function secondsOf(value: string, what: string, ln: number, col: number, fail: (line: number, col: number, message: string) => never): number {
  const s = /^(\d+(?:\.\d+)?)\s*(ms|s|m)?$/.exec(value);
  if (!s) fail(ln, col, `# @${what} needs a time such as 30, 30 s, 500 ms or 2 m, got '${value}'`);
  const n = Number(s[1]);
  return Math.min(s[2] === 'ms' ? n : s[2] === 'm' ? n * 60000 : n * 1000, MAX_TIMER_MS);
}

export function directive(
  t: string,
  ln: number,
  col: number,
  d: Directives,
  warn: (line: number, col: number, message: string) => void,
  fail: (line: number, col: number, message: string) => never,
): { name?: string; lua?: boolean; import?: string } | undefined {
  const m = /^(?:#|\/\/)\s*@([A-Za-z][\w.-]*)(\s*=\s*|\s+|$)(.*)$/.exec(t);
  if (!m) return undefined;
  const written = m[1]!;
  const sep = m[2]!;
  const rest = m[3]!;
  // httpyac writes its directives in camelCase as well (`@noRedirect` is `@no-redirect`).
  const name = /[A-Z]/.test(written) ? written.replace(/[A-Z]/g, (c) => '-' + c.toLowerCase()) : written;
  const value = rest.trim();
  switch (name) {
    case 'name':
      if (!value) fail(ln, col, '# @name needs a name');
      return { name: value };
    case 'no-redirect':
      d.noRedirect = true;
      return undefined;
    case 'no-cookie-jar':
      d.noCookieJar = true;
      return undefined;
    case 'timeout':
      d.timeoutMs = secondsOf(value, 'timeout', ln, col, fail);
      return undefined;
    case 'connection-timeout':
      d.connectTimeoutMs = secondsOf(value, 'connection-timeout', ln, col, fail);
      return undefined;
    case 'no-log':
      d.noLog = true;
      return undefined;
    case 'inject-variables':
      d.injectVariables = true;
      return undefined;
    case 'no-auto-encoding':
      d.noAutoEncoding = true;
      return undefined;
    case 'note':
    case 'title':
    case 'description':
      return undefined;
    case 'ref':
    case 'force-ref':
      if (!value) fail(ln, col, `# @${written} needs a request name`);
      // A list of its own (a request without @ref shares one empty list).
      d.refs = [...d.refs, value];
      if (name === 'force-ref') (d.forceRefs ??= []).push(value);
      return undefined;
    case 'disabled':
      // httpyac: disabled when the value is true (none is true); it evaluates JavaScript, sling reads literals.
      if (value === '' || /^(true|1)$/i.test(value)) d.disabled = true;
      // Anything else is a JavaScript expression, worked out when the request's turn comes (httpyac-js.ts).
      else if (!/^(false|0)$/i.test(value)) d.disabledJs = { code: value, line: ln };
      return undefined;
    case 'loop': {
      // httpyac: `for N`, `for NAME of EXPRESSION` (a JavaScript list), `while EXPRESSION`.
      const of = /^for\s+([A-Za-z_$][\w$]*)\s+of\s+(\S.*)$/.exec(value);
      const count = /^for\s*(\d+)$/.exec(value);
      if (of) d.loop = { variable: of[1]!, iterable: of[2]!, line: ln };
      else if (count) d.loop = { count: Number(count[1]), line: ln };
      else if (/^while\s/.test(value)) warn(ln, col, `# @loop ${value}: 'while' loops are not supported (each pass needs the response before it): sent once`);
      else fail(ln, col, `# @loop is 'for N', 'for NAME of LIST' or 'while EXPRESSION', got '${value}'`);
      return undefined;
    }
    case 'sleep':
      if (/^\d+$/.test(value)) d.sleepMs = Math.min(Number(value), MAX_TIMER_MS);
      else if (value.includes('{{')) d.sleepText = value;
      else warn(ln, col, `# @sleep needs milliseconds, got '${value}': not waited`);
      return undefined;
    case 'import':
      // httpyac's `# @import ./lib.http`: JetBrains' `import ./lib.http`.
      if (!value) fail(ln, col, '# @import needs a file');
      return { import: value.replace(/^(['"])(.*)\1$/, '$2') };
    case 'no-reject-unauthorized':
      d.insecure = true;
      return undefined;
    case 'lang':
      return /^lua$/i.test(value) ? { lua: true } : undefined;
    case 'prompt':
      warn(ln, col, `# @prompt asks for input in the REST Client; sling does not prompt: give ${value.split(/\s/)[0] || 'the variable'} a value in a file variable or the environment`);
      return undefined;
    case 'use-os-credentials':
      warn(ln, col, '# @use-os-credentials (JetBrains) is not supported: ignored');
      return undefined;
  }
  // `# @host = x`: a commented-out file variable, not a directive.
  if (!sep.includes('=')) warn(ln, col, `unknown directive # @${name}: ignored`);
  return undefined;
}
