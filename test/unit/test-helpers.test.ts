// The test helpers that decide whether a comparison with another program runs, and how it compares.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { comparisonToolMissing } from '../helpers/tools.js';
import { diffRequests, type KnownDifference, type RawRequest } from '../helpers/curl-capture.js';

const NOWHERE = '/nonexistent-sling-test-path';

test('a missing curl or HTTPie skips its comparison with the reason outside CI, and fails it under CI=true', () => {
  for (const tool of ['curl', 'http'] as const) {
    assert.match(comparisonToolMissing(tool, { PATH: NOWHERE }) ?? '', new RegExp(`^${tool} \\(Debian package \\w+\\) is not installed: the comparison with real (curl|HTTPie) is skipped$`));
    assert.match(comparisonToolMissing(tool, { PATH: NOWHERE, CI: 'false' }) ?? '', /is skipped$/);
    assert.throws(() => comparisonToolMissing(tool, { PATH: NOWHERE, CI: 'true' }), new RegExp(`^Error: ${tool} .* is not installed, and under CI=true the comparison with it must run, not skip`));
  }
});

const req = (line: string, rawHeaders: string[], body = ''): RawRequest => ({
  line,
  rawHeaders,
  method: line.split(' ')[0]!,
  target: line.split(' ')[1]!,
  headers: rawHeaders.map((l) => [l.slice(0, l.indexOf(':')), l.slice(l.indexOf(':') + 1).trim()]),
  body: Buffer.from(body, 'latin1'),
});

test("the comparison with curl's requests is byte for byte: header order, name case, blanks, the request line and the body", () => {
  const curl = req('POST /a HTTP/1.1', ['Host: h', 'User-Agent: curl/7.88.1', 'Accept: */*', 'X-A:1', 'Content-Length: 1'], 'x');
  const same = req('POST /a HTTP/1.1', ['Host: h', 'User-Agent: sling/0.1.0', 'Accept: */*', 'X-A:1', 'Content-Length: 1'], 'x');
  assert.deepEqual(diffRequests([curl], [same]), [], "curl's default User-Agent is the one line that may differ");
  const differ = (rawHeaders: string[], line = 'POST /a HTTP/1.1', body = 'x') => diffRequests([curl], [req(line, rawHeaders, body)]);
  assert.match(differ(['Host: h', 'User-Agent: sling/0.1.0', 'X-A:1', 'Accept: */*', 'Content-Length: 1']).join(), /header lines/, 'order');
  assert.match(differ(['host: h', 'User-Agent: sling/0.1.0', 'Accept: */*', 'X-A:1', 'Content-Length: 1']).join(), /header lines/, 'name case');
  assert.match(differ(['Host: h', 'User-Agent: sling/0.1.0', 'Accept: */*', 'X-A: 1', 'Content-Length: 1']).join(), /header lines/, 'blanks');
  assert.match(differ(['Host: h', 'User-Agent: sling/0.1.0', 'Accept: */*', 'X-A:1', 'Content-Length: 1'], 'POST /a HTTP/1.0').join(), /request line/);
  assert.match(differ(['Host: h', 'User-Agent: sling/0.1.0', 'Accept: */*', 'X-A:1', 'Content-Length: 1'], undefined, 'y').join(), /body/);
  // Known differences are allowed by name, and only those.
  const blanks: KnownDifference[] = [{ header: 'X-A', kind: 'blanks', why: 'test' }];
  assert.deepEqual(differ(['Host: h', 'User-Agent: sling/0.1.0', 'Accept: */*', 'X-A: 1', 'Content-Length: 1']).length, 1);
  assert.deepEqual(diffRequests([curl], [req('POST /a HTTP/1.1', ['Host: h', 'User-Agent: sling/0.1.0', 'Accept: */*', 'X-A: 1', 'Content-Length: 1'], 'x')], blanks), []);
  assert.equal(
    diffRequests([curl], [req('POST /a HTTP/1.1', ['Host: h', 'User-Agent: sling/0.1.0', 'Accept: */*', 'x-a: 1', 'Content-Length: 1'], 'x')], blanks).length,
    1,
    'blanks allow no change of case',
  );
  // Multipart boundaries are each program's own.
  const multi = (b: string) => req('POST /m HTTP/1.1', ['Host: h', `Content-Type: multipart/form-data; boundary=${b}`], `--${b}\r\nx\r\n--${b}--\r\n`);
  assert.deepEqual(diffRequests([multi('------curl1')], [multi('sling22')]), []);
});
