import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { compile, rawText } from '../../src/sources/http/template.js';
import { checkDynamic, evalDynamic, formatDate, projectRoot } from '../../src/sources/http/dynamic.js';
import { jsonPath } from '../../src/sources/http/jsonpath.js';
import { loadEnvironment, parseDotenv } from '../../src/sources/http/env.js';

// ---- templates ---------------------------------------------------------------------------------

const TEMPLATES: [string, string[]][] = [
  ['plain', ['"plain"']],
  ['{{a}}', ['var:a']],
  ['x{{ a }}y', ['"x"', 'var:a', '"y"']],
  ['{{Catalog.API_HostAddress}}/x', ['var:Catalog.API_HostAddress', '"/x"']],
  ['{{public-variable}}', ['var:public-variable']],
  ['{{%q}}', ['var:q%']],
  ['{{$uuid}}', ['dynamic:uuid()']],
  ['{{$randomInt 1 9}}', ['dynamic:randomInt(1,9)']],
  ['{{$random.integer(2, 8)}}', ['dynamic:random.integer(2,8)']],
  ['{{$datetime "DD.MM.YYYY HH:mm" 2 d}}', ['dynamic:datetime(DD.MM.YYYY HH:mm,2,d)']],
  ["{{$datetime 'YYYY' -1 y}}", ['dynamic:datetime(YYYY,-1,y)']],
  ['{{$processEnv %envVar}}', ['dynamic:processEnv(%envVar)']],
  ['{{login.response.body.$.token}}', ['ref:login(response,body,$.token)']],
  ['{{login.response.headers.Location}}', ['ref:login(response,headers,Location)']],
  ['{{start.response.body.*}}', ['ref:start(response,body,*)']],
  ['{{login.request.body.$.user}}', ['ref:login(request,body,$.user)']],
  ['{{$.clients..id}}', ['jsonpath:$.clients..id']],
  ['{{ a + b }}', ['js:a + b']],
  ['{{}}', ['"{{}}"']],
  ['', ['""']],
  ['{{{a}}}', ['"{"', 'var:a', '"}"']],
];
for (const [input, want] of TEMPLATES) {
  test(`template ${input}`, () => {
    const template = compile(input, 1);
    const got = (typeof template === 'string' ? [template] : template).map((p) => {
      if (typeof p === 'string') return JSON.stringify(p);
      if (p.kind === 'var') return `var:${p.name}${p.encode ? '%' : ''}`;
      if (p.kind === 'dynamic') return `dynamic:${p.name}(${p.args.join(',')})`;
      if (p.kind === 'ref') return `ref:${p.name}(${p.args.join(',')})`;
      return `${p.kind}:${p.name}`;
    });
    assert.deepEqual(got, want);
    assert.equal(rawText(template), input);
  });
}

test('template: columns point at the placeholder', () => {
  const template = compile('GET {{a}} {{b}}', 7, 1);
  assert.ok(typeof template !== 'string');
  const cols = template.filter((p) => typeof p !== 'string').map((p) => (typeof p === 'string' ? 0 : [p.line, p.col]));
  assert.deepEqual(cols, [
    [7, 5],
    [7, 11],
  ]);
});

test('property: a template always renders back to its text', () => {
  fc.assert(
    fc.property(fc.string({ maxLength: 40 }), fc.string({ maxLength: 10 }), (a, b) => {
      const text = `${a}{{${b}}}${a}`;
      assert.equal(rawText(compile(text, 1)), text);
    }),
  );
});

// ---- dynamic variables ---------------------------------------------------------------------------

const warnings: string[] = [];
const env = {
  env: { HOME_X: '/h', NAME_OF: 'HOME_X' },
  dotenv: () => ({ SECRET: 's3' }),
  variable: (n: string) => (n === 'which' ? 'HOME_X' : undefined),
  projectRoot: () => '/p',
  warn: (m: string) => warnings.push(m),
  now: () => new Date('2024-02-29T13:04:05.006Z'),
};

const DYNAMIC: [string, string[], RegExp | string][] = [
  ['uuid', [], /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/],
  ['guid', [], /^[0-9a-f-]{36}$/],
  ['random.uuid', [], /^[0-9a-f-]{36}$/],
  ['timestamp', [], '1709211845'],
  ['timestamp', ['-1', 'd'], '1709125445'],
  ['isoTimestamp', [], '2024-02-29T13:04:05.006Z'],
  ['date', [], '2024-02-29'],
  ['randomInt', ['5', '6'], '5'],
  ['random.integer', ['2', '3'], '2'],
  ['random.alphabetic', ['12'], /^[A-Za-z]{12}$/],
  ['random.alphanumeric', ['7'], /^\w{7}$/],
  ['random.hexadecimal', ['5'], /^[0-9a-f]{5}$/],
  ['random.numeric', ['4'], /^\d{4}$/],
  ['random.email', [], /^[a-z]+@[a-z]+\.com$/],
  ['datetime', ['rfc1123'], 'Thu, 29 Feb 2024 13:04:05 GMT'],
  ['datetime', ['iso8601'], '2024-02-29T13:04:05.006Z'],
  // Day.js (REST Client): a year or month later stops at the month's last day.
  ['datetime', ['iso8601', '1', 'y'], '2025-02-28T13:04:05.006Z'],
  ['datetime', ['iso8601', '-1', 'M'], '2024-01-29T13:04:05.006Z'],
  ['datetime', ['iso8601', '12', 'M'], '2025-02-28T13:04:05.006Z'],
  ['timestamp', ['1', 'M'], String(Date.UTC(2024, 2, 29, 13, 4, 5) / 1000)],
  ['datetime', ['DD.MM.YYYY HH:mm', '2', 'd'], '02.03.2024 13:04'],
  ['datetime', ['YYYY-MM-DD[T]HH:mm:ss.SSS dddd MMM A X'], '2024-02-29T13:04:05.006 Thursday Feb PM 1709211845'],
  ['processEnv', ['HOME_X'], '/h'],
  ['processEnv', ['%which'], '/h'],
  // %NAME with no variable NAME: the name as written (REST Client).
  ['processEnv', ['%HOME_X'], '/h'],
  ['projectRoot', [], '/p'],
  ['historyFolder', [], '/p/.idea/httpRequests'],
  ['env.HOME_X', [], '/h'],
  ['dotenv', ['SECRET'], 's3'],
  ['dotenv.SECRET', [], 's3'],
];
for (const [name, args, want] of DYNAMIC) {
  test(`dynamic $${name} ${args.join(' ')}`, () => {
    assert.equal(checkDynamic(name, args), null);
    const v = evalDynamic(name, args, env);
    if (typeof want === 'string') assert.equal(v, want);
    else assert.match(v, want);
  });
}

test('dynamic: two uuids differ', () => assert.notEqual(evalDynamic('uuid', [], env), evalDynamic('uuid', [], env)));

test('dynamic: $random.integer stays in [from, to)', () => {
  fc.assert(
    fc.property(fc.integer({ min: -1000, max: 1000 }), fc.integer({ min: 2, max: 50 }), (from, span) => {
      const v = Number(evalDynamic('random.integer', [String(from), String(from + span)], env));
      assert.ok(Number.isInteger(v) && v >= from && v < from + span, `${v}`);
    }),
  );
});

test('dynamic: bad arguments are reported, other runners flagged unsupported; unknown names only when used', () => {
  assert.equal(checkDynamic('nope', []), null);
  assert.throws(() => evalDynamic('nope', [], { env: {}, dotenv: () => ({}), variable: () => undefined, projectRoot: () => '/' }), /^Error: unknown dynamic variable$/);
  assert.match(checkDynamic('timestamp', ['1'])!, /offset/);
  assert.match(checkDynamic('datetime', [])!, /needs a format/);
  assert.match(checkDynamic('aadToken', [])!, /^unsupported:/);
  // JetBrains Faker variables are supported (faker.ts): a name sling lacks is warned about, and fails its request.
  assert.equal(checkDynamic('random.address.city', []), null);
  assert.match(checkDynamic('random.address.town', [])!, /^unsupported:\{\{\$random\.address\.town\}\}: the Faker category 'address' has no 'town'/);
  assert.throws(() => evalDynamic('random.address.town', [], { env: {}, dotenv: () => ({}), variable: () => undefined, projectRoot: () => '/' }), /^Error: the Faker category 'address' has no 'town'/);
  assert.equal(checkDynamic('auth.token', ['api']), null);
  assert.match(checkDynamic('auth.token', [])!, /needs the id of a Security\.Auth configuration/);
});

test('dynamic: an unset $processEnv variable is empty, with a warning (REST Client sends the request)', () => {
  warnings.length = 0;
  assert.equal(evalDynamic('processEnv', ['NOT_SET_ANYWHERE'], env), '');
  assert.deepEqual(warnings, ['the environment variable NOT_SET_ANYWHERE is not set: {{$processEnv NOT_SET_ANYWHERE}} is empty']);
});

test('dynamic: month offsets from the 31st stop at the last day of the month', () => {
  const at = (iso: string) => ({ ...env, now: () => new Date(iso) });
  assert.equal(evalDynamic('datetime', ['iso8601', '1', 'M'], at('2024-01-31T12:00:00.000Z')), '2024-02-29T12:00:00.000Z');
  assert.equal(evalDynamic('datetime', ['iso8601', '1', 'M'], at('2023-01-31T12:00:00.000Z')), '2023-02-28T12:00:00.000Z');
  assert.equal(evalDynamic('datetime', ['iso8601', '3', 'M'], at('2024-01-31T12:00:00.000Z')), '2024-04-30T12:00:00.000Z');
  assert.equal(evalDynamic('datetime', ['iso8601', '-1', 'y'], at('2024-02-29T00:00:00.000Z')), '2023-02-28T00:00:00.000Z');
});

test('dynamic: $localDatetime iso8601 has no milliseconds (Day.js format()), $datetime iso8601 has them', () => {
  assert.match(evalDynamic('localDatetime', ['iso8601'], env), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d\d:\d\d$/);
  assert.equal(evalDynamic('datetime', ['iso8601'], env), '2024-02-29T13:04:05.006Z');
});

test("projectRoot: the nearest folder up with .idea or .git, else the file's folder", () => {
  const have = new Set(['/w/app/.git', '/w/.idea']);
  assert.equal(
    projectRoot('/w/app/api/http', (p) => have.has(p)),
    '/w/app',
  );
  assert.equal(
    projectRoot('/w/other', (p) => have.has(p)),
    '/w',
  );
  assert.equal(
    projectRoot('/x/y', () => false),
    '/x/y',
  );
});

test('formatDate: local time carries its offset', () => {
  assert.match(formatDate(new Date(0), 'YYYY-MM-DDTHH:mm:ssZ', true), /^19(69|70)-\d\d-\d\dT\d\d:\d\d:00[+-]\d\d:\d\d$/);
});

// ---- JSONPath ------------------------------------------------------------------------------------

const DOC = { a: { b: [1, 2, { c: 'x' }] }, items: [{ id: 1, tags: ['p'] }, { id: 2 }], 'we ird': true };
const PATHS: [string, unknown[]][] = [
  ['$', [DOC]],
  ['$.a.b[0]', [1]],
  ['$.a.b[-1].c', ['x']],
  ['$.items[*].id', [1, 2]],
  ['$..id', [1, 2]],
  ['$.items..tags[0]', ['p']],
  ["$['we ird']", [true]],
  ['$.items[0:1].id', [1]],
  ['$.items[0,1].id', [1, 2]],
  ['$.missing', []],
  ['a.b[1]', [2]],
  ['$.items.length', [2]],
];
for (const [path, want] of PATHS) test(`jsonPath ${path}`, () => assert.deepEqual(jsonPath(DOC, path), want));
test('jsonPath: an array of 300,000 items is selected whole (fuzz: RangeError, each item made an argument of push())', () => {
  const doc = { a: Array.from({ length: 300_000 }, (_, i) => i) };
  for (const path of ['$.a[*]', '$.a.*', '$.a[0:]', '$..*']) assert.equal(jsonPath(doc, path).length, path === '$..*' ? 300_001 : 300_000, path);
});

test('jsonPath: filters keep the items their expression holds for', () => {
  assert.deepEqual(jsonPath(DOC, '$.items[?(@.id==1)]'), [{ id: 1, tags: ['p'] }]);
  assert.deepEqual(jsonPath(DOC, '$.items[?(@.id > 1)].id'), [2]);
  assert.deepEqual(jsonPath(DOC, '$.items[?(@.tags)].id'), [1]);
  assert.deepEqual(jsonPath(DOC, '$.items[?(!@.tags)].id'), [2]);
  assert.deepEqual(jsonPath(DOC, "$.items[?(@.id >= 1 && (@.tags[0] == 'p' || @.id === 2))].id"), [1, 2]);
  assert.deepEqual(jsonPath(DOC, '$.items[?(@.id != $.items[0].id)].id'), [2]);
  assert.deepEqual(jsonPath(DOC, '$..[?(@.c)].c'), ['x']);
  assert.deepEqual(jsonPath(DOC, '$.items[?(@.tags.length == 1)].id'), [1]);
  assert.deepEqual(jsonPath(DOC, '$.items[?(@.id < "2")]'), [], 'a number and a string do not compare');
  assert.throws(() => jsonPath(DOC, '$.items[?(@.id == )]'), /an operand is missing/);
  assert.throws(() => jsonPath(DOC, '$.items[?(@.id.match(/x/))]'), /is not something sling reads|left over/);
  assert.throws(() => jsonPath(DOC, '$.items[(@.length-1)]'), /not supported/);
});

// ---- environments --------------------------------------------------------------------------------

test('environment: selected env over $shared, public over private, found in a parent folder', () => {
  const root = mkdtempSync(join(tmpdir(), 'sling-env-'));
  writeFileSync(join(root, 'http-client.env.json'), JSON.stringify({ $shared: { a: 'shared', s: 'S' }, dev: { a: 'dev', n: 5 }, prod: { a: 'prod' } }));
  writeFileSync(join(root, 'http-client.private.env.json'), JSON.stringify({ dev: { a: 'private', secret: 'p' }, $shared: { s: 'privS', ps: 'PS' } }));
  const sub = join(root, 'api', 'v1');
  mkdirSync(sub, { recursive: true });
  const e = loadEnvironment(sub, 'dev', undefined, sub);
  assert.deepEqual(Object.fromEntries(e.vars), { a: 'dev', n: '5', secret: 'p', s: 'S', ps: 'PS' });
  assert.deepEqual(e.definedIn.get('a'), ['dev', 'prod']);
  const none = loadEnvironment(sub, undefined, undefined, sub);
  assert.deepEqual(Object.fromEntries(none.vars), { a: 'shared', s: 'S', ps: 'PS' });
  assert.throws(() => loadEnvironment(sub, 'qa', undefined, sub), /no such environment/);
});

test('environment: an empty public value is a placeholder the private file fills in (JetBrains docs example)', () => {
  const root = mkdtempSync(join(tmpdir(), 'sling-env-'));
  writeFileSync(join(root, 'http-client.env.json'), JSON.stringify({ development: { username: '', password: '', host: 'h' }, $shared: { token: '' } }));
  writeFileSync(join(root, 'http-client.private.env.json'), JSON.stringify({ development: { username: 'dev-user', password: 'dev-password', host: 'private-h' }, $shared: { token: 't' } }));
  const e = loadEnvironment(root, 'development', undefined, root);
  assert.deepEqual(Object.fromEntries(e.vars), { username: 'dev-user', password: 'dev-password', host: 'h', token: 't' });
});

test('environment: --env-file names the file (and brings its private sibling)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sling-env-'));
  writeFileSync(join(dir, 'ci.env.json'), JSON.stringify({ ci: { host: 'h' } }));
  writeFileSync(join(dir, 'ci.private.env.json'), JSON.stringify({ ci: { token: 't' } }));
  const e = loadEnvironment('/nonexistent', 'ci', join(dir, 'ci.env.json'), dir);
  assert.deepEqual(Object.fromEntries(e.vars), { host: 'h', token: 't' });
  assert.throws(() => loadEnvironment(dir, 'ci', 'missing.json', dir), /--env-file/);
});

test('environment: a broken env file is named with LINE:COL; an environment that is not an object is an error', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sling-env-bad-'));
  const file = join(dir, 'http-client.env.json');
  const load = () => loadEnvironment(dir, 'dev', undefined, dir);
  writeFileSync(file, '{\n  // a comment\n  "dev": {"a": 1,},\n}\n');
  assert.deepEqual(Object.fromEntries(load().vars), { a: '1' });
  writeFileSync(file, '{\n  /* a comment */ dev: {"a": 1}\n}\n');
  assert.throws(load, (e: Error) => e.message === `${file}:2:19: not valid JSON: Expected property name or '}'`);
  writeFileSync(file, '\uFEFF{\n  "dev": {"a": 1\n');
  assert.throws(load, (e: Error) => e.message === `${file}:3:1: not valid JSON: Expected ',' or '}' after property value`);
  writeFileSync(file, '{\n  "dev": {"a": 1},\n  "prod": [1]\n}');
  assert.throws(load, (e: Error) => e.message === `${file}:3:3: the environment 'prod' must be an object of variables ({"name": "value"}), got an array`);
  writeFileSync(file, '{"$shared": "x", "dev": {}}');
  assert.throws(load, /:1:2: the environment '\$shared' must be an object of variables \(\{"name": "value"\}\), got a string$/);
  writeFileSync(file, '[]');
  assert.throws(load, /must hold an object of environments/);
});

test('environment: --env without any env file is an error with a hint', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sling-env-none-'));
  assert.throws(() => loadEnvironment(dir, 'dev', undefined, dir), /no http-client\.env\.json/);
});

test('dotenv', () => {
  assert.deepEqual(parseDotenv('# c\nA=1\nexport B = two \nC="x\\ny"\nD=\'q\'\nE=v # note\n'), { A: '1', B: 'two', C: 'x\ny', D: 'q', E: 'v' });
});

test('pickDef: the last definition above the line, else the first below (property)', async () => {
  const { pickDef } = await import('../../src/sources/http/vars.js');
  fc.assert(
    fc.property(fc.uniqueArray(fc.integer({ min: 1, max: 500 }), { minLength: 1, maxLength: 40 }), fc.integer({ min: 1, max: 520 }), (lines, at) => {
      const defs = [...lines].sort((a, b) => a - b).map((line) => ({ line, value: String(line) }));
      const above = defs.filter((d) => d.line < at);
      const want = above.length ? above[above.length - 1]! : defs[0]!;
      assert.equal(pickDef(defs, at), want);
    }),
  );
});

test('dynamic: $localDatetime day, week and month offsets keep the clock time across a daylight-saving change', () => {
  const before = process.env.TZ;
  process.env.TZ = 'Europe/Berlin';
  try {
    const at = { ...env, now: () => new Date('2026-03-28T12:00:00.000Z') }; // 13:00 CET, the day before summer time
    assert.equal(evalDynamic('localDatetime', ['iso8601', '1', 'd'], at), '2026-03-29T13:00:00+02:00');
    assert.equal(evalDynamic('localDatetime', ['iso8601', '1', 'w'], at), '2026-04-04T13:00:00+02:00');
    assert.equal(evalDynamic('localDatetime', ['iso8601', '24', 'h'], at), '2026-03-29T14:00:00+02:00');
  } finally {
    if (before === undefined) delete process.env.TZ;
    else process.env.TZ = before;
  }
});

test('.env: a comment after blanks is dropped, a # inside a value kept; a long run of blanks is read in one pass (from each blank it was quadratic)', async () => {
  assert.deepEqual(parseDotenv('A=x   # note\nB=x#y\nC="q # r" # s\nD=a  b\t#c'), { A: 'x', B: 'x#y', C: 'q # r', D: 'a  b' });
  const long = 'x' + ' '.repeat(200_000) + 'y';
  assert.equal(parseDotenv(`A=${long}`).A, long);
});

test('literal: JSONC keeps offsets; a module is read only as a plain object literal, never run', async () => {
  const { readModuleObject, stripJsonc, LiteralError } = await import('../../src/sources/http/literal.js');
  const jsonc = '{"a": "x // not a comment", /* c */ "b": [1, 2,], // end\n}';
  assert.equal(stripJsonc(jsonc).length, jsonc.length);
  assert.deepEqual(JSON.parse(stripJsonc(jsonc)), { a: 'x // not a comment', b: [1, 2] });
  assert.deepEqual(readModuleObject("'use strict';\n// c\nexport default { a: 'q\\'', 'b-c': [true, null, -1.5e3, 0x10], d: `t`, __proto__: { x: 1 } };\n"), {
    a: "q'",
    'b-c': [true, null, -1500, 16],
    d: 't',
    ['__proto__']: { x: 1 },
  });
  assert.equal(Object.getPrototypeOf(readModuleObject('module.exports = { __proto__: { polluted: 1 } }')), Object.prototype);
  for (const code of [
    'module.exports = f()',
    'module.exports = { a: f() }',
    'module.exports = { a: x }',
    'module.exports = { ...other }',
    'module.exports = { a() { return 1 } }',
    'module.exports = { [k]: 1 }',
    'module.exports = { a: `${x}` }',
    'module.exports = { a: 1 }; require("x")',
    'const x = 1; module.exports = { a: x }',
    'module.exports = { a: 1',
  ]) {
    assert.throws(() => readModuleObject(code), LiteralError, code);
  }
});
