import { describe, expect, it } from "vitest"
import { scratchRepositoryFiles } from "../../../bench/e2e/scratch-repository.js"
import { scriptedRounds, type ScriptedTurn } from "../../../bench/e2e/session-script.js"

/**
 * Plays the script's edits and writes over the scratch repository the way OpenCode's tools apply them: an edit needs
 * its file read earlier in the same turn and its oldString exactly once in it; a write replaces only a file the turn
 * has read. Returns what would fail.
 */
function failedEdits(turns: readonly ScriptedTurn[]): string[] {
  const files = new Map(Object.entries(scratchRepositoryFiles()))
  const failures: string[] = []
  turns.forEach((turn, turnIndex) => {
    const read = new Set<string>()
    for (const step of turn.steps) {
      if (step.kind !== "tool") continue
      const path = String(step.args["filePath"])
      const where = `turn ${turnIndex + 1} ${step.name} ${path}`
      if (step.name === "read") read.add(path)
      if (step.name === "write") {
        if (files.has(path) && !read.has(path)) failures.push(`${where}: replaces a file the turn has not read`)
        files.set(path, String(step.args["content"]))
        read.add(path)
      }
      if (step.name !== "edit") continue
      const oldString = String(step.args["oldString"])
      const content = files.get(path) ?? ""
      const matches = content.split(oldString).length - 1
      if (!read.has(path)) failures.push(`${where}: not read in this turn`)
      else if (matches !== 1) failures.push(`${where}: oldString found ${matches} times`)
      else files.set(path, content.replace(oldString, String(step.args["newString"])))
    }
  })
  return failures
}

describe("scriptedRounds", () => {
  it("is the five turns and 67 calls once, and twice over in two rounds", () => {
    const once = scriptedRounds(1)
    const twice = scriptedRounds(2)
    expect([once.length, once.flatMap((turn) => turn.steps).length]).toEqual([5, 67])
    expect([twice.length, twice.flatMap((turn) => turn.steps).length]).toEqual([10, 134])
    expect(twice.map((turn) => turn.prompt)).toEqual([...once, ...once].map((turn) => turn.prompt))
  })

  it("has every edit of both rounds find what it replaces in the repository the steps before it left", () => {
    expect(failedEdits(scriptedRounds(2))).toEqual([])
  })

  it("would fail edits if the second round repeated the first one's", () => {
    const once = scriptedRounds(1)
    expect(failedEdits([...once, ...once]).length).toBeGreaterThan(0)
  })
})
