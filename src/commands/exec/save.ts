/**
 * Response bodies written to files as they arrive (curl's -o, a .http `>> file`): FileTee, and the
 * pump that feeds it from a hop. Which files, and what is reported of them, is the entries' (the
 * bodyFiles and after hooks); printing is not done here.
 */
import { closeSync, linkSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { fileProblem } from '../../errors.js';
import { isLink, occupied, openToWrite, replaceFile } from '../../files.js';
import type { BodyFiles, SavedFile, SaveTarget } from '../../model/exec.js';
import type { Hop } from '../../transport/hop.js';
import { pumpBody } from '../deliver.js';

/**
 * Writes a response body to its files as it arrives (curl's -o, a .http `>> file`), so a body of
 * any size takes no more memory than a chunk. A file that cannot be opened or written is given
 * up with its reason; the others go on (the run reports it, as it reports a file it could not write whole).
 * Files are opened as their target says (files.ts openToWrite): never through a symbolic link.
 */
export class FileTee {
  private readonly open: { fd: number; saved: SavedFile }[] = [];
  readonly saved: SavedFile[] = [];
  /** Written under a temporary name, put at the path only once the body is complete; `fresh`: a `new` file, put where nothing is. */
  private readonly parts = new Map<SavedFile, { part: string; fresh: boolean }>();

  /**
   * `whole`: a file is never left holding part of a body (curl's -o keeps what came, for -C -): it
   * is written as `PATH.PID.part` (`pid`: sling's process id) and renamed once complete (a `new`
   * file: linked, which fails where anything is, so that nothing made there meanwhile is replaced).
   */
  constructor(targets: SaveTarget[], whole: boolean, pid: number) {
    for (const t of targets) {
      const saved: SavedFile = { path: t.path, bytes: 0 };
      this.saved.push(saved);
      const how = t.how ?? 'replace';
      let fd: number | undefined;
      try {
        const part = whole && how !== 'append' && !isDevice(t.path) ? `${t.path}.${pid}.part` : undefined;
        fd = openToWrite(part ?? t.path, part ? 'replace' : how);
        if (part) this.parts.set(saved, { part, fresh: how === 'new' });
        if (t.prefix?.length) writeAll(fd, t.prefix);
        this.open.push({ fd, saved });
      } catch (e) {
        saved.problem = fileProblem(e);
        if (fd !== undefined) closeSync(fd);
      }
    }
  }

  write(chunk: Buffer) {
    for (let i = 0; i < this.open.length; i++) {
      const f = this.open[i]!;
      try {
        writeAll(f.fd, chunk);
        f.saved.bytes += chunk.length;
      } catch (e) {
        f.saved.problem = fileProblem(e);
        closeQuietly(f.fd);
        this.open.splice(i--, 1);
      }
    }
  }

  /** `complete`: the body came to its end (temporary files take their names); else they are removed. */
  close(complete: boolean): SavedFile[] {
    for (const f of this.open) closeQuietly(f.fd);
    this.open.length = 0;
    for (const [saved, { part, fresh }] of this.parts) {
      try {
        if (complete && saved.problem === undefined) {
          if (fresh) putNew(part, saved.path);
          // The rename would replace a link put there meanwhile: refused, as writing through it is.
          else if (isLink(saved.path)) throw Object.assign(new Error('a symbolic link'), { code: 'ESYMLINK' });
          else replaceFile(part, saved.path);
        }
      } catch (e) {
        saved.problem ??= fileProblem(e);
      }
      removeQuietly(part);
    }
    this.parts.clear();
    return this.saved;
  }
}

/**
 * The complete `part` at `path`, where nothing may be: a hard link fails (EEXIST) on anything there,
 * a link to nowhere too, where a rename would replace it. On a file system without hard links: a
 * rename where nothing is found.
 */
function putNew(part: string, path: string) {
  try {
    linkSync(part, path);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP' && code !== 'EMLINK') throw e;
    if (occupied(path)) throw Object.assign(new Error('it exists'), { code: 'EEXIST' });
    replaceFile(part, path);
  }
}

function isDevice(path: string): boolean {
  try {
    const st = statSync(path);
    return !st.isFile();
  } catch {
    return false;
  }
}

function writeAll(fd: number, data: Buffer) {
  let at = 0;
  while (at < data.length) at += writeSync(fd, data, at, data.length - at);
}

function closeQuietly(fd: number) {
  try {
    closeSync(fd);
  } catch {
    // closing after a failed write: nothing more to say
  }
}

function removeQuietly(path: string) {
  try {
    unlinkSync(path);
  } catch {
    // gone already
  }
}

/**
 * A body that goes to files only, written as it arrives (curl's -o, a .http `>> file`): `saving.files`
 * says what each file holds, also when the body fails midway. Nothing more is read after a failure:
 * the connection is closed rather than left reading.
 */
export async function pumpToFiles(hop: Hop, files: BodyFiles, pid: number, keepEncoding: boolean | undefined, saving: { files?: SavedFile[] }): Promise<void> {
  const tee = new FileTee(files.files, !files.keepPartial, pid);
  saving.files = tee.saved;
  let complete = false;
  try {
    await pumpBody(hop, { keepEncoding, write: (c) => tee.write(c), onFailure: () => hop.body.destroy() });
    complete = true;
  } finally {
    tee.close(complete);
  }
}
