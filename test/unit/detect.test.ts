// `sling exec -` (or a file with another extension): curl file or .http file by the content.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { detectType } from '../../src/commands/exec/detect.js';

test('detectType: a curl file by its first command, also after shell set-up lines or a prefix; a .http file otherwise', () => {
  const curl = [
    'curl http://h/',
    '$ curl http://h/',
    'export TOKEN=abc\ncurl http://h/',
    'A=1\ncurl http://h/',
    'set -e\ncurl http://h/',
    'sudo curl http://h/',
    'env A=1 curl http://h/',
    'time curl http://h/',
    'echo foo | curl http://h/',
    '# c\n\ncurl http://h/',
    '/usr/bin/curl -s http://h/',
    "echo 'a b' | sudo curl -d @- http://h/",
    'export A\ncurl http://h/',
    'sudo -E curl http://h/',
    'sudo -u deploy -H curl http://h/',
    'time -p curl http://h/',
    'env -i PATH=/bin curl http://h/',
  ];
  for (const text of curl) assert.equal(detectType('-', text), 'curl', text);
  const http = ['GET http://h/', 'http://h/', '@host = h\nGET {{host}}/', '### t\nPOST /x\nHost: h', '// curl is not the first command\nGET http://h/', 'localhost:8080/a?x=1', ''];
  for (const text of http) assert.equal(detectType('-', text), 'http', text);
  // The extension and --type decide first.
  assert.equal(detectType('a.http', 'curl http://h/'), 'http');
  assert.equal(detectType('a.sh', 'GET http://h/'), 'curl');
  assert.equal(detectType('-', 'GET http://h/', 'curl'), 'curl');
});
