/**
 * Problems that make `text` not well-formed XML, by a deliberately small check (no parser dependency): tags balance
 * and nest, there is one root, attribute values are quoted and unique, and every `&` starts an entity. Empty means
 * no problem found.
 */
export function xmlProblems(text: string): string[] {
  const problems: string[] = []
  const open: string[] = []
  let roots = 0
  for (const token of text.match(/<[^>]*>|[^<]+|</g) ?? []) {
    if (!token.startsWith("<")) {
      if (BAD_AMPERSAND.test(token)) problems.push(`bare & in text: ${token.slice(0, 40)}`)
      if (open.length === 0 && token.trim() !== "") problems.push(`text outside the root: ${token.slice(0, 40)}`)
      continue
    }
    const closing = /^<\/([A-Za-z][\w:.-]*)\s*>$/.exec(token)
    if (closing) {
      const expected = open.pop()
      if (expected !== closing[1]) problems.push(`</${closing[1]}> closes <${expected ?? "nothing"}>`)
      continue
    }
    const opening = /^<([A-Za-z][\w:.-]*)((?:\s+[\w:.-]+="[^"<]*")*)\s*(\/?)>$/.exec(token)
    if (!opening) {
      problems.push(`malformed tag: ${token.slice(0, 60)}`)
      continue
    }
    const [, name = "", attributes = "", selfClosing] = opening
    const names = [...attributes.matchAll(/([\w:.-]+)="([^"]*)"/g)].map((match) => {
      if (BAD_AMPERSAND.test(match[2] ?? "")) problems.push(`bare & in attribute ${match[1]}`)
      return match[1]
    })
    if (new Set(names).size !== names.length) problems.push(`duplicate attribute in <${name}>`)
    if (open.length === 0) roots++
    if (!selfClosing) open.push(name)
  }
  if (open.length > 0) problems.push(`unclosed: ${open.join(" > ")}`)
  if (roots !== 1) problems.push(`${roots} root elements`)
  return problems
}

const BAD_AMPERSAND = /&(?!(?:amp|lt|gt|quot|apos|#\d+|#x[0-9a-fA-F]+);)/
