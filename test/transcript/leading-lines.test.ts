import { describe, expect, it } from "vitest"
import { blankLeadingLines } from "../../src/transcript/leading-lines.js"

describe("blankLeadingLines", () => {
  it("blanks a command's status line before a JSON document, keeping the line count", () => {
    const text = 'Exporting session: ses_4f2a\n{\n  "info": {}\n}\n'
    const result = blankLeadingLines(text)
    expect(result.skipped).toEqual(["Exporting session: ses_4f2a"])
    expect(result.text).toBe('\n{\n  "info": {}\n}\n')
    expect(JSON.parse(result.text)).toEqual({ info: {} })
  })

  it("keeps JSONL line numbers: the first record stays on its line", () => {
    const result = blankLeadingLines('note: resumed\n\nwarning: old CLI\n{"type":"session"}\n{"type":"message"}')
    expect(result.skipped).toEqual(["note: resumed", "warning: old CLI"])
    expect(result.text.split("\n")[3]).toBe('{"type":"session"}')
  })

  it("leaves a file that opens with JSON, or holds no JSON at all, as it is", () => {
    expect(blankLeadingLines('{"a":1}\nhello')).toEqual({ text: '{"a":1}\nhello', skipped: [] })
    expect(blankLeadingLines("just text\nno json")).toEqual({ text: "just text\nno json", skipped: [] })
  })
})
