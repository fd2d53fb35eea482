/**
 * Text made safe for XML content and attribute values: the five markup characters become entities, and characters
 * XML 1.0 forbids outright (control characters, lone surrogates, U+FFFE/U+FFFF) are dropped, since labels can come
 * from transcripts and one stray byte would make the whole document unreadable.
 */
export function escapeXml(text: string): string {
  return text.replace(FORBIDDEN, "").replace(MARKUP, (character) => ENTITIES[character] ?? character)
}

const FORBIDDEN = new RegExp(
  [
    "[\\u0000-\\u0008\\u000B\\u000C\\u000E-\\u001F\\uFFFE\\uFFFF]", // control characters, non-characters
    "[\\uD800-\\uDBFF](?![\\uDC00-\\uDFFF])", // a high surrogate without its low half
    "(?<![\\uD800-\\uDBFF])[\\uDC00-\\uDFFF]", // a low surrogate without its high half
  ].join("|"),
  "g",
)
const MARKUP = /[&<>"']/g
const ENTITIES: Readonly<Record<string, string>> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&apos;",
}
