/**
 * The ids a tool's output hands back for later calls: issue keys, UUIDs, JSON `id`/`key` values, created URLs, and
 * short labelled-id lines (`library ID: /jetbrains/exposed`). Pure; bounded in what it scans and returns.
 */
import { documentText } from "./document-rules.js"

/** Ids a tool printed: issue keys, UUIDs, JSON `id`/`key` values, created URLs (at most MAX_RETURNED_IDS). */
export function returnedIds(output: string): string[] {
  const text = output.slice(0, 100_000)
  const found: string[] = []
  const add = (value: string | undefined): void => {
    if (value !== undefined && !found.includes(value) && found.length < MAX_RETURNED_IDS) found.push(value)
  }
  for (const match of text.matchAll(/"(?:id|key|issueKey|identifier|number|ref|slug|uuid)"\s*:\s*"?([\w.:/-]{2,64})"?/g)) add(match[1])
  for (const match of text.matchAll(ISSUE_KEY)) if (!NOT_KEYS.has(match[1] ?? "")) add(match[0])
  for (const match of text.matchAll(/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/g)) add(match[0])
  for (const match of text.matchAll(/https?:\/\/[^\s"'<>)\]]+/g)) add(match[0].replace(/[.,;:]+$/, ""))
  return found
}

const MAX_RETURNED_IDS = 5

/** `Context7-compatible library ID: /jetbrains/exposed`: short labelled-id lines of an output, whole (at most 3). */
export function labelledIds(output: string): string[] {
  const found: string[] = []
  for (const raw of documentText(output.slice(0, 100_000)).split("\n")) {
    const line = raw.replace(/^\s*[-*•]\s+/, "").trim()
    if (line.length > 100 || !/^[\w .()-]{0,40}\b(?:ID|Id|id|key|Key|identifier)\s*:\s*\S+$/.test(line)) continue
    if (!found.includes(line)) found.push(line)
    if (found.length >= 3) break
  }
  return found
}
/**
 * What a command's output states as made or in use (`stated-identifiers`): a path it wrote or created (`wrote
 * /srv/out/a.m4a`), and a program's version stamp on a line of its own (`podhaven 3.8.2 (built …)`: the name and the
 * version). Later steps name them exactly. With `wholeStamps` (rule `whole-version-stamps`) a stamp line up to
 * MAX_STAMP_LINE characters is kept whole: its build, commit and platform are what a report or a pin names with it.
 * At most MAX_STATED_IDS, first found first.
 */
export function statedIdentifiers(output: string, options: { wholeStamps: boolean } = { wholeStamps: false }): string[] {
  const found: string[] = []
  for (const raw of documentText(output.slice(0, 100_000)).split("\n")) {
    const line = raw.trim()
    const written = WRITTEN_PATH.exec(line)?.[1]?.replace(/[.,;:)]+$/, "")
    const stamp = VERSION_STAMP.exec(line)?.[0]
    const version = stamp !== undefined && options.wholeStamps && line.length <= MAX_STAMP_LINE ? line : stamp
    for (const value of [written, version]) if (value !== undefined && !found.includes(value)) found.push(value)
    if (found.length >= MAX_STATED_IDS) return found.slice(0, MAX_STATED_IDS)
  }
  return found
}

const MAX_STATED_IDS = 3
/** The longest version stamp line kept whole; a longer one is a banner or a log line, and keeps its name and version. */
const MAX_STAMP_LINE = 100

/**
 * Type-prefixed ids an output prints (`prefixed-ids`): a short lowercase type, an underscore and an opaque key with a
 * digit (`tn_7QH2M4`, `cus_NffrFeUfNV2Hib`, `ses_3d5f9a1bffe`), as APIs and CLIs list resources; later calls pass
 * them back exactly. A key without a capital letter needs 10 characters, so `linux_amd64` and `test_case123` are
 * words, not ids. At most MAX_PREFIXED_IDS, first found first.
 */
export function prefixedIds(output: string): string[] {
  const found: string[] = []
  for (const match of output.slice(0, 100_000).matchAll(PREFIXED_ID)) {
    if (!found.includes(match[0])) found.push(match[0])
    if (found.length >= MAX_PREFIXED_IDS) break
  }
  return found
}

const MAX_PREFIXED_IDS = 3
const PREFIXED_ID = /\b[a-z]{2,8}_(?=[A-Za-z0-9]*\d)(?:(?=[A-Za-z0-9]*[A-Z])[A-Za-z0-9]{6,40}|[A-Za-z0-9]{10,40})\b/g

/** A path after a verb of making: wrote, created, saved, generated, exported, written to, output. */
const WRITTEN_PATH = /\b(?:wrote|written to|created|saved(?: to)?|generated|exported(?: to)?|output(?: written)?(?: to)?:?)\s+(\/[\w.@/+-]{2,200})/i

/** A version stamp opening a line: a program's name and its version (`tool 3.8.2`, `tool v3.8.2`, `tool version 3.8`). */
const VERSION_STAMP = /^[a-z][\w.-]{1,40} (?:(?:version |v)\d+\.\d+(?:\.\d+)?|\d+\.\d+\.\d+)(?:-[\w.]+)?(?=\s|$|,|\()/i

const ISSUE_KEY = /\b([A-Z][A-Z0-9]{1,9})-\d{1,6}\b/g
/** Names that look like issue keys but are standards (UTF-8, SHA-256, ISO-8601). */
const NOT_KEYS: ReadonlySet<string> = new Set("UTF SHA ISO MD AES RSA HTTP TLS SSL UTC GMT ES ECMA CRC IPV X UCS ASCII PEP WCAG".split(" "))
