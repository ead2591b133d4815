import { closeSync, constants, fstatSync, lstatSync, mkdirSync, openSync, readSync, renameSync, statSync, writeSync } from 'node:fs';
import { homedir, platform as osPlatform } from 'node:os';
import { dirname, join, sep } from 'node:path';
import { UsageError } from './errors.js';

/**
 * A path that starts with `~` as the shell reads it: `~` and `~/...` are in the home folder, and on
 * Windows, where `\` separates folders too, `~\...` (`@~\body.json`). Any other path is as given.
 */
export function expandHome(path: string, home = homedir(), backslashSeparates = sep === '\\'): string {
  if (path === '~') return home;
  if (path.startsWith('~/') || (backslashSeparates && path.startsWith('~\\'))) return join(home, path.slice(2));
  return path;
}

/** Names Windows keeps for devices, with any extension: `con.json` is the console, `nul.txt` nothing. */
const DEVICE_NAMES = /^(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³])$/i;

/** Whether a file name (no folder) is a Windows device's: its part before the first dot is CON, NUL, COM1, ... */
export function isDeviceName(name: string): boolean {
  const dot = name.indexOf('.');
  return DEVICE_NAMES.test(dot === -1 ? name : name.slice(0, dot));
}

/** `/dev/null` and `NUL` (cmd.exe's), the names of the null device in a file that may be run on either system. */
export function isNullName(name: string): boolean {
  return name === '/dev/null' || /^nul:?$/i.test(name);
}

/** An existing folder (false for a file, a missing path or one that cannot be read). */
export function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/**
 * mkdir -p: makes the missing folders of `path`, one at a time, and returns the first one it made
 * (as mkdirSync's `recursive` does). Node 20's own recursive mkdir never returns where a parent
 * exists but refuses new entries with ENOENT (`/proc/x/y`); here that is the error it is.
 */
export function makeDirs(path: string, mode?: number): string | undefined {
  const missing: string[] = [];
  let p = path;
  for (;;) {
    try {
      if (statSync(p).isDirectory()) break;
      throw Object.assign(new Error(`ENOTDIR: not a directory, mkdir '${p}'`), { code: 'ENOTDIR', path: p });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    }
    const up = dirname(p);
    if (up === p) break;
    missing.push(p);
    p = up;
  }
  for (let i = missing.length - 1; i >= 0; i--) {
    try {
      mkdirSync(missing[i]!, mode === undefined ? undefined : { mode });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
  }
  return missing[missing.length - 1];
}

/**
 * How a file whose name a .http or curl file, or a server, chose is opened: `new` makes it and
 * writes over nothing (a file, a folder or a link there, a link to nowhere too, is EEXIST);
 * `replace` empties a regular file there or makes one; `append` adds to one or makes one.
 */
export type Creation = 'new' | 'replace' | 'append';

/**
 * Opens such a file to write, never through a symbolic link (O_NOFOLLOW, and O_EXCL for `new`): a
 * link in its place, to a file or to nowhere, is neither followed nor replaced; `replace` and
 * `append` refuse it with the code ESYMLINK (fileProblem: "it is a symbolic link, ..."), `new`
 * with EEXIST. Only the last part of the path is checked: its folders are the path's own (`out/`,
 * `..`), as a name the file wrote. Names in /dev and /proc are the system's (`/dev/stderr` is a link by
 * nature, and no repository puts one there): opened as they are.
 */
export function openToWrite(path: string, how: Creation, mode = 0o666): number {
  const { O_WRONLY, O_CREAT, O_EXCL, O_TRUNC, O_APPEND } = constants;
  // Windows has no O_NOFOLLOW (0): O_EXCL still keeps `new` off anything that is there.
  const noFollow = systemName(path) ? 0 : (constants.O_NOFOLLOW ?? 0);
  const flags = O_WRONLY | O_CREAT | noFollow | (how === 'new' ? O_EXCL : how === 'replace' ? O_TRUNC : O_APPEND);
  try {
    return openSync(path, flags, mode);
  } catch (e) {
    // ELOOP is also a loop of links among the folders: a link in the file's own place is said as such.
    if ((e as NodeJS.ErrnoException).code === 'ELOOP' && isLink(path)) {
      throw Object.assign(new Error(`ESYMLINK: a symbolic link, not written through, open '${path}'`), { code: 'ESYMLINK', path });
    }
    throw e;
  }
}

/** openToWrite, the whole of `data` written, closed. */
export function writeToFile(path: string, data: Buffer, how: Creation): void {
  const fd = openToWrite(path, how);
  try {
    let at = 0;
    while (at < data.length) at += writeSync(fd, data, at, data.length - at);
  } finally {
    closeSync(fd);
  }
}

/**
 * The most sling reads whole of a file of settings: config.json, environment files (`.env`,
 * `http-client.env.json`), `.netrc`, a session file, `.curlrc` and `-K`, `-H @file`, a cookie file
 * (`-b`), `-w @file`, certificates and keys, a script or handler file.
 */
export const SETTINGS_FILE_LIMIT = 10 * 1024 * 1024;

/**
 * The most sling reads whole of a file whose text becomes a request: a `.http` or curl file and
 * what it imports, `<@ file` (its {{variables}} substituted), the items `=@file` and `:=@file`,
 * curl's `-d @file` / `--json @file` / `$(cat FILE)`, and a device (not a regular file, a pipe or a
 * socket) read as a body.
 */
export const TEXT_FILE_LIMIT = 64 * 1024 * 1024;

/** A file over the limit readLimited was given: exit 1, nothing sent. */
export class FileTooLargeError extends UsageError {
  constructor(shown: string, limit: number, what: string) {
    super(`'${shown}' is larger than ${limit % 1048576 === 0 ? `${limit / 1048576} MiB` : `${limit} bytes`}, the most sling reads of ${what}`);
    this.name = 'FileTooLargeError';
  }
}

/**
 * The text of a file sling reads as UTF-8 (config.json, a session, an environment file, a request
 * file, a `:=@file` item): without the byte order mark that Windows tools write in front of UTF-8
 * (PowerShell 5.1's `Set-Content -Encoding UTF8`, Visual Studio, Notepad before 2019). A UTF-16 or
 * UTF-32 file (PowerShell's `>` and `Out-File` write UTF-16) is refused with what to do, instead of
 * being read as garbled text. `shown` names the file, `what` says what it is ("the config file").
 */
export function utf8Text(data: Buffer, shown: string, what: string): string {
  if (data[0] === 0xef && data[1] === 0xbb && data[2] === 0xbf) return data.toString('utf8', 3);
  const utf16 = (data[0] === 0xff && data[1] === 0xfe) || (data[0] === 0xfe && data[1] === 0xff);
  const utf32be = data[0] === 0 && data[1] === 0 && data[2] === 0xfe && data[3] === 0xff;
  if (utf16 || utf32be) {
    const kind = utf32be || (data[2] === 0 && data[3] === 0 && data.length % 4 === 0) ? 'UTF-32' : 'UTF-16';
    throw new UsageError(`${shown}: ${what} is saved as ${kind} text; save it as UTF-8 (in PowerShell: Set-Content -Encoding utf8, or Out-File -Encoding utf8)`);
  }
  return data.toString('utf8');
}

/**
 * A whole file, read a piece at a time and never more than `limit` bytes of it: a file that is
 * larger, or endless (`/dev/zero`, a link to it), is a FileTooLargeError naming `shown` and `what`
 * (the kind of file, for the message) as soon as the limit is passed, before its bytes fill the
 * memory. Other failures (ENOENT, EISDIR, EACCES) are thrown as they are, for the caller's message.
 */
export function readLimited(path: string, limit: number, shown: string, what: string): Buffer {
  const fd = openSync(path, 'r');
  try {
    const st = fstatSync(fd);
    if (st.isFile() && st.size > limit) throw new FileTooLargeError(shown, limit, what);
    // A regular file's size is read in one piece or two; a device or a pipe, 64 KiB at a time.
    const chunks: Buffer[] = [];
    let size = 0;
    for (;;) {
      const want = Math.min(limit + 1 - size, st.isFile() && st.size > size ? st.size - size + 1 : 65536);
      const buf = Buffer.allocUnsafe(want);
      const n = readSync(fd, buf, 0, buf.length, null);
      if (n === 0) break;
      size += n;
      if (size > limit) throw new FileTooLargeError(shown, limit, what);
      chunks.push(n === buf.length ? buf : buf.subarray(0, n));
    }
    return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size);
  } finally {
    closeSync(fd);
  }
}

/** Something is at `path`, a link to nowhere too (existsSync follows a link: false for a dangling one). */
export function occupied(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

/** `path` is a symbolic link (to anything, or to nowhere). */
export function isLink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}

/** A name of the system's own (/dev/null, /dev/stderr, /proc/self/fd/2), where links are what they are meant to be. */
export function systemName(path: string): boolean {
  return path.startsWith('/dev/') || path.startsWith('/proc/');
}

/** What replaceFile is given besides the two names: tests hand in a rename that fails, and a platform. */
export interface ReplaceOptions {
  rename?: (from: string, to: string) => void;
  platform?: string;
  /** Waits `ms` milliseconds (synchronously). */
  sleep?: (ms: number) => void;
}

/** The waits between tries of a rename over a file another program holds: about 1 s in all. */
export const REPLACE_WAITS = [25, 50, 100, 150, 250, 400];

/** The code of a rename that another program kept from happening for REPLACE_WAITS (fileProblem's words). */
export const HELD_CODE = 'EHELD';

/**
 * `from` renamed to `to`, over the file there: how a session, a download and a saved response take
 * their place. On Windows a rename over a file that another program has open (an antivirus scanner
 * reading the new file, OneDrive syncing it, an editor showing it) fails with EPERM, EBUSY or
 * EACCES for as long as it holds it, usually a few milliseconds: tried again for about 1 s, then
 * the error with the code EHELD, which fileProblem says in words. Elsewhere those codes are
 * lasting (permissions) and thrown at once.
 */
export function replaceFile(from: string, to: string, opts: ReplaceOptions = {}): void {
  const rename = opts.rename ?? renameSync;
  const sleep = opts.sleep ?? sleepSync;
  const windows = (opts.platform ?? osPlatform()) === 'win32';
  for (let i = 0; ; i++) {
    try {
      rename(from, to);
      return;
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (!windows || (code !== 'EPERM' && code !== 'EBUSY' && code !== 'EACCES')) throw e;
      if (i === REPLACE_WAITS.length) throw Object.assign(new Error(`${HELD_CODE}: ${code} for 1 s, rename '${from}' -> '${to}'`), { code: HELD_CODE, path: to, cause: e });
      sleep(REPLACE_WAITS[i]!);
    }
  }
}

let sleeper: Int32Array | undefined;
/** A synchronous wait (the callers of replaceFile are synchronous): Atomics.wait on a word nobody changes. */
function sleepSync(ms: number): void {
  sleeper ??= new Int32Array(new SharedArrayBuffer(4));
  Atomics.wait(sleeper, 0, 0, ms);
}
