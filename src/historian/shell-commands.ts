/** Programs whose output is content to read, not a result to judge: a non-zero exit from them means "no matches". */
const SEARCH_PROGRAMS: ReadonlySet<string> = new Set(
  "grep rg ag ack find fd ls cat head tail wc echo pwd which file stat tree less more awk jq du df printf".split(" "),
)

/** Shell programs whose output is hits of a pattern (`path:line:text` or `line:text`), as a search tool's is. */
const GREP_PROGRAMS: ReadonlySet<string> = new Set("grep rg ag ack".split(" "))

/** True for a command line that greps (its output lists hits, what DENSE keeps of a search). */
export function isGrepCommand(command: string): boolean {
  const program = programOf(command)
  return GREP_PROGRAMS.has(program.split(" ")[0] ?? "") || /^git grep\b/.test(program)
}

/** True for read-only shell commands (their output is content, and a non-zero exit means "no matches"). */
export function isSearchCommand(command: string): boolean {
  const program = programOf(command)
  if (SEARCH_PROGRAMS.has(program.split(" ")[0] ?? "")) return true
  return /^(?:git (?:log|show|diff|status|branch|grep|blame|ls-files)|sed -n)\b/.test(program)
}

/** The command without a leading `cd <dir> &&` and a trailing `2>&1` (still a verbatim slice of the original). */
export function programOf(command: string): string {
  return command
    .replace(/^\s*cd\s+\S+\s*&&\s*/, "")
    .replace(/\s+2>&1\s*$/, "")
    .trim()
}
