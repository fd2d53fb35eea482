import { afterEach, beforeEach, describe, expect, it } from "vitest"
import type { Database } from "../../src/store/driver.js"
import { insertPin, listPins } from "../../src/store/pin-repository.js"
import { ensureSession } from "../../src/store/session-repository.js"
import { replaySession, storeWithSession } from "../helpers/store-database.js"

let db: Database

beforeEach(async () => {
  db = await storeWithSession("s1")
  ensureSession(db, replaySession("s2"), 1_000)
})

afterEach(() => {
  db.close()
})

describe("insertPin", () => {
  it("stores a pin once per tag and says whether it was new", () => {
    expect(insertPin(db, "s1", { tag: 5, text: "use port 8080", pinnedBy: "agent" }, 2_000)).toBe(true)
    expect(insertPin(db, "s1", { tag: 5, text: "a different text", pinnedBy: "user" }, 3_000)).toBe(false)
    expect(db.prepare("SELECT * FROM pins").all()).toEqual([
      { session_id: "s1", tag: 5, text: "use port 8080", pinned_by: "agent", created_at: 2_000 },
    ])
  })

  it("keeps the same tag of different sessions apart", () => {
    expect(insertPin(db, "s1", { tag: 5, text: "one", pinnedBy: "agent" }, 1)).toBe(true)
    expect(insertPin(db, "s2", { tag: 5, text: "two", pinnedBy: "agent" }, 1)).toBe(true)
    expect(listPins(db, "s1")).toEqual([{ tag: 5, text: "one", pinnedBy: "agent" }])
    expect(listPins(db, "s2")).toEqual([{ tag: 5, text: "two", pinnedBy: "agent" }])
  })

  it("throws for a session the store does not know (a programming error)", () => {
    expect(() => insertPin(db, "nobody", { tag: 1, text: "x", pinnedBy: "agent" }, 1)).toThrow(/FOREIGN KEY/)
  })
})

describe("listPins", () => {
  it("lists a session's pins by tag, with the text verbatim", () => {
    insertPin(db, "s1", { tag: 12, text: "line one\n  line two  ", pinnedBy: "user" }, 1)
    insertPin(db, "s1", { tag: 3, text: "§3§ stays as written", pinnedBy: "agent" }, 2)
    expect(listPins(db, "s1")).toEqual([
      { tag: 3, text: "§3§ stays as written", pinnedBy: "agent" },
      { tag: 12, text: "line one\n  line two  ", pinnedBy: "user" },
    ])
  })

  it("is empty for a session without pins", () => {
    expect(listPins(db, "s2")).toEqual([])
    expect(listPins(db, "nobody")).toEqual([])
  })
})
