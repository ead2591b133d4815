// The option table is the one place an option's values are declared: these check that completions,
// --help and the man page offer exactly what the parser takes, that defaults pass their own checks,
// and that the line is read once into what every command uses.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { completionScript } from '../../src/cli/completions.js';
import { helpText } from '../../src/cli/help.js';
import { resolveInvocation } from '../../src/cli/invocation.js';
import { manPage } from '../../src/cli/manpage.js';
import { EXEC_OPTIONS, helpOf, listOr, metavarOf, OPTIONS, type OptionDef } from '../../src/cli/options.js';
import { checkValue, parseCommandLine } from '../../src/cli/parse.js';

const ALL = [...OPTIONS, ...EXEC_OPTIONS];
const WITH_CHOICES = ALL.filter((o) => o.choices);
/** What completions should offer: the letter combinations of --print, else the choices. */
const offered = (o: OptionDef) => [...(o.letters ?? o.choices!)];
const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

test('the options with a fixed set of values are the ones expected, each with its choices in the table', () => {
  assert.deepEqual(
    WITH_CHOICES.map((o) => o.long),
    ['print', 'pretty', 'style', 'auth-type', 'http-version', 'verify', 'ssl', 'type', 'report', 'to', 'shell'],
  );
  for (const o of WITH_CHOICES) assert.equal(o.kind, 'value', o.long);
});

test('bash completions offer exactly the choices of every option that has them', () => {
  const text = completionScript(['bash']);
  for (const o of WITH_CHOICES) {
    const m = new RegExp(`^ {4}--${esc(o.long)}(\\|-\\w)*\\) _sling_reply "([^"]*)"`, 'm').exec(text);
    assert.ok(m, `--${o.long} has no values in the bash script`);
    assert.deepEqual(m[2]!.split(' '), offered(o), o.long);
  }
});

test('zsh completions offer exactly the choices of every option that has them', () => {
  const text = completionScript(['zsh']);
  for (const o of WITH_CHOICES) {
    const line = text.split('\n').find((l) => l.includes(`'--${o.long}=[`));
    assert.ok(line, `--${o.long} is not in the zsh script`);
    const m = /:(?:\(([^)]*)\)|\{_sling_value_or_file ([^}]*)\})'/.exec(line);
    assert.ok(m, `--${o.long} has no values in the zsh script: ${line}`);
    assert.deepEqual((m[1] ?? m[2])!.split(' '), offered(o), o.long);
  }
});

test('fish completions offer exactly the choices of every option that has them', () => {
  const text = completionScript(['fish']);
  for (const o of WITH_CHOICES) {
    const m = new RegExp(`^complete -c sling -l ${esc(o.long)} .* -a '([^']*)'`, 'm').exec(text);
    assert.ok(m, `--${o.long} has no values in the fish script`);
    assert.deepEqual(m[1]!.split(' '), offered(o), o.long);
  }
});

test('PowerShell completions offer exactly the choices of every option that has them', () => {
  const text = completionScript(['powershell']);
  for (const o of WITH_CHOICES) {
    const m = new RegExp(`^ {2}\\$values\\['--${esc(o.long)}'\\] = @\\(([^)]*)\\)$`, 'm').exec(text);
    assert.ok(m, `--${o.long} has no values in the PowerShell script`);
    assert.deepEqual(
      m[1]!.split(', ').map((w) => w.slice(1, -1)),
      offered(o),
      o.long,
    );
  }
});

test('options without a fixed set of values get none offered by completions', () => {
  const text = completionScript(['bash']);
  for (const o of ALL.filter((x) => x.kind === 'value' && !x.choices)) {
    assert.doesNotMatch(text, new RegExp(`^ {4}--${esc(o.long)}(\\|-\\w)*\\) _sling_reply`, 'm'), o.long);
  }
});

test('--help and the man page name every choice of every option that has them', () => {
  const main = helpText('1.0.0');
  const exec = helpText('1.0.0', 'exec');
  const man = manPage('1.0.0').replace(/\\-/g, '-');
  for (const o of WITH_CHOICES) {
    const shown = `${metavarOf(o)} ${helpOf(o)}`;
    for (const c of o.choices!) {
      assert.ok(shown.split(/[\s|,()]+/).includes(c), `--${o.long}: ${c} is not in its help: ${shown}`);
    }
    const help = EXEC_OPTIONS.includes(o) ? exec : main;
    assert.ok(help.includes(`--${o.long} ${metavarOf(o)}`), `--${o.long} ${metavarOf(o)} is not in --help`);
    assert.ok(man.includes(`--${o.long}\\fR \\fI${metavarOf(o)}\\fR`), `--${o.long} ${metavarOf(o)} is not in the man page`);
  }
  // A list in a help text is made from the choices: --style's names, --print's codes.
  const flat = main.replace(/\n +/g, ' ');
  assert.match(flat, /colour style: default \(the default\), auto, monokai,/);
  assert.match(flat, /what to print: H request headers, B request body, h response headers,/);
});

test("every default in the table passes its own option's check", () => {
  const withDefault = ALL.filter((o) => o.default !== undefined);
  assert.ok(withDefault.length >= 5, withDefault.map((o) => o.long).join(' '));
  for (const o of withDefault) assert.equal(checkValue(o, o.default!), o.default, o.long);
});

test('a value outside the choices is refused by a message naming the option and every choice', () => {
  for (const o of WITH_CHOICES) {
    assert.throws(
      () => checkValue(o, 'zz'),
      (e: Error) => e.message.startsWith(`--${o.long} `) && o.choices!.every((c) => e.message.includes(c)),
      o.long,
    );
  }
  assert.throws(
    () => checkValue(OPTIONS.find((o) => o.long === 'pretty')!, 'loud'),
    (e: Error) => e.message === `--pretty must be ${listOr(['all', 'colors', 'format', 'none'])}, got 'loud'`,
  );
});

test('synonyms and case: --ssl TLS1.2 and ssl2.3, --http-version 1, --verify TRUE and 0, --print m are read as the choices they stand for', () => {
  const find = (long: string) => ALL.find((o) => o.long === long)!;
  assert.equal(checkValue(find('ssl'), 'TLS1.2'), 'tls1.2');
  assert.equal(checkValue(find('ssl'), 'ssl2.3'), 'auto');
  assert.equal(checkValue(find('http-version'), '1'), '1.0');
  assert.equal(checkValue(find('verify'), 'TRUE'), 'yes');
  assert.equal(checkValue(find('verify'), '0'), 'no');
  assert.equal(checkValue(find('print'), 'Hm'), 'Hp');
  // A choice is case-sensitive where the table does not say otherwise.
  assert.throws(() => checkValue(find('pretty'), 'ALL'), /--pretty must be/);
});

test('the line is read once: the command, options before exec, and what was given, also at its default value', () => {
  const exec = parseCommandLine(['--max-redirects', '30', '-v', 'exec', '--verify', 'yes', 'api.http']);
  assert.equal(exec.command, 'exec');
  assert.deepEqual(exec.positionals, ['api.http']);
  assert.deepEqual([...exec.given].sort(), ['max-redirects', 'verbose', 'verify']);
  assert.equal(exec.error, undefined);
  const main = parseCommandLine(['--no-follow', 'example.org', 'exec']);
  assert.equal(main.command, 'main');
  assert.deepEqual(main.positionals, ['example.org', 'exec']);
  assert.ok(main.given.has('follow'));
  // An option of the other command is that command's error, in the order of the line.
  assert.equal(parseCommandLine(['--env', 'dev', 'example.org', 'exec']).error?.message, "unknown option '--env'");
  assert.equal(parseCommandLine(['-d', 'exec', 'api.http']).error?.message, "unknown option '-d'");
  assert.equal(parseCommandLine(['-dv', 'exec', 'api.http']).error?.message, "unknown option '-d' (in '-dv')");
  assert.equal(parseCommandLine(['-t', 'yaml', 'example.org', 'exec']).error?.message, "unknown option '-t'");
  assert.equal(parseCommandLine(['--timeout', '0', '--bogus', 'exec']).error?.message, "--timeout needs a positive number of seconds, got '0'");
  // Nothing given: nothing counts as given, and the defaults come from the table.
  const inv = resolveInvocation(['example.org']);
  assert.deepEqual([...inv.given], []);
  assert.equal(inv.maxRedirects, 30);
  assert.equal(inv.authType, 'basic');
  assert.equal(inv.verify, true);
  assert.ok(resolveInvocation(['--max-redirects=30', 'example.org']).given.has('max-redirects'));
});

test('of -j, -f and --multipart the last one wins and --no-X undoes X, read from the one pass', () => {
  assert.equal(resolveInvocation(['-j', '-f', 'x']).form, true);
  assert.equal(resolveInvocation(['-fj', 'x']).json, true);
  assert.equal(resolveInvocation(['-f', '--multipart', '--no-multipart', 'x']).multipart, false);
  assert.equal(resolveInvocation(['-f', '--multipart', '--no-multipart', 'x']).form, false);
  assert.equal(resolveInvocation(['--raw', '-j', 'x']).json, false);
  assert.equal(resolveInvocation(['-a', '-f', 'x']).form, false);
});
