import type { SelectionPolicy } from "../render/select-tiers.js"
import type { ProbeKind } from "./probe-file.js"

/** A policy the Lab compares: the engine's selection policies, and `full`, the unreduced reference. */
export type LabPolicy = SelectionPolicy | "full"

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
