/**
 * When the agent should call ctx_reduce, in the words every text that asks for a call uses (the system-prompt
 * guidance, the tool's description, the reminders): in the same response as its next real tool call. A call on its
 * own is a model request of its own, which re-sends the whole prompt for nothing but the drop; riding along with a
 * read or a command it costs no extra request.
 */
export const REDUCE_ALONGSIDE = "together with your next tool call (in the same response), never on its own"

/** Why, in one sentence the guidance and the tool's description add. */
export const REDUCE_ALONGSIDE_REASON = "A ctx_reduce call on its own costs a whole extra model request."
