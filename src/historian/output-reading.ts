/**
 * How a tool call's output is read beyond its host tool row: which of DENSE's readings applies (a grep through a shell
 * reads as a search, a read source file as code) and which of its lines bind the work as constraints. Pure.
 */
import { readKeep, type HostToolRow, type OutputKeep } from "../session/host-tools.js"
import type { Recognizers } from "../session/recognizers.js"
import { documentConstraints, ruleReading } from "./document-rules.js"
import { isGrepCommand } from "./shell-commands.js"

/** A binding document (a fetched page, a skill) pins at most this many of its rule and limit lines. */
const MAX_BINDING_RULES = 6

/**
 * The constraints an output states: the items under a rules heading of any output (`spec-lists`), and the rule and
 * limit lines of a document whose row binds the work (`binding-doc-rules`), each once.
 */
export function outputConstraints(row: HostToolRow, output: string, recognizers: Recognizers): string[] {
  const binds = row.binds === true && recognizers.on("binding-doc-rules")
  return documentConstraints(output, { lists: recognizers.on("spec-lists"), ruleLimit: binds ? MAX_BINDING_RULES : 0,
    hardFirst: recognizers.on("hard-rules-first"),
    reading: ruleReading(recognizers),
  })
}

/**
 * What DENSE keeps of a call's output: a grep run through a shell lists hits like a search tool (`grep-hits`), a read
 * source file keeps its comments (`code-comments`), anything else what its row says.
 */
export function outputKeep(row: HostToolRow, command: string | null, path: string | null, recognizers: Recognizers): OutputKeep {
  if (recognizers.on("grep-hits") && row.shell && command !== null && isGrepCommand(command)) return "search"
  return recognizers.on("code-comments") ? readKeep(row, path) : row.keep
}
