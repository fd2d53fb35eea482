import { describe, expect, it } from "vitest"
import { comparePrefix, requestElements } from "../../../bench/e2e/prefix-share.js"

const message = (role: string, content: string): { role: string; content: string } => ({ role, content })

describe("requestElements", () => {
  it("lists the serialized tools first, then each message in order", () => {
    const elements = requestElements({
      tools: [{ function: { name: "read" } }],
      messages: [message("system", "S"), message("user", "hi")],
    })
    expect(elements).toEqual([
      '[{"function":{"name":"read"}}]',
      '{"role":"system","content":"S"}',
      '{"role":"user","content":"hi"}',
    ])
  })

  it("serializes missing tools as an empty list", () => {
    expect(requestElements({ messages: [] })).toEqual(["[]"])
  })
})

describe("comparePrefix", () => {
  it("counts an appended request as all prefix except the new elements, with no break", () => {
    const comparison = comparePrefix({ previous: ["aaaa", "bb"], current: ["aaaa", "bb", "cc"] })
    expect(comparison).toEqual({ matchingElements: 2, prefixBytes: 6, totalBytes: 8, share: 0.75, isBreak: false })
  })

  it("breaks when an earlier element changed, and stops the prefix there", () => {
    const comparison = comparePrefix({ previous: ["aaaa", "bb", "cc"], current: ["aaaa", "BB", "cc", "dd"] })
    expect(comparison).toMatchObject({ matchingElements: 1, prefixBytes: 4, totalBytes: 10, isBreak: true })
  })

  it("breaks when the request is shorter than the previous one, even if it is a prefix of it", () => {
    const comparison = comparePrefix({ previous: ["aaaa", "bb", "cc"], current: ["aaaa", "bb"] })
    expect(comparison).toMatchObject({ matchingElements: 2, share: 1, isBreak: true })
  })

  it("does not break when the request repeats the previous one exactly", () => {
    expect(comparePrefix({ previous: ["x", "y"], current: ["x", "y"] })).toMatchObject({ share: 1, isBreak: false })
  })

  it("measures UTF-8 bytes, not string length", () => {
    const comparison = comparePrefix({ previous: ["§"], current: ["§", "a"] })
    expect(comparison).toMatchObject({ prefixBytes: 2, totalBytes: 3 })
  })

  it("treats the first request (nothing before it) as having no reusable prefix", () => {
    expect(comparePrefix({ previous: [], current: ["a", "b"] })).toMatchObject({
      matchingElements: 0,
      share: 0,
      isBreak: false,
    })
  })
})
