// `sling exec` and the JetBrains HTTP Client's environment-file features that need no script:
// OAuth 2.0 tokens ({{$auth.token("id")}} from Security.Auth) and Faker variables ({{$random.name.firstName}}).
// The built CLI against a token server and an API server on 127.0.0.1.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runSling, REPO_ROOT } from '../helpers/cli.js';
import { certsUnavailableReason, header, makeCerts, type CapturedRequest } from '../helpers/servers.js';
import { assertError, assertExit, httpServer, httpsServer, show } from '../helpers/assert.js';

function workdir(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'sling-exec-auth-'));
  for (const [name, content] of Object.entries(files)) writeFileSync(join(dir, name), content);
  return dir;
}

/** A token endpoint at /token (answers in turn from `answers`, the last one again) and an API everywhere else. */
async function servers(t: import('node:test').TestContext, answers: { status?: number; body: Record<string, unknown> }[]) {
  const tokenRequests: CapturedRequest[] = [];
  const srv = await httpServer(t, (req, res, captured) => {
    if (req.url === '/token') {
      const answer = answers[Math.min(tokenRequests.length, answers.length - 1)]!;
      tokenRequests.push(captured);
      res.writeHead(answer.status ?? 200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify(answer.body));
      return;
    }
    res.writeHead(200, { 'Content-Type': 'text/plain' });
    res.end('ok\n');
  });
  const api = () => srv.requests.filter((r) => r.url !== '/token');
  return { srv, tokenRequests, api };
}

const form = (r: CapturedRequest) => Object.fromEntries(new URLSearchParams(r.body.toString()));

test('exec http: $auth.token, Client Credentials grant: one token request for the run, credentials in Basic, values from both env files', async (t) => {
  const { srv, tokenRequests, api } = await servers(t, [{ body: { access_token: 'AT-1', id_token: 'ID-1', token_type: 'Bearer', expires_in: 3600 } }]);
  const dir = workdir({
    'http-client.env.json': JSON.stringify({
      dev: {
        base: srv.url,
        Security: {
          Auth: {
            api: {
              Type: 'OAuth2',
              'Grant Type': 'Client Credentials',
              'Client ID': 'my client',
              'Token URL': '{{base}}/token',
              Scope: 'read write',
              'Custom Request Parameters': { audience: 'api://x', resource: { Value: 'r', Use: 'In Auth Request' } },
            },
          },
        },
      },
    }),
    'http-client.private.env.json': JSON.stringify({ dev: { Security: { Auth: { api: { 'Client Secret': 's3:cret&' } } } } }),
    'api.http': [
      'GET {{base}}/one',
      'Authorization: Bearer {{$auth.token("api")}}',
      '',
      '###',
      '@id = {{$auth.idToken("api")}}',
      'GET {{base}}/two',
      'X-Id: {{id}}',
      'Authorization: Bearer {{$auth.token("api")}}',
      '',
      '###',
      'GET {{base}}/three',
    ].join('\n'),
  });
  const r = await runSling(['exec', '--env', 'dev', 'api.http'], { cwd: dir });
  assertExit(r, 0);
  assert.equal(tokenRequests.length, 1, `one token request for the run${show(r)}`);
  const tr = tokenRequests[0]!;
  assert.equal(tr.method, 'POST');
  assert.equal(header(tr, 'content-type'), 'application/x-www-form-urlencoded');
  // RFC 6749 2.3.1: the id and the secret form-encoded, then Basic.
  assert.equal(header(tr, 'authorization'), 'Basic ' + Buffer.from('my+client:s3%3Acret%26').toString('base64'));
  assert.deepEqual(form(tr), { grant_type: 'client_credentials', scope: 'read write', audience: 'api://x' });
  const [one, two, three] = api();
  assert.equal(header(one!, 'authorization'), 'Bearer AT-1');
  assert.equal(header(two!, 'authorization'), 'Bearer AT-1');
  assert.equal(header(two!, 'x-id'), 'ID-1');
  assert.equal(header(three!, 'authorization'), undefined);
});

test('exec http: $auth.token, Password grant with the client credentials in the body; a request that needs no token is built first without one', async (t) => {
  const { srv, tokenRequests, api } = await servers(t, [{ body: { access_token: 'PW-1' } }]);
  const dir = workdir({
    'http-client.env.json': JSON.stringify({
      $shared: { Security: { Auth: { user: { Type: 'OAuth2', 'Grant Type': 'Password', 'Client ID': 'cli', 'Client Credentials': 'in body', Username: 'ada', 'Token URL': `${srv.url}/token` } } } },
      dev: { base: srv.url },
    }),
    'http-client.private.env.json': JSON.stringify({ dev: { Security: { Auth: { user: { Password: 'p w&1', 'Client Secret': 'sec' } } } } }),
    'api.http': ['GET {{base}}/open', '', '###', 'GET {{base}}/me', 'Authorization: Bearer {{$auth.token("user")}}'].join('\n'),
  });
  const r = await runSling(['exec', '--env', 'dev', 'api.http'], { cwd: dir });
  assertExit(r, 0);
  assert.deepEqual(
    srv.requests.map((q) => q.url),
    ['/open', '/token', '/me'],
    'the token is asked for when the request that needs it comes',
  );
  assert.deepEqual(form(tokenRequests[0]!), { grant_type: 'password', username: 'ada', password: 'p w&1', client_id: 'cli', client_secret: 'sec' });
  assert.equal(header(tokenRequests[0]!, 'authorization'), undefined);
  assert.equal(header(api()[1]!, 'authorization'), 'Bearer PW-1');
});

test('exec http: $auth.token, an expired token is renewed with the refresh grant (a refused refresh token: a new token)', async (t) => {
  const { srv, tokenRequests, api } = await servers(t, [
    { body: { access_token: 'A1', refresh_token: 'R1', expires_in: 0 } },
    { body: { access_token: 'A2', refresh_token: 'R2', expires_in: 0 } },
    { status: 400, body: { error: 'invalid_grant' } },
    { body: { access_token: 'A4', expires_in: 3600 } },
  ]);
  const dir = workdir({
    'http-client.env.json': JSON.stringify({
      dev: { base: srv.url, Security: { Auth: { a: { Type: 'OAuth2', 'Grant Type': 'Client Credentials', 'Client ID': 'c', 'Client Secret': 's', 'Token URL': `${srv.url}/token` } } } },
    }),
    'api.http': [1, 2, 3, 4].map((n) => `GET {{base}}/${n}\nAuthorization: Bearer {{$auth.token("a")}}\n`).join('\n###\n'),
  });
  const r = await runSling(['exec', '--env', 'dev', 'api.http'], { cwd: dir });
  assertExit(r, 0);
  assert.deepEqual(
    tokenRequests.map((q) => form(q).grant_type + (form(q).refresh_token ? ` ${form(q).refresh_token}` : '')),
    ['client_credentials', 'refresh_token R1', 'refresh_token R2', 'client_credentials'],
    show(r),
  );
  assert.deepEqual(
    api().map((q) => header(q, 'authorization')),
    ['Bearer A1', 'Bearer A2', 'Bearer A4', 'Bearer A4'],
  );
});

test('exec http: $auth.token failures are one line naming the configuration: a browser grant, an unknown id, a refused token request; --offline asks for nothing', async (t) => {
  const { srv, tokenRequests } = await servers(t, [{ status: 401, body: { error: 'invalid_client', error_description: 'bad secret' } }]);
  const env = (grant: string) =>
    JSON.stringify({ dev: { base: srv.url, Security: { Auth: { web: { Type: 'OAuth2', 'Grant Type': grant, 'Client ID': 'c', 'Token URL': `${srv.url}/token`, 'Auth URL': `${srv.url}/auth` } } } } });
  for (const grant of ['Authorization Code', 'Implicit', 'Device Authorization']) {
    const dir = workdir({ 'http-client.env.json': env(grant), 'api.http': 'GET {{base}}/x\nAuthorization: Bearer {{$auth.token("web")}}\n\n###\nGET {{base}}/y\nX-T: {{$auth.token("web")}}\n' });
    const r = await runSling(['exec', '--env', 'dev', 'api.http'], { cwd: dir });
    assertError(r, 1, `api.http:1: Security.Auth "web": the ${grant} grant needs a person at a browser`);
    assert.match(r.stderr, /api\.http:5: Security\.Auth "web": the .* grant/, 'the next request that needs it says so too');
  }
  assert.equal(srv.requests.length, 0, 'nothing is sent for a browser grant');

  const unknown = workdir({ 'http-client.env.json': env('Client Credentials'), 'api.http': 'GET {{base}}/x\nAuthorization: Bearer {{$auth.token("nope")}}\n' });
  const u = await runSling(['exec', '--env', 'dev', 'api.http'], { cwd: unknown });
  assertError(u, 1, 'no Security.Auth configuration "nope": the environment dev has Security.Auth "web"');

  const refused = workdir({
    'http-client.env.json': env('Client Credentials'),
    'api.http': 'GET {{base}}/x\nAuthorization: Bearer {{$auth.token("web")}}\n\n###\nGET {{base}}/y\nX-T: {{$auth.token("web")}}\n',
  });
  const f = await runSling(['exec', '--env', 'dev', 'api.http'], { cwd: refused });
  assertError(f, 1, `Security.Auth "web": the token request (client_credentials) to ${srv.url}/token answered HTTP 401: invalid_client (bad secret)`);
  assert.equal(tokenRequests.length, 1, 'a token that could not be had is not asked for again in the run');
  assert.deepEqual(
    srv.requests.map((q) => q.url),
    ['/token'],
  );

  const o = await runSling(['exec', '--offline', '--env', 'dev', 'api.http'], { cwd: refused });
  assertExit(o, 0);
  assert.match(o.stdout, /^Authorization: Bearer \{\{\$auth\.token\("web"\)\}\}$/m, show(o));
  assert.equal(tokenRequests.length, 1, '--offline sends no token request');
});

test("exec http: $auth.token, the token request goes with the main command's network flags (--verify=no for a self-signed token server)", {
  skip: makeCerts() ? undefined : certsUnavailableReason(),
}, async (t) => {
  const tokens = await httpsServer(t, (_req, res) => res.end(JSON.stringify({ access_token: 'TLS-1' })), { cert: 'bad' });
  const { srv, api } = await servers(t, [{ body: {} }]);
  const dir = workdir({
    'http-client.env.json': JSON.stringify({
      dev: { base: srv.url, Security: { Auth: { a: { Type: 'OAuth2', 'Grant Type': 'Client Credentials', 'Client ID': 'c', 'Token URL': `${tokens.url}/token` } } } },
    }),
    'api.http': 'GET {{base}}/x\nAuthorization: Bearer {{$auth.token("a")}}\n',
  });
  const checked = await runSling(['exec', '--env', 'dev', 'api.http'], { cwd: dir });
  assertError(checked, 6, `api.http:1: Security.Auth "a": the token request to ${tokens.url}/token failed: `);
  assert.equal(api().length, 0);
  const r = await runSling(['exec', '--verify=no', '--env', 'dev', 'api.http'], { cwd: dir });
  assertExit(r, 0);
  assert.equal(header(api()[0]!, 'authorization'), 'Bearer TLS-1', show(r));
});

test('exec http: Faker variables give plausible values, fresh each time; an unknown one is warned about with its line and fails its request only', async (t) => {
  const srv = await httpServer(t, (_req, res) => res.end('ok'));
  const dir = workdir({
    'api.http': [
      `POST ${srv.url}/people`,
      'Content-Type: application/json',
      '',
      '{"first": "{{$random.name.firstName}}", "last": "{{$random.name.lastName}}", "city": "{{$random.address.city}}",',
      ' "email": "{{$random.internet.emailAddress}}", "email2": "{{$random.internet.email}}", "phone": "{{$random.phoneNumber.cellPhone}}",',
      ' "company": "{{$random.company.name}}", "word": "{{$random.lorem.word}}", "born": "{{$random.date.birthday}}", "zip": "{{$random.address.zipCode}}"}',
    ].join('\n'),
  });
  const seen = new Set<string>();
  for (let i = 0; i < 3; i++) {
    const r = await runSling(['exec', 'api.http'], { cwd: dir });
    assertExit(r, 0);
    const body = JSON.parse(srv.requests[i]!.body.toString()) as Record<string, string>;
    assert.match(body.first!, /^[A-Z][\p{L}'-]+$/u, JSON.stringify(body));
    assert.match(body.last!, /^[A-Z][\p{L}' -]+$/u);
    assert.match(body.city!, /^[A-Z][\p{L} .'-]+$/u);
    assert.match(body.email!, /^[^@\s]+@[^@\s]+\.[a-z]+$/);
    assert.match(body.email2!, /^[^@\s]+@[^@\s]+\.[a-z]+$/);
    assert.match(body.phone!, /\d{3}/);
    assert.ok(body.company!.length > 1);
    assert.match(body.word!, /^\p{L}+$/u);
    assert.ok(!Number.isNaN(Date.parse(body.born!)), body.born);
    assert.match(body.zip!, /^\d{5}(-\d{4})?$/);
    seen.add(body.first! + body.last! + body.city!);
  }
  assert.ok(seen.size > 1, 'a fresh value each run');

  const bad = workdir({ 'api.http': `GET ${srv.url}/x\n\n###\nGET ${srv.url}/y?c={{$random.address.town}}\n` });
  const b = await runSling(['exec', 'api.http'], { cwd: bad });
  assertError(b, 1, /api\.http:4:\d+: \{\{\$random\.address\.town\}\}: the Faker category 'address' has no 'town'/);
  const cat = workdir({ 'api.http': `GET ${srv.url}/y?c={{$random.planet.name}}\n` });
  assertError(await runSling(['exec', 'api.http'], { cwd: cat }), 1, /api\.http:1:\d+: \{\{\$random\.planet\.name\}\}: sling has no Faker category 'planet'/);
  // The request that needs it fails; the others run.
  assert.equal(srv.requests.length, 4, 'only the request with an unknown Faker variable is not sent');
  assert.match(b.stderr, /warning: .*api\.http:4:\d+: \{\{\$random\.address\.town\}\}/);
});

test('exec http: Faker is loaded only by a run that uses it (its own chunk, not on the start-up path)', () => {
  const chunks = readdirSync(join(REPO_ROOT, 'dist', 'chunks'));
  const faker = chunks.find((c) => c.startsWith('faker-'));
  assert.ok(faker, `a faker chunk in dist/chunks: ${chunks.join(', ')}`);
  const requiring = chunks.filter((c) => readFileSync(join(REPO_ROOT, 'dist', 'chunks', c), 'utf8').includes(`require("./${faker}")`));
  assert.equal(requiring.length, 1, requiring.join(', '));
  const text = readFileSync(join(REPO_ROOT, 'dist', 'chunks', requiring[0]!), 'utf8');
  // The one place that requires it does so from inside loadFaker's dynamic import (a promise), not at the chunk's top.
  assert.match(text, /fakerModule \?\?= await Promise\.resolve\(\)\.then\(\(\) => __toESM\(require\("\.\/faker-/);
  assert.ok(!readFileSync(join(REPO_ROOT, 'dist', 'sling.js'), 'utf8').includes(faker));
});

test('exec http: $auth.token, a token request follows no redirect, even under --follow: a 307 or 308 to another origin is that request failing, nothing is posted there', async (t) => {
  const elsewhere = await httpServer(t, (_req, res) => res.end(JSON.stringify({ access_token: 'STOLEN' })));
  for (const status of [307, 308]) {
    const tokens = await httpServer(t, (_req, res) => {
      res.writeHead(status, { Location: `${elsewhere.url}/token`, 'Content-Type': 'text/plain' });
      res.end('moved\n');
    });
    const { srv, api } = await servers(t, [{ body: {} }]);
    const dir = workdir({
      'http-client.env.json': JSON.stringify({
        dev: {
          base: srv.url,
          Security: {
            Auth: {
              a: {
                Type: 'OAuth2',
                'Grant Type': 'Password',
                'Client ID': 'c',
                'Client Credentials': 'in body',
                'Client Secret': 'sec',
                Username: 'ada',
                Password: 'pw',
                'Token URL': `${tokens.url}/token`,
              },
            },
          },
        },
      }),
      'api.http': 'GET {{base}}/x\nAuthorization: Bearer {{$auth.token("a")}}\n\n###\nGET {{base}}/after\n',
    });
    for (const flags of [['--follow'], []]) {
      const r = await runSling(['exec', ...flags, '--env', 'dev', 'api.http'], { cwd: dir });
      assertError(r, 1, `api.http:1: Security.Auth "a": the token request (password) to ${tokens.url}/token answered HTTP ${status}, a redirect, which a token request does not follow`);
      assert.equal(
        r.stderr
          .trim()
          .split('\n')
          .filter((l) => l.startsWith('sling: error: ')).length,
        1,
        `one line${show(r)}`,
      );
      assert.equal(elsewhere.requests.length, 0, `nothing is sent to the origin the redirect names (${status} ${flags.join(' ')})${show(r)}`);
    }
    assert.equal(tokens.requests.length, 2, 'one token request per run');
    assert.deepEqual(
      api().map((q) => q.url),
      ['/after', '/after'],
      'the request that needs no token runs',
    );
  }
});

test('exec http: $auth.token, a token response over 1 MiB fails its token request in one line, its connection closed, and the run goes on with the next requests', async (t) => {
  let served = 0;
  const tokens = await httpServer(t, (_req, res) => {
    res.writeHead(200, { 'Content-Type': 'application/json' });
    // Endless: chunks for as long as the client reads.
    const chunk = Buffer.alloc(64 << 10, ' ');
    res.write('{"access_token": "T", "pad": "');
    const pump = () => {
      while (!res.destroyed && res.write(chunk)) served += chunk.length;
      if (!res.destroyed) res.once('drain', pump);
    };
    res.on('close', () => res.removeAllListeners('drain'));
    pump();
  });
  const { srv, api } = await servers(t, [{ body: {} }]);
  const dir = workdir({
    'http-client.env.json': JSON.stringify({
      dev: { base: srv.url, Security: { Auth: { a: { Type: 'OAuth2', 'Grant Type': 'Client Credentials', 'Client ID': 'c', 'Token URL': `${tokens.url}/token` } } } },
    }),
    'api.http': 'GET {{base}}/x\nAuthorization: Bearer {{$auth.token("a")}}\n\n###\nGET {{base}}/after\n\n###\nGET {{base}}/y\nX-T: {{$auth.token("a")}}\n\n###\nGET {{base}}/last\n',
  });
  const r = await runSling(['exec', '--env', 'dev', 'api.http'], { cwd: dir, timeoutMs: 120_000 });
  assertError(r, 1, `api.http:1: Security.Auth "a": the token request to ${tokens.url}/token failed: the answer (HTTP 200) is over 1 MiB: the rest is not read`);
  assert.match(r.stderr, /api\.http:8: Security\.Auth "a": the token request .* is over 1 MiB/, `the next request that needs it fails the same way, without asking again${show(r)}`);
  assert.doesNotMatch(r.stderr, /unexpected/, show(r));
  assert.equal(tokens.requests.length, 1, 'a token that could not be had is not asked for again');
  assert.deepEqual(
    api().map((q) => q.url),
    ['/after', '/last'],
    `the requests that need no token run${show(r)}`,
  );
  assert.ok(served < 64 << 20, `${served} bytes served: the connection was closed, not read on`);
});

/** A server behind RFC 7616 Digest (MD5, qop=auth) for ann / "s3:cret pw": 200 when the answer is right, else 401 with the challenge. */
async function digestServer(t: import('node:test').TestContext) {
  const { createHash } = await import('node:crypto');
  const md5 = (s: string) => createHash('md5').update(s).digest('hex');
  return httpServer(t, (req, res) => {
    const auth = req.headers.authorization ?? '';
    const p = Object.fromEntries([...auth.matchAll(/(\w+)=(?:"([^"]*)"|([^,\s]+))/g)].map((m) => [m[1]!, m[2] ?? m[3]!]));
    const ha1 = md5(`ann:r:s3:cret pw`);
    const ha2 = md5(`${req.method}:${p.uri}`);
    if (auth.startsWith('Digest ') && p.username === 'ann' && p.response === md5(`${ha1}:${p.nonce}:${p.nc}:${p.cnonce}:${p.qop}:${ha2}`)) {
      res.end('in\n');
      return;
    }
    res.writeHead(401, { 'WWW-Authenticate': 'Digest realm="r", nonce="n0", qop="auth"', 'Content-Type': 'text/plain' });
    res.end('no\n');
  });
}

test("exec http: httpyac's `Authorization: Digest user:password` answers the digest challenge, the password never sent (httpyac's digestAuthVariableReplacer forms)", async (t) => {
  const srv = await digestServer(t);
  const dir = workdir({
    'd.http': `GET ${srv.url}/colon\nAuthorization: Digest ann:s3:cret pw\n\n###\nGET ${srv.url}/blank\nAuthorization: Digest ann s3:cret pw\n`,
  });
  const r = await runSling(['exec', '--print=hb', 'd.http'], { cwd: dir });
  assertExit(r, 0);
  assert.deepEqual(
    srv.requests.map((q) => [q.url, (header(q, 'authorization') ?? '').split(' ')[0]]),
    [
      ['/colon', ''],
      ['/colon', 'Digest'],
      ['/blank', ''],
      ['/blank', 'Digest'],
    ],
    show(r),
  );
  for (const q of srv.requests) assert.doesNotMatch(q.rawHeaders.join('\n') + q.url, /s3:cret/);
  assert.doesNotMatch(r.stdout, /no\n/);
});

test("exec http: httpyac's `Authorization: Basic user:password` and `Basic user password` are encoded; the colon form splits at the first colon", async (t) => {
  const srv = await httpServer(t, (_req, res) => res.end('ok\n'));
  const dir = workdir({
    'b.http': `GET ${srv.url}/1\nAuthorization: Basic ann:pass word\n\n###\nGET ${srv.url}/2\nAuthorization: Basic ann pass word\n\n###\nGET ${srv.url}/3\nAuthorization: Basic YW5uOnB3\n`,
  });
  assertExit(await runSling(['exec', 'b.http'], { cwd: dir }), 0);
  assert.deepEqual(
    srv.requests.map((q) => header(q, 'authorization')),
    [`Basic ${Buffer.from('ann:pass word').toString('base64')}`, `Basic ${Buffer.from('ann:pass word').toString('base64')}`, 'Basic YW5uOnB3'],
  );
});
