import { describe, expect, it } from "vitest"
import { RecordMap, recordsByMessage } from "../../src/session/record-map.js"

type Record = { messageId: string; tokens: number }

describe("RecordMap", () => {
  it("names the message of every write since a cursor, in order", () => {
    const map = recordsByMessage<string, Record>()
    map.set("p1", { messageId: "m1", tokens: 1 })
    const cursor = map.writes
    map.set("p2", { messageId: "m2", tokens: 2 })
    map.set("p1", { messageId: "m1", tokens: 3 })
    map.delete("p2")
    map.delete("absent")
    expect(map.ownersSince(cursor)).toEqual(["m2", "m1", "m2"])
    expect(map.ownersSince(map.writes)).toEqual([])
    expect(map.get("p1")).toEqual({ messageId: "m1", tokens: 3 })
  })

  it("holds the entries it is made from without logging them as writes", () => {
    const map = recordsByMessage<string, Record>([["p1", { messageId: "m1", tokens: 1 }]])
    expect(map.get("p1")?.tokens).toBe(1)
    expect(map.writes).toBe(0)
    expect(map.ownersSince(0)).toEqual([])
  })

  it("answers null for a cursor from before a clear, or one it no longer reaches back to", () => {
    const map = new RecordMap<string, number>((key) => key)
    map.set("a", 1)
    const beforeClear = map.writes
    map.clear()
    expect(map.ownersSince(beforeClear)).toBeNull()
    const start = map.writes
    for (let write = 0; write < 9_000; write += 1) map.set(`k${write}`, write)
    expect(map.ownersSince(start)).toBeNull()
    expect(map.ownersSince(map.writes - 1)).toEqual(["k8999"])
    expect(map.ownersSince(map.writes + 1)).toBeNull()
  })

  it("derives a copy that goes on from the source's writes, as a line of its own", () => {
    const source = recordsByMessage<string, Record>([["p1", { messageId: "m1", tokens: 1 }]])
    source.set("p2", { messageId: "m2", tokens: 2 })
    const cursor = source.writes
    source.set("p3", { messageId: "m3", tokens: 3 })
    const copy = RecordMap.derive(source)
    expect([...copy.entries()]).toEqual([...source.entries()])
    copy.set("p1", { messageId: "m1", tokens: 10 })
    // A reader of the source at `cursor` reads on from the copy: the source's write since, then the copy's own.
    expect(copy.continues(source, cursor)).toBe(true)
    expect(copy.ownersSince(cursor)).toEqual(["m3", "m1"])
    expect(source.get("p1")?.tokens).toBe(1)
    // The source written after the copy: a reader that saw that write cannot read on from the copy, nor the other way.
    source.set("p4", { messageId: "m4", tokens: 4 })
    expect(copy.continues(source, source.writes)).toBe(false)
    expect(source.continues(copy, copy.writes)).toBe(false)
    expect(recordsByMessage<string, Record>(source).continues(source, 0)).toBe(false)
  })
})

