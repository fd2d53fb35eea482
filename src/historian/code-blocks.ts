/**
 * The fenced code blocks of an assistant's text (```lang … ```), bounded: a plan's schema or config draft is what
 * later work follows, so DENSE keeps it while the narrative around it decays.
 */

/** A block keeps at most this many lines (the first ones) and characters. */
export const MAX_BLOCK_LINES = 40
export const MAX_BLOCK_CHARS = 2_400

/** A block shorter than this says too little to keep (a one-word command is in the narrative already). */
const MIN_BLOCK_CHARS = 40

export type CodeBlock = { text: string; body: string }

export function codeBlocks(text: string): CodeBlock[] {
  const blocks: CodeBlock[] = []
  for (const match of text.matchAll(/^[ \t]*```([^\n`]*)\n([\s\S]*?)^[ \t]*```[ \t]*$/gm)) {
    const body = match[2] ?? ""
    if (body.trim().length < MIN_BLOCK_CHARS) continue
    const lines = body.replace(/\n$/, "").split("\n")
    let kept = lines.slice(0, MAX_BLOCK_LINES).join("\n")
    if (kept.length > MAX_BLOCK_CHARS) kept = kept.slice(0, kept.lastIndexOf("\n", MAX_BLOCK_CHARS) > 0 ? kept.lastIndexOf("\n", MAX_BLOCK_CHARS) : MAX_BLOCK_CHARS)
    const omitted = lines.length - kept.split("\n").length
    const note = omitted > 0 ? `\n… (${omitted} more lines)` : ""
    blocks.push({ text: `\`\`\`${match[1] ?? ""}\n${kept}${note}\n\`\`\``, body })
  }
  return blocks
}
