import { runExitHooks, runInterruptHooks } from './interrupt.js';
import { main } from './main.js';
import { writeFailure } from './errors.js';
import { readerGone } from './io.js';

/**
 * The only place that touches `process`: everything else gets what it needs through Io.
 * src/entry/sling.ts and slings.ts call start() with their default scheme.
 */
export function start(defaultScheme: 'http' | 'https') {
  const stdoutFailed = (e: NodeJS.ErrnoException) => {
    // The reader went away (`sling ... | head`): stop quietly, as other command-line tools do.
    if (readerGone(e)) process.exit(0);
    // A full disk, /dev/full, a descriptor not open for writing: one line, exit 1.
    process.stderr.write(`sling: error: writing to standard output failed: ${writeFailure(e)}\n`);
    process.exit(1);
  };
  // Standard output is Node's process.stdout, made on first use; its failures come as 'error' events.
  let stdoutStream: typeof process.stdout | undefined;
  const stdout = () => {
    if (!stdoutStream) {
      stdoutStream = process.stdout;
      stdoutStream.on('error', stdoutFailed);
    }
    return stdoutStream;
  };
  process.on('SIGINT', () => {
    // On a terminal the line break ends whatever was on the line (^C, a progress bar).
    const tty = Boolean(process.stderr.isTTY);
    if (tty) process.stderr.write('\n');
    // `sling exec` writes out what stdout holds, and says which request was going on.
    const said = runInterruptHooks();
    // (A hook has ended stdout's open last line, where stdout and stderr are one file: `> out 2>&1`.)
    if (said !== true) process.stderr.write(`sling: interrupted${said ? ` ${said}` : ''}\n`);
    process.exit(130);
  });

  // However the process ends (a normal end, process.exit on Ctrl-C or a closed stdout, an uncaught
  // error), what must go goes: the folder stdin was spooled to (interrupt.ts onExit).
  process.once('exit', runExitHooks);

  // A safety net: should a bug ever leave the run waiting for something that can no longer happen
  // (nothing left in the event loop), the process says so and fails instead of exiting 0 in silence.
  let finished = false;
  process.once('beforeExit', () => {
    if (finished) return;
    process.stderr.write('sling: error: internal error: the run stopped with nothing left to wait for (please report this, with the --debug output)\n');
    process.exitCode = 1;
  });

  main({
    argv: process.argv.slice(2),
    env: process.env,
    cwd: process.cwd(),
    pid: process.pid,
    // Created on first use: making the stdin stream costs ~4 ms, and most commands never read it.
    get stdin() {
      return process.stdin;
    },
    get stdout() {
      return stdout();
    },
    // Also made on first use (most runs write nothing to stderr).
    get stderr() {
      return process.stderr;
    },
    defaultScheme,
  }).then(
    (code) => {
      finished = true;
      process.exitCode = code;
    },
    (err) => {
      finished = true;
      process.stderr.write(`sling: error: ${String(err)}\n`);
      process.exitCode = 1;
    },
  );
}
