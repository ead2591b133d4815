// A bad value of an option is one line on stderr naming the option and what it takes (the choices
// from the option table), exit 1, and nothing is sent.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runSling } from '../helpers/cli.js';
import { httpServer, okText } from '../helpers/assert.js';

const STYLES = 'default, auto, monokai, solarized-dark, solarized-light, solarized, dracula, nord, github-dark, gruvbox-dark, gruvbox-light, one-dark, native, fruity or mono';

const MAIN: [string[], string][] = [
  [['--pretty', 'loud'], "--pretty must be all, colors, format or none, got 'loud'"],
  [['--style=rainbow'], `--style must be ${STYLES}, got 'rainbow'`],
  [['-A', 'ntlm', '-a', 'u:p'], "--auth-type must be basic, bearer or digest, got 'ntlm'"],
  [['--http-version', '3'], "--http-version must be 1.0, 1.1, 2 or 2-prior-knowledge, got '3'"],
  [['--ssl', 'tls2'], "--ssl must be auto, tls1, tls1.1, tls1.2 or tls1.3, got 'tls2'"],
  [['--ssl', 'SSL3'], "--ssl ssl3: SSL 3.0 is not supported (Node's OpenSSL has no SSL 3.0)"],
  [['--print', 'HX'], "--print 'HX' has an unknown code: use H (request headers), B (request body), h (response headers), b (response body), p (properties)"],
  [['--verify', 'maybe'], "--verify must be yes, no or the path of a CA bundle; 'maybe' is none of these (no such file)"],
  [['--timeout', '-1'], "--timeout needs a positive number of seconds, got '-1'"],
  [['--timeout=0'], "--timeout needs a positive number of seconds, got '0'"],
  [['--max-redirects', 'many'], "--max-redirects needs a whole number, got 'many'"],
  [['--max-headers=1.5'], "--max-headers needs a whole number, got '1.5'"],
  [['--unix-socket='], '--unix-socket needs the path of a socket'],
  [['--interface', ''], '--interface needs a network interface name or a local IP address'],
  [['--ciphers', ' '], '--ciphers needs an OpenSSL cipher list'],
  [['--format-options', 'json.indent:x'], "--format-options json.indent needs a whole number, got 'x'"],
  [['--format-options=json.indent:2,json.sort_keys:yes'], "--format-options json.sort_keys must be true or false, got 'yes'"],
  [['--format-options', 'json.colour:1'], "--format-options: unknown option 'json.colour:1' (json.indent:N, json.sort_keys:BOOL, json.format:BOOL, headers.sort:BOOL, xml.indent:N, xml.format:BOOL)"],
];

const EXEC: [string[], string][] = [
  [['--type', 'yaml'], "--type must be http or curl, got 'yaml'"],
  [['--to', 'wget'], "--to must be curl or http, got 'wget'"],
  [['--report', 'html'], "--report must be junit, got 'html'"],
  [['--line', 'x'], "--line needs a whole number, got 'x'"],
  [['--max-redirects', '-3'], "--max-redirects needs a whole number, got '-3'"],
];

test('a bad value of a main-command option is one line naming the option and the values it takes, exit 1, nothing sent', async (t) => {
  const srv = await httpServer(t, okText);
  for (const [args, message] of MAIN) {
    const r = await runSling([...args, `${srv.url}/`]);
    assert.equal(r.code, 1, `${args.join(' ')}: ${r.stderr}`);
    assert.equal(r.stderr, `sling: error: ${message}\n`, args.join(' '));
    assert.equal(r.stdout, '', args.join(' '));
  }
  assert.equal(srv.requests.length, 0);
});

test('a bad value of a sling exec option is one line naming the option and the values it takes, before or after the word exec, exit 1', async (t) => {
  const srv = await httpServer(t, okText);
  for (const [args, message] of EXEC) {
    for (const argv of [
      ['exec', ...args, '-'],
      [...args, 'exec', '-'],
    ]) {
      const r = await runSling(argv, { stdin: `GET ${srv.url}/\n` });
      assert.equal(r.code, 1, `${argv.join(' ')}: ${r.stderr}`);
      assert.equal(r.stderr, `sling: error: ${message}\n`, argv.join(' '));
    }
  }
  assert.equal(srv.requests.length, 0);
});

test("a bad value in config.json's default_options names the option and where it comes from", async (t) => {
  const { mkdtempSync, writeFileSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const cfg = mkdtempSync(join(tmpdir(), 'sling-cfg-'));
  writeFileSync(join(cfg, 'config.json'), JSON.stringify({ default_options: ['--pretty=loud'] }));
  const srv = await httpServer(t, okText);
  const r = await runSling([`${srv.url}/`], { env: { SLING_CONFIG_DIR: cfg } });
  assert.equal(r.code, 1, r.stderr);
  assert.equal(r.stderr, `sling: error: --pretty must be all, colors, format or none, got 'loud'\n  hint: the option comes from "default_options" in ${join(cfg, 'config.json')}\n`);
  assert.equal(srv.requests.length, 0);
});
