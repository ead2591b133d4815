// The request model is data: what a front end hands the transport holds no function and no live
// object (a cookie jar, a callback for redirects), so every hop can be made from the one before
// and a spec can be copied, compared and printed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseCurlText } from '../../src/sources/curl/index.js';
import { parseHttpFile } from '../../src/sources/http/index.js';
import type { Script } from '../../src/model/exec.js';
import type { RequestSpec } from '../../src/model/spec.js';
import { curlOutput } from '../../src/commands/exec/curl-output.js';

/** Where in a value something is not data (a function, an instance of a class), or undefined. */
function notData(value: unknown, at = 'spec'): string | undefined {
  if (typeof value === 'function') return `${at} is a function`;
  if (value === null || typeof value !== 'object') return undefined;
  if (value instanceof Uint8Array) return undefined;
  const proto = Object.getPrototypeOf(value);
  if (!Array.isArray(value) && proto !== Object.prototype && proto !== null) return `${at} is a ${proto.constructor?.name ?? 'live object'}`;
  for (const [k, v] of Object.entries(value)) {
    const found = notData(v, `${at}.${k}`);
    if (found) return found;
  }
  return undefined;
}

async function specsOf(script: Script, dir: string): Promise<RequestSpec[]> {
  const ctx = { offline: false, cwd: dir, warn: () => {}, debug: () => {} };
  const out: RequestSpec[] = [];
  for (const e of script.entries) {
    const built = await e.build(ctx);
    if (built) out.push(...(Array.isArray(built) ? built : [built]));
  }
  return out;
}

test('a request spec is data, with no function or live object in it: curl -L with its cookie engine, credentials, proxy and form; .http requests', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sling-model-'));
  writeFileSync(join(dir, 'jar.txt'), '127.0.0.1\tFALSE\t/\tFALSE\t0\tsid\tabc\n');
  const opts = { file: 'c.sh', dir, cwd: dir, pid: process.pid, env: {}, warn: () => {}, debug: () => {}, curlOutput };
  const curl = await specsOf(
    parseCurlText(
      [
        "curl -L -u user:pw -b 'a=1' -b jar.txt -c out.txt -x http://127.0.0.1:9 --noproxy other.test -H 'Content-Type: x' -F f=v --referer ';auto' http://127.0.0.1:1/a",
        'curl --location-trusted -X POST -d x=1 --post301 -r 0-9 http://127.0.0.1:1/b',
      ].join('\n'),
      opts,
    ),
    dir,
  );
  const http = await specsOf(await parseHttpFile('GET http://127.0.0.1:1/\n\n###\n# @no-cookie-jar\nPOST http://127.0.0.1:1/p\n\nbody\n', { ...opts, file: 't.http' }), dir);
  assert.equal(curl.length, 2);
  assert.equal(http.length, 2);
  for (const spec of [...curl, ...http]) {
    assert.equal(notData(spec), undefined, `${spec.method} ${spec.url.path}`);
    // A copy is the same request (a function or a jar with callbacks cannot be copied).
    assert.doesNotThrow(() => structuredClone(spec), `${spec.method} ${spec.url.path}`);
  }
  // curl's -L rules are in the settings as data, and the curl command's cookies are not in its headers.
  assert.equal(curl[0]!.settings.curl?.trusted, false);
  assert.equal(curl[1]!.settings.curl?.post301, true);
  assert.equal(curl[0]!.settings.curl?.cookies, 'a=1');
  assert.equal(
    curl[0]!.headers.some(([n]) => n.toLowerCase() === 'cookie'),
    false,
  );
});
