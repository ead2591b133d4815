import { runInterruptHooks } from './interrupt.js';
import { main } from './main.js';

/**
 * The only place that touches `process`: everything else gets what it needs through Io.
 * src/entry/sling.ts and slings.ts call start() with their default scheme.
 */
export function start(defaultScheme: 'http' | 'https') {
  process.stdout.on('error', (e: NodeJS.ErrnoException) => {
    // The reader went away (`sling ... | head`): stop quietly, as other command-line tools do.
    if (e.code === 'EPIPE') process.exit(0);
    throw e;
  });
  process.on('SIGINT', () => {
    process.stderr.write('\nsling: interrupted\n');
    runInterruptHooks();
    process.exit(130);
  });

  main({
    argv: process.argv.slice(2),
    env: process.env,
    cwd: process.cwd(),
    // Created on first use: making the stdin stream costs ~4 ms, and most commands never read it.
    get stdin() {
      return process.stdin;
    },
    stdout: process.stdout,
    stderr: process.stderr,
    defaultScheme,
  }).then(
    (code) => {
      process.exitCode = code;
    },
    (err) => {
      process.stderr.write(`sling: error: ${String(err)}\n`);
      process.exitCode = 1;
    },
  );
}
