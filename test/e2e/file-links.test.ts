// Files whose name a .http or curl file, or a server, chose: a symbolic link in that place (one a
// repository holds, pointing to a file or to nowhere) is never written through nor replaced. A name
// that is taken is passed by where the feature takes the next one (`>>`, --no-clobber), else the
// command or the request fails in one line. The built CLI against a loopback server, in a temp folder.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readlinkSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { runSling } from '../helpers/cli.js';
import { httpServer, show } from '../helpers/assert.js';

const skip = process.platform === 'win32' ? 'symbolic links need privileges on Windows' : undefined;

/** A folder with `elsewhere/` (where the links point) and a link per name: to nowhere, or to a file of its own that holds 'mine'. */
function planted(names: string[], live: boolean): { dir: string; check(r: import('../helpers/cli.js').RunResult): void } {
  const dir = mkdtempSync(join(tmpdir(), 'sling-links-'));
  mkdirSync(join(dir, 'elsewhere'));
  for (const name of names) {
    const target = join(dir, 'elsewhere', name.replace(/\//g, '_'));
    if (live) writeFileSync(target, 'mine');
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    symlinkSync(target, join(dir, name));
  }
  return {
    dir,
    check(r) {
      for (const name of names) {
        const target = join(dir, 'elsewhere', name.replace(/\//g, '_'));
        assert.ok(lstatSync(join(dir, name)).isSymbolicLink(), `${name} is still a link${show(r)}`);
        assert.equal(readlinkSync(join(dir, name)), target, `${name} still points where it did`);
        if (live) assert.equal(readFileSync(target, 'utf8'), 'mine', `what ${name} points to is unchanged${show(r)}`);
        else assert.equal(existsSync(target), false, `what ${name} points to was not created${show(r)}`);
      }
    },
  };
}

async function server(t: import('node:test').TestContext) {
  return httpServer(t, (req, res) => {
    const headers: Record<string, string> = { ETag: '"e1"', 'Set-Cookie': 'a=1; Path=/', 'Content-Type': 'application/json' };
    if (req.url?.startsWith('/cd')) headers['Content-Disposition'] = 'attachment; filename="report.txt"';
    res.writeHead(200, headers);
    res.end('{"from":"the server"}\n');
  });
}

test('curl files: a symbolic link where a file is written (-O, -J, -o, --output-dir, -D, -c, --etag-save, > and >>) is never written through nor replaced: -J and the others fail their command in one line, --no-clobber takes the next name', {
  skip,
}, async (t) => {
  const s = await server(t);
  for (const live of [false, true]) {
    const names = ['report.txt', 'data.bin', 'out.txt', 'od/in.bin', 'heads.txt', 'jar.txt', 'etag.txt', 'shell.txt', 'app.txt'];
    const links = planted(names, live);
    writeFileSync(
      join(links.dir, 'c.sh'),
      [
        `curl -s -OJ ${s.url}/cd`,
        `curl -s --no-clobber -OJ ${s.url}/cd`,
        `curl -s -O ${s.url}/data.bin`,
        `curl -s -o out.txt ${s.url}/x`,
        `curl -s --output-dir od -O ${s.url}/in.bin`,
        `curl -s -o /dev/null -D heads.txt ${s.url}/x`,
        `curl -s -o /dev/null -c jar.txt ${s.url}/x`,
        `curl -s -o /dev/null --etag-save etag.txt ${s.url}/x`,
        `curl -s ${s.url}/x > shell.txt`,
        `curl -s ${s.url}/x >> app.txt`,
      ].join('\n'),
    );
    const r = await runSling(['exec', 'c.sh'], { cwd: links.dir });
    assert.equal(r.code, 1, show(r));
    const errors = r.stderr.split('\n').filter((l) => l.startsWith('sling: error: '));
    const link = 'it is a symbolic link, which sling neither writes through nor replaces';
    assert.deepEqual(
      errors,
      [
        `sling: error: c.sh:1:1: -J: 'report.txt' exists and is not overwritten (curl: "File exists")`,
        `sling: error: c.sh:3:1: cannot write 'data.bin': ${link}`,
        `sling: error: c.sh:4:1: cannot write 'out.txt': ${link}`,
        `sling: error: c.sh:5:1: cannot write 'in.bin': ${link}`,
        `sling: error: c.sh:6:1: -D: cannot write 'heads.txt': ${link}`,
        `sling: error: c.sh:7:1: -c: cannot write the cookie jar 'jar.txt': ${link}`,
        `sling: error: c.sh:8:1: --etag-save: cannot write 'etag.txt': ${link}`,
        `sling: error: c.sh:9:1: cannot open '${join(links.dir, 'shell.txt')}' for the command's output: ${link}; the command is not run (as in bash)`,
        `sling: error: c.sh:10:1: cannot open '${join(links.dir, 'app.txt')}' for the command's output: ${link}; the command is not run (as in bash)`,
      ],
      show(r),
    );
    links.check(r);
    assert.equal(readFileSync(join(links.dir, 'report.txt.1'), 'utf8'), '{"from":"the server"}\n', '--no-clobber wrote beside the link');
  }
});

test('.http files: `>>` in the place of a symbolic link takes the next name, `>>!` is refused in one line; the link and what it points to are left as they were (a body saved as it comes, or held for a handler)', {
  skip,
}, async (t) => {
  const s = await server(t);
  for (const live of [false, true]) {
    const links = planted(['a.json', 'b.json', 'c.json', 'd.json', 'out/e.json'], live);
    const req = (n: number, out: string, held: boolean) => `### r${n}\nGET ${s.url}/x${n}\n\n${held ? "> {% client.log('held'); %}\n" : ''}${out}\n`;
    writeFileSync(
      join(links.dir, 's.http'),
      [req(1, '>> a.json', false), req(2, '>>! b.json', false), req(3, '>> c.json', true), req(4, '>>! d.json', true), req(5, '>> out/e.json', false)].join('\n'),
    );
    const r = await runSling(['exec', 's.http'], { cwd: links.dir });
    assert.equal(r.code, 1, show(r));
    const link = 'it is a symbolic link, which sling neither writes through nor replaces';
    assert.deepEqual(
      r.stderr.split('\n').filter((l) => l.startsWith('sling: error: ')),
      [`sling: error: s.http:9: cannot save the response to 'b.json': ${link}`, `sling: error: s.http:21: cannot save the response to 'd.json': ${link}`],
      show(r),
    );
    links.check(r);
    for (const written of ['a-1.json', 'c-1.json', 'out/e-1.json']) assert.equal(readFileSync(join(links.dir, written), 'utf8'), '{"from":"the server"}\n', `${written}${show(r)}`);
    for (const none of ['b-1.json', 'd-1.json']) assert.equal(existsSync(join(links.dir, none)), false, `${none}: >>! writes no other name`);
  }
});
