/**
 * A small synthetic pi session for Lab tests: an early episode states a constraint (the user's words), reads a file
 * (an identifier), sees an incidental detail in a long tool output and records a decision with its reason; ten
 * filler episodes with long outputs and narrative follow; the last user turn needs the early facts again. Counted
 * with one token per word, a usable window of 8,000 tokens folds the early episode long before the end.
 */

/** Filler episodes after the early one. */
const FILLER_EPISODES = 10

/** Record indices (JSONL lines) of the synthetic session, and the facts it states. */
export const SYNTHETIC = {
  constraintTurn: 1,
  readTurn: 2,
  outputTurn: 3,
  decisionTurn: 4,
  /** The last assistant turn: the one whose model call needs the early facts. */
  needTurn: 5 + FILLER_EPISODES * 4 + 1,
  constraint: "Never edit config/secrets.env by hand.",
  path: "src/engine/flux-capacitor.ts",
  incidental: "checksum 7f3a9c21",
  decision: "We decided to batch the writes because the disk is slow.",
} as const

/** The session as pi JSONL text. */
export function syntheticSessionJsonl(): string {
  const header = { type: "session", id: "synthetic-lab", provider: "anthropic", modelId: "claude-test" }
  const lines: string[] = [JSON.stringify(header)]
  const add = (message: Record<string, unknown>): void => {
    // Ten seconds apart: the prompt cache never expires, so only pressure triggers execute passes.
    const at = lines.length * 10_000
    const timestamp = new Date(at).toISOString()
    lines.push(JSON.stringify({ type: "message", timestamp, message: { ...message, timestamp: at } }))
  }
  add(user(SYNTHETIC.constraint))
  add(assistant([text("I'll read the engine first."), toolCall("call-read", "read", { path: SYNTHETIC.path })]))
  add(toolResult("call-read", "read", `${filler(400, "engine")} ${SYNTHETIC.incidental} ${filler(400, "engine")}`))
  add(assistant([text(SYNTHETIC.decision)]))
  for (let episode = 1; episode <= FILLER_EPISODES; episode += 1) {
    add(user(`Now handle part ${episode} of the refactor.`))
    add(assistant([text(narrative(episode)), toolCall(`call-${episode}`, "bash", { command: `run-step-${episode}` })]))
    add(toolResult(`call-${episode}`, "bash", filler(900, `step${episode}`)))
    add(assistant([text(`Part ${episode} is done.`)]))
  }
  add(user("Fix the flux capacitor again, and keep the write batching."))
  add(assistant([text("Understood.")]))
  return `${lines.join("\n")}\n`
}

function user(content: string): Record<string, unknown> {
  return { role: "user", content }
}

function assistant(content: Record<string, unknown>[]): Record<string, unknown> {
  return { role: "assistant", content, provider: "anthropic", model: "claude-test" }
}

function text(body: string): Record<string, unknown> {
  return { type: "text", text: body }
}

function toolCall(id: string, name: string, args: Record<string, unknown>): Record<string, unknown> {
  return { type: "toolCall", id, name, arguments: args }
}

function toolResult(id: string, name: string, output: string): Record<string, unknown> {
  const content = [{ type: "text", text: output }]
  return { role: "toolResult", toolCallId: id, toolName: name, content, isError: false }
}

function filler(words: number, stem: string): string {
  return Array.from({ length: words }, (_, index) => `${stem}word${index % 97}`).join(" ")
}

/** About 120 words of narrative: no decision, rejection or open-work cue, so the full tier alone carries it. */
function narrative(episode: number): string {
  return Array.from(
    { length: 7 },
    (_, index) => `Looking at module ${episode} part ${index} shows plain wiring with several small helpers and glue.`,
  ).join(" ")
}
