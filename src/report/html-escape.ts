const ESCAPES: Readonly<Record<string, string>> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }

/**
 * Text made safe for HTML element content and quoted attribute values: every `&`, `<`, `>`, `"` and `'` escaped, so a
 * transcript's `</script>`, `<img onerror=…>` or `"` stays text. Pure.
 */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => ESCAPES[character] ?? character)
}
