import { z } from "zod"
import { fail, ok, type Result } from "../result.js"
import { extractIdentifiers } from "./extract-identifiers.js"
import type { Tier } from "./fidelity-types.js"

const FactSchema = z.object({
  kind: z.enum(["decision", "rejected_alternative", "failure", "identifier", "location", "open_work"]),
  text: z.string().min(1),
  tags: z.array(z.number().int().positive()).default([]),
})

const EpisodeSchema = z.object({
  id: z.string().min(1),
  tiers: z.object({
    full: z.string().min(1).nullable(),
    dense: z.string().min(1).nullable(),
    compact: z.string().min(1),
    anchor: z.string().min(1),
  }),
  facts: z.array(FactSchema).default([]),
})

const OutputSchema = z.object({ episodes: z.array(EpisodeSchema).min(1) })

export type HistorianEpisodeOutput = z.infer<typeof EpisodeSchema>

/**
 * Validates the historian's answer: one JSON object (a fenced block or surrounding prose is tolerated), the zod
 * shape, exactly the requested episode ids, and grounding: every identifier a tier states must occur verbatim in
 * that episode's source, otherwise the answer is refused before anything is stored.
 */
export function parseHistorianOutput(options: {
  text: string
  sources: ReadonlyMap<string, string>
}): Result<HistorianEpisodeOutput[]> {
  const json = extractJsonObject(options.text)
  if (json === null) return fail("the answer contains no JSON object")
  let value: unknown
  try {
    value = JSON.parse(json)
  } catch (error) {
    return fail(`the JSON does not parse (${error instanceof Error ? error.message : String(error)})`)
  }
  const parsed = OutputSchema.safeParse(value)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]
    return fail(`the JSON has the wrong shape at ${issue?.path.join(".") || "the top level"}: ${issue?.message ?? "invalid"}`)
  }
  const wanted = [...options.sources.keys()].sort()
  const got = parsed.data.episodes.map((episode) => episode.id).sort()
  if (JSON.stringify(wanted) !== JSON.stringify(got)) {
    return fail(`the episode ids are ${JSON.stringify(got)}, expected ${JSON.stringify(wanted)}`)
  }
  for (const episode of parsed.data.episodes) {
    const source = options.sources.get(episode.id) ?? ""
    for (const tier of ["full", "dense", "compact", "anchor"] as Tier[]) {
      const text = episode.tiers[tier]
      if (!text) continue
      const unsupported = extractIdentifiers(text).filter((identifier) => !source.includes(identifier))
      if (unsupported.length > 0) {
        return fail(`episode ${episode.id} tier ${tier} states identifiers not in its source: ${unsupported.slice(0, 5).join(", ")}`)
      }
    }
  }
  return ok(parsed.data.episodes)
}

/** The first balanced top-level JSON object in a text, or null. */
export function extractJsonObject(text: string): string | null {
  const start = text.indexOf("{")
  if (start === -1) return null
  let depth = 0
  let inString = false
  let escaped = false
  for (let index = start; index < text.length; index += 1) {
    const char = text[index]
    if (inString) {
      if (escaped) escaped = false
      else if (char === "\\") escaped = true
      else if (char === '"') inString = false
      continue
    }
    if (char === '"') inString = true
    else if (char === "{") depth += 1
    else if (char === "}") {
      depth -= 1
      if (depth === 0) return text.slice(start, index + 1)
    }
  }
  return null
}
