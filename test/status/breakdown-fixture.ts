import type { Breakdown } from "../../src/render/measure-prompt.js"

/** A pass's breakdown of a 30,000-token prompt, for the status report's and the sidebar panel's tests. */
export const BREAKDOWN: Breakdown = {
  total: 30_000,
  fixed: 3_000,
  history: 9_000,
  conversation: 6_000,
  protected: 9_000,
  tool: 3_000,
  reclaimable: 1_000,
  tags: 120,
}
