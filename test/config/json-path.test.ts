import { describe, expect, it } from "vitest"
import { getPath, isJsonObject, leafPaths, mergeDeep, withoutPaths } from "../../src/config/json-path.js"

describe("isJsonObject", () => {
  it.each([
    [{}, true],
    [{ a: 1 }, true],
    [[], false],
    [null, false],
    ["x", false],
    [1, false],
    [undefined, false],
  ])("classifies %j as %s", (value, expected) => {
    expect(isJsonObject(value)).toBe(expected)
  })
})

describe("getPath", () => {
  const root = { a: { b: { c: 1 }, list: ["x", { y: 2 }] }, n: null }

  it.each([
    [[], root],
    [["a", "b", "c"], 1],
    [["a", "b"], { c: 1 }],
    [["a", "list", 1, "y"], 2],
    [["a", "list", "0"], "x"],
    [["n"], null],
    [["missing"], undefined],
    [["a", "b", "c", "deeper"], undefined],
    [["n", "x"], undefined],
  ])("reads the path %j", (path, expected) => {
    expect(getPath(root, path)).toEqual(expected)
  })

  it("returns undefined below a non-object root", () => {
    expect(getPath("text", ["length"])).toBeUndefined()
    expect(getPath(undefined, ["a"])).toBeUndefined()
  })
})

describe("withoutPaths", () => {
  it("removes a leaf and keeps its siblings", () => {
    expect(withoutPaths({ a: { b: 1, c: 2 }, d: 3 }, [["a", "b"]])).toEqual({ a: { c: 2 }, d: 3 })
  })

  it("prunes objects the removal leaves empty, all the way up", () => {
    expect(withoutPaths({ a: { b: { c: 1 } }, d: 3 }, [["a", "b", "c"]])).toEqual({ d: 3 })
  })

  it("removes a whole subtree", () => {
    expect(withoutPaths({ a: { b: 1 }, d: 3 }, [["a"]])).toEqual({ d: 3 })
  })

  it("removes a non-object value found where the path goes deeper", () => {
    expect(withoutPaths({ a: "text", d: 3 }, [["a", "b"]])).toEqual({ d: 3 })
  })

  it.each([
    [["missing"]],
    [["a", "missing"]],
    [[]],
  ])("returns an equal object when %j is not there", (path) => {
    const root = { a: { b: 1 } }
    expect(withoutPaths(root, [path])).toEqual({ a: { b: 1 } })
  })

  it("does not mutate its input", () => {
    const root = { a: { b: 1, c: 2 }, list: ["x", "y"] }
    withoutPaths(root, [["a", "b"], ["list", 0]])
    expect(root).toEqual({ a: { b: 1, c: 2 }, list: ["x", "y"] })
  })

  it("keeps an object that was already empty", () => {
    expect(withoutPaths({ a: {}, b: { c: 1 } }, [["b", "c"]])).toEqual({ a: {} })
    expect(withoutPaths({ a: {}, b: 1 }, [["a", "missing"]])).toEqual({ a: {}, b: 1 })
  })

  it("removes array elements by index, keeping the others in order, whatever order the paths come in", () => {
    const root = { pins: ["a", "b", "c", "d"], other: 1 }
    expect(withoutPaths(root, [["pins", 0], ["pins", 2]])).toEqual({ pins: ["b", "d"], other: 1 })
    expect(withoutPaths(root, [["pins", 2], ["pins", 0]])).toEqual({ pins: ["b", "d"], other: 1 })
    expect(withoutPaths(root, [["pins", "3"]])).toEqual({ pins: ["a", "b", "c"], other: 1 })
  })

  it("prunes an array the removal leaves empty, and keeps one that was already empty", () => {
    expect(withoutPaths({ pins: ["a"], d: 1 }, [["pins", 0]])).toEqual({ d: 1 })
    expect(withoutPaths({ pins: [], d: 1 }, [["d"]])).toEqual({ pins: [] })
  })

  it("removes several paths in one copy, in linear time", () => {
    const root = Object.fromEntries(Array.from({ length: 100_000 }, (_, index) => [`k${index}`, index]))
    const started = performance.now()
    const pruned = withoutPaths({ ...root, kept: true }, Object.keys(root).map((key) => [key]))
    expect(pruned).toEqual({ kept: true })
    // One copy per removal made this quadratic: 20,000 unknown keys took 135 s in `magic-context config`.
    expect(performance.now() - started).toBeLessThan(2_000)
  })
})

describe("mergeDeep", () => {
  it("merges nested objects key by key, the override winning", () => {
    expect(mergeDeep({ a: { x: 1, y: 2 }, b: 1 }, { a: { y: 3, z: 4 }, c: 5 })).toEqual({
      a: { x: 1, y: 3, z: 4 },
      b: 1,
      c: 5,
    })
  })

  it("replaces arrays whole", () => {
    expect(mergeDeep({ list: [1, 2, 3] }, { list: [4] })).toEqual({ list: [4] })
  })

  it.each([
    [{ a: { x: 1 } }, { a: 5 }, { a: 5 }],
    [{ a: 5 }, { a: { x: 1 } }, { a: { x: 1 } }],
    [{ a: { x: 1 } }, { a: null }, { a: null }],
    [{ a: 1 }, {}, { a: 1 }],
  ])("merges %j with %j into %j", (base, override, expected) => {
    expect(mergeDeep(base, override)).toEqual(expected)
  })

  it("does not mutate either input", () => {
    const base = { a: { x: 1 } }
    const override = { a: { y: 2 } }
    mergeDeep(base, override)
    expect(base).toEqual({ a: { x: 1 } })
    expect(override).toEqual({ a: { y: 2 } })
  })
})

describe("leafPaths", () => {
  it("lists every leaf in key order", () => {
    expect(leafPaths({ a: 1, b: { c: null, d: { e: [1, 2] } }, f: "x" })).toEqual([
      ["a"],
      ["b", "c"],
      ["b", "d", "e"],
      ["f"],
    ])
  })

  it("treats an empty object as a leaf", () => {
    expect(leafPaths({ a: {}, b: { c: {} } })).toEqual([["a"], ["b", "c"]])
  })

  it("returns no paths for an empty root", () => {
    expect(leafPaths({})).toEqual([])
  })

  it("keeps keys that contain dots as one path segment", () => {
    expect(leafPaths({ models: { "gpt-4.1": "x" } })).toEqual([["models", "gpt-4.1"]])
  })
})
