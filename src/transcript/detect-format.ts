import { PluginError } from "../plugin-error.js"
import { CLAUDE_CODE_RECORD_TYPES } from "./importers/claude-code-records.js"
import type { TranscriptFormat } from "./turn-model.js"

/** Names the transcript format of `text` from its content (never the file extension); throws when none fits. */
export function detectFormat(text: string, file: string): TranscriptFormat {
  const document = parseJsonObject(text)
  if (document !== null) {
    if ("messages" in document && "info" in document) return "opencode-export"
    if ("history" in document && ("trajectory" in document || hasModelStats(document.info))) return "swe-agent"
  }

  const records = firstJsonLines(text, SAMPLED_LINES)
  const first = records[0]
  if (first !== undefined) {
    if (first.type === "session") return "pi"
    if ("instance_id" in first && "history" in first) return "openhands"
    if (looksLikeClaudeCode(records)) return "claude-code"
  }

  throw new PluginError(
    "transcript_format_unknown",
    `${file}: unknown transcript format; looked for ${LOOKED_FOR.join("; ")}`,
    { file, lookedFor: LOOKED_FOR },
  )
}

/**
 * How many leading JSONL records are sampled: a Claude Code file can open with many records before its first message
 * (snapshots, titles, modes, a session-start hook's attachments).
 */
const SAMPLED_LINES = 200

/**
 * A Claude Code session: every sampled record is typed, and the records include a user or assistant message carrying
 * Claude Code's `sessionId` or `uuid`, or (a file cut before its first message) only types Claude Code writes. Record
 * types it does not know do not refuse the file: the importer skips and counts them.
 */
function looksLikeClaudeCode(records: readonly JsonObject[]): boolean {
  if (!records.every((record) => typeof record.type === "string")) return false
  const hasIds = (record: JsonObject): boolean => "sessionId" in record || "uuid" in record
  if (records.some((record) => (record.type === "user" || record.type === "assistant") && hasIds(record))) return true
  return records.every((record) => CLAUDE_CODE_RECORD_TYPES.has(record.type as string)) && records.some(hasIds)
}

const LOOKED_FOR: readonly string[] = [
  'an opencode export (one JSON object with "info" and "messages")',
  'a SWE-agent trajectory (one JSON object with "history" and "trajectory" or "info.model_stats")',
  'a pi session (JSONL whose first record is {"type":"session"})',
  'an OpenHands output (JSONL records with "instance_id" and "history")',
  'a Claude Code session (typed JSONL records whose user or assistant messages carry "sessionId" or "uuid")',
]

type JsonObject = Record<string, unknown>

function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value)
}

function parseJsonObject(text: string): JsonObject | null {
  if (!text.trimStart().startsWith("{")) return null
  try {
    const value: unknown = JSON.parse(text)
    return isJsonObject(value) ? value : null
  } catch {
    return null
  }
}

function hasModelStats(info: unknown): boolean {
  return isJsonObject(info) && "model_stats" in info
}

/** Parses up to `limit` leading non-blank lines; stops at the first line that is not a JSON object. */
function firstJsonLines(text: string, limit: number): JsonObject[] {
  const records: JsonObject[] = []
  let start = 0
  while (records.length < limit && start < text.length) {
    const end = text.indexOf("\n", start)
    const line = text.slice(start, end === -1 ? text.length : end).trim()
    start = end === -1 ? text.length : end + 1
    if (line === "") continue
    const record = parseJsonObject(line)
    if (record === null) return records
    records.push(record)
  }
  return records
}
