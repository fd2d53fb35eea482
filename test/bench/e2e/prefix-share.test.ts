import { describe, expect, it } from "vitest"
import { comparePrefix, requestElements, sharedStartLength } from "../../../bench/e2e/prefix-share.js"

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
    expect(comparison).toEqual({
      matchingElements: 2,
      prefixBytes: 6,
      partialElementChars: 0,
      partialElementBytes: 0,
      totalBytes: 8,
      share: 0.75,
      isBreak: false,
    })
  })

  it("breaks when an earlier element changed, and stops the prefix there", () => {
    const comparison = comparePrefix({ previous: ["aaaa", "bb", "cc"], current: ["aaaa", "BB", "cc", "dd"] })
    expect(comparison).toMatchObject({ matchingElements: 1, prefixBytes: 4, totalBytes: 10, isBreak: true })
  })

  it("keeps the shared start of the first differing element as the byte prefix, not what follows it", () => {
    const comparison = comparePrefix({
      previous: ["tools", '{"content":"history v1, then more"}', "cc"],
      current: ["tools", '{"content":"history v2, then more"}', "cc"],
    })
    expect(comparison).toMatchObject({
      matchingElements: 1,
      prefixBytes: 5,
      partialElementChars: '{"content":"history v'.length,
      partialElementBytes: '{"content":"history v'.length,
      isBreak: true,
    })
  })

  it("breaks when the request is shorter than the previous one, even if it is a prefix of it", () => {
    const comparison = comparePrefix({ previous: ["aaaa", "bb", "cc"], current: ["aaaa", "bb"] })
    expect(comparison).toMatchObject({ matchingElements: 2, share: 1, partialElementChars: 0, isBreak: true })
  })

  it("does not break when the request repeats the previous one exactly", () => {
    expect(comparePrefix({ previous: ["x", "y"], current: ["x", "y"] })).toMatchObject({
      share: 1,
      partialElementChars: 0,
      partialElementBytes: 0,
      isBreak: false,
    })
  })

  it("measures UTF-8 bytes, not string length", () => {
    const comparison = comparePrefix({ previous: ["§"], current: ["§", "a"] })
    expect(comparison).toMatchObject({ prefixBytes: 2, totalBytes: 3 })
  })

  it("counts the UTF-8 bytes of the shared start when multi-byte characters surround the divergence", () => {
    // "é§" is shared (2 + 2 bytes after "a"); then "1" against "2".
    expect(comparePrefix({ previous: ["aé§1"], current: ["aé§2¶"] })).toMatchObject({
      partialElementChars: 3,
      partialElementBytes: 5,
      totalBytes: 8,
    })
  })

  it("treats the first request (nothing before it) as having no reusable prefix", () => {
    expect(comparePrefix({ previous: [], current: ["a", "b"] })).toMatchObject({
      matchingElements: 0,
      share: 0,
      isBreak: false,
    })
  })
})

describe("sharedStartLength", () => {
  it("is the common start of two texts, the whole shorter one when it is a start of the other", () => {
    expect(sharedStartLength("abcdef", "abcxyz")).toBe(3)
    expect(sharedStartLength("abc", "abcdef")).toBe(3)
    expect(sharedStartLength("same", "same")).toBe(4)
    expect(sharedStartLength("", "abc")).toBe(0)
  })

  it("treats two characters that share leading UTF-8 bytes as differing from the first byte", () => {
    // § is C2 A7 and ¶ is C2 B6: the shared byte C2 is not counted.
    expect(sharedStartLength("x§", "x¶")).toBe(1)
  })

  it("never ends inside a surrogate pair", () => {
    // 😀 is D83D DE00 and 😁 is D83D DE01: the shared high surrogate alone is not a character.
    expect(sharedStartLength("a😀", "a😁")).toBe(1)
    expect(sharedStartLength("a😀b", "a😀c")).toBe(3)
  })
})
