// The documentation stays true to the build: every flag `--help` lists is in docs/usage.md's "All
// flags" table (and every exec option in docs/exec-http.md), every --style and Faker name sling
// knows is documented (and nothing more), README.md stays short, and every relative link in
// README.md, docs/*.md, bench/README.md and SECURITY.md names a file that exists and, with a
// #fragment, a heading of that file.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { REPO_ROOT, runSling } from '../helpers/cli.js';
import { FAKER_NAMES } from '../../src/sources/http/faker-names.js';

const read = (rel: string) => readFileSync(join(REPO_ROOT, rel), 'utf8');

/** The section of a Markdown text under the heading that starts with `title`, up to the next heading of its level or above. */
function section(md: string, title: string): string {
  const lines = md.split('\n');
  const start = lines.findIndex((l) => /^#+ /.test(l) && l.replace(/^#+ /, '').startsWith(title));
  assert.ok(start >= 0, `no heading '${title}'`);
  const level = lines[start]!.indexOf(' ');
  let end = lines.length;
  for (let i = start + 1; i < lines.length; i++) {
    const m = /^(#+) /.exec(lines[i]!);
    if (m && m[1]!.length <= level) {
      end = i;
      break;
    }
  }
  return lines.slice(start, end).join('\n');
}

/** `-x` and `--long` names of the option lines of a help text. */
function helpFlags(help: string): string[] {
  const flags: string[] = [];
  for (const line of help.split('\n')) {
    const m = /^ {2}((?:-[A-Za-z0-9], )*--[a-z][a-z0-9-]*)/.exec(line);
    if (m) flags.push(...m[1]!.split(', '));
  }
  return flags;
}

/** The help line of an option with its wrapped continuation lines, joined by spaces. */
function entry(help: string, name: string): string {
  const lines = help.split('\n');
  let i = lines.findIndex((l) => l.includes(name));
  assert.ok(i >= 0, `no ${name} in --help`);
  let text = lines[i]!;
  while (/^ {20,}\S/.test(lines[i + 1] ?? '')) text += ` ${lines[++i]!.trim()}`;
  return text;
}

/** Backticked words of the first cell of each table row, in a text. */
function documentedFlags(md: string): Set<string> {
  const found = new Set<string>();
  for (const line of md.split('\n')) {
    if (!line.startsWith('| `')) continue;
    const cell = line.split(/(?<!\\)\|/)[1]!;
    for (const m of cell.matchAll(/`(-[A-Za-z0-9]|--[a-z][a-z0-9-]*)[ `]/g)) found.add(m[1]!);
  }
  return found;
}

test('docs: every flag of sling --help is in docs/usage.md "All flags", and nothing else is', async () => {
  const r = await runSling(['--help']);
  assert.equal(r.code, 0, r.stderr);
  const listed = helpFlags(r.stdout);
  assert.ok(listed.length > 40, `only ${listed.length} flags read from --help`);
  const documented = documentedFlags(section(read('docs/usage.md'), 'All flags'));
  assert.deepEqual(
    [...new Set(listed)].filter((f) => !documented.has(f)),
    [],
    'flags missing from docs/usage.md',
  );
  assert.deepEqual(
    [...documented].filter((f) => !listed.includes(f)),
    [],
    'docs/usage.md lists flags --help does not',
  );
});

test('docs: every option of sling exec --help of its own is in docs/exec-http.md', async () => {
  const main = helpFlags((await runSling(['--help'])).stdout);
  const r = await runSling(['exec', '--help']);
  assert.equal(r.code, 0, r.stderr);
  const own = helpFlags(r.stdout).filter((f) => !main.includes(f));
  assert.ok(own.includes('--report') && own.includes('-t'), `exec's own options not read: ${own.join(' ')}`);
  const documented = documentedFlags(read('docs/exec-http.md'));
  assert.deepEqual(
    own.filter((f) => !documented.has(f)),
    [],
    'exec options missing from docs/exec-http.md',
  );
});

test('docs: the --style names are the ones sling accepts', async () => {
  const r = await runSling(['--style', 'no-such-style', '--offline', 'example.org']);
  assert.equal(r.code, 1);
  const m = /--style must be ([a-z, -]+), got 'no-such-style'/.exec(r.stderr);
  assert.ok(m, r.stderr);
  const styles = m[1]!.split(/, | or /);
  const usage = read('docs/usage.md');
  assert.ok(usage.includes(`--style ${styles.join('|')}`), `docs/usage.md should say --style ${styles.join('|')}`);
  // --help lists the same names (it once offered dark and light, which were refused).
  const help = (await runSling(['--help'])).stdout;
  const line = entry(help, '--style STYLE');
  // The names after the list (HTTPie's, taken as the nearest of sling's) are not offered.
  const listed = /colour style: (.*?)(?: \(HTTPie's .*)?$/
    .exec(line)![1]!
    .split(', ')
    .map((w) => w.split(' ')[0]);
  assert.deepEqual([...listed].sort(), [...styles].sort(), line);
  // and every --format-options name sling takes.
  const fo = entry(help, '--format-options');
  for (const name of ['json.indent', 'json.sort_keys', 'json.format', 'headers.sort', 'xml.indent', 'xml.format']) assert.ok(fo.includes(name + ':'), fo);
});

test('docs: the Faker table of docs/exec-http.md names exactly the names sling knows', () => {
  const text = section(read('docs/exec-http.md'), 'Variables');
  const start = text.indexOf('**Faker variables.**');
  assert.ok(start >= 0);
  const documented: Record<string, string[]> = {};
  for (const line of text.slice(start).split('\n')) {
    if (!line.startsWith('| `')) {
      if (Object.keys(documented).length) break;
      continue;
    }
    const [, cats, methods] = line.split('|').map((c) => c.trim());
    const names = [...cats!.matchAll(/`([A-Za-z]+)`/g)].map((m) => m[1]!);
    const groups = names.length > 1 ? methods!.split(';') : [methods!];
    assert.equal(groups.length, names.length, `row '${line.slice(0, 60)}': one ;-separated group per category`);
    names.forEach((c, i) => {
      documented[c] = [...groups[i]!.matchAll(/`([A-Za-z0-9]+)`/g)].map((m) => m[1]!).sort();
    });
  }
  const known = Object.fromEntries(Object.entries(FAKER_NAMES).map(([c, ms]) => [c, Object.keys(ms).sort()]));
  assert.deepEqual(documented, known);
});

test('docs: README.md is under 300 lines and links the reference', () => {
  const readme = read('README.md');
  assert.ok(readme.split('\n').length < 300, `README.md has ${readme.split('\n').length} lines`);
  for (const page of [
    'docs/usage.md',
    'docs/exec-http.md',
    'docs/exec-curl.md',
    'docs/config.md',
    'docs/exit-codes.md',
    'docs/shells.md',
    'docs/development.md',
    'bench/README.md',
    'SECURITY.md',
    'ARCHITECTURE.md',
  ]) {
    assert.ok(readme.includes(`](${page})`), `README.md does not link ${page}`);
  }
  // The two commands of a fresh clone, exactly.
  assert.match(readme, /^npm ci && npm run demo {5}#/m);
  assert.match(readme, /^npm test {19}#/m);
});

test('docs: piped output is headers and body, said plainly in README.md and first among the differences from HTTPie, with -b for the body alone', () => {
  // test/e2e/output.test.ts "default print: ..." keeps the behaviour (its stdout is a pipe).
  const output = /\*\*Output\.\*\*[\s\S]*?\n\n/.exec(read('README.md'))?.[0] ?? '';
  assert.match(output, /headers and the body, on a terminal and piped alike/);
  assert.match(output, /`-b` gives the body alone/);
  assert.doesNotMatch(output, /piped, the body goes out/);
  const first = section(read('docs/usage.md'), 'Differences from HTTPie')
    .split('\n')
    .find((l) => l.startsWith('- '));
  assert.match(first ?? '', /Piped, sling prints the response headers and the body/);
  assert.match(section(read('docs/usage.md'), 'Differences from HTTPie'), /body alone, in a\n {2}script: `sling -b URL`/);
});

/** GitHub's anchor for a heading. */
const slug = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/ /g, '-');

function anchors(md: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  let fence = false;
  for (const line of md.split('\n')) {
    if (line.startsWith('```')) fence = !fence;
    if (fence) continue;
    const m = /^#{1,6} (.*)$/.exec(line);
    if (!m) continue;
    const base = slug(m[1]!);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n ? `${base}-${n}` : base);
  }
  return out;
}

test('docs: every relative link names a file that exists, and a heading of it', () => {
  const files = [
    'README.md',
    'SECURITY.md',
    'bench/README.md',
    ...readdirSync(join(REPO_ROOT, 'docs'))
      .filter((f) => f.endsWith('.md'))
      .map((f) => `docs/${f}`),
  ];
  const bad: string[] = [];
  for (const file of files) {
    const md = read(file).replace(/```[\s\S]*?```/g, '');
    for (const m of md.matchAll(/\]\(([^)\s]+)\)/g)) {
      const link = m[1]!;
      if (/^[a-z]+:/.test(link)) continue;
      const [path, fragment] = link.split('#') as [string, string | undefined];
      const target = path ? resolve(dirname(join(REPO_ROOT, file)), path) : join(REPO_ROOT, file);
      // ARCHITECTURE.md is written alongside; a link to it is checked once it exists.
      if (!existsSync(target)) {
        if (!target.endsWith('ARCHITECTURE.md')) bad.push(`${file}: ${link} (no such file)`);
        continue;
      }
      if (fragment && target.endsWith('.md') && !anchors(readFileSync(target, 'utf8')).has(fragment)) bad.push(`${file}: ${link} (no such heading)`);
    }
  }
  assert.deepEqual(bad, []);
});
