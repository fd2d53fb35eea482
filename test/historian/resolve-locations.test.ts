import { describe, expect, it } from "vitest"
import { extractCanonicalRecord, type CanonicalRecord } from "../../src/historian/canonical-record.js"
import { assistantMessage, completed, text, tool, userMessage } from "../helpers/host-messages.js"
import type { HostMessage } from "../../src/transcript/host-message.js"
import { tagMessages } from "./trace-episodes.js"
import { resolveLocations } from "../../src/historian/resolve-locations.js"
import type { Fact } from "../../src/historian/fidelity-types.js"

function record(messages: HostMessage[], off?: string): CanonicalRecord {
  const recognizers = { on: (name: string) => name !== off }
  return extractCanonicalRecord({ compartmentId: "c1", messages, tagOf: tagMessages(messages), recognizers })
}

function locations(result: CanonicalRecord): string[] {
  return result.facts.filter((fact) => fact.kind === "location").map((fact) => fact.text)
}

function episode(said: string, ...paths: string[]): HostMessage[] {
  const reads = paths.map((path, index) =>
    tool(`a1-r${index}`, "read", completed({ filePath: path }, "def fetch(url):\n    for attempt in range(5):\n        ...")),
  )
  return [
    userMessage({ id: "u1", parts: [text("u1-t", "why does the sync hang?")] }),
    assistantMessage({ id: "a1", parts: [...reads, text("a1-t", said)] }),
  ]
}

describe("resolved-locations", () => {
  it("writes a place named by file name with the path a call of the episode read", () => {
    const result = record(episode("The retry loop at client.py:88 never gives up on a 503.", "src/sync/client.py"))
    expect(locations(result)).toEqual(["src/sync/client.py:88"])
  })

  it("takes the longest spelling when the file is named from two directories", () => {
    const result = record(episode("It hangs in client.py:88.", "/home/dev/app/src/sync/client.py", "src/sync/client.py"))
    expect(locations(result)).toEqual(["/home/dev/app/src/sync/client.py:88"])
  })

  it("leaves a name two files of the episode share, and does nothing with its rule off", () => {
    const ambiguous = record(episode("It hangs in client.py:88.", "src/sync/client.py", "src/billing/client.py"))
    expect(locations(ambiguous)).toEqual(["client.py:88"])
    const off = record(episode("It hangs in client.py:88.", "src/sync/client.py"), "resolved-locations")
    expect(locations(off)).toEqual(["client.py:88"])
  })

  it("merges a resolved place into the same place already named whole", () => {
    const result = record(episode("See src/sync/client.py:88; client.py:88 is the loop.", "src/sync/client.py"))
    expect(locations(result)).toEqual(["src/sync/client.py:88"])
  })
})

describe("resolveLocations", () => {
  it("merges a resolved place into the same place already listed without changing the facts it was given", () => {
    const source = (tag: number, id: string) => ({ tags: [tag], messageIds: [id] })
    const facts: Fact[] = [
      { kind: "location", text: "src/sync/client.py:88", source: source(2, "a1") } as Fact,
      { kind: "location", text: "client.py:88", source: source(5, "a2") } as Fact,
    ]
    const given = structuredClone(facts)
    const resolved = resolveLocations(facts)
    expect(resolved.map((fact) => [fact.text, fact.source.tags])).toEqual([["src/sync/client.py:88", [2, 5]]])
    expect(facts).toEqual(given)
  })
})
