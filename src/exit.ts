/** Exit codes of docs/decisions.md: one table, used by every front end. */
export const ExitCode = {
  OK: 0,
  ERROR: 1,
  TIMEOUT: 2,
  TOO_MANY_REDIRECTS: 3,
  CLIENT_ERROR: 4,
  SERVER_ERROR: 5,
  NETWORK: 6,
  INTERRUPTED: 130,
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

/** The exit code `--check-status` gives a response status (0 when it is not an error). */
export function exitCodeForStatus(status: number): ExitCode {
  if (status >= 500) return ExitCode.SERVER_ERROR;
  if (status >= 400) return ExitCode.CLIENT_ERROR;
  if (status >= 300) return ExitCode.TOO_MANY_REDIRECTS;
  return ExitCode.OK;
}
