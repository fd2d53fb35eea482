import { REDUCE_ALONGSIDE, REDUCE_NEVER_ALONE } from "../reduce/reduce-timing.js"

/**
 * The reduce guidance added to the system prompt of an agent that has ctx_reduce. Constant text, so the system
 * prompt (the most cached part of every request) never changes because of it.
 */
export const REDUCE_GUIDANCE = [
  "<context-management>",
  "Messages, attached files and tool outputs in this conversation start with a tag such as §12§. When you are done",
  "with material (old file reads, long command or test output, superseded searches), drop it with",
  'ctx_reduce(drop="3-5,12"): drops are queued and land at the next execute pass, and the raw content is kept.',
  `Call ctx_reduce ${REDUCE_ALONGSIDE} ${REDUCE_NEVER_ALONE}`,
  "Do not drop what you still need, do not call ctx_reduce repeatedly for the same tags, and never copy §N§ tags",
  "into your own replies.",
  "</context-management>",
].join("\n")
