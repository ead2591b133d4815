/**
 * The JSONPath subset request references and `jsonPath()` need: `$`, `.name`, `['name']`,
 * `[0]`, `[-1]`, `[*]`, `.*`, `[1,2]`, `[0:2]`, `..name` (recursive descent), and filters
 * `[?(@.price < 10 && @.tags)]`: comparisons (`==`, `!=`, `<`, `<=`, `>`, `>=`, `===`, `!==`) of
 * `@.path`, `$.path`, numbers, strings, `true`, `false` and `null`, with `&&`, `||`, `!` and
 * parentheses; `@.path` alone tests that the field is there and truthy. Filters are read, not run
 * as JavaScript (jsonpath-plus, which REST Client uses, evaluates them as JavaScript).
 */
import { stringifyChecked } from '../../nesting.js';

export class JsonPathError extends Error {}

type Step =
  | { kind: 'child'; names: (string | number)[] }
  | { kind: 'wild' }
  | { kind: 'slice'; start?: number; end?: number }
  | { kind: 'deep'; name: string | null }
  | { kind: 'filter'; test: Filter };

/** A filter expression: true for the items it keeps (`at`: the item, `root`: the document). */
type Filter = (at: unknown, root: unknown) => unknown;

/** Reads a filter expression into a function (a small recursive-descent parser; no eval). */
function parseFilter(src: string, path: string): Filter {
  let i = 0;
  const fail = (why: string): never => {
    throw new JsonPathError(`'${path}': ${why} in the filter '${src}'`);
  };
  const ws = () => {
    while (i < src.length && /\s/.test(src[i]!)) i++;
  };
  const eat = (t: string) => {
    ws();
    if (src.startsWith(t, i)) {
      i += t.length;
      return true;
    }
    return false;
  };
  /** `x OP y OP z`, left to right: `||` over `&&` over the rest. */
  const chain = (op: '||' | '&&', next: () => Filter): Filter => {
    let left = next();
    while (eat(op)) {
      const l = left;
      const r = next();
      left = op === '||' ? (a, root) => l(a, root) || r(a, root) : (a, root) => l(a, root) && r(a, root);
    }
    return left;
  };
  const or = (): Filter => chain('||', and);
  const and = (): Filter => chain('&&', unary);
  const unary = (): Filter => {
    if (eat('!') && !src.startsWith('=', i)) {
      const inner = unary();
      return (a, root) => !inner(a, root);
    }
    return compare();
  };
  const compare = (): Filter => {
    const left = operand();
    ws();
    const m = /^(===|!==|==|!=|<=|>=|<|>)/.exec(src.slice(i));
    if (!m) return left;
    i += m[0].length;
    const right = operand();
    const op = m[1]!;
    return (a, root) => {
      const x = left(a, root);
      const y = right(a, root);
      switch (op) {
        case '==':
        case '===':
          return x === y || (x == null && y == null);
        case '!=':
        case '!==':
          return !(x === y || (x == null && y == null));
        case '<':
          return typeof x === typeof y && (x as number) < (y as number);
        case '<=':
          return typeof x === typeof y && (x as number) <= (y as number);
        case '>':
          return typeof x === typeof y && (x as number) > (y as number);
        default:
          return typeof x === typeof y && (x as number) >= (y as number);
      }
    };
  };
  const operand = (): Filter => {
    ws();
    const c = src[i];
    if (c === '(') {
      i++;
      const inner = or();
      if (!eat(')')) fail("a ')' is missing");
      return inner;
    }
    if (c === '@' || c === '$') {
      i++;
      const start = i;
      while (i < src.length) {
        const ch = src[i]!;
        if (ch === '[') {
          const close = findClose(src, i);
          if (close === -1) fail("'[' without ']'");
          i = close + 1;
        } else if (/[\w.$-]/.test(ch) && !(ch === '-' && src[i + 1] === '=')) i++;
        else break;
      }
      const sub = src.slice(start, i);
      const steps = sub ? parse('$' + sub) : [];
      const self = c === '@';
      return (a, root) => {
        const found = evaluate(self ? a : root, steps, root);
        return found.length ? found[0] : undefined;
      };
    }
    const str = /^(['"])((?:\\.|(?!\1).)*)\1/.exec(src.slice(i));
    if (str) {
      i += str[0].length;
      const v = str[2]!.replace(/\\(.)/g, '$1');
      return () => v;
    }
    const num = /^-?\d+(\.\d+)?([eE][-+]?\d+)?/.exec(src.slice(i));
    if (num) {
      i += num[0].length;
      const v = Number(num[0]);
      return () => v;
    }
    for (const [word, v] of [
      ['true', true],
      ['false', false],
      ['null', null],
    ] as const) {
      if (src.startsWith(word, i) && !/\w/.test(src[i + word.length] ?? '')) {
        i += word.length;
        return () => v;
      }
    }
    return fail(c === undefined ? 'an operand is missing' : `'${src.slice(i)}' is not something sling reads (@.path, $.path, a number, a string, true, false, null)`);
  };
  const test = or();
  ws();
  if (i < src.length) fail(`'${src.slice(i)}' is left over`);
  return test;
}

function parse(path: string): Step[] {
  let p = path.trim();
  if (p.startsWith('$')) p = p.slice(1);
  const steps: Step[] = [];
  let i = 0;
  const name = () => {
    const m = /^[^.[\]\s]+/.exec(p.slice(i));
    if (!m) throw new JsonPathError(`'${path}': a name is missing at position ${i + 1}`);
    i += m[0].length;
    return m[0];
  };
  while (i < p.length) {
    if (p.startsWith('..', i)) {
      i += 2;
      if (p[i] === '*') {
        i++;
        steps.push({ kind: 'deep', name: null });
      } else if (p[i] === '[') {
        steps.push({ kind: 'deep', name: null });
      } else steps.push({ kind: 'deep', name: name() });
    } else if (p[i] === '.') {
      i++;
      if (p[i] === '*') {
        i++;
        steps.push({ kind: 'wild' });
      } else steps.push({ kind: 'child', names: [name()] });
    } else if (p[i] === '[') {
      const close = findClose(p, i);
      if (close === -1) throw new JsonPathError(`'${path}': '[' without ']'`);
      const inner = p.slice(i + 1, close).trim();
      i = close + 1;
      if (inner === '*') steps.push({ kind: 'wild' });
      else if (inner.startsWith('?')) {
        const m = /^\?\s*\((.*)\)\s*$/s.exec(inner);
        if (!m) throw new JsonPathError(`'${path}': a filter is written [?(expression)]`);
        steps.push({ kind: 'filter', test: parseFilter(m[1]!, path) });
      } else if (inner.startsWith('(')) throw new JsonPathError(`'${path}': script expressions [(...)] are not supported`);
      else if (/^-?\d*:-?\d*$/.test(inner)) {
        const [a, b] = inner.split(':');
        steps.push({ kind: 'slice', start: a ? Number(a) : undefined, end: b ? Number(b) : undefined });
      } else {
        const names = inner.split(',').map((s) => {
          const t = s.trim();
          if (/^-?\d+$/.test(t)) return Number(t);
          if (/^(['"]).*\1$/.test(t)) return t.slice(1, -1);
          return t;
        });
        steps.push({ kind: 'child', names });
      }
    } else if (i === 0) {
      steps.push({ kind: 'child', names: [name()] });
    } else throw new JsonPathError(`'${path}': unexpected '${p[i]}' at position ${i + 1}`);
  }
  return steps;
}

function findClose(p: string, open: number): number {
  let quote = '';
  let depth = 0;
  for (let j = open + 1; j < p.length; j++) {
    const c = p[j];
    if (quote) {
      if (c === '\\') j++;
      else if (c === quote) quote = '';
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '[') depth++;
    else if (c === ']') {
      if (depth === 0) return j;
      depth--;
    }
  }
  return -1;
}

const children = (v: unknown): unknown[] => (Array.isArray(v) ? v : v !== null && typeof v === 'object' ? Object.values(v) : []);

function pick(v: unknown, key: string | number): unknown[] {
  if (Array.isArray(v)) {
    const n = typeof key === 'number' ? key : /^-?\d+$/.test(key) ? Number(key) : NaN;
    if (Number.isNaN(n)) return key === 'length' ? [v.length] : [];
    const at = n < 0 ? v.length + n : n;
    return at >= 0 && at < v.length ? [v[at]] : [];
  }
  if (v !== null && typeof v === 'object' && Object.hasOwn(v, String(key))) return [(v as Record<string, unknown>)[String(key)]];
  return [];
}

/** Why the path cannot be used (a parse error, a filter), or undefined when it can. */
export function jsonPathProblem(path: string): string | undefined {
  try {
    parse(path);
    return undefined;
  } catch (e) {
    if (e instanceof JsonPathError) return e.message;
    throw e;
  }
}

/** Every value the path selects, in document order. */
export function jsonPath(doc: unknown, path: string): unknown[] {
  return evaluate(doc, parse(path), doc);
}

function evaluate(doc: unknown, steps: Step[], root: unknown): unknown[] {
  let current: unknown[] = [doc];
  for (const step of steps) {
    const next: unknown[] = [];
    for (const v of current) {
      switch (step.kind) {
        case 'child':
          for (const n of step.names) next.push(...pick(v, n));
          break;
        // Item by item: `push(...list)` makes each item an argument, and an array of 130,000 ran
        // out of stack (RangeError, reported as nesting too deep).
        case 'wild':
          for (const c of children(v)) next.push(c);
          break;
        case 'slice':
          if (Array.isArray(v)) for (const c of v.slice(step.start, step.end)) next.push(c);
          break;
        case 'filter':
          for (const c of children(v)) if (step.test(c, root)) next.push(c);
          break;
        case 'deep': {
          const walk = (x: unknown) => {
            if (step.name === null) for (const c of children(x)) next.push(c);
            else next.push(...pick(x, step.name));
            for (const c of children(x)) walk(c);
          };
          walk(v);
          break;
        }
      }
    }
    current = next;
  }
  return current;
}

/** A value as it goes into a request: strings as they are, everything else as JSON. */
export function asText(v: unknown): string {
  if (typeof v === 'string') return v;
  if (v === undefined) return '';
  return stringifyChecked(v);
}
