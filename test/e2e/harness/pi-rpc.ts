import { spawn } from "node:child_process"
import type { RunResult } from "./opencode-harness.js"

/**
 * One command of Pi's RPC mode (`docs/rpc-commands.md`): `bash` runs a shell command as the user's `!` would;
 * `new_session` starts a new session as `/new` does (Pi 1.x).
 */
export type PiRpcCommand =
  | { type: "bash"; command: string; excludeFromContext?: boolean }
  | { type: "prompt"; message: string }
  | { type: "new_session" }

/**
 * Runs Pi in RPC mode (`pi --mode rpc`, the binary and arguments given): sends the commands one at a time, each
 * after the previous one's response (and, for a prompt, after Pi emits `agent_settled`), then closes stdin, which
 * asks Pi to shut down. Used where print mode cannot say it: a user's `!` shell command.
 */
export function runPiRpc(options: { node: string; args: string[]; cwd: string; env: Record<string, string>; commands: readonly PiRpcCommand[]; timeoutMs?: number }): Promise<RunResult> {
  const started = performance.now()
  return new Promise((resolve) => {
    const child = spawn(options.node, [...options.args, "--mode", "rpc"], { cwd: options.cwd, env: options.env, stdio: ["pipe", "pipe", "pipe"] })
    let stdout = ""
    let stderr = ""
    let buffered = ""
    let next = 0
    let waitingFor: { id: string; settle: boolean; responded: boolean } | null = null
    const send = (): void => {
      const command = options.commands[next]
      if (command === undefined) {
        child.stdin.end()
        return
      }
      const id = `cmd-${next}`
      next += 1
      waitingFor = { id, settle: command.type === "prompt", responded: false }
      child.stdin.write(`${JSON.stringify({ id, ...command })}\n`)
    }
    const onEvent = (event: { type?: string; id?: string; success?: boolean; data?: { disposition?: string } }): void => {
      const current = waitingFor
      if (current === null) return
      if (event.type === "response" && event.id === current.id) {
        current.responded = true
        // A prompt Pi handled without a run (a command) settles nothing.
        if (!current.settle || event.success !== true || event.data?.disposition === "handled") send()
        return
      }
      if (event.type === "agent_settled" && current.settle && current.responded) send()
    }
    child.stdout.on("data", (chunk: Buffer) => {
      const text = chunk.toString("utf8")
      stdout += text
      buffered += text
      for (let end = buffered.indexOf("\n"); end !== -1; end = buffered.indexOf("\n")) {
        const line = buffered.slice(0, end)
        buffered = buffered.slice(end + 1)
        try {
          onEvent(JSON.parse(line) as Parameters<typeof onEvent>[0])
        } catch {
          // Not a protocol line.
        }
      }
    })
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")))
    const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 120_000)
    child.on("close", (exitCode) => {
      clearTimeout(timer)
      resolve({ exitCode, stdout, stderr, durationMs: performance.now() - started })
    })
    send()
  })
}
