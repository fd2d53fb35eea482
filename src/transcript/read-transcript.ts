import { readFileSync } from "node:fs"
import { PluginError } from "../plugin-error.js"
import { detectFormat } from "./detect-format.js"
import { importClaudeCode } from "./importers/claude-code.js"
import { importOpencodeExport } from "./importers/opencode-export.js"
import { importOpenhands } from "./importers/openhands.js"
import { importPi } from "./importers/pi.js"
import { importSweAgent } from "./importers/swe-agent.js"
import { blankLeadingLines } from "./leading-lines.js"
import type { Transcript, TranscriptFormat } from "./turn-model.js"

/**
 * Reads a transcript file in any supported format. `spec` is a path with an optional `#N` suffix that picks
 * trajectory N of a multi-trajectory file (OpenHands); the suffix counts only when everything after the last `#` is
 * digits, so paths that contain `#` still work. Lines a command printed before the transcript are skipped and
 * counted (`blankLeadingLines`).
 */
export function readTranscript(spec: string): Transcript {
  const { file, trajectory } = splitSpec(spec)
  const { text, skipped } = blankLeadingLines(readText(file))
  const format = detectFormat(text, file)
  const transcript = IMPORTERS[format](text, trajectory === undefined ? { file } : { file, trajectory })
  return skipped.length === 0 ? transcript : { ...transcript, skippedLeadingLines: skipped }
}

type Importer = (text: string, options: { file: string; trajectory?: number }) => Transcript

const IMPORTERS: Record<TranscriptFormat, Importer> = {
  "opencode-export": importOpencodeExport,
  pi: importPi,
  "claude-code": importClaudeCode,
  openhands: importOpenhands,
  "swe-agent": importSweAgent,
}

function splitSpec(spec: string): { file: string; trajectory?: number } {
  const hash = spec.lastIndexOf("#")
  if (hash === -1) return { file: spec }
  const suffix = spec.slice(hash + 1)
  if (!/^\d+$/.test(suffix)) return { file: spec }
  return { file: spec.slice(0, hash), trajectory: Number(suffix) }
}

function readText(file: string): string {
  try {
    return readFileSync(file, "utf8")
  } catch (error) {
    const code = isErrnoException(error) ? error.code : undefined
    const reason = code === undefined ? String(error) : (READ_FAILURES[code] ?? code)
    throw new PluginError("transcript_unreadable", `${file}: cannot read the transcript: ${reason}`, {
      file,
      reason,
      ...(code === undefined ? {} : { errno: code }),
    })
  }
}

const READ_FAILURES: Record<string, string> = {
  ENOENT: "no such file",
  EISDIR: "it is a directory",
  EACCES: "permission denied",
  EPERM: "permission denied",
}

function isErrnoException(error: unknown): error is NodeJS.ErrnoException {
  return error instanceof Error && "code" in error && typeof error.code === "string"
}
