/** Counts tokens of text with one fixed encoding. Implementations create their encoder once. */
export interface TokenCounter {
  /** The encoding name, e.g. `o200k_base`. */
  readonly encoding: string
  count(text: string): number
}

export const ENCODINGS = ["o200k_base", "cl100k_base"] as const
export type Encoding = (typeof ENCODINGS)[number]
