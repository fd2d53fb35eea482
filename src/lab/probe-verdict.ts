import type { SelectionPolicy } from "../render/select-tiers.js"
import type { ProbeKind } from "./probe-file.js"

/**
 * A policy the Lab compares: the engine's selection policies (`oracle` is told the probes: the ceiling), `full` (the
 * unreduced reference) and `oracle-promotion` (the default policy, told when an episode is about to be needed again).
 */
export type LabPolicy = SelectionPolicy | "full" | "oracle-promotion"

/** The policies a Lab run may be asked for (besides `full`, which always runs). */
export const LAB_POLICIES: readonly Exclude<LabPolicy, "full">[] = [
  "truncation",
  "flat",
  "age-only",
  "default",
  "oracle",
  "oracle-promotion",
]

/** Whether one probe survived one policy at one window. */
export type ProbeVerdict = {
  probeId: string
  kind: ProbeKind
  policy: LabPolicy
  /** The usable window of the run, in tokens. */
  window: number
  /** The model call the probe was checked at: the first replayed assistant turn at or after `need` (null: none). */
  needTurn: number | null
  /** True when `exact` is in that call's prompt; null when the probe is never needed or no call comes at or after. */
  survived: boolean | null
}
