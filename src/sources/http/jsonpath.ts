/**
 * The JSONPath subset request references and `jsonPath()` need: `$`, `.name`, `['name']`,
 * `[0]`, `[-1]`, `[*]`, `.*`, `[1,2]`, `[0:2]`, and `..name` (recursive descent). Filters
 * (`[?(...)]`) are reported as unsupported.
 */
export class JsonPathError extends Error {}

type Step =
  | { kind: 'child'; names: (string | number)[] }
  | { kind: 'wild' }
  | { kind: 'slice'; start?: number; end?: number }
  | { kind: 'deep'; name: string | null };

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
      else if (inner.startsWith('?') || inner.startsWith('(')) throw new JsonPathError(`'${path}': filter expressions are not supported`);
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
  for (let j = open + 1; j < p.length; j++) {
    const c = p[j];
    if (quote) {
      if (c === quote) quote = '';
    } else if (c === '"' || c === "'") quote = c;
    else if (c === ']') return j;
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
  if (v !== null && typeof v === 'object' && Object.prototype.hasOwnProperty.call(v, String(key))) return [(v as Record<string, unknown>)[String(key)]];
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
  let current: unknown[] = [doc];
  for (const step of parse(path)) {
    const next: unknown[] = [];
    for (const v of current) {
      switch (step.kind) {
        case 'child':
          for (const n of step.names) next.push(...pick(v, n));
          break;
        case 'wild':
          next.push(...children(v));
          break;
        case 'slice':
          if (Array.isArray(v)) next.push(...v.slice(step.start, step.end));
          break;
        case 'deep': {
          const walk = (x: unknown) => {
            if (step.name === null) next.push(...children(x));
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
  return JSON.stringify(v);
}
