/**
 * When the agent should call ctx_reduce, in the words every text that asks for a call uses (the system-prompt
 * guidance, the tool's description, the reminders): in the same response as its next real tool call. A call on its
 * own is a model request of its own, which re-sends the whole prompt for nothing but the drop; riding along with a
 * read or a command it costs no extra request. The reminders' wording is held to pinned token counts
 * (test/pressure/plan-nudge.test.ts), so rewording them moves neither the epoch's reminder budget nor the usage they add.
 */
export const REDUCE_ALONGSIDE = "in the same response as your next real tool call"

/** What the guidance and the tool's description add: never alone, and why. */
export const REDUCE_NEVER_ALONE =
  "(a read, an edit, a command), never on its own: a ctx_reduce call on its own costs a whole extra model request."
