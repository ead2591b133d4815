/** The shells sling writes commands for (`--curl=SHELL`, `exec --to curl --shell SHELL`, the resume hint): bash and other POSIX shells, PowerShell, cmd.exe. */
export type Shell = 'posix' | 'powershell' | 'cmd';
export const SHELLS: readonly Shell[] = ['posix', 'powershell', 'cmd'];

/**
 * The shell a message that gives a command to type (the resume hint of a cut download) is written
 * for: POSIX, except on Windows, where it is PowerShell (Windows Terminal's default), or cmd.exe
 * when cmd.exe's `PROMPT` variable is in the environment; under Git Bash or MSYS2 (`MSYSTEM` or
 * `SHELL` set), POSIX.
 */
export function platformShell(env: NodeJS.ProcessEnv, platform: string): Shell {
  if (platform !== 'win32' || env.MSYSTEM || env.SHELL) return 'posix';
  return env.PROMPT ? 'cmd' : 'powershell';
}
