/**
 * How deep sling follows nested JSON (arrays and objects inside each other) that it takes in:
 * JSON items (`a:=...`), nested-JSON paths (`a[b][c]=...`), environment values, response bodies
 * that variables and assertions read. Deeper input is refused with one sentence (errors.ts,
 * limitReached) instead of depending on the JavaScript stack, whose size and use differ from one
 * Node to another (Node 26's JSON.stringify no longer recurses; Node 20's runs out near 10,000
 * levels). Python's json module, which HTTPie uses, stops at about the same depth.
 */
export const MAX_NESTING = 1000;

export class NestingError extends RangeError {
  constructor() {
    super(`more than ${MAX_NESTING.toLocaleString('en-US')} levels of nesting`);
  }
}

/** Throws NestingError when `value` has arrays or objects nested more than MAX_NESTING deep (no recursion). */
export function checkNesting(value: unknown): void {
  if (value === null || typeof value !== 'object') return;
  const stack: unknown[] = [value];
  const depths: number[] = [1];
  while (stack.length) {
    const v = stack.pop() as object;
    const depth = depths.pop()!;
    if (depth > MAX_NESTING) throw new NestingError();
    const children = Array.isArray(v) ? v : Object.values(v);
    for (let i = 0; i < children.length; i++) {
      const c: unknown = children[i];
      if (c !== null && typeof c === 'object') {
        stack.push(c);
        depths.push(depth + 1);
      }
    }
  }
}

/** JSON.stringify of a value sling took in, refused past MAX_NESTING levels the same on every Node. */
export function stringifyChecked(value: unknown): string {
  checkNesting(value);
  return JSON.stringify(value);
}
