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
  [['--response-mime=notamime'], "--response-mime needs a media type, type/subtype (application/json), got 'notamime'"],
  [['--response-mime', 'application/json/x'], "--response-mime needs a media type, type/subtype (application/json), got 'application/json/x'"],
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

// The styles `http --help` of HTTPie 3.2.1 lists.
const HTTPIE_STYLES = (
  'abap algol algol_nu arduino auto autumn borland bw colorful default dracula emacs friendly friendly_grayscale fruity github-dark gruvbox-dark ' +
  'gruvbox-light igor inkpot lilypond lovelace manni material monokai murphy native nord nord-darker one-dark paraiso-dark paraiso-light pastie ' +
  'perldoc pie pie-dark pie-light rainbow_dash rrt sas solarized solarized-dark solarized-light staroffice stata stata-dark stata-light tango trac vim vs xcode zenburn'
).split(' ');

test("every style name HTTPie takes is taken, as one of sling's own styles, on the line and in default_options", async () => {
  const { mkdtempSync, writeFileSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const { STYLE_NAMES } = await import('../../src/output/palette.js');
  const show = (style: string, env: Record<string, string> = {}) =>
    runSling(['--offline', '--pretty=all', ...(style ? [`--style=${style}`] : []), 'POST', 'example.org/x', 'a=1', 'n:=2'], { env: { FORCE_COLOR: '1', ...env } });
  const own = new Map<string, string>();
  for (const name of STYLE_NAMES) own.set((await show(name)).stdout, name);
  assert.notEqual(own.get((await show('default')).stdout), 'mono', 'no colours');
  for (const name of HTTPIE_STYLES) {
    const r = await show(name);
    assert.equal(r.code, 0, `${name}: ${r.stderr}`);
    assert.equal(r.stderr, '', name);
    assert.ok(own.has(r.stdout), `--style=${name} looks like none of sling's styles`);
  }
  const cfg = mkdtempSync(join(tmpdir(), 'sling-cfg-'));
  writeFileSync(join(cfg, 'config.json'), JSON.stringify({ default_options: ['--style=pie-dark'] }));
  const r = await show('', { SLING_CONFIG_DIR: cfg });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(own.get(r.stdout), 'default');
  assert.equal(own.get((await show('zenburn')).stdout), 'gruvbox-dark');
  assert.equal(own.get((await show('bw')).stdout), 'mono');
});
