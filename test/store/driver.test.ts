import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { openNodeDatabase } from "../../src/store/driver-node.js"
import { wrapTransactions, type Database } from "../../src/store/driver.js"

describe("wrapTransactions", () => {
  let db: Database
  const values = (): number[] => db.prepare("SELECT x FROM t ORDER BY x").all().map((row) => Number(row["x"]))

  beforeEach(() => {
    db = openNodeDatabase(":memory:")
    db.exec("CREATE TABLE t (x INTEGER NOT NULL) STRICT")
  })

  afterEach(() => {
    db.close()
  })

  it("commits and returns the function's value", () => {
    const result = db.transaction(() => {
      db.exec("INSERT INTO t VALUES (1)")
      db.exec("INSERT INTO t VALUES (2)")
      return "done"
    })
    expect(result).toBe("done")
    expect(values()).toEqual([1, 2])
  })

  it("rolls back everything and rethrows the same error when the function throws", () => {
    db.exec("INSERT INTO t VALUES (0)")
    const failure = new Error("stop")
    expect(() =>
      db.transaction(() => {
        db.exec("INSERT INTO t VALUES (1)")
        throw failure
      }),
    ).toThrow(failure)
    expect(values()).toEqual([0])
  })

  it("rolls back when a statement inside fails", () => {
    expect(() =>
      db.transaction(() => {
        db.exec("INSERT INTO t VALUES (1)")
        db.exec("INSERT INTO t VALUES (NULL)")
      }),
    ).toThrow(/NOT NULL/)
    expect(values()).toEqual([])
  })

  it("throws on a nested call and rolls back the outer transaction", () => {
    expect(() =>
      db.transaction(() => {
        db.exec("INSERT INTO t VALUES (1)")
        db.transaction(() => db.exec("INSERT INTO t VALUES (2)"))
      }),
    ).toThrow("store transactions are not reentrant")
    expect(values()).toEqual([])
  })

  it("accepts a new transaction after a nested call failed", () => {
    expect(() => db.transaction(() => db.transaction(() => 1))).toThrow(/not reentrant/)
    db.transaction(() => db.exec("INSERT INTO t VALUES (3)"))
    expect(values()).toEqual([3])
  })

  it("wraps the function in BEGIN IMMEDIATE and COMMIT, or ROLLBACK on throw", () => {
    const executed: string[] = []
    const wrapped = wrapTransactions({
      driver: "better-sqlite3",
      exec: (sql) => {
        executed.push(sql)
      },
      prepare: () => {
        throw new Error("not used")
      },
      close: () => {},
    })
    wrapped.transaction(() => executed.push("work"))
    expect(() =>
      wrapped.transaction(() => {
        throw new Error("x")
      }),
    ).toThrow("x")
    expect(executed).toEqual(["BEGIN IMMEDIATE", "work", "COMMIT", "BEGIN IMMEDIATE", "ROLLBACK"])
  })

  it("accepts a new transaction after BEGIN itself failed (another connection held the lock)", () => {
    let locked = true
    const executed: string[] = []
    const wrapped = wrapTransactions({
      driver: "better-sqlite3",
      exec: (sql) => {
        if (sql === "BEGIN IMMEDIATE" && locked) throw new Error("database is locked")
        executed.push(sql)
      },
      prepare: () => {
        throw new Error("not used")
      },
      close: () => {},
    })
    expect(() => wrapped.transaction(() => executed.push("never"))).toThrow("database is locked")
    locked = false
    expect(wrapped.transaction(() => "written")).toBe("written")
    expect(executed).toEqual(["BEGIN IMMEDIATE", "COMMIT"])
  })

  it("keeps the base connection's driver, exec and close", () => {
    expect(db.driver).toBe("better-sqlite3")
    db.exec("INSERT INTO t VALUES (5)")
    expect(values()).toEqual([5])
  })
})
