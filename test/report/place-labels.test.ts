import { describe, expect, it } from "vitest"
import { placeLabels } from "../../src/report/place-labels.js"

const plot = { left: 0, top: 0, width: 400, height: 300 }

describe("placeLabels", () => {
  it("puts a lone label to the right of its marker", () => {
    const [label] = placeLabels({ anchors: [{ x: 100, y: 100, text: "default" }], plot, fontSize: 11, markerRadius: 4 })
    expect(label).toMatchObject({ textAnchor: "start", text: "default" })
    expect(label?.x).toBeGreaterThan(100)
  })

  it("puts a label near the right edge to the left of its marker", () => {
    const [label] = placeLabels({
      anchors: [{ x: 395, y: 100, text: "truncation" }],
      plot,
      fontSize: 11,
      markerRadius: 4,
    })
    expect(label?.textAnchor).toBe("end")
    expect(label?.x).toBeLessThan(395)
  })

  it("moves a label off one already placed", () => {
    const anchors = [
      { x: 100, y: 100, text: "default" },
      { x: 104, y: 101, text: "flat" },
    ]
    const [first, second] = placeLabels({ anchors, plot, fontSize: 11, markerRadius: 4 })
    expect(second).not.toMatchObject({ textAnchor: first?.textAnchor, y: first?.y })
  })
})
