import type { ExitCode } from "../../src/cli/cli-io.js"
import { runCli } from "../../src/cli/main.js"
import { fakeCliIo, type FakeCliIo } from "./fake-cli-io.js"

/** Runs `magic-context <args>` in-process with a fake io; returns the exit code and what was printed. */
export async function runCliCaptured(
  args: string[],
  options: { env: Record<string, string | undefined>; cwd: string },
): Promise<{ code: ExitCode; io: FakeCliIo }> {
  const io = fakeCliIo({ args, env: options.env, cwd: options.cwd })
  const code = await runCli(io)
  return { code, io }
}
