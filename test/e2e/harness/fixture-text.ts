const WORDS = [
  "alpha",
  "bravo",
  "charlie",
  "delta",
  "echo",
  "foxtrot",
  "golf",
  "hotel",
  "india",
  "juliet",
  "kilo",
  "lima",
  "mike",
  "november",
  "oscar",
  "papa",
  "quebec",
  "romeo",
  "sierra",
  "tango",
  "uniform",
  "victor",
  "whiskey",
  "xray",
  "yankee",
  "zulu",
]

/**
 * A deterministic text file of roughly `tokens` o200k tokens (about 23 per line), starting with `FILE-<label>-BEGIN`
 * and ending with `FILE-<label>-END`, so a test can tell which tool output carries which file.
 */
export function fixtureText(label: string, tokens: number): string {
  const lines = [`FILE-${label}-BEGIN`]
  const count = Math.max(1, Math.round(tokens / 23))
  for (let index = 0; index < count; index += 1) {
    const words: string[] = []
    for (let word = 0; word < 12; word += 1) {
      words.push(WORDS[(index * 7 + word * 3 + label.length) % WORDS.length] as string)
    }
    lines.push(`${label} line ${index}: ${words.join(" ")}`)
  }
  lines.push(`FILE-${label}-END`)
  return `${lines.join("\n")}\n`
}
