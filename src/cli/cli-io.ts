/** A terminal's status line: rewritten in place, then cleared. Present only when stderr is a terminal. */
export type TerminalStatus = {
  columns: number
  show(line: string): void
  clear(): void
}

/**
 * What a CLI command may touch: its arguments, environment, working directory and two output streams, and the
 * terminal's status line when stderr is a terminal (progress bars; absent in pipes, files and tests).
 */
export type CliIo = {
  args: string[]
  env: Record<string, string | undefined>
  cwd: string
  stdout: (line: string) => void
  stderr: (line: string) => void
  terminal?: TerminalStatus
}

/** Exit codes: 0 success, 1 the command ran and found a problem, 2 the command line was wrong. */
export const EXIT = { ok: 0, problem: 1, usage: 2 } as const
export type ExitCode = (typeof EXIT)[keyof typeof EXIT]
