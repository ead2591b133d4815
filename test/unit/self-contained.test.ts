// The repository explains itself: no file in it sends the reader to a file outside it (the
// specification and decision pages the project started from, or the `shared` folder of corpora and
// harnesses that may sit beside a clone). The decisions live in docs/decisions.md; each link to
// one of its sections must land on a heading. scripts/ and .ci/ may name the folder beside the clone:
// they run the optional corpus and parity checks from there, and say so when it is absent.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { REPO_ROOT } from '../helpers/cli.js';

/** Folders that are generated, installed or version control's own: not the repository's text. */
const SKIP_DIRS = new Set(['.git', 'node_modules', 'dist', 'build']);
/** May name the folder beside the clone: they run the optional corpus and harness checks from it. */
const MAY_NAME_SIBLING = ['scripts/', '.ci/'];
const TEXT = /\.(ts|mjs|js|cjs|json|md|sh|txt|http|yml|yaml)$|^[^.]+$/;

function files(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    if (SKIP_DIRS.has(name)) continue;
    const path = join(dir, name);
    const st = statSync(path);
    if (st.isDirectory()) files(path, out);
    else if (st.isFile() && st.size < 2_000_000 && TEXT.test(name)) out.push(relative(REPO_ROOT, path).split('\\').join('/'));
  }
  return out;
}

// Spelled in pieces so that this file does not cite them itself.
const OUTSIDE = new RegExp(['\\.\\./sha' + 'red', '\\bDECISIONS' + '\\.md', '\\bSPEC' + '\\.md'].join('|'), 'g');

test('no file in the repository cites a file outside it (the decisions are in docs/decisions.md); only scripts/ and .ci/ name the corpus folder beside the clone', () => {
  const all = files(REPO_ROOT);
  assert.ok(all.includes('docs/decisions.md') && all.some((f) => f.startsWith('src/')), `the walk of ${REPO_ROOT} found no sources: it no longer reads the tree`);
  const found: string[] = [];
  for (const file of all) {
    const text = readFileSync(join(REPO_ROOT, file), 'utf8');
    for (const m of text.matchAll(OUTSIDE)) {
      if (m[0].endsWith('red') && MAY_NAME_SIBLING.some((p) => file.startsWith(p))) continue;
      const line = text.slice(0, m.index).split('\n').length;
      found.push(`${file}:${line}: ${m[0]}`);
    }
  }
  assert.deepEqual(found, [], `files that send the reader outside the repository:\n${found.join('\n')}`);
});

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens. */
const anchor = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');

test('every link to a section of docs/decisions.md names a heading it has', () => {
  const doc = readFileSync(join(REPO_ROOT, 'docs/decisions.md'), 'utf8');
  const anchors = new Set([...doc.matchAll(/^#+ (.+)$/gm)].map((m) => anchor(m[1]!)));
  const headings = new Set([...doc.matchAll(/^## (.+)$/gm)].map((m) => m[1]!.replace(/`/g, '').trim()));
  const broken: string[] = [];
  for (const file of files(REPO_ROOT)) {
    const text = readFileSync(join(REPO_ROOT, file), 'utf8');
    for (const m of text.matchAll(/decisions\.md#([\w-]+)/g)) if (!anchors.has(m[1]!)) broken.push(`${file}: #${m[1]}`);
    // Comments in the code name a section in words: `docs/decisions.md, Exit codes` or `(Network)`.
    for (const m of text.matchAll(/docs\/decisions\.md(?:,\s*|\s*\()([A-Za-z][A-Za-z ]*[a-z])/g)) {
      const named = m[1]!;
      if (![...headings].some((h) => named.startsWith(h))) broken.push(`${file}: "${named}"`);
    }
  }
  assert.ok(anchors.has('exit-codes'), 'docs/decisions.md has no "Exit codes" section');
  assert.deepEqual(broken, [], `links to sections docs/decisions.md does not have:\n${broken.join('\n')}`);
});
