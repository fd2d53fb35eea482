import { describe, expect, it } from "vitest"
import { statedIdentifiers } from "../../src/historian/returned-ids.js"

describe("statedIdentifiers", () => {
  it("takes a program's version stamp and the paths a command wrote", () => {
    const output = [
      "podhaven 3.8.2 (built 2025-05-02, api v3)",
      "I, [2025-06-09T10:16:31Z #51920]  INFO -- : wrote /srv/lcr/work/2025/night-owls-211.m4a (187604992 bytes)",
      "Report saved to /tmp/build/report.html.",
    ].join("\n")
    expect(statedIdentifiers(output)).toEqual(["podhaven 3.8.2", "/srv/lcr/work/2025/night-owls-211.m4a", "/tmp/build/report.html"])
  })

  it("reads `version` and `v` stamps, and no durations, percentages or plain numbers", () => {
    expect(statedIdentifiers("terraform v1.9.5\non linux_amd64")).toEqual(["terraform v1.9.5"])
    expect(statedIdentifiers("psql version 15.18")).toEqual(["psql version 15.18"])
    expect(statedIdentifiers("Duration 3.2 s\nCoverage 85.3%\ntook 1.23s\nretries 2.5")).toEqual([])
  })

  it("keeps at most three, first found first", () => {
    const output = ["wrote /a/1.txt", "wrote /a/2.txt", "wrote /a/3.txt", "wrote /a/4.txt"].join("\n")
    expect(statedIdentifiers(output)).toEqual(["/a/1.txt", "/a/2.txt", "/a/3.txt"])
  })
})
