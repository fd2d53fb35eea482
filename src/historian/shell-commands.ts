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

/**
 * True for a command line whose output is a document (rule `shell-documents`): a page fetched to the terminal
 * (`curl -sL URL`, `wget -qO- URL`; not an API request, `isPageFetch`), a prose file printed (`cat docs/guide.md`,
 * `head -200 NOTES.txt`), a manual or a help text (`man rsync`, `tool --help`, `tool help export`). A pipe into
 * anything but a pager or `head`/`tail` (a filter, a JSON tool) makes the output something else; a fetch written to a
 * file prints nothing of the page.
 */
export function isDocumentCommand(command: string): boolean {
  const [first = "", ...rest] = programOf(command).split(/\s*\|\s*/)
  if (!rest.every((stage) => /^(?:head|tail|less|more|cat)\b/.test(stage))) return false
  if (/^(?:curl|wget)\b/.test(first)) return isPageFetch(first)
  if (/^(?:cat|less|more|head|tail|bat)\b/.test(first)) return DOCUMENT_FILE.test(first)
  if (/^man\s+\S/.test(first)) return true
  return /^[\w.-]+(?:\s+[\w-]+)*\s+(?:--help|-h)$/.test(first) || /^[\w.-]+\s+help(?:\s+[\w-]+)*$/.test(first)
}

/**
 * A plain GET of a page printed to the terminal: an http(s) URL without a query, and no request options (headers,
 * data, a method, a form, credentials, response headers), which make it an API call whose answer is a result; curl
 * without `-o`, wget only with `-O -` (by default it writes a file).
 */
function isPageFetch(command: string): boolean {
  const url = /\bhttps?:\/\/[^\s'"]+/.exec(command)?.[0]
  if (url === undefined || url.includes("?")) return false
  if (/\s(?:-[a-zA-Z]*[HdXFiu]|--(?:header|data[\w-]*|request|form|include|user))\b/.test(command)) return false
  if (command.startsWith("wget")) return /\s-q?O\s?-(?:\s|$)/.test(command)
  return !/\s(?:-[a-zA-Z]*[oO]|--output|--remote-name)\b/.test(command)
}

/** A prose file's name: Markdown, text, reStructuredText, AsciiDoc, Org, a man page source. */
const DOCUMENT_FILE = /\S\.(?:md|markdown|txt|rst|adoc|asciidoc|org|[1-9])(?:\s|$)/i

/** The command without a leading `cd <dir> &&` and a trailing `2>&1` (still a verbatim slice of the original). */
export function programOf(command: string): string {
  return command
    .replace(/^\s*cd\s+\S+\s*&&\s*/, "")
    .replace(/\s+2>&1\s*$/, "")
    .trim()
}
