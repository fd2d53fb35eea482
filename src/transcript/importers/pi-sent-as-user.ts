/**
 * Pi's own kinds of message that its `convertToLlm` sends the model as user messages (`core/messages.js` in
 * `@earendil-works/pi-coding-agent` 1.6 and `@mariozechner/pi-coding-agent` 0.73, the same rules): a shell command the
 * user ran with `!`, an extension's message, and the summaries of a compaction and of a branch left. The importer and
 * the live adapter both read them here, so a replay gives the engine what the live `context` event gave it. Pure.
 */

/** The custom message type of magic-context's /ctx-status report: shown to the user, removed before the model call. */
export const PI_STATUS_TYPE = "magic-context-status"

/** The roles `convertToLlm` turns into user messages of Pi's making. */
export const PI_ROLES_SENT_AS_USER: ReadonlySet<string> = new Set(["bashExecution", "custom", "branchSummary", "compactionSummary"])

/** A block of user content as Pi writes it. */
export type PiUserBlock = { type: "text"; text: string } | { type: "image"; data: string; mimeType: string }

/** One of those messages, as Pi holds it in its context (fields it may lack are optional). */
export type PiSentAsUserMessage = {
  role: string
  /** `custom`: a string or blocks. */
  content?: unknown
  /** `branchSummary` and `compactionSummary`. */
  summary?: unknown
  /** `bashExecution`. */
  command?: unknown
  output?: unknown
  exitCode?: unknown
  cancelled?: unknown
  truncated?: unknown
  fullOutputPath?: unknown
  excludeFromContext?: unknown
}

// Pi's wrappers around the two summaries, verbatim (COMPACTION_SUMMARY_PREFIX/SUFFIX, BRANCH_SUMMARY_PREFIX/SUFFIX).
const COMPACTION_SUMMARY_PREFIX = "The conversation history before this point was compacted into the following summary:\n\n<summary>\n"
const COMPACTION_SUMMARY_SUFFIX = "\n</summary>"
const BRANCH_SUMMARY_PREFIX = "The following is a summary of a branch that this conversation came back from:\n\n<summary>\n"
const BRANCH_SUMMARY_SUFFIX = "</summary>"

/**
 * The user content Pi sends the model for `message` (a role in PI_ROLES_SENT_AS_USER): the summaries in Pi's
 * wrappers, a shell run as `bashExecutionToText` writes it, an extension's content as it is (a string as one text
 * block). Empty when Pi sends nothing for it (a `!!` command, excluded from the context).
 */
export function piSentAsUserContent(message: PiSentAsUserMessage): PiUserBlock[] {
  if (message.role === "compactionSummary") return [text(COMPACTION_SUMMARY_PREFIX + String(message.summary) + COMPACTION_SUMMARY_SUFFIX)]
  if (message.role === "branchSummary") return [text(BRANCH_SUMMARY_PREFIX + String(message.summary) + BRANCH_SUMMARY_SUFFIX)]
  if (message.role === "bashExecution") return message.excludeFromContext === true ? [] : [text(bashExecutionText(message))]
  if (typeof message.content === "string") return [text(message.content)]
  return Array.isArray(message.content) ? (message.content as PiUserBlock[]) : []
}

/** A `custom` message magic-context's own extension takes out of every request (its /ctx-status report). */
export function isStatusReport(message: { role: string; customType?: unknown }): boolean {
  return message.role === "custom" && message.customType === PI_STATUS_TYPE
}

/** Pi's `bashExecutionToText`: the command, its output fenced (or "(no output)"), then how it ended. */
function bashExecutionText(message: PiSentAsUserMessage): string {
  let out = `Ran \`${String(message.command)}\`\n`
  out += typeof message.output === "string" && message.output !== "" ? `\`\`\`\n${message.output}\n\`\`\`` : "(no output)"
  if (message.cancelled === true) out += "\n\n(command cancelled)"
  else if (typeof message.exitCode === "number" && message.exitCode !== 0) out += `\n\nCommand exited with code ${message.exitCode}`
  if (message.truncated === true && typeof message.fullOutputPath === "string" && message.fullOutputPath !== "") {
    out += `\n\n[Output truncated. Full output: ${message.fullOutputPath}]`
  }
  return out
}

function text(value: string): PiUserBlock {
  return { type: "text", text: value }
}
