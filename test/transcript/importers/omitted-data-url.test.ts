import { describe, expect, it } from "vitest"
import { omittedDataUrl, shortenDataUrl } from "../../../src/transcript/importers/omitted-data-url.js"

describe("omittedDataUrl", () => {
  it("records the media type and the omitted length", () => {
    expect(omittedDataUrl("image/png", 1234)).toBe("data:image/png;omitted-chars=1234,")
  })
})

describe("shortenDataUrl", () => {
  it.each([
    { url: "file:///tmp/a.png", expected: "file:///tmp/a.png" },
    { url: "data:image/png;base64,AAAA", expected: "data:image/png;base64,AAAA" },
    { url: `data:image/png;base64,${"A".repeat(2000)}`, expected: "data:image/png;omitted-chars=2022," },
  ])("turns $url into $expected", ({ url, expected }) => {
    expect(shortenDataUrl(url, "image/png")).toBe(expected)
  })
})
