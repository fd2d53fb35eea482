import { createHash } from "node:crypto"

/**
 * Anthropic's documented rules on the thinking blocks a request sends back, as a mock provider enforces them
 * (`mock-anthropic-server.ts`). Read from Anthropic's "Extended thinking" and "Preserved thinking" / "Prefix checks
 * on thinking blocks" pages:
 * - a block comes back byte-identical with its signature, else the request is rejected ("Invalid `signature`");
 * - with `thinking.type: "enabled"`, in a tool loop (the newest message holds tool results) the last assistant
 *   message starts with a thinking block;
 * - the prefix check (preserved-thinking models): a block is valid only while `system`, `tools` and everything before
 *   it (thinking blocks aside, `cache_control` ignored) are what they were when the model made it, and the blocks kept
 *   are an unbroken run of the ones made: blocks may go from the start or the end, a gap fails (each block records
 *   the block before it). A failing block and every later one are invalid: the API answers 400, or drops them when
 *   the request says `thinking.block_binding.prefix_mismatch_behavior: "drop_block"`.
 */

export type AnthropicBlock =
  | { type: "text"; text: string; cache_control?: unknown }
  | { type: "thinking"; thinking: string; signature: string; cache_control?: unknown }
  | { type: "redacted_thinking"; data: string; cache_control?: unknown }
  | { type: "tool_use"; id: string; name: string; input: unknown; cache_control?: unknown }
  | { type: "tool_result"; tool_use_id: string; content: unknown; is_error?: boolean; cache_control?: unknown }

export type AnthropicMessage = { role: "user" | "assistant"; content: string | AnthropicBlock[] }

export type AnthropicRequest = {
  model: string
  max_tokens?: number
  thinking?: { type: string; budget_tokens?: number; block_binding?: { prefix_mismatch_behavior?: string } }
  system?: string | { type: "text"; text: string; cache_control?: unknown }[]
  messages: AnthropicMessage[]
  tools?: { name: string }[]
  stream?: boolean
}

/** What the mock remembers of a block it made: the request, its prefix and the block made before it. */
export type MadeBlock = { request: number; prefix: string; before: string | null; text: string }

/** One thinking block a request sent back, as checked. */
export type SentBlock = {
  path: string
  /** The request that made it (null: the mock never made this signature). */
  madeBy: number | null
  /** Text and signature as made. */
  intact: boolean
  /** Everything before it as when it was made, and the block before it the one made before it. */
  prefixOk: boolean
  /** In the newest assistant message of a running tool loop. */
  runningLoop: boolean
}

/** The verdict on one request's thinking. */
export type ThinkingVerdict = {
  blocks: SentBlock[]
  /** The original rules broken (a changed block, a tool loop's last assistant message without its block). */
  broken: string[]
  /** Blocks the prefix check invalidates: the first failing one and every later one. */
  failing: SentBlock[]
  /** The request's choice for blocks that fail the prefix check. */
  onMismatch: "error" | "drop"
}

/** A deep copy without `cache_control` (the host moves its cache breakpoints between requests). */
function withoutCacheControl(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutCacheControl)
  if (value === null || typeof value !== "object") return value
  const copy: Record<string, unknown> = {}
  for (const [key, field] of Object.entries(value)) if (key !== "cache_control") copy[key] = withoutCacheControl(field)
  return copy
}

const isThinking = (block: AnthropicBlock): boolean => block.type === "thinking" || block.type === "redacted_thinking"

function blocksOf(message: AnthropicMessage): AnthropicBlock[] {
  return typeof message.content === "string" ? [{ type: "text", text: message.content }] : message.content
}

/**
 * The hash of what comes before block `blockIndex` of message `messageIndex` (the whole request for the end):
 * `system`, `tools` and the content before it, thinking blocks left out, `cache_control` ignored.
 */
export function prefixOf(request: AnthropicRequest, messageIndex: number, blockIndex = 0): string {
  // Each block before it with its message's place and role, so that an assistant message not begun yet adds nothing.
  const content: unknown[] = []
  request.messages.slice(0, messageIndex + 1).forEach((message, index) => {
    const blocks = blocksOf(message)
    for (const block of index === messageIndex ? blocks.slice(0, blockIndex) : blocks) {
      if (!isThinking(block)) content.push([index, message.role, block])
    }
  })
  const prefix = { system: request.system ?? null, tools: request.tools ?? [], content }
  return createHash("sha256").update(JSON.stringify(withoutCacheControl(prefix))).digest("hex")
}

/** The signature (or redacted data) that names a thinking block. */
export function blockKey(block: AnthropicBlock): string | null {
  if (block.type === "thinking") return block.signature
  if (block.type === "redacted_thinking") return block.data
  return null
}

/** True when the request runs a tool loop: its newest message carries tool results. */
export function inToolLoop(request: AnthropicRequest): boolean {
  const newest = request.messages[request.messages.length - 1]
  return newest?.role === "user" && blocksOf(newest).some((block) => block.type === "tool_result")
}

/** Checks every thinking block of `request` against the blocks the mock made (`made`, by signature). */
export function checkThinking(request: AnthropicRequest, made: ReadonlyMap<string, MadeBlock>, prefixCheck: boolean): ThinkingVerdict {
  const blocks: SentBlock[] = []
  const broken: string[] = []
  let lastAssistant = -1
  request.messages.forEach((message, index) => {
    if (message.role === "assistant") lastAssistant = index
  })
  const loop = inToolLoop(request)
  let previousKey: string | null = null
  let failed = false
  const failing: SentBlock[] = []
  request.messages.forEach((message, messageIndex) => {
    blocksOf(message).forEach((block, blockIndex) => {
      const key = blockKey(block)
      if (key === null) return
      const path = `messages.${messageIndex}.content.${blockIndex}`
      const record = made.get(key)
      const text = block.type === "thinking" ? block.thinking : ""
      const intact = record !== undefined && record.text === text
      // The first block sent may follow blocks left out from the start; any later one follows the one it was made after.
      const chainOk = record !== undefined && (previousKey === null || record.before === previousKey)
      const prefixOk = record !== undefined && chainOk && record.prefix === prefixOf(request, messageIndex, blockIndex)
      const sent: SentBlock = { path, madeBy: record?.request ?? null, intact, prefixOk, runningLoop: loop && messageIndex === lastAssistant }
      blocks.push(sent)
      if (!intact) broken.push(`${path}: Invalid \`signature\` in \`thinking\` block`)
      if (prefixCheck && (failed || !prefixOk)) {
        failed = true
        failing.push(sent)
      }
      previousKey = key
    })
  })
  if (loop && request.thinking?.type === "enabled" && lastAssistant >= 0) {
    const first = blocksOf(request.messages[lastAssistant] as AnthropicMessage)[0]
    if (first === undefined || !isThinking(first)) {
      broken.push(
        `messages.${lastAssistant}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${first?.type ?? "nothing"}\`. ` +
          "When `thinking` is enabled, a final `assistant` message must start with a thinking block (preceeding the lastmost " +
          "set of `tool_use` and `tool_result` blocks). To avoid this requirement, disable `thinking`.",
      )
    }
  }
  const onMismatch = request.thinking?.block_binding?.prefix_mismatch_behavior === "drop_block" ? "drop" : "error"
  return { blocks, broken, failing, onMismatch }
}

/** The message of the 400 the API answers a request whose first failing block is at `path`. */
export function prefixMismatchMessage(path: string): string {
  return (
    `${path}: Invalid \`signature\` in \`thinking\` block. The block is bound to a different conversation. Remove the block, ` +
    'or set `thinking.block_binding.prefix_mismatch_behavior` to "drop_block".'
  )
}
