import { closeSync, openSync, renameSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { fileProblem } from '../../errors.js';
import type { SavedFile, SaveTarget } from '../../model/exec.js';

/**
 * Writes a response body to its files as it arrives (curl's -o, a .http `>> file`), so a body of
 * any size takes no more memory than a chunk. A file that cannot be opened or written is given
 * up with its reason; the others go on (the run reports it, as it reports a file it could not write whole).
 */
export class FileTee {
  private readonly open: { fd: number; saved: SavedFile }[] = [];
  readonly saved: SavedFile[] = [];
  /** Written under a temporary name, renamed over the path only once the body is complete. */
  private readonly parts = new Map<SavedFile, string>();

  /**
   * `whole`: a file is never left holding part of a body (curl's -o keeps what came, for -C -): it
   * is written as `PATH.PID.part` (`pid`: sling's process id) and renamed once complete.
   */
  constructor(targets: SaveTarget[], whole: boolean, pid: number) {
    for (const t of targets) {
      const saved: SavedFile = { path: t.path, bytes: 0 };
      this.saved.push(saved);
      let fd: number | undefined;
      try {
        const part = whole && !t.append && !isDevice(t.path) ? `${t.path}.${pid}.part` : undefined;
        fd = openSync(part ?? t.path, t.append ? 'a' : 'w');
        if (part) this.parts.set(saved, part);
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
    for (const [saved, part] of this.parts) {
      try {
        if (complete && saved.problem === undefined) renameSync(part, saved.path);
        else unlinkSync(part);
      } catch (e) {
        saved.problem ??= fileProblem(e);
      }
    }
    this.parts.clear();
    return this.saved;
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
