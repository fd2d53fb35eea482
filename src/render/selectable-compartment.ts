import type { Floor, Tier } from "../historian/fidelity-types.js"

/** A compartment as tier selection sees it. */
export type SelectableCompartment = {
  id: string
  /** Tokens of each tier the compartment has (a tier its content does not support is absent). */
  tiers: Partial<Record<Tier, number>>
  /** The lowest tier its items allow (PIN facts live in the pinned ledger, so they do not hold a compartment up). */
  floor: Floor
  /** 0..1: how much the live tail is about this episode again (its entities reappear, or the agent expanded it). */
  relevance: number
  /** The tier applied at the last execute pass (or its omission), or null for a new compartment. */
  current: Tier | "omitted" | null
  /**
   * The applied tier (or omission) is where floors yielded to the ceiling: the compartment keeps it, below its floor,
   * until promotion has room to bring it back up (so a later pass does not bring back what did not fit).
   */
  yielded?: boolean
  /**
   * The compartment holds pins the full ledger condensed into it (rendered in every tier of it): when floors yield to
   * the ceiling it is omitted after every compartment that holds none.
   */
  holdsPins?: boolean
  /** The Lab's oracle only: whether a tier still carries everything that will be needed from this compartment. */
  carriesNeeds?: (tier: Tier) => boolean
}

/**
 * `oracle` is the Lab's ceiling: told which facts will be needed (`carriesNeeds`), it shows each compartment at the
 * least detailed tier that still carries them, ignoring floors and the budget.
 */
export type SelectionPolicy = "default" | "age-only" | "flat" | "truncation" | "oracle"

/**
 * One compartment's selection and why. `omitted`: not rendered at all (the truncation policy's oldest; the default
 * policy's oldest only when even its least detailed tiers exceed the ceiling).
 */
export type TierChoice = { id: string; tier: Tier | "omitted"; reason: string; belowFloor: boolean }
