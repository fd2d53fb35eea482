import type { OpenCodeServer } from "./opencode-serve.js"

/** One finished turn through the server: its final text and how long `session.prompt` took to return. */
export type TimedTurn = { text: string; durationMs: number }

/** Creates a session on the server and returns its id. */
export async function createSession(server: OpenCodeServer, title: string): Promise<string> {
  const created = await server.client.session.create({ body: { title } })
  if (!created.data) throw new Error(`session.create failed: ${JSON.stringify(created.error)}`)
  return created.data.id
}

/** Sends one user message and waits for the turn to end (the session is idle); returns its final text and time. */
export async function timedPrompt(server: OpenCodeServer, sessionId: string, text: string): Promise<TimedTurn> {
  const started = performance.now()
  const response = await server.client.session.prompt({
    path: { id: sessionId },
    body: { parts: [{ type: "text", text }] },
  })
  const durationMs = performance.now() - started
  if (!response.data) throw new Error(`session.prompt failed: ${JSON.stringify(response.error).slice(0, 2_000)}`)
  return { text: finalText(response.data.parts), durationMs }
}

/** Runs a slash command (such as ctx-status) in the session and returns the reply's text. */
export async function runCommand(server: OpenCodeServer, sessionId: string, command: string): Promise<string> {
  const response = await server.client.session.command({ path: { id: sessionId }, body: { command, arguments: "" } })
  if (!response.data) throw new Error(`session.command failed: ${JSON.stringify(response.error).slice(0, 2_000)}`)
  return finalText(response.data.parts)
}

function finalText(parts: readonly { type: string; text?: string }[]): string {
  return parts.flatMap((part) => (part.type === "text" ? [part.text ?? ""] : [])).join("")
}
