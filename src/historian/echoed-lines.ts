/**
 * Which of an episode's key lines of tool output COMPACT keeps when there are more than it has room for: those whose
 * distinctive words the agent's own text takes up again first (the quota row of the plan the agent says it is on, not
 * the rows of the plans it never mentions), then the rest in the order they were read. Pure.
 */

/** The words of a line that can tell it apart: 3+ letters or a number, lower-cased, common words left out. */
export function distinctiveWords(text: string): Set<string> {
  const words = new Set<string>()
  for (const match of text.toLowerCase().matchAll(WORD)) {
    const word = match[0]
    if (!COMMON.has(word)) words.add(word)
  }
  return words
}

/**
 * The first `limit` of `lines` ranked by how many of their distinctive words `text` (the agent's words) contains, a
 * word shared by more than half of the lines counting for none (it tells no line apart); ties keep the lines' order.
 */
export function rankByEcho(lines: readonly string[], text: string, limit: number): string[] {
  if (lines.length <= limit) return [...lines]
  const spoken = distinctiveWords(text)
  const perLine = lines.map(distinctiveWords)
  const spread = new Map<string, number>()
  for (const words of perLine) for (const word of words) spread.set(word, (spread.get(word) ?? 0) + 1)
  const shared = lines.length / 2
  const echo = perLine.map((words) => [...words].filter((word) => spoken.has(word) && (spread.get(word) ?? 0) <= shared).length)
  return lines
    .map((line, index) => ({ line, index, echo: echo[index] ?? 0 }))
    .sort((left, right) => right.echo - left.echo || left.index - right.index)
    .slice(0, limit)
    .sort((left, right) => left.index - right.index)
    .map((entry) => entry.line)
}

const WORD = /[a-z][a-z0-9_-]{2,}|\d+(?:[.,]\d+)*/g

/** Words too common in English prose and in tool output to say which line the agent meant. */
const COMMON: ReadonlySet<string> = new Set(
  (
    "the and for are but not you all any can had her was one our out has him his how its may new now old see two way who " +
    "did get got let put say she too use with that this from they will have what when your them then than been were " +
    "into more some such only also just like make over very most each which their there these those would could should " +
    "about after before other where while being here does done need needs used using true false null none value values " +
    "line lines file files name names type data default error errors note"
  ).split(" "),
)
