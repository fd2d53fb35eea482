import { readFileSync } from "node:fs"
import { fail, ok, type Result } from "../result.js"
import { parseProbeFile, type Probe } from "./probe-file.js"

/** Reads and parses a probe file (see `parseProbeFile`); an unreadable file is a failure too. */
export function readProbeFile(file: string): Result<Probe[]> {
  const text = readText(file)
  if (!text.ok) return text
  return parseProbeFile(text.value, file)
}

function readText(file: string): Result<string> {
  try {
    return ok(readFileSync(file, "utf8"))
  } catch (error) {
    return fail(`${file}: cannot read the probe file: ${error instanceof Error ? error.message : String(error)}`)
  }
}
