import type { CliIo } from "../../src/cli/cli-io.js"

/** A CliIo that records what a command prints. */
export type FakeCliIo = CliIo & {
  out: string[]
  err: string[]
  /** Everything written to stdout, one call per line. */
  stdoutText(): string
  /** Everything written to stderr, one call per line. */
  stderrText(): string
}

/** Builds a CliIo over the given arguments, environment and working directory, collecting both streams. */
export function fakeCliIo(options: {
  args: string[]
  env: Record<string, string | undefined>
  cwd: string
}): FakeCliIo {
  const out: string[] = []
  const err: string[] = []
  return {
    args: options.args,
    env: options.env,
    cwd: options.cwd,
    stdout: (line) => {
      out.push(line)
    },
    stderr: (line) => {
      err.push(line)
    },
    out,
    err,
    stdoutText: () => out.join("\n"),
    stderrText: () => err.join("\n"),
  }
}
