import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createTokenCounterPool, type TokenCounterPool } from "../../src/tokens/tiktoken-counter.js"

describe("createTokenCounterPool", () => {
  let pool: TokenCounterPool

  beforeAll(() => {
    pool = createTokenCounterPool()
  })

  afterAll(() => {
    pool.dispose()
  })

  // Reference counts from OpenAI's tokenizer (tiktoken's own examples and the cookbook).
  it.each([
    ["o200k_base", "hello world", 2],
    ["cl100k_base", "hello world", 2],
    ["cl100k_base", "tiktoken is great!", 6],
    ["o200k_base", "", 0],
    ["cl100k_base", "", 0],
    ["o200k_base", " ", 1],
  ] as const)("counts %s tokens of %j as %i", (encoding, text, expected) => {
    expect(pool.counterFor(encoding).count(text)).toBe(expected)
  })

  it.each(["o200k_base", "cl100k_base"] as const)("counts special-token text as plain text with %s", (encoding) => {
    const counter = pool.counterFor(encoding)
    // As a special token it would be 1 token; as ordinary text it is split into several.
    expect(counter.count("<|endoftext|>")).toBeGreaterThan(1)
    expect(counter.count("before <|endoftext|> after <|fim_prefix|>")).toBeGreaterThan(4)
  })

  it("counts long and non-Latin text without throwing", () => {
    const counter = pool.counterFor("o200k_base")
    expect(counter.count("§12§ ünïcödé 你好世界 🚀\u0000")).toBeGreaterThan(0)
    const long = "word ".repeat(20_000)
    expect(counter.count(long)).toBeGreaterThanOrEqual(20_000)
  })

  it("counts a 1 MB run without whitespace (which makes tiktoken's encoder fail, and is quadratic below that)", () => {
    const counter = pool.counterFor("o200k_base")
    const run = "=".repeat(1_000_000)
    const tokens = counter.count(run)
    // o200k merges a run of "=" into tokens of tens of characters; counted in 500-character pieces, 9 tokens each.
    expect(tokens).toBe(18_000)
    expect(tokens).toBeLessThan(run.length / 4)
    expect(counter.count(`before ${"x".repeat(300_000)} after`)).toBeGreaterThan(2)
  })

  it("hands out the same counter for an encoding and a different one per encoding", () => {
    const first = pool.counterFor("o200k_base")
    expect(pool.counterFor("o200k_base")).toBe(first)
    const other = pool.counterFor("cl100k_base")
    expect(other).not.toBe(first)
    expect(first.encoding).toBe("o200k_base")
    expect(other.encoding).toBe("cl100k_base")
  })

  it("counts differently with the two encodings where their vocabularies differ", () => {
    const text = "Überprüfung der Veröffentlichungsrichtlinien für 日本語のテキスト"
    expect(pool.counterFor("o200k_base").count(text)).not.toBe(pool.counterFor("cl100k_base").count(text))
  })
})

describe("TokenCounterPool.dispose", () => {
  it("frees the encoders; a later request builds a new counter that still counts", () => {
    const pool = createTokenCounterPool()
    const before = pool.counterFor("cl100k_base")
    expect(before.count("hello world")).toBe(2)
    pool.dispose()
    const after = pool.counterFor("cl100k_base")
    expect(after).not.toBe(before)
    expect(after.count("hello world")).toBe(2)
    pool.dispose()
  })

  it("may be called on a pool that never loaded an encoder, and twice", () => {
    const pool = createTokenCounterPool()
    expect(() => {
      pool.dispose()
      pool.dispose()
    }).not.toThrow()
  })
})
