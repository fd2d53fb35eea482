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
const ISSUE_KEY = /\b([A-Z][A-Z0-9]{1,9})-\d{1,6}\b/g
/** Names that look like issue keys but are standards (UTF-8, SHA-256, ISO-8601). */
const NOT_KEYS: ReadonlySet<string> = new Set("UTF SHA ISO MD AES RSA HTTP TLS SSL UTC GMT ES ECMA CRC IPV X UCS ASCII PEP WCAG".split(" "))
