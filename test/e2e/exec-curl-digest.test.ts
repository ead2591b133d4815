// A curl command's --digest answer goes in the header order real curl writes: Authorization right
// after Host (and Proxy-Authorization), before User-Agent and Accept, as its Basic one. Real curl and
// sling are run against the same loopback digest server and their raw heads compared.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import net from 'node:net';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runSling } from '../helpers/cli.js';
import { curlMissing } from '../helpers/curl-capture.js';

/** A raw HTTP/1.1 server that challenges a request without Authorization (Digest, MD5, qop=auth) and answers 200 to one with it; keeps every head. */
async function digestServer(): Promise<{ port: number; heads: string[][]; close(): void }> {
  const heads: string[][] = [];
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    let buf = '';
    socket.on('data', (d: Buffer) => {
      buf += d.toString('latin1');
      for (let end = buf.indexOf('\r\n\r\n'); end >= 0; end = buf.indexOf('\r\n\r\n')) {
        const lines = buf.slice(0, end).split('\r\n').slice(1);
        buf = buf.slice(end + 4);
        heads.push(lines);
        if (lines.some((l) => /^authorization:/i.test(l))) socket.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok');
        else socket.write('HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: Digest realm="r", nonce="abc", qop="auth", algorithm=MD5\r\nContent-Length: 0\r\n\r\n');
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: (server.address() as net.AddressInfo).port,
    heads,
    close: () => {
      for (const s of sockets) s.destroy();
      server.close();
    },
  };
}

/** The names of a head's headers, in order, lower case. */
const names = (head: string[]) => head.map((l) => l.slice(0, l.indexOf(':')).toLowerCase());

test('curl files: the --digest Authorization goes after Host, before User-Agent and Accept, as real curl sends it', async (t) => {
  const srv = await digestServer();
  t.after(() => srv.close());
  const dir = mkdtempSync(join(tmpdir(), 'sling-digest-'));
  const command = `curl -s -o /dev/null --digest -u user:pass -H 'X-A: 1' http://127.0.0.1:${srv.port}/d`;
  writeFileSync(join(dir, 'd.curl'), `${command}\n`);
  const r = await runSling(['exec', 'd.curl'], { cwd: dir });
  assert.equal(r.code, 0, r.stderr);
  const sling = srv.heads.splice(0);
  assert.equal(sling.length, 2, JSON.stringify(sling));
  assert.deepEqual(names(sling[1]!), ['host', 'authorization', 'user-agent', 'accept', 'x-a']);
  assert.match(sling[1]![1]!, /^Authorization: Digest username="user", realm="r", nonce="abc", uri="\/d", /);
  const missing = curlMissing();
  if (missing) {
    t.diagnostic(missing);
    return;
  }
  // Asynchronously: the server answers from this process.
  const code = await new Promise<number | null>((resolve) => spawn('bash', ['-c', command], { stdio: 'ignore' }).on('close', resolve));
  assert.equal(code, 0);
  const curl = srv.heads.splice(0);
  assert.equal(curl.length, 2, JSON.stringify(curl));
  assert.deepEqual(names(sling[0]!), names(curl[0]!));
  assert.deepEqual(names(sling[1]!), names(curl[1]!));
});
