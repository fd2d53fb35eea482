/**
 * What a long reference (a fetched documentation page, a spec or a source file read whole) holds that later work
 * reuses by its exact spelling, recognized by the shape of the line, never by what the text asks of its reader:
 * - `reference-lines`: in a long output, a command line with its options (`$ tool sync --dry-run`), an option with
 *   its meaning (`--max-size <bytes>  ...`), a signature (`def fetch(url, timeout: 30) -> Response`), a return shape
 *   (`Returns: {id, status}`), and a heading with the first line under it.
 * - `reader-instructions`: a line that tells its reader what to keep or how to summarize (pages written for AI
 *   assistants carry them) is no fact about the work; no rule word in it earns it a place.
 * Pure.
 */

/** A command line as documentation shows it: a prompt, then a command with a subcommand or an option. */
const COMMAND_LINE = /^(?:\$|>|%|PS>)\s+[a-z][\w.-]*(?:\s+[\w./:@=-]+)*\s+(?:--?[a-zA-Z][\w-]*|[a-z][\w-]+)/

/** An option as a reference lists it: `--name`, `-n, --name`, with a value placeholder and usually its meaning. */
const OPTION_LINE = /^(?:[-*•|]\s*)?`?(?:-[a-zA-Z],?\s+)?--[a-z][\w-]*(?:[= ]?(?:<[^>]{1,30}>|[A-Z_]{2,20}|\[[^\]]{1,30}\]))?`?(?:\s|$|\|)/

/**
 * A declaration with its parameters (a function, method, endpoint or type a later call must match): a keyword and a
 * name followed by a parameter list, or an HTTP method and a path.
 */
const SIGNATURE_LINE =
  /^(?:[-*•]\s*)?`?(?:(?:export\s+)?(?:async\s+)?(?:function|def|fn|func|fun|sub|method)\s+[A-Za-z_][\w.]*\s*\(|(?:public|private|protected|static|\s)*(?:class|interface|struct|record|enum|type)\s+[A-Z]\w*\b|[A-Za-z_][\w.]*\s*\([^)]{0,120}\)\s*(?:->|=>|:)\s*\S|(?:GET|POST|PUT|PATCH|DELETE)\s+\/\S*)/

/** A return shape: what a call gives back, which later code reads field by field. */
const RETURN_LINE = /^(?:[-*•]\s*)?(?:\*\*)?(?:returns?|return value|response|result)(?:\*\*)?\s*(?::|—|-|\bis\b|\ban?\b)\s*\S/i

/** A Markdown heading (`## Uploads`) or a numbered section heading (`4.2 Limits`). */
const HEADING = /^(?:#{1,6}\s+\S|\d+(?:\.\d+)*\.?\s+[A-Z][\w ,/-]{2,60}$)/

/** Words that address the reader of a page about how to summarize it or what to keep: written for AI assistants. */
const READER_INSTRUCTION =
  /\b(?:in (?:any|your|the) (?:summary|summaries|response|answer|output|context)|(?:when|if|whenever) (?:you )?summari[sz](?:e|es|ing)\b|(?:AI|LLM|language model|coding) (?:assistants?|agents?|models?)|(?:include|keep|preserve|repeat) (?:these|this|the following) (?:instructions?|text|notice|block|section)|ignore (?:all )?(?:previous|prior|earlier) instructions|you are an? (?:AI|assistant|agent|model))\b/i

/** Whether the line is part of a reference later work reuses by its exact spelling (`reference-lines`). */
export function isReferenceLine(line: string): boolean {
  return COMMAND_LINE.test(line) || OPTION_LINE.test(line) || SIGNATURE_LINE.test(line) || RETURN_LINE.test(line)
}

/** Whether the line is a heading (its first line under it goes with it). */
export function isHeading(line: string): boolean {
  return HEADING.test(line)
}

/** Whether the line tells its reader what to keep or how to summarize (`reader-instructions`). */
export function isReaderInstruction(line: string): boolean {
  return READER_INSTRUCTION.test(line)
}

/**
 * An output longer than a screen of text is a reference the agent will not read again whole: only then do the
 * reference lines and headings compete for its kept lines.
 */
const LONG_OUTPUT_CHARS = 6_000

/** Whether the output is long enough to be read as a reference. */
export function isLongOutput(output: string): boolean {
  return output.length > LONG_OUTPUT_CHARS
}
