import { test } from 'node:test';
import assert from 'node:assert/strict';
import { resolveInvocation } from '../../src/cli/invocation.js';

test('flags anywhere, clusters, --, and the last output flag wins', () => {
  const inv = resolveInvocation(['example.org', '-jv', 'a=1', '--timeout', '2.5', '--', '-x=1']);
  assert.equal(inv.json, true);
  assert.equal(inv.print, 'HBhb');
  assert.equal(inv.timeoutMs, 2500);
  assert.deepEqual(
    inv.items.map((i) => i.orig),
    ['a=1', '-x=1'],
  );
  assert.equal(resolveInvocation(['-v', '-b', 'x']).print, 'b');
  assert.equal(resolveInvocation(['-b', '-v', 'x']).print, 'HBhb');
  assert.equal(resolveInvocation(['-vv', 'x']).print, 'HBhbp');
  assert.equal(resolveInvocation(['--print=Hm', 'x']).print, 'Hp');
  assert.equal(resolveInvocation(['-ax:y', 'x']).auth, 'x:y');
  assert.equal(resolveInvocation(['-dco', 'f.zip', 'x']).output, 'f.zip');
  assert.equal(resolveInvocation(['--follow', '--no-follow', 'x']).follow, false);
});

test('method inference', () => {
  assert.equal(resolveInvocation(['post', 'x']).method, 'POST');
  assert.equal(resolveInvocation(['PROPFIND', 'x']).method, 'PROPFIND');
  assert.equal(resolveInvocation(['purge', 'example.org']).method, 'PURGE');
  assert.equal(resolveInvocation(['localhost', 'a=1']).method, undefined);
  assert.equal(resolveInvocation(['localhost', 'a=1']).url, 'localhost');
  assert.equal(resolveInvocation(['example.org']).method, undefined);
});

test('bad arguments name the culprit', () => {
  assert.throws(() => resolveInvocation(['--bogus', 'x']), /unknown option '--bogus'/);
  assert.throws(() => resolveInvocation(['--timeout', 'abc', 'x']), /--timeout needs a positive number of seconds, got 'abc'/);
  assert.throws(() => resolveInvocation(['--timeout=0', 'x']), /positive number/);
  assert.throws(() => resolveInvocation(['--verify=maybe', 'x']), /--verify must be yes, no or the path of a CA bundle; 'maybe'/);
  assert.throws(() => resolveInvocation(['--print=Z', 'x']), /--print 'Z' has an unknown code/);
  assert.throws(() => resolveInvocation(['GET', 'x', 'foo']), /'foo' is not a request item/);
  assert.throws(() => resolveInvocation(['--auth-type', 'bearer', 'x']), /needs credentials/);
  assert.throws(() => resolveInvocation(['x', '--timeout']), /option --timeout needs a value/);
  assert.throws(() => resolveInvocation(['--pretty=loud', 'x']), /--pretty must be/);
});

test('exec --report junit FILE: with two files named, the one right after --report junit is the report', () => {
  const ex = (argv: string[]) => resolveInvocation(argv, 'exec').exec!;
  assert.deepEqual([ex(['--report', 'junit', 'out.xml', 'api.http']).reportFile, ex(['--report', 'junit', 'out.xml', 'api.http']).file], ['out.xml', 'api.http']);
  assert.deepEqual([ex(['--report=junit', 'out.xml', 'api.http']).reportFile, ex(['--report=junit', 'out.xml', 'api.http']).file], ['out.xml', 'api.http']);
  assert.deepEqual([ex(['api.http', '--report', 'junit', 'out.xml']).reportFile, ex(['api.http', '--report', 'junit', 'out.xml']).file], ['out.xml', 'api.http']);
  // The requests on standard input: a report file known by its name (.xml, a folder's /).
  assert.deepEqual([ex(['--report', 'junit', 'r1.xml']).reportFile, ex(['--report', 'junit', 'r1.xml']).file], ['r1.xml', undefined]);
  assert.deepEqual([ex(['--report', 'junit', 'reports/']).reportFile, ex(['--report', 'junit', 'reports/']).file], ['reports/', undefined]);
  // Only the requests' file: it is that, and the report goes to the default file.
  assert.deepEqual([ex(['--report', 'junit', 'api.http']).reportFile, ex(['--report', 'junit', 'api.http']).file], [undefined, 'api.http']);
  // --report-file given: two files are still two files.
  assert.throws(() => ex(['--report', 'junit', '--report-file', 'r.xml', 'a.http', 'b.http']), /sling exec runs one file; got 2: a\.http b\.http/);
  assert.throws(() => ex(['a.http', 'b.http']), /sling exec runs one file; got 2/);
});

test('long options by an unambiguous prefix; near misses and ambiguous prefixes are named', () => {
  assert.equal(resolveInvocation(['--foll', 'x']).follow, true);
  assert.equal(resolveInvocation(['--check', 'x']).checkStatus, true);
  assert.equal(resolveInvocation(['--follow', '--no-foll', 'x']).follow, false);
  assert.equal(resolveInvocation(['--time=2', 'x']).timeoutMs, 2000);
  assert.equal(resolveInvocation(['--max-red', '3', 'x']).maxRedirects, 3);
  // An exact name wins over the longer names it is a prefix of (--session, --session-read-only).
  assert.equal(resolveInvocation(['--form', 'x']).form, true);
  assert.throws(
    () => resolveInvocation(['--folow', 'x']),
    (e: Error) => e.message === "unknown option '--folow' (did you mean --follow?)",
  );
  assert.throws(() => resolveInvocation(['--jsno', 'x']), /unknown option '--jsno' \(did you mean --json\?\)/);
  assert.throws(
    () => resolveInvocation(['--zzzzzz', 'x']),
    (e: Error) => e.message === "unknown option '--zzzzzz'",
  );
  assert.throws(() => resolveInvocation(['--ver', 'x']), /ambiguous option '--ver': it could be --verbose, --verify or --version/);
  // sling exec's own options share the parser.
  assert.equal(resolveInvocation(['--fail', 'f.http'], 'exec').exec?.failFast, true);
  assert.throws(() => resolveInvocation(['--fial-fast', 'f.http'], 'exec'), /did you mean --fail-fast\?/);
  assert.throws(() => resolveInvocation(['--env', 'x', '--re', 'f.http'], 'exec'), /ambiguous option '--re': it could be --report, --report-file, --resolve, --response-charset or --response-mime/);
});
