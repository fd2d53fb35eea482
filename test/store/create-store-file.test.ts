import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { createStoreFile, linkIntoPlace } from "../../src/store/create-store-file.js"
import { openDatabase } from "../../src/store/open-database.js"
import { createTempDirs } from "../helpers/temp-dirs.js"

const dirs = createTempDirs()

afterEach(() => {
  dirs.cleanup()
})

const failWith = (code: string) => (): void => {
  throw Object.assign(new Error(`${code}: refused`), { code })
}

describe("createStoreFile", () => {
  it("builds the store under a temporary name, owner-only, and only then puts it at the path", async () => {
    const folder = dirs.make("create")
    const file = join(folder, "magic-context.db")
    const seen: { fileExisted: boolean; tempMode: number }[] = []
    await createStoreFile(file, (temp) => {
      seen.push({ fileExisted: existsSync(file), tempMode: statSync(temp).mode & 0o777 })
      writeFileSync(temp, "the whole store")
      writeFileSync(`${temp}-wal`, "")
      return Promise.resolve()
    })
    expect(seen).toEqual([{ fileExisted: false, tempMode: 0o600 }])
    expect(readFileSync(file, "utf8")).toBe("the whole store")
    expect(readdirSync(folder)).toEqual(["magic-context.db"])
  })

  it("keeps the store another process put at the path meanwhile", async () => {
    const folder = dirs.make("create")
    const file = join(folder, "magic-context.db")
    await createStoreFile(file, (temp) => {
      writeFileSync(file, "the other process's store")
      writeFileSync(temp, "ours")
      return Promise.resolve()
    })
    expect(readFileSync(file, "utf8")).toBe("the other process's store")
    expect(readdirSync(folder)).toEqual(["magic-context.db"])
  })

  it("leaves nothing behind, at the path or beside it, when building the store fails", async () => {
    const folder = dirs.make("create")
    const file = join(folder, "magic-context.db")
    await expect(createStoreFile(file, () => Promise.reject(new Error("disk full")))).rejects.toMatchObject({
      code: "db_open_failed",
      message: `${file}: cannot create the store: disk full`,
    })
    expect(readdirSync(folder)).toEqual([])
  })
})

describe("linkIntoPlace", () => {
  it("renames the store into place on a file system without hard links", () => {
    const folder = dirs.make("link")
    const temp = join(folder, ".temp")
    const file = join(folder, "magic-context.db")
    writeFileSync(temp, "store")
    linkIntoPlace(temp, file, failWith("EPERM"))
    expect(readdirSync(folder)).toEqual(["magic-context.db"])
    expect(readFileSync(file, "utf8")).toBe("store")
  })

  it("does not replace a store already there, with or without hard links", () => {
    const folder = dirs.make("link")
    const temp = join(folder, ".temp")
    const file = join(folder, "magic-context.db")
    writeFileSync(temp, "ours")
    writeFileSync(file, "theirs")
    linkIntoPlace(temp, file)
    linkIntoPlace(temp, file, failWith("ENOTSUP"))
    expect(readFileSync(file, "utf8")).toBe("theirs")
  })

  it("passes on any other failure", () => {
    const folder = dirs.make("link")
    expect(() => linkIntoPlace(join(folder, ".temp"), join(folder, "x.db"), failWith("EACCES"))).toThrow("EACCES")
  })
})

describe("openDatabase on a new path", () => {
  it("gives two openers racing to create the store one and the same store", async () => {
    const folder = dirs.make("race")
    const file = join(folder, "magic-context.db")
    const [first, second] = await Promise.all([openDatabase(file), openDatabase(file)])
    try {
      first.prepare("INSERT INTO meta (key, value) VALUES ('race', 'won')").run()
      expect(second.prepare("SELECT value FROM meta WHERE key = 'race'").get()).toEqual({ value: "won" })
    } finally {
      first.close()
      second.close()
    }
    expect(readdirSync(folder)).toEqual(["magic-context.db"])
  })
})
