import { HOST_TOOL_ROW_NAMES } from "../session/host-tools.js"
import { RECOGNIZERS } from "../session/recognizers.js"
import { fail, ok, type Result } from "../result.js"
import type { ProbeEvaluation } from "./evaluate-probes.js"
import type { LabPolicy, ProbeVerdict } from "./probe-verdict.js"
import type { PolicySummary, Survival } from "./summarize-probes.js"

/** Every rule `lab --without` can switch off: the named recognizers, then the host tool rows (`tool:<name>`). */
export const LAB_RULE_NAMES: readonly string[] = [...Object.keys(RECOGNIZERS), ...HOST_TOOL_ROW_NAMES]

/** Parses `--without NAME[,NAME]`: known rule names, without repeats, in the order given. */
export function parseRuleNames(raw: string): Result<string[]> {
  const names = [...new Set(raw.split(",").map((name) => name.trim()).filter((name) => name !== ""))]
  const unknown = names.filter((name) => !LAB_RULE_NAMES.includes(name))
  if (unknown.length > 0) {
    return fail(`--without: unknown ${unknown.map((name) => `"${name}"`).join(", ")}; expected names from ${LAB_RULE_NAMES.join(", ")}`)
  }
  if (names.length === 0) return fail(`--without: expected at least one of ${LAB_RULE_NAMES.join(", ")}`)
  return ok(names)
}

/** One policy at one window with all rules and without some: what the rules bought. */
export type RuleAblationRow = {
  policy: LabPolicy
  window: number
  withRules: Survival
  withoutRules: Survival
  /** Non-incidental probes survived with the rules minus without them. */
  difference: number
  /** Non-incidental probes that survived with the rules and were lost without them (ids, in probe order). */
  saved: string[]
  /** Non-incidental probes lost with the rules that survived without them. */
  lostWithRules: string[]
  meanPromptTokens: { withRules: number; withoutRules: number }
  meanCostTokens: { withRules: number; withoutRules: number }
}

/** `lab --without`: the rules switched off, and one row per policy × window (`full`, which folds nothing, left out). */
export type RuleAblation = { rules: string[]; rows: RuleAblationRow[] }

/**
 * Compares two evaluations of the same probes, policies and windows, one with all rules and one with `rules`
 * switched off, pair by pair in the order of the first. Only non-incidental probes checked in both count.
 */
export function ruleAblation(options: {
  rules: readonly string[]
  withRules: ProbeEvaluation
  withoutRules: ProbeEvaluation
}): RuleAblation {
  const { withRules, withoutRules } = options
  const rows = withRules.summaries.flatMap((summary): RuleAblationRow[] => {
    if (summary.policy === "full") return []
    const other = withoutRules.summaries.find((entry) => entry.policy === summary.policy && entry.window === summary.window)
    if (other === undefined) return []
    const kept = outcomes(withRules.verdicts, summary)
    const keptWithout = outcomes(withoutRules.verdicts, summary)
    const both = [...kept.keys()].filter((id) => keptWithout.has(id))
    return [
      {
        policy: summary.policy,
        window: summary.window,
        withRules: summary.survival,
        withoutRules: other.survival,
        difference: summary.survival.survived - other.survival.survived,
        saved: both.filter((id) => kept.get(id) === true && keptWithout.get(id) === false),
        lostWithRules: both.filter((id) => kept.get(id) === false && keptWithout.get(id) === true),
        meanPromptTokens: { withRules: summary.meanPromptTokens, withoutRules: other.meanPromptTokens },
        meanCostTokens: { withRules: summary.meanCostTokens, withoutRules: other.meanCostTokens },
      },
    ]
  })
  return { rules: [...options.rules], rows }
}

/** Probe id -> survived, for the checked non-incidental verdicts of one pair, in verdict order. */
function outcomes(verdicts: readonly ProbeVerdict[], pair: Pick<PolicySummary, "policy" | "window">): Map<string, boolean> {
  const entries = verdicts.flatMap((verdict) => {
    if (verdict.policy !== pair.policy || verdict.window !== pair.window) return []
    if (verdict.survived === null || verdict.kind === "incidental") return []
    return [[verdict.probeId, verdict.survived] as const]
  })
  return new Map(entries)
}
