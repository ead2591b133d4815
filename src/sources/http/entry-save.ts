/**
 * `>> file` and `>>! file` of a .http request: which file each line writes (a new `name-1.ext` beside
 * one that exists, a history name in a folder, never through a link) and what the entry reports of
 * it. The runner writes a body that goes to files as it comes (commands/exec/save.ts); a body read
 * whole is written here. Nothing here runs scripts or builds requests.
 */
import { type Creation, isDirectory, isNullName, makeDirs, occupied, systemName, writeToFile } from '../../files.js';
import { devNull } from 'node:os';
import { lstatSync, statSync } from 'node:fs';
import { dirname, extname, resolve as resolvePath } from 'node:path';
import { fileProblem } from '../../errors.js';
import type { AfterResult, Completed } from '../../model/exec.js';
import { headerIn } from '../../model/headers.js';
import type { RequestNode } from './ast.js';
import { rawText } from './template.js';
import type { Resolution, FileCtx } from './vars.js';

/** A `>> file` line's file: the path written to, or why there is none. */
export interface OutputTarget {
  line: number;
  path?: string;
  /** `new` for `>>` (a name nothing holds), `replace` for `>>!` and a device. */
  how?: Creation;
  /** The path as written, for the message. */
  shown: string;
  problem?: string;
}

/** The file each `>> file` line writes (a new `name-1.ext` beside one that exists, unless `>>!`). */
export function outputTargets(file: FileCtx, node: RequestNode, res: Resolution, answer: Omit<Completed, 'body'>): OutputTarget[] {
  const taken = new Set<string>();
  return node.outputs.map((out) => {
    const written = rawText(out.path);
    const target: OutputTarget = { line: out.line, shown: written.length > 100 ? written.slice(0, 100) + '...' : written };
    try {
      const resolved = res.resolve(out.path);
      // `>> /dev/null` and `>> NUL` throw the body away on every system (resolved, `/dev/null`
      // would be C:\dev\null on Windows, and `NUL` a file named NUL on Linux).
      if (isNullName(resolved.trim())) {
        target.path = devNull;
        target.how = 'replace';
        return target;
      }
      let full = resolvePath(file.dir, resolved);
      // A folder (`>> out/`, or one that exists): a file in it named as JetBrains names its response history.
      if (/[/\\]$/.test(resolved) || isDirectory(full)) full = resolvePath(full, historyName(answer));
      ({ path: target.path, how: target.how } = outputPath(full, out.overwrite, taken));
      taken.add(target.path);
    } catch (e) {
      target.problem = (e as NodeJS.ErrnoException).code ? fileProblem(e) : (e as Error).message;
    }
    return target;
  });
}

/**
 * What each `>> file` line did with the body: written here from `done.body`, or already written as it
 * came (`done.saved`); a note per file saved, an error (exit 1) per file that could not be.
 */
export function saveOutputs(file: FileCtx, targets: OutputTarget[], done: Completed, result: AfterResult): void {
  for (const t of targets) {
    let problem = t.problem;
    if (problem === undefined && t.path !== undefined) {
      if (done.saved) problem = done.saved.find((f) => f.path === t.path)?.problem;
      else {
        try {
          writeToFile(t.path, done.body, t.how ?? 'replace');
        } catch (e) {
          problem = fileProblem(e);
        }
      }
    }
    // Not a failed test: an error of the run (exit 1), said once, with the path as written.
    if (problem !== undefined) {
      (result.errors ??= []).push(`${file.path}:${t.line}: cannot save the response to '${t.shown}': ${problem}`);
      result.exitCode = 1;
    } else if (t.path !== undefined) {
      // On stderr: stdout stays the responses (`--print=b ... | jq`).
      (result.notes ??= []).push(`response saved to ${t.path}`);
    }
  }
}

/** `2026-11-25T061530.200.json`: the response's time, status and a file type from its Content-Type. */
function historyName(done: Omit<Completed, 'body'>): string {
  const d = new Date();
  const p = (n: number) => String(n).padStart(2, '0');
  const stamp = `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}${p(d.getMinutes())}${p(d.getSeconds())}`;
  const type = (headerIn(done.response.rawHeaders, 'content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  const ext = /[/+]json$/.test(type) ? 'json' : /[/+]xml$/.test(type) ? 'xml' : type === 'text/html' ? 'html' : type.startsWith('text/') ? 'txt' : 'bin';
  return `${stamp}.${done.response.status}.${ext}`;
}

/**
 * The file a `>> file` line writes: an existing file is kept and `name-1.ext` written instead;
 * `>>! file` overwrites. Missing folders are made. `taken`: names this response writes already.
 * A symbolic link in the file's place (one a repository holds, even one to nowhere) is never
 * written through nor replaced: `>>` takes the next name, `>>!` is refused.
 */
function outputPath(path: string, overwrite: boolean, taken: Set<string>): { path: string; how: Creation } {
  makeDirs(dirname(path));
  let st: import('node:fs').Stats | undefined;
  try {
    // /dev/stderr is a link to the device it names.
    st = systemName(path) ? statSync(path) : lstatSync(path);
  } catch {
    // a new file
  }
  if (st?.isSymbolicLink()) {
    if (overwrite) throw Object.assign(new Error('a symbolic link'), { code: 'ESYMLINK' });
  } else if (st && !st.isFile()) {
    // `>> /dev/null`: the device takes it (no `/dev/null-1` beside it). A named pipe or a socket
    // would wait for a reader, with Ctrl-C unable to stop the blocked thread: refused.
    if (st.isCharacterDevice()) return { path, how: 'replace' };
    throw Object.assign(new Error('not a regular file'), { code: 'ENOTREG' });
  }
  if (overwrite) return { path, how: 'replace' };
  let target = path;
  const ext = extname(path);
  const stem = path.slice(0, path.length - ext.length);
  for (let n = 1; taken.has(target) || occupied(target); n++) target = `${stem}-${n}${ext}`;
  return { path: target, how: 'new' };
}
