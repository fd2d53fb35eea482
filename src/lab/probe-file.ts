import { dirname, resolve } from "node:path"
import { z } from "zod"
import { fail, ok, type Result } from "../result.js"

/** What a probe asks about (DESIGN.md "Lab probes"); `incidental` facts may be dropped without harm. */
export const PROBE_KINDS = [
  "constraint",
  "identifier",
  "decision_rationale",
  "rejected_alternative",
  "bug_status",
  "location",
  "incidental",
] as const
export type ProbeKind = (typeof PROBE_KINDS)[number]

/**
 * One probe: `exact` is a verbatim string that first appears in source record `t` of a transcript; the probe survives
 * under a policy when `exact` is in the prompt the engine sends at turn `need` (null: never needed, incidental only).
 */
export type Probe = {
  id: string
  /** The transcript as the probe file names it: a path relative to the probe file, with an optional `#N`. */
  trace: string
  /** `trace` resolved against the probe file's folder (keeps `#N`): what `readTranscript` takes. */
  tracePath: string
  kind: ProbeKind
  t: number
  need: number | null
  exact: string
}

/**
 * Parses a probe file: a JSON array of `{ id, trace, kind, t, need, exact }`. Every problem is reported, one per line,
 * naming the file, the probe (index and id), the field and what was expected; duplicate ids are a problem too.
 */
export function parseProbeFile(text: string, file: string): Result<Probe[]> {
  const json = parseJson(text)
  if (!json.ok) return fail(`${file}: not valid JSON: ${json.error}`)
  if (!Array.isArray(json.value)) return fail(`${file}: expected a JSON array of probes, got ${typeOf(json.value)}`)

  const problems: string[] = []
  const probes: Probe[] = []
  const firstIndexOfId = new Map<string, number>()
  json.value.forEach((raw: unknown, index) => {
    const where = `${file}: ${probeLabel(raw, index)}`
    const parsed = ProbeSchema.safeParse(raw)
    if (!parsed.success) {
      problems.push(...parsed.error.issues.map((issue) => `${where}: ${describeIssue(issue, raw)}`))
      return
    }
    const probe = parsed.data
    problems.push(...crossFieldProblems(probe).map((problem) => `${where}: ${problem}`))
    const earlier = firstIndexOfId.get(probe.id)
    if (earlier !== undefined) problems.push(`${where}: id: expected a unique id, but probe #${earlier} has it too`)
    else firstIndexOfId.set(probe.id, index)
    probes.push({ ...probe, tracePath: resolve(dirname(file), probe.trace) })
  })
  if (problems.length > 0) return fail(problems.join("\n"))
  return ok(probes)
}

/** What each field must be, worded for the error message. */
const EXPECTED: Record<string, string> = {
  id: "a non-empty string",
  trace: 'a transcript path relative to the probe file, optionally with "#N" (a non-empty string)',
  kind: `one of ${PROBE_KINDS.join(", ")}`,
  t: "a record index (an integer >= 0)",
  need: "a record index (an integer >= 0), or null for an incidental probe",
  exact: "a non-empty verbatim string (not only whitespace)",
}

const nonBlank = (value: string): boolean => value.trim() !== ""
const recordIndex = z.number().int().min(0)

const ProbeSchema = z
  .object({
    id: z.string().refine(nonBlank),
    trace: z.string().refine(nonBlank),
    kind: z.enum(PROBE_KINDS),
    t: recordIndex,
    need: recordIndex.nullable(),
    exact: z.string().refine(nonBlank),
  })
  .strict()

type ParsedProbe = z.output<typeof ProbeSchema>

function crossFieldProblems(probe: ParsedProbe): string[] {
  if (probe.need === null && probe.kind !== "incidental") {
    return [`need: expected a record index; null is allowed only for kind incidental (this is ${probe.kind})`]
  }
  if (probe.need === null) return []
  if (probe.need <= probe.t) return [`need: expected a record after t (${probe.t}), got ${probe.need}`]
  return []
}

function describeIssue(issue: z.core.$ZodIssue, raw: unknown): string {
  if (issue.code === "unrecognized_keys") {
    const fields = issue.keys.map((key) => `"${key}"`).join(", ")
    const plural = issue.keys.length > 1 ? "s" : ""
    return `unknown field${plural} ${fields}; expected only ${Object.keys(EXPECTED).join(", ")}`
  }
  const field = issue.path[0]
  if (field === undefined) return `expected an object with ${Object.keys(EXPECTED).join(", ")}, got ${typeOf(raw)}`
  const name = String(field)
  const record = raw as Record<string, unknown>
  const got = name in record ? `got ${shown(record[name])}` : "it is missing"
  return `${name}: expected ${EXPECTED[name] ?? issue.message}, ${got}`
}

function probeLabel(raw: unknown, index: number): string {
  const id = isRecord(raw) && typeof raw["id"] === "string" ? ` (id "${raw["id"]}")` : ""
  return `probe #${index}${id}`
}

function parseJson(text: string): Result<unknown> {
  try {
    return ok(JSON.parse(text) as unknown)
  } catch (error) {
    return fail(error instanceof Error ? error.message : String(error))
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value)
}

function typeOf(value: unknown): string {
  if (value === null) return "null"
  if (Array.isArray(value)) return "an array"
  return typeof value === "object" ? "an object" : `a ${typeof value}`
}

function shown(value: unknown): string {
  const json = JSON.stringify(value) ?? String(value)
  return json.length > 60 ? `${json.slice(0, 57)}...` : json
}
