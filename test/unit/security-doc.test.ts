// SECURITY.md names the tests that keep each of its promises (`e2e/NAME` › "the start of a test's
// name", ...): every test it names must exist, so that the page cannot go on citing a test that was
// renamed or removed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../helpers/cli.js';

const squash = (s: string) => s.replace(/\s+/g, ' ').trim();

/** The names of a test file's tests, as written in the source (quotes undone). */
function testNames(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const out: string[] = [];
  for (const m of text.matchAll(/\btest\(\s*(['"`])((?:\\.|(?!\1)[^\\])*)\1/g)) out.push(squash(m[2]!.replace(/\\(.)/g, '$1')));
  return out;
}

test('SECURITY.md: every test it names for a promise exists (its file, and a test whose name starts so)', () => {
  const doc = readFileSync(join(REPO_ROOT, 'SECURITY.md'), 'utf8');
  const cited: { file: string; names: string[] }[] = [];
  // `e2e/script-escape` › "a", "b"; (the list ends at ';' or at the end of the paragraph)
  for (const m of doc.matchAll(/`((?:e2e|unit)\/[\w-]+)` › ((?:"[^"]+",?\s*)+)/g)) {
    const names = [...m[2]!.matchAll(/"([^"]+)"/g)].map((n) => squash(n[1]!));
    cited.push({ file: m[1]!, names });
  }
  assert.ok(cited.length >= 20, `SECURITY.md cites ${cited.length} test files: the pattern no longer reads it`);
  const missing: string[] = [];
  for (const { file, names } of cited) {
    const path = join(REPO_ROOT, 'test', `${file}.test.ts`);
    if (!existsSync(path)) {
      missing.push(`${file}: no such test file`);
      continue;
    }
    const have = testNames(path);
    for (const n of names) if (!have.some((h) => h.startsWith(n))) missing.push(`${file} › "${n}"`);
  }
  assert.deepEqual(missing, [], `SECURITY.md names tests that do not exist:\n${missing.join('\n')}`);
});
