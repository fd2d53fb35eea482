import { describe, expect, it } from "vitest"
import { escapeXml } from "../../src/report/escape-xml.js"
import { svgElement, svgText } from "../../src/report/svg-element.js"

describe("escapeXml", () => {
  it("replaces the five markup characters with entities", () => {
    expect(escapeXml(`a<b & "c" > 'd'`)).toBe("a&lt;b &amp; &quot;c&quot; &gt; &apos;d&apos;")
  })

  it("escapes an existing entity again rather than trusting it", () => {
    expect(escapeXml("&amp;")).toBe("&amp;amp;")
  })

  it("drops characters XML forbids and keeps tabs, newlines and astral characters", () => {
    expect(escapeXml("a\u0000b\u0007c\u001Fd\uFFFE")).toBe("abcd")
    expect(escapeXml("x\uD800y\uDC00z")).toBe("xyz")
    expect(escapeXml("tab\tline\nrocket 🚀")).toBe("tab\tline\nrocket 🚀")
  })
})

describe("svgElement", () => {
  it("escapes attribute values, rounds numbers and leaves out undefined", () => {
    expect(
      svgElement("rect", { x: 1.23456, y: -0.0001, width: undefined, "data-label": `"<&>"` }),
    ).toMatchInlineSnapshot(`"<rect x="1.23" y="0" data-label="&quot;&lt;&amp;&gt;&quot;"/>"`)
  })

  it("writes children inside an open and close tag", () => {
    expect(svgElement("g", { fill: "red" }, [svgElement("line", {})])).toBe(`<g fill="red"><line/></g>`)
  })
})

describe("svgText", () => {
  it("escapes text content", () => {
    expect(svgText({ x: 1 }, "<b> & co")).toBe(`<text x="1">&lt;b&gt; &amp; co</text>`)
    expect(svgText({}, "T&C", "title")).toBe("<title>T&amp;C</title>")
  })
})
