import { UsageError } from '../errors.js';
import { MAX_NESTING, NestingError } from '../nesting.js';
import { setKey, type JsonValue } from '../model/json.js';

/**
 * HTTPie 3's nested JSON paths: `user[name]=a`, `tags[]=x`, `items[0][id]:=1`, a top-level array
 * with `[]:=1`, and `\[`, `\]`, `\\`, `\1` escapes in keys. Data items are applied in order to one
 * document; a path that meets a value of the wrong type is an error naming the item.
 */
type Step = { kind: 'key'; key: string } | { kind: 'index'; index: number } | { kind: 'append' };

export function parsePath(source: string, orig: string): Step[] {
  const bad = (why: string) => new UsageError(`item '${orig}': ${why} in the JSON path '${source}'`);
  // Tokens: text runs (with escapes resolved), '[' and ']'.
  type Tok = { t: 'text'; v: string; escaped: boolean } | { t: '[' } | { t: ']' };
  const toks: Tok[] = [];
  let buf = '';
  let escaped = false;
  let has = false;
  const flush = () => {
    if (has) toks.push({ t: 'text', v: buf, escaped });
    buf = '';
    escaped = false;
    has = false;
  };
  for (let i = 0; i < source.length; i++) {
    const c = source[i]!;
    if (c === '[' || c === ']') {
      flush();
      toks.push({ t: c });
    } else if (c === '\\' && i + 1 < source.length) {
      const n = source[++i]!;
      if (n === '[' || n === ']' || n === '\\') {
        escaped = true;
        buf += n;
      } else if (/\d/.test(n)) {
        // `\1`: a key made of digits that is text, not an index.
        escaped = true;
        buf += n;
      } else buf += '\\' + n;
      has = true;
    } else {
      buf += c;
      has = true;
    }
  }
  flush();

  const steps: Step[] = [];
  let k = 0;
  // The root: text before the first bracket is an object key (even when it is digits).
  if (toks[0]?.t === 'text') {
    steps.push({ kind: 'key', key: toks[0].v });
    k = 1;
  } else if (toks.length === 0) {
    return [{ kind: 'key', key: '' }];
  } else if (toks[0]!.t === '[') {
    steps.push({ kind: 'key', key: '' });
  }
  while (k < toks.length) {
    const open = toks[k]!;
    if (open.t !== '[') throw bad(open.t === ']' ? "unexpected ']'" : `unexpected text '${(open as { v: string }).v}' after ']'`);
    const inner = toks[k + 1];
    if (!inner) throw bad("missing ']'");
    if (inner.t === ']') {
      steps.push({ kind: 'append' });
      k += 2;
      continue;
    }
    if (inner.t === '[') throw bad("unexpected '['");
    if (toks[k + 2]?.t !== ']') throw bad("missing ']'");
    const text = inner.v;
    if (steps.length === 1 && steps[0]!.kind === 'key' && steps[0]!.key === '' && toks[0]!.t === '[' && (inner.escaped || !/^\s*[+-]?\d/.test(text))) {
      throw bad(`a top-level array takes [] or [N], not '[${text}]'`);
    }
    if (!inner.escaped && /^\s*[+-]?\d+(?:_\d+)*\s*$/.test(text)) {
      const n = Number(text.replace(/_/g, '').trim());
      if (n < 0) throw bad(`negative index ${n}`);
      // Every slot before the index is filled with null: a typo like a[99999999] would fill memory.
      if (n > MAX_INDEX) throw bad(`index ${text.trim()} is too large (at most ${MAX_INDEX}; the slots before it are filled with null)`);
      steps.push({ kind: 'index', index: n });
    } else {
      steps.push({ kind: 'key', key: text });
    }
    k += 3;
  }
  if (steps.length > MAX_NESTING) {
    // A long item is shown by its start: the message stays one readable line.
    const shown = orig.length > 100 ? `${orig.slice(0, 100)}...` : orig;
    throw new UsageError(`item '${shown}': the JSON path is nested too deeply to work through (${new NestingError().message})`);
  }
  return steps;
}

/** The largest array index of a JSON path: a body of a million nulls is already ~5 MB. */
const MAX_INDEX = 1_000_000;

const typeName = (v: JsonValue | undefined) => (v === undefined ? 'nothing' : ({ obj: 'an object', arr: 'an array', str: 'a string', num: 'a number', bool: 'a boolean', null: 'null' } as const)[v.t]);

/** Applies `path = value` to the document built so far (undefined at the start) and returns it. */
export function setPath(root: JsonValue | undefined, steps: Step[], value: JsonValue, orig: string): JsonValue {
  const fresh = (s: Step): JsonValue => (s.kind === 'key' ? { t: 'obj', m: new Map() } : { t: 'arr', a: [] });
  // A top-level path starting with an index or append makes the document an array.
  const first = steps[0]!;
  const isRootArray = first.kind === 'key' && first.key === '' && steps.length > 1 && steps[1]!.kind !== 'key';
  const walk = isRootArray ? steps.slice(1) : steps;
  if (root === undefined) root = fresh(walk[0]!);
  const conflict = (where: JsonValue | undefined, want: string) => new UsageError(`item '${orig}' needs ${want} here, but an earlier item made it ${typeName(where)}`);
  let cur: JsonValue = root;
  for (let s = 0; s < walk.length; s++) {
    const step = walk[s]!;
    const last = s === walk.length - 1;
    const next = walk[s + 1];
    if (step.kind === 'key') {
      if (cur.t !== 'obj') throw conflict(cur, 'an object');
      if (last) {
        setKey(cur, step.key, value);
        break;
      }
      let child = cur.m.get(step.key);
      if (child === undefined || child.t === 'null') {
        child = fresh(next!);
        setKey(cur, step.key, child);
      }
      cur = child;
    } else {
      if (cur.t !== 'arr') throw conflict(cur, 'an array');
      const arr = cur.a;
      if (step.kind === 'append') {
        if (last) {
          arr.push(value);
          break;
        }
        const child = fresh(next!);
        arr.push(child);
        cur = child;
      } else {
        while (arr.length <= step.index) arr.push(undefined);
        if (last) {
          arr[step.index] = value;
          break;
        }
        let child = arr[step.index];
        if (child === undefined || child.t === 'null') {
          child = fresh(next!);
          arr[step.index] = child;
        }
        cur = child;
      }
    }
  }
  return root;
}
