/** The tag marker character (U+00A7 SECTION SIGN). */
export const TAG_SIGN = "§"

/** The prefix rendered before a tagged item: `§N§ `. A pure function of the tag number. */
export function tagPrefix(tag: number): string {
  return `${TAG_SIGN}${tag}${TAG_SIGN} `
}

/**
 * Tag echoes models write into their own text: `§12§`, with stray spaces (`§ 12 §`), doubled signs (`§§12§§`),
 * brackets or backticks around them (`[§12§]`, `` `§12§` ``), and the HTML entity spelling (`&sect;12&sect;`).
 * A lone section reference such as "see § 4.2" has no closing sign and is left alone.
 */
const SIGN = "(?:§|&sect;)"
// The closing signs stop where the next echo's opening sign begins (`§12§§13§` is two echoes).
const ECHO = `${SIGN}+[ \\t]*\\d{1,9}[ \\t]*${SIGN}+(?!\\d{1,9}[ \\t]*${SIGN})`
// A bracket or backtick is removed only as a matching pair around the echo, so "(see §12§)" keeps its ")".
const TAG_ECHO = new RegExp(`(?:\\[${ECHO}\\]|\\(${ECHO}\\)|\`${ECHO}\`|${ECHO})[ \\t]?`, "g")

/**
 * Removes tag echoes from text the model wrote, so tags never leak into the stored transcript as if they were
 * content. Only model-written text goes through here; tool outputs are never rewritten.
 */
export function stripTagEchoes(text: string): string {
  if (!text.includes(TAG_SIGN) && !text.includes("&sect;")) return text
  return text.replace(TAG_ECHO, "")
}
