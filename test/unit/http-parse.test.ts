import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { HttpParseError, parseHttp } from '../../src/sources/http/parse.js';
import { parseAssert } from '../../src/sources/http/asserts.js';
import { rawText } from '../../src/sources/http/template.js';
import type { ParsedHttp, RequestNode } from '../../src/sources/http/ast.js';

/** A compact view of what the parser made of a file: one line per request. */
function summary(p: ParsedHttp): string[] {
  return p.items.map((it) => {
    if (it.kind === 'curl') return `${it.line}: curl ${JSON.stringify(it.text)}${it.atName ? ` name=${it.atName}` : ''}${it.title ? ` title=${it.title}` : ''}`;
    if (it.kind === 'run') return `run ${it.name !== undefined ? '#' + it.name : it.path}${it.overrides.map(([k, v]) => ` @${k}=${rawText(v)}`).join('')}`;
    const r = it as RequestNode;
    let s = `${r.line}: ${r.method} ${rawText(r.url)}`;
    if (r.version) s += ` ${r.version}`;
    if (r.atName) s += ` name=${r.atName}`;
    if (r.title) s += ` title=${r.title}`;
    for (const h of r.headers) s += ` | ${rawText(h.name)}: ${rawText(h.value)}`;
    if (r.body.length) s += ` | body=${JSON.stringify(r.body.map((b) => (b.kind === 'text' ? b.raw : `<${b.vars ? '@' : ''} ${rawText(b.path)}`) + b.eol).join(''))}`;
    if (r.graphql) s += ' graphql';
    if (r.pre.length) s += ` pre=${r.pre.length}`;
    if (r.handlers.length) s += ` handlers=${r.handlers.map((h) => (h.lua ? 'lua' : h.code !== undefined ? 'inline' : rawText(h.path!))).join(',')}`;
    if (r.outputs.length) s += ` outputs=${r.outputs.map((o) => (o.overwrite ? '!' : '') + rawText(o.path)).join(',')}`;
    const d = r.directives;
    const flags = Object.entries(d)
      .filter(([k, v]) => k !== 'refs' && v !== undefined)
      .map(([k, v]) => (v === true ? k : `${k}=${v}`));
    if (d.refs.length) flags.push(`refs=${d.refs.join(',')}`);
    if (flags.length) s += ` {${flags.join(' ')}}`;
    return s;
  });
}

const CASES: [string, string, string[]][] = [
  ['a bare URL is a GET', 'https://example.org/x', ['1: GET https://example.org/x']],
  ['method, URL and version', 'POST http://h/x HTTP/1.1\n', ['1: POST http://h/x HTTP/1.1']],
  [
    'HTTP/2 versions',
    'GET http://h/a HTTP/2\n###\nGET http://h/b http/2.0\n###\nGET http://h/c HTTP/2 (prior knowledge)\n',
    ['1: GET http://h/a HTTP/2', '3: GET http://h/b HTTP/2.0', '5: GET http://h/c HTTP/2 (Prior Knowledge)'],
  ],
  ['a parenthesis that is not a version stays in the URL', 'GET http://h/x(1)', ['1: GET http://h/x(1)']],
  ['lower-case method', 'get http://h/', ['1: GET http://h/']],
  ['custom method', 'PROPFIND http://h/dav', ['1: PROPFIND http://h/dav']],
  ['scheme-less host', 'GET localhost:9999', ['1: GET localhost:9999']],
  ['origin-form with Host', 'GET /api HTTP/1.1\nHost: h:8080', ['1: GET /api HTTP/1.1 | Host: h:8080']],
  ['spaces inside the URL', 'POST {{r}}/x?loc=New York&b=1', ['1: POST {{r}}/x?loc=New York&b=1']],
  ['separators with and without titles', '### one\nGET http://h/1\n\n###two\nGET http://h/2\n###\nGET http://h/3', ['2: GET http://h/1 title=one', '5: GET http://h/2 title=two', '7: GET http://h/3']],
  ['empty blocks and banner lines', '###\n\n\n### ====\n### ====\nGET http://h/\n###', ['6: GET http://h/ title=====']],
  [
    '# @name and // @name and @name =',
    '# @name a\nGET http://h/a\n###\n// @name b\nGET http://h/b\n###\n# @name = c\nGET http://h/c',
    ['2: GET http://h/a name=a', '5: GET http://h/b name=b', '8: GET http://h/c name=c'],
  ],
  ['# @name before ### belongs to the next request', '# @name tok\n### Get token\nPOST http://h/t', ['3: POST http://h/t name=tok title=Get token']],
  [
    '# @name right before ### with no blank line: after headers, after a text or JSON body, after the request line',
    'GET http://h/a\nX-A: 1\n# @name b\n###\nPOST http://h/b\nContent-Type: text/plain\n\nhello\n# not a directive\n// @name c\n###\nPOST http://h/c\n\n{"a": 1}\n# @name d\n# @no-redirect\n\n###\nGET http://h/d\n# @name e\n###\nGET http://h/e',
    [
      '1: GET http://h/a | X-A: 1',
      '5: POST http://h/b name=b | Content-Type: text/plain | body="hello\\n# not a directive"',
      '12: POST http://h/c name=c | body="{\\"a\\": 1}"',
      '19: GET http://h/d name=d {noRedirect}',
      '22: GET http://h/e name=e',
    ],
  ],
  [
    'text bodies keep a line that only looks like a protocol request or a directive (a word, not an address; @todo; the end of the file)',
    'POST http://h/n\nContent-Type: text/plain\n\nRelease notes\n\nSSE support\nwas added\n# @todo more\n###\nPOST http://h/s\nContent-Type: text/x-shellscript\n\n#!/bin/sh\necho hi\n# @reboot',
    [
      '1: POST http://h/n | Content-Type: text/plain | body="Release notes\\n\\nSSE support\\nwas added\\n# @todo more"',
      '10: POST http://h/s | Content-Type: text/x-shellscript | body="#!/bin/sh\\necho hi\\n# @reboot"',
    ],
  ],
  ['httpyac: # @name between requests with no blank line', 'GET /one\n# @name second\nGET /two', ['1: GET /one', '3: GET /two name=second']],
  ['a directive comment among the headers stays a comment', 'GET http://h/a\n# @name x\nX-A: 1\n###\nGET http://h/b', ['1: GET http://h/a | X-A: 1', '5: GET http://h/b']],
  ['comments between headers are skipped', 'POST http://h/\nA: 1\n# B: 2\n// C: 3\nD: 4', ['1: POST http://h/ | A: 1 | D: 4']],
  ['header values are trimmed, case kept, duplicates kept', 'GET http://h/\nx-A:  1 \nX-A: 2', ['1: GET http://h/ | x-A: 1 | X-A: 2']],
  [
    'body after a blank line, trailing blank lines dropped',
    'POST http://h/\nContent-Type: text/plain\n\nline 1\n\nline 3\n\n\n',
    ['1: POST http://h/ | Content-Type: text/plain | body="line 1\\n\\nline 3"'],
  ],
  ['CRLF line endings are kept inside the body', 'POST http://h/\r\n\r\na\r\nb\r\n', ['1: POST http://h/ | body="a\\r\\nb"']],
  ['a BOM is not part of the first line', '\uFEFF@h = x\nGET http://{{h}}/', ['2: GET http://{{h}}/']],
  ['no trailing newline', 'GET http://h/\nA: 1', ['1: GET http://h/ | A: 1']],
  ['multi-line URL, JetBrains indentation', 'GET http://h:8080\n    /api\n    /get\n    ?id=1\n    &v=2', ['1: GET http://h:8080/api/get?id=1&v=2']],
  ['multi-line query, REST Client ? and & lines', 'GET http://h/x\n?a=1\n&b=2\nAccept: */*', ['1: GET http://h/x?a=1&b=2 | Accept: */*']],
  ['leading comment lines of a body are not body', 'POST http://h/\n\n// CreateTodo\n{"a": 1}', ['1: POST http://h/ | body="{\\"a\\": 1}"']],
  [
    "# lines before JSON are comments, before other text the body's own",
    'POST http://h/j\n\n# note\n// CreateTodo\n[1]\n###\nPOST http://h/m\nContent-Type: text/markdown\n\n# Title\n\ntext\n#!/bin/sh line',
    ['1: POST http://h/j | body="[1]"', '7: POST http://h/m | Content-Type: text/markdown | body="# Title\\n\\ntext\\n#!/bin/sh line"'],
  ],
  [
    'comment lines between requests separated by a blank line belong to the next one',
    'GET http://h/a\n\n# @name second\n// a note\nGET http://h/b\n\n# trailing note',
    ['1: GET http://h/a', '5: GET http://h/b name=second'],
  ],
  ['trailing comments after a blank line are not body', 'POST http://h/\n\n{"a": 1}\n\n# note about it', ['1: POST http://h/ | body="{\\"a\\": 1}"']],
  ['file includes', 'POST http://h/\n\n< ./a.json\n<@ ./b.txt', ['1: POST http://h/ | body="< ./a.json\\n<@ ./b.txt"']],
  ['XML bodies are not includes', 'POST http://h/\n\n<a>\n<b/></a>', ['1: POST http://h/ | body="<a>\\n<b/></a>"']],
  ['response handler, file handler, outputs', 'GET http://h/\n\n> {% client.log(1) %}\n> ./h.js\n>> out.json\n>>! over.json', ['1: GET http://h/ handlers=inline,./h.js outputs=out.json,!over.json']],
  ['a handler right after the body (no blank line)', 'POST http://h/\n\na=1\n> {%\nclient.log(1)\n%}', ['1: POST http://h/ | body="a=1" handlers=inline']],
  ['a multi-line handler with ### inside the script', 'GET http://h/\n\n> {%\n// ### not a separator\n%}\n###\nGET http://h/2', ['1: GET http://h/ handlers=inline', '7: GET http://h/2']],
  ['pre-request script', '< {%\n request.variables.set("a", 1)\n%}\nGET http://h/{{a}}', ['4: GET http://h/{{a}} pre=1']],
  ['pre-request script before ### carries over', '### x\n< {% request.variables.set("a", 1) %}\n### login\nPOST http://h/', ['4: POST http://h/ title=login pre=1']],
  [
    'directives',
    '# @no-redirect\n# @no-cookie-jar\n# @timeout 2 m\n# @connection-timeout 500 ms\n# @no-log\nGET http://h/',
    ['6: GET http://h/ {noRedirect noCookieJar timeoutMs=120000 connectTimeoutMs=500 noLog}'],
  ],
  ['httpyac directives', '# @ref login\n# @disabled\n# @sleep 10\n# @no-reject-unauthorized\nGET http://h/', ['5: GET http://h/ {disabled sleepMs=10 insecure refs=login}']],
  ['GRAPHQL method', 'GRAPHQL http://h/g\n\nquery { a }', ['1: POST http://h/g | body="query { a }" graphql']],
  ['X-REQUEST-TYPE: GraphQL marks the request and is not sent', 'POST http://h/g\nX-REQUEST-TYPE: GraphQL\n\nquery { a }', ['1: POST http://h/g | body="query { a }" graphql']],
  [
    'httpyac: a JSON request whose body is a query is GraphQL',
    'POST http://h/g\nContent-Type: application/json\n\nquery q { a }',
    ['1: POST http://h/g | Content-Type: application/json | body="query q { a }" graphql'],
  ],
  ['httpyac: requests separated by a blank line only', 'GET /a\n\nGET /b?x={{$randomInt 1 9}}\nGET /c', ['1: GET /a', '3: GET /b?x={{$randomInt 1 9}}', '4: GET /c']],
  [
    'httpyac: a WebDAV or other registered method after a blank line starts a request',
    'GET http://h/a\n\nPROPFIND http://h/dav\nDepth: 1\n\n###\nPOST http://h/b\n\n{"a": 1}\n\nQUERY /q',
    ['1: GET http://h/a', '3: PROPFIND http://h/dav | Depth: 1', '7: POST http://h/b | body="{\\"a\\": 1}"', '11: QUERY /q'],
  ],
  [
    'run and import lines',
    'import ./other.http\n### x\nrun #Login (@host=h, @user=u)\nrun ./setup.http\nGET http://h/',
    ['run #Login @host=h @user=u', 'run ./setup.http', '5: GET http://h/ title=x'],
  ],
  ['/* */ comments', '/*\n# title\nGET http://not.a/request\n*/\nGET http://h/', ['5: GET http://h/']],
  ['a body that is only a `{% %}` block is a handler', 'GET http://h/\n\n{%\n client.log(1)\n%}', ['1: GET http://h/ handlers=inline']],
  ['Lua handlers are recognised', 'GET http://h/\n\n# @lang=lua\n> {%\nlocal b = 1\n%}\n###\nGET http://h/\n\n> {%\n-- lua\n%}', ['1: GET http://h/ handlers=lua', '8: GET http://h/ handlers=lua']],
  ['JetBrains <> response references are skipped', 'GET http://h/\n\n<> 2024-01-01T000000.200.json', ['1: GET http://h/']],
  // JetBrains docs: `/* */` between headers; httpyac: a line that is only `/*` opens a comment up to a line that is only `*/`.
  [
    'a block comment among or right after the headers, on one line or several',
    'GET http://h/a\nAccept: x\n/* one line */\nX-B: 2\n/*\n## Notes\n*/\n###\nGET http://h/b',
    ['1: GET http://h/a | Accept: x | X-B: 2', '9: GET http://h/b'],
  ],
  [
    'a ### line inside a block comment after a body or after the handlers is comment text',
    'POST http://h/a\n\nhello\n\n/*\n### 2. Status\ntext\n*/\n\nGET http://h/b\n\n> {% client.log(1) %}\n/*\n### 3. More\n*/\n###\nGET http://h/c',
    ['1: POST http://h/a | body="hello"', '10: GET http://h/b handlers=inline', '17: GET http://h/c'],
  ],
  ['a /* line with no */ line after it in a body is body text', 'POST http://h/a\n\n/*\ncss', ['1: POST http://h/a | body="/*\\ncss"']],
  [
    'an indented request: its header lines are headers, further indented lines continue the URL',
    ' POST http://h/signup\n   ?a=1\n Content-Type: application/json\n X-A: 1\n   more\n\n {"a": 1}',
    ['1: POST http://h/signup?a=1 | Content-Type: application/json | X-A: 1 more | body=" {\\"a\\": 1}"'],
  ],
  [
    'in a file of indented requests, an indented request line after a blank line and an indented ### start the next request',
    ' POST http://h/a\n\n {"a": 1}\n\n GET http://h/b\n  ### two\n GET http://h/c\n###\nPOST http://h/d\n\ntext\n\n GET http://h/e\n  ### not here',
    ['1: POST http://h/a | body=" {\\"a\\": 1}"', '5: GET http://h/b', '7: GET http://h/c title=two', '9: POST http://h/d | body="text\\n\\n GET http://h/e\\n  ### not here"'],
  ],
  // httpyac formats/httpMethods.http: requests separated by a blank line, with any method.
  [
    'any method token in capitals after a blank line starts the next request',
    'GET http://h/get\n\nMERGE http://h/merge\n\nCHECKOUT http://h/checkout HTTP/1.1\n\nM-SEARCH /ssdp\nHost: h\n\nVERSION-CONTROL {{h}}/v\n\nNOTE: not a request /x',
    ['1: GET http://h/get', '3: MERGE http://h/merge', '5: CHECKOUT http://h/checkout HTTP/1.1', '7: M-SEARCH /ssdp | Host: h', '10: VERSION-CONTROL {{h}}/v | body="NOTE: not a request /x"'],
  ],
  ['OPTIONS * with a Host header (the asterisk form)', 'OPTIONS * HTTP/1.1\nHost: example.com:8080', ['1: OPTIONS * HTTP/1.1 | Host: example.com:8080']],
];

for (const [name, input, want] of CASES) {
  test(`parse: ${name}`, () => assert.deepEqual(summary(parseHttp(input)), want));
}

test('parse: an HTTP version at the end of an indented URL continuation is the version (kulala.nvim)', () => {
  const [a, b] = parseHttp('GET http://h/get?name=kulala\n  &age=25 HTTP/1.1\nAccept: x\n###\nGET http://h/x\n  ?v=HTTP/2\n  &w=1 HTTP/2 (prior knowledge)').items as RequestNode[];
  assert.deepEqual([rawText(a!.url), a!.version, a!.headers.length], ['http://h/get?name=kulala&age=25', 'HTTP/1.1', 1]);
  assert.deepEqual([rawText(b!.url), b!.version], ['http://h/x?v=HTTP/2&w=1', 'HTTP/2 (Prior Knowledge)']);
});

test('parse: file variables keep every definition with its line', () => {
  const p = parseHttp('@a = 1\n@Catalog.API_Host = http://x\nGET http://h/\n###\n@a=2\nGET http://h/{{a}}');
  assert.deepEqual([...p.vars.keys()], ['a', 'Catalog.API_Host']);
  assert.deepEqual(
    p.vars.get('a')!.map((d) => [d.line, rawText(d.value)]),
    [
      [1, '1'],
      [5, '2'],
    ],
  );
});

test('parse: REST Client escapes in file variables (\\n \\r \\t \\\\); other backslashes stay, placeholders are untouched', () => {
  const p = parseHttp('@multi = a\\nb\\tc\\\\d\\re\n@path = C:\\data\\x.json\n@mix = {{multi}}\\n{{path}}\nGET http://h/');
  assert.deepEqual(rawText(p.vars.get('multi')![0]!.value), 'a\nb\tc\\d\re');
  assert.deepEqual(rawText(p.vars.get('path')![0]!.value), 'C:\\data\\x.json');
  assert.deepEqual(rawText(p.vars.get('mix')![0]!.value), '{{multi}}\n{{path}}');
});

test('parse: httpyac lazy variables (@name := value) are file variables', () => {
  const p = parseHttp('@foo := foo{{bar}}\n@colon:=x\nGET http://h/{{foo}}');
  assert.deepEqual([...p.vars.keys()], ['foo', 'colon']);
  assert.equal(rawText(p.vars.get('foo')![0]!.value), 'foo{{bar}}');
  assert.equal(rawText(p.vars.get('colon')![0]!.value), 'x');
});

test('parse: a commented-out variable is neither a variable nor a warning', () => {
  const p = parseHttp('# @myhost = example.net\nGET http://h/');
  assert.equal(p.vars.size, 0);
  assert.deepEqual(p.warnings, []);
});

// Malformed files: FILE:LINE:COL comes from these positions.
const ERRORS: [string, string, [number, number, RegExp]][] = [
  ['not a request line', 'hello there world', [1, 1, /expected a request line/]],
  ['method without URL', '###\nPOST', [2, 1, /needs a URL after 'POST'/]],
  ['method and version without URL', '###\nPOST HTTP/1.1\nContent-Type: text/plain\n\nx', [2, 6, /needs a URL after 'POST' \(found only the HTTP version\)/]],
  ['unterminated placeholder in the URL', 'GET http://h/{{id', [1, 14, /'\{\{' without/]],
  ['unterminated script', 'GET http://h/\n\n> {%\nclient.log(1)\n', [3, 3, /without its closing '%}'/]],
  ['a script left open before the next ###', 'GET http://h/a\n\n> {% client.log(1)\n###\nGET http://h/b\n\n> {% client.log(2) %}', [3, 3, /without its closing '%}' before the ### on line 4/]],
  ['unterminated block comment', '/* no end\nGET http://h/', [1, 1, /'\/\*' comment/]],
  ['bad dynamic arguments', 'GET http://h/{{$randomInt 1}}', [1, 14, /takes 0 or 2 arguments/]],
  ['file variable without =', '@host http://h\nGET http://h/', [1, 1, /@name = value/]],
  ['bad timeout', '# @timeout soon\nGET http://h/', [1, 1, /@timeout needs a time/]],
  ['run overrides without their )', '# @name a\nGET http://h/\n\n###\nrun #a (@x=1', [5, 1, /run: the variable overrides .* are missing their closing '\)'/]],
  ['text after run overrides', '# @name a\nGET http://h/\n\n###\nrun #a (@x=1) trailing', [5, 1, /run: nothing may follow the variable overrides' closing '\)'/]],
];
for (const [name, input, [line, col, re]] of ERRORS) {
  test(`parse error: ${name}`, () => {
    assert.throws(
      () => parseHttp(input),
      (e: unknown) => e instanceof HttpParseError && e.line === line && e.col === col && re.test(e.message),
    );
  });
}

// Other runners' syntax: warnings naming the line, never a request.
const WARNINGS: [string, string, string[], number[]][] = [
  ['httpyac asserts that are not (an unknown field, no predicate)', 'GET http://h/\n?? foo == 200\n\n?? body x\n?? status == 1', ['1: GET http://h/'], [2, 4]],
  ['an httpyac assertion with no request after it', 'GET http://h/\n###\n?? status == 200', ['1: GET http://h/'], [3]],
  ['httpyac script events other than response and after', '{{@request\n exports.a = 1;\n}}\nGET http://h/', ['4: GET http://h/'], [1]],
  ['code on the {{ line (not an httpyac block)', '{{ exports.a = 1 }}\nGET http://h/a\n###\n{{ exports.b = 2\n}}\nGET http://h/b', ['2: GET http://h/a', '6: GET http://h/b'], [1, 4]],
  ['MQTT and AMQP requests', 'MQTT mqtt://h/\n\n{"a": 1}\n###\nAMQP amqp://h/q\n###\nGET http://h/', ['7: GET http://h/'], [1, 5]],
  [
    'MQTT and AMQP requests after a blank line in a body (never sent as body)',
    'GET http://h/a\n\nMQTT h:1883/t\n{"a":1}\n\n###\nPOST http://h/b\n\n{"a": 1}\n\nAMQP amqp://h/q',
    ['1: GET http://h/a', '7: POST http://h/b | body="{\\"a\\": 1}"'],
    [3, 11],
  ],
  ['recorded responses', 'GET http://h/\n\nHTTP/1.1 200 - OK\ncontent-type: x\n\n{}', ['1: GET http://h/'], [3]],
  ['unknown directives, httpyac while loops', '# @nope\n# @loop while y\nGET http://h/', ['3: GET http://h/'], [1, 2]],
  ['proto lines other than `proto < FILE` (httpyac fragments are no warning)', 'proto ./a.proto\nfragment F on R {\n  a\n}\n\nPOST http://h/', ['6: POST http://h/'], [1]],
  ['Azure AD tokens', 'GET http://h/{{$aadToken}}', ['1: GET http://h/{{$aadToken}}'], [1]],
  // httpyac: any line after the headers that is not a header starts the body.
  [
    'a line that is no header (no colon, a blank in the name) starts the body',
    'GET http://h/a\nAccept application/json\n###\nGET http://h/b\nX: 1\nBad Header: x',
    ['1: GET http://h/a | body="Accept application/json"', '4: GET http://h/b | X: 1 | body="Bad Header: x"'],
    [2, 6],
  ],
];
for (const [name, input, want, lines] of WARNINGS) {
  test(`parse warning: ${name}`, () => {
    const p = parseHttp(input);
    assert.deepEqual(summary(p), want);
    assert.deepEqual(
      p.warnings.map((w) => w.line),
      lines,
    );
  });
}

test('parse: httpyac {{ }} blocks: file-global in a region without a request, before or after their request; JavaScript placeholders are no warning', () => {
  const p = parseHttp(
    [
      '{{',
      '  exports.a = 1;',
      '}}',
      '',
      '###',
      '  {{  ',
      'exports.b = a;',
      '}}',
      'GET http://h/{{ a + b }}',
      '',
      '{{',
      'exports.c = response.parsedBody;',
      '  }}  ',
      '',
      '###',
      '{{+',
      'exports.d = 1;',
      '}}',
      '',
      '###',
      '{{+after',
      'x',
      '}}',
      'POST http://h/x',
      '',
      '{"a": 1}',
      '',
      '{{@response',
      'y',
      '}}',
    ].join('\n'),
  );
  assert.deepEqual(p.warnings, []);
  assert.deepEqual(
    p.yacGlobal?.map((s) => [s.line, s.code]),
    [
      [1, '  exports.a = 1;'],
      [16, 'exports.d = 1;'],
    ],
  );
  assert.deepEqual(
    p.yacGlobalAfter?.map((s) => [s.line, s.code]),
    [[21, 'x']],
  );
  const [one, two] = p.items as RequestNode[];
  assert.deepEqual(
    one!.pre.map((s) => [s.line, s.code, s.yac]),
    [[6, 'exports.b = a;', true]],
  );
  assert.deepEqual(
    one!.handlers.map((s) => [s.line, s.code, s.yac]),
    [[11, 'exports.c = response.parsedBody;', true]],
  );
  assert.equal(p.yacResponse, true);
  assert.deepEqual(
    two!.body.map((b) => (b.kind === 'text' ? b.raw : '')),
    ['{"a": 1}'],
  );
  assert.deepEqual(
    two!.handlers.map((s) => [s.line, s.code]),
    [[28, 'y']],
  );
  // A block left open is an error naming its line.
  assert.throws(
    () => parseHttp('{{\nexports.a = 1;\n###\nGET http://h/'),
    (e: unknown) => e instanceof HttpParseError && e.line === 1 && /without its closing '\}\}'/.test(e.message),
  );
});

test('parse: httpyac assertions belong to their request, wherever they stand in its block', () => {
  const p = parseHttp(
    [
      '### a',
      '?? status == 201',
      'POST http://h/a',
      'X: 1',
      '?? header x includes 1',
      '',
      '{"a": 1}',
      '?? body a == {{v}}',
      '',
      '> {%',
      '%}',
      '?? js response.statusCode < 300',
      '',
      '###',
      'GET http://h/b',
      '',
      '?? duration < 100',
    ].join('\n'),
  );
  assert.deepEqual(p.warnings, []);
  const [a, b] = p.items as RequestNode[];
  assert.deepEqual(
    a!.asserts.map((x) => [x.line, x.a.field, x.a.value, x.a.predicate, rawText(x.expected)]),
    [
      [2, 'status', '', '==', '201'],
      [5, 'header', 'x', 'includes', '1'],
      [8, 'body', 'a', '==', '{{v}}'],
      [12, 'js', 'response.statusCode', '<', '300'],
    ],
  );
  assert.equal(a!.body.map((l) => (l.kind === 'text' ? l.raw : '')).join('\n'), '{"a": 1}');
  assert.deepEqual(
    b!.asserts.map((x) => [x.line, x.a.field, x.a.predicate, x.a.expected]),
    [[17, 'duration', '<', '100']],
  );
});

test('parseAssert: fields, every predicate spelling, values with spaces, errors', () => {
  const ok = (line: string) => {
    const r = parseAssert(line);
    assert.ok(typeof r !== 'string', `${line}: ${String(r)}`);
    return [r.field, r.value, r.predicate, r.spelled, r.expected];
  };
  const CASES: [string, string[]][] = [
    ['?? status == 200', ['status', '', '==', '==', '200']],
    ['??status==200', ['status', '', '==', '==', '200']],
    ['?? status === 200', ['status', '', '==', '===', '200']],
    ['?? status >=200', ['status', '', '>=', '>=', '200']],
    ['?? body == Authorization header not set', ['body', '', '==', '==', 'Authorization header not set']],
    ['?? header content-type contains json', ['header', 'content-type', 'includes', 'contains', 'json']],
    ['?? body fewestCoins == [5, 10]', ['body', 'fewestCoins', '==', '==', '[5, 10]']],
    ['?? body error exists', ['body', 'error', 'exists', 'exists', '']],
    ['?? body ok isTrue', ['body', 'ok', 'exists', 'isTrue', '']],
    ['?? status not equals 201', ['status', '', '!=', 'not equals', '201']],
    ['?? js response.parsedBody.items.filter(x => x.a).length > 0', ['js', 'response.parsedBody.items.filter(x => x.a).length', '>', '>', '0']],
    ['?? body name STARTSWITH Ad', ['body', 'name', 'startsWith', 'STARTSWITH', 'Ad']],
  ];
  for (const [line, want] of CASES) assert.deepEqual(ok(line), want);
  for (const p of ['!=', '!==', '>', '<', '<=', 'endsWith', 'includes', 'isFalse', 'isNumber', 'isString', 'isBoolean', 'isArray', 'matches', 'md5', 'sha256', 'sha512']) {
    assert.equal((parseAssert(`?? body x ${p} 1`) as { spelled: string }).spelled, p);
  }
  assert.match(parseAssert('??') as string, /needs a field/);
  assert.match(parseAssert('?? foo == 1') as string, /'foo' is not a field/);
  assert.match(parseAssert('?? status 200') as string, /no predicate/);
  assert.match(parseAssert('?? header == x') as string, /names the header/);
  assert.match(parseAssert('?? js == 1') as string, /needs an expression/);
});

test('property: parseAssert never throws; what it reads is where it says in the line', () => {
  const part = fc.oneof(
    fc.constantFrom('status', 'header', 'body', 'js', 'duration', 'x', '==', '!=', '>=', '<', 'not', 'equals', 'includes', 'exists', '{{v}}', ' ', '  ', '\t'),
    fc.string({ maxLength: 6 }),
  );
  fc.assert(
    fc.property(fc.array(part, { maxLength: 8 }), (parts) => {
      const line = '??' + parts.join(' ');
      const r = parseAssert(line);
      if (typeof r === 'string') return;
      assert.equal(line.slice(r.expectedAt).trim(), r.expected);
      assert.ok(line.includes(r.value));
      assert.ok(['status', 'header', 'body', 'js', 'duration'].includes(r.field));
    }),
    { numRuns: 1000 },
  );
});

// ---- properties --------------------------------------------------------------------------------

const word = fc.stringMatching(/^[a-z][a-z0-9]{0,7}$/);
const headerArb = fc.tuple(
  fc.stringMatching(/^[A-Z][a-z]{0,6}(-[A-Z][a-z]{0,6})?$/),
  fc.stringMatching(/^[a-z0-9 ,;=/]{0,12}$/).map((s) => s.trim()),
);
const requestArb = fc.record({
  method: fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH'),
  path: fc.array(word, { maxLength: 3 }),
  name: fc.option(word, { nil: undefined }),
  headers: fc.array(headerArb, { maxLength: 4 }),
  body: fc.array(
    // A line that is `{{` (blanks around it allowed) opens an httpyac script block, as in httpyac: not body.
    fc.stringMatching(/^[a-z{}":, 0-9]{1,20}$/).filter((l) => l.trim() !== '' && !l.trimStart().startsWith('{{')),
    { maxLength: 4 },
  ),
});

type Req = typeof requestArb extends fc.Arbitrary<infer T> ? T : never;

function render(reqs: Req[], eol: string): string {
  return reqs
    .map((r) => {
      const lines: string[] = [];
      if (r.name) lines.push(`# @name ${r.name}`);
      lines.push(`${r.method} http://example.org/${r.path.join('/')}`);
      for (const [n, v] of r.headers) lines.push(`${n}: ${v}`);
      if (r.body.length) lines.push('', ...r.body);
      return lines.join(eol);
    })
    .join(`${eol}${eol}###${eol}`);
}

test('property: what is rendered parses back to the same requests, with LF or CRLF', () => {
  fc.assert(
    fc.property(fc.array(requestArb, { minLength: 1, maxLength: 5 }), fc.constantFrom('\n', '\r\n'), (reqs, eol) => {
      const p = parseHttp(render(reqs, eol));
      assert.equal(p.items.length, reqs.length);
      reqs.forEach((r, i) => {
        const got = p.items[i] as RequestNode;
        assert.equal(got.method, r.method);
        assert.equal(rawText(got.url), `http://example.org/${r.path.join('/')}`);
        assert.equal(got.atName, r.name);
        assert.deepEqual(
          got.headers.map((h) => [rawText(h.name), rawText(h.value)]),
          r.headers,
        );
        assert.equal(got.body.map((b) => (b.kind === 'text' ? b.raw : '') + b.eol).join(''), r.body.join(eol));
      });
    }),
  );
});

test('property: any text either parses or fails with a position inside the file', () => {
  const pieces = fc.constantFrom('###', 'GET http://h/', '@a = 1', '# @name x', '> {%', '%}', '< ./f', '{{', '}}', '', 'X: y', '{"a": 1}', '?? x', '/*', '*/', 'run #x', '\r', '\t', 'POST');
  fc.assert(
    fc.property(fc.array(fc.oneof(pieces, fc.string({ maxLength: 12 })), { maxLength: 30 }), (parts) => {
      const text = parts.join('\n');
      try {
        parseHttp(text);
      } catch (e) {
        assert.ok(e instanceof HttpParseError, `unexpected ${String(e)}`);
        const lines = text.split('\n').length;
        assert.ok(e.line >= 1 && e.line <= lines, `line ${e.line} of ${lines}`);
        assert.ok(e.col >= 1);
      }
    }),
    { numRuns: 500 },
  );
});

test('a long run of blanks inside a line is read in one pass (fuzz: a run line with 5,000 took 35 s, other lines grew quadratically)', () => {
  const blanks = ' '.repeat(4_000);
  const many = ' '.repeat(100_000);
  const read = (what: string, text: string) => summary(parseHttp(text));
  assert.deepEqual(read('run line', `run ./other.http${blanks}x`), [`run ./other.http${blanks}x`]);
  assert.deepEqual(read('run overrides', `# @name a\nGET http://h/\n\n###\nrun #a (@x=1${many}2)`), ['2: GET http://h/ name=a', `run #a @x=1${many}2`]);
  assert.deepEqual(read('variable', `@a = x${many}y\nGET http://h/{{a}}`), ['2: GET http://h/{{a}}']);
  assert.deepEqual(read('request line', `GET http://h/${many}x HTTP/1.1`).length, 1);
  assert.throws(() => parseHttp(`run ./other.http ${'\u2028'.repeat(100_000)}x`), HttpParseError);
  for (const line of [`< ./x${many}y`, `>> out${many}y`, `> h${many}y.js`]) assert.equal(read(line.slice(0, 3), `POST http://h/\n\n${line}`).length, 1);
});

// Real-world files run as written.
test('parse: a paragraph of file variables (and comments) after a blank line in a body is not body', () => {
  const p = parseHttp(
    [
      'POST http://h/sign-in',
      'Content-Type: application/json',
      '',
      '{"a":1}',
      '',
      '@token = Bearer abc',
      '',
      '###',
      'GET http://h/check',
      'Authorization: {{token}}',
      '###',
      'GET http://h/get',
      '',
      '# log in first',
      '@code=REPLACE',
      '',
      '###',
      'GET http://h/c?code={{code}}',
      '###',
      'POST http://h/x',
      '',
      '> {% client.log(1) %}',
      '',
      '@after := {{code}}-2',
      '# @name last',
      '###',
      'GET http://h/{{after}}',
    ].join('\n'),
  );
  assert.deepEqual(summary(p), [
    '1: POST http://h/sign-in | Content-Type: application/json | body="{\\"a\\":1}"',
    '9: GET http://h/check | Authorization: {{token}}',
    '12: GET http://h/get',
    '18: GET http://h/c?code={{code}}',
    '20: POST http://h/x handlers=inline',
    '27: GET http://h/{{after}} name=last',
  ]);
  assert.deepEqual(
    [...p.vars].map(([k, defs]) => [k, defs.map((d) => [d.line, rawText(d.value)])]),
    [
      ['token', [[6, 'Bearer abc']]],
      ['code', [[15, 'REPLACE']]],
      ['after', [[24, '{{code}}-2']]],
    ],
  );
  assert.deepEqual(p.warnings, []);
});

test('parse: body lines that merely start with @ or # stay body', () => {
  const p = parseHttp(
    [
      'POST http://h/text',
      'Content-Type: text/plain',
      '',
      'Hello',
      '@mention please look',
      '@ann = not a variable inside a paragraph',
      '',
      '@bob hello',
      'more text',
      '###',
      'POST http://h/multi',
      'Content-Type: multipart/form-data; boundary=b',
      '',
      '--b',
      'Content-Disposition: form-data; name="md"',
      '',
      '# Title',
      '',
      '--b',
      'Content-Disposition: form-data; name="x"',
      '',
      '# a = 1',
      '@a = 1',
      'x',
      '--b--',
      '###',
      'POST http://h/json',
      'Content-Type: application/json',
      '',
      '{',
      '  "a": "@b = c",',
      '# a comment line in JSON (REST Client, httpyac)',
      '  "d": 1',
      '}',
    ].join('\n'),
  );
  assert.deepEqual(summary(p), [
    '1: POST http://h/text | Content-Type: text/plain | body="Hello\\n@mention please look\\n@ann = not a variable inside a paragraph\\n\\n@bob hello\\nmore text"',
    '11: POST http://h/multi | Content-Type: multipart/form-data; boundary=b | body="--b\\nContent-Disposition: form-data; name=\\"md\\"\\n\\n# Title\\n\\n--b\\nContent-Disposition: form-data; name=\\"x\\"\\n\\n# a = 1\\n@a = 1\\nx\\n--b--"',
    '27: POST http://h/json | Content-Type: application/json | body="{\\n  \\"a\\": \\"@b = c\\",\\n  \\"d\\": 1\\n}"',
  ]);
  assert.equal(p.vars.size, 0);
});

test('parse: a method-less request line that starts with a variable is a GET; httpyac {{ }} blocks are script blocks, events they do not run and one-line code warned about', () => {
  const p = parseHttp(
    '@host = http://h\n###\n{{host}}/nomethod\nAccept: x\n###\n{{ host }}/a?b={{c}} HTTP/1.1\n###\n{{host}}\n###\n{{$dotenv BASE}}/p\n###\n{{\n  exports.a = 1;\n}}\n{{@request\n  x();\n}}\n{{+after\n}}\n{{ console.log(1) }}\nGET {{host}}/last',
  );
  assert.deepEqual(summary(p), ['3: GET {{host}}/nomethod | Accept: x', '6: GET {{ host }}/a?b={{c}} HTTP/1.1', '8: GET {{host}}', '10: GET {{$dotenv BASE}}/p', '21: GET {{host}}/last pre=1']);
  assert.deepEqual(
    p.warnings.map((w) => w.line),
    [15, 20],
  );
});

test('parse: an unknown dynamic variable is no parse error: the request that uses it fails when its turn comes', () => {
  const p = parseHttp('GET http://h/1\n###\nGET http://h/2\nAuthorization: Bearer {{$global.accessToken}}\n###\nGET http://h/{{$nope}}');
  assert.deepEqual(summary(p), ['1: GET http://h/1', '3: GET http://h/2 | Authorization: Bearer {{$global.accessToken}}', '6: GET http://h/{{$nope}}']);
});

test('parse: an indented @name = value line in a body is body (how --to http keeps such a line)', () => {
  const p = parseHttp('POST http://h/\nContent-Type: text/plain\n\na\n\n  @x = 1\n\n@y = 2');
  assert.deepEqual(summary(p), ['1: POST http://h/ | Content-Type: text/plain | body="a\\n\\n  @x = 1"']);
  assert.deepEqual([...p.vars.keys()], ['y']);
});

test('parse: a curl command line is a request of its own, continued with \\, ^ or an open quote, up to ### at most', () => {
  const p = parseHttp(
    [
      '### one',
      "curl http://h/a -H 'X-A: 1'",
      '',
      '###',
      '# @name two',
      'curl -X PUT http://h/b \\',
      "  -H 'Content-Type: application/json' \\",
      "  -d '{",
      '  "a": 1',
      "}'",
      '# after it',
      '',
      '###',
      'curl http://h/c # a comment \\',
      'GET http://h/d',
      '###',
      'curl http://h/e ^',
      '  -H "A: {{v}}"',
      '###',
      "curl http://h/f -d 'open",
      '###',
      'GET http://h/g',
    ].join('\n'),
  );
  assert.deepEqual(summary(p), [
    '2: curl "curl http://h/a -H \'X-A: 1\'" title=one',
    '6: curl "curl -X PUT http://h/b \\\\\\n  -H \'Content-Type: application/json\' \\\\\\n  -d \'{\\n  \\"a\\": 1\\n}\'" name=two',
    '14: curl "curl http://h/c # a comment \\\\"',
    '15: GET http://h/d',
    '17: curl "curl http://h/e ^\\n  -H \\"A: {{v}}\\""',
    '20: curl "curl http://h/f -d \'open"',
    '22: GET http://h/g',
  ]);
  assert.throws(
    () => parseHttp('curl http://h/a\n\n> {% client.log(1) %}'),
    (e: unknown) => e instanceof HttpParseError && e.line === 3 && /after a curl command, only comments/.test(e.message),
  );
});
