/**
 * Rough width in pixels of text in a sans-serif font. An SVG file has no text metrics without a renderer, so layout
 * budgets by character class, sized for DejaVu Sans (one of the widest common fallbacks): capitals 0.72 em, digits and
 * most lower case 0.62 em, narrow letters and punctuation 0.32 em. Over-estimating errs towards space, not overlap.
 */
export function estimateTextWidth(text: string, fontSize: number): number {
  return [...text].reduce((sum, character) => sum + characterWidth(character), 0) * fontSize
}

/** `text` cut short with an ellipsis so its estimated width fits `maxWidth` (whole if it already fits). */
export function truncateText(options: { text: string; maxWidth: number; fontSize: number }): string {
  const { text, maxWidth, fontSize } = options
  if (estimateTextWidth(text, fontSize) <= maxWidth) return text
  const characters = [...text]
  const budget = maxWidth / fontSize - characterWidth("…")
  let width = 0
  let kept = 0
  for (const character of characters) {
    width += characterWidth(character)
    if (width > budget) break
    kept++
  }
  return `${characters.slice(0, kept).join("").trimEnd()}…`
}

function characterWidth(character: string): number {
  if (NARROW.has(character)) return 0.32
  if (WIDE.has(character) || (character >= "A" && character <= "Z")) return 0.72
  if (character.charCodeAt(0) > 0x2e7f) return 1 // CJK and other full-width scripts
  return 0.62
}

const NARROW = new Set([..." .,:;'!|ijlIft()[]"])
const WIDE = new Set([..."mwMW@%&…—"])
