// A node:test reporter for `npm test` (scripts/test.mjs), the same on every Node from 20 on:
// - a dot per test as it passes (`s` when skipped), a line per failed test as it fails, then a
//   line per test file that failed or skipped something: how many tests passed, failed, skipped;
// - each skipped test once, with its reason (a missing curl, say);
// - the failures again at the end, each with its file, its error and what its file printed;
// - Node's own counts as `# tests N`, `# pass N`, `# fail N`... (the lines CI reads), then one
//   closing line.
import { relative, resolve, sep } from 'node:path';
import { inspect } from 'node:util';

const root = process.env.SLING_TEST_ROOT || process.cwd();
const shortName = (file) => (file ? relative(root, file).split(sep).join('/') : '(no file)');
const tty = process.stdout.isTTY && !process.env.NO_COLOR;
const paint = (code, text) => (tty ? `\x1b[${code}m${text}\x1b[0m` : text);
const green = (t) => paint(32, t);
const red = (t) => paint(31, t);
const dim = (t) => paint(2, t);

/** Node 20 names a file's own test by its absolute path, Node 22 and later by the path as given. */
function isFileTest(data) {
  if (data.nesting !== 0 || !data.file || !data.name) return false;
  return data.name === data.file || data.file.endsWith(`/${data.name}`) || data.file.endsWith(`${sep}${data.name}`);
}

/** String() that never throws (an object without a way to become a string, say). */
function text(value) {
  try {
    return String(value);
  } catch {
    return inspect(value, { depth: 2 });
  }
}

function describeError(error) {
  if (!error) return '(no error given)';
  if (error.failureType === 'testCodeFailure' && text(error.cause ?? error.message) === 'test failed') return 'test failed (see what the file printed)';
  const inner = error.cause ?? error;
  let out = inner instanceof Error ? text(inner.stack || inner) : inspect(inner, { depth: 4 });
  if (inner && typeof inner === 'object' && 'actual' in inner && 'expected' in inner && !out.includes('\n+ actual')) {
    out += `\n  actual:   ${inspect(inner.actual, { depth: 4, breakLength: Infinity }).slice(0, 2000)}\n  expected: ${inspect(inner.expected, { depth: 4, breakLength: Infinity }).slice(0, 2000)}`;
  }
  return out;
}

export default async function* report(source) {
  const started = Date.now();
  /** Per file: counts and what it printed. */
  const files = new Map();
  const fileOf = (file) => {
    let f = files.get(file);
    if (!f) files.set(file, (f = { pass: 0, fail: 0, skip: 0, output: [] }));
    return f;
  };
  const failures = [];
  const skips = [];
  const counts = [];
  /** Progress: a dot per test that passed (`s` skipped), 80 to a line; a failure gets a line of its own. */
  let column = 0;
  const dot = (c) => {
    column++;
    if (column < 80) return c;
    column = 0;
    return `${c}\n`;
  };
  const ownLine = (text) => {
    const before = column ? '\n' : '';
    column = 0;
    return `${before}${text}\n`;
  };

  for await (const { type, data } of source) {
    // Node 22 and later give a file's output with the path as given, Node 20 with the absolute one.
    if (data?.file) data.file = resolve(data.file);
    if (type === 'test:stdout' || type === 'test:stderr') {
      fileOf(data.file).output.push(data.message);
    } else if (type === 'test:complete' && !isFileTest(data)) {
      // Counted on 'test:complete' (Node 20 reports a file's own test:pass after its last line).
      const f = fileOf(data.file);
      if (data.details?.passed) {
        if (data.skip !== undefined || data.todo !== undefined) {
          f.skip++;
          skips.push(`${shortName(data.file)}: ${data.name}${typeof data.skip === 'string' ? ` (${data.skip})` : ''}`);
          yield dot('s');
        } else {
          f.pass++;
          yield dot('.');
        }
      } else if (data.details?.error?.failureType !== 'subtestsFailed') {
        f.fail++;
        failures.push({ name: data.name, file: data.file, error: data.details?.error });
        yield ownLine(`${red('✖')} ${shortName(data.file)}: ${data.name}`);
      }
    } else if (type === 'test:complete' && isFileTest(data)) {
      const f = fileOf(data.file);
      const error = data.details?.error;
      if (data.details?.passed === false && error?.failureType !== 'subtestsFailed') {
        // The file's own process failed: it threw outside any test, or exited early.
        f.fail++;
        failures.push({ name: '(the file itself: its process failed)', file: data.file, error });
        yield ownLine(`${red('✖')} ${shortName(data.file)}: its process failed`);
      }
    } else if (type === 'test:diagnostic' && data.nesting === 0 && !data.file && /^(tests|suites|pass|fail|cancelled|skipped|todo|duration_ms) [\d.]+$/.test(data.message)) {
      counts.push(data.message);
    } else if (type === 'test:diagnostic' && data.file) {
      fileOf(data.file).output.push(`# ${data.message}\n`);
    }
  }

  if (column) yield '\n';
  // A line per file that failed or skipped something, once all is in (Node 20 reports a file's
  // tests after the file itself).
  for (const [file, f] of [...files].sort(([a], [b]) => a.localeCompare(b))) {
    if (!f.fail && !f.skip) continue;
    const parts = [`${f.pass} passed`];
    if (f.fail) parts.push(red(`${f.fail} failed`));
    if (f.skip) parts.push(`${f.skip} skipped`);
    yield `${f.fail ? red('✖') : green('✔')} ${shortName(file)}  ${dim(parts.join(', '))}\n`;
  }
  if (skips.length) {
    yield `\nskipped (${skips.length}):\n`;
    for (const s of skips) yield `  - ${s}\n`;
  }
  if (failures.length) {
    yield red(`\nfailed (${failures.length}):\n`);
    for (const [i, f] of failures.entries()) {
      const lines = describeError(f.error)
        .split('\n')
        .map((l) => `    ${l}`)
        .join('\n');
      let text = `\n${i + 1}) ${shortName(f.file)}: ${f.name}\n${lines}\n`;
      const out = files.get(f.file)?.output.join('') ?? '';
      if (out.trim())
        text += `    what the file printed:\n${out
          .trimEnd()
          .split('\n')
          .slice(-40)
          .map((l) => `    | ${l}`)
          .join('\n')}\n`;
      yield text;
    }
  }
  yield '\n';
  for (const c of counts) yield `# ${c}\n`;
  const get = (k) => Number(counts.find((c) => c.startsWith(`${k} `))?.split(' ')[1] ?? NaN);
  const failed = get('fail') + get('cancelled');
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  const line = `${get('tests')} tests on Node ${process.version}: ${get('pass')} passed, ${failed} failed, ${get('skipped') + get('todo')} skipped (${files.size} files, ${seconds} s)`;
  yield `${failed || !counts.length ? red(`✖ ${line}`) : green(`✔ ${line}`)}\n`;
}
