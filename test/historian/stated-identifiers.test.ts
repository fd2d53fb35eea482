import { describe, expect, it } from "vitest"
import { prefixedIds, statedIdentifiers } from "../../src/historian/returned-ids.js"

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

  it("keeps a short stamp line whole with whole-version-stamps: its build and platform go with the version", () => {
    const output = ["deployctl 2.14.0 (build 9f3e2a1, 2026-03-11) darwin/arm64, API v2", "Logged in as ops@example.test"].join("\n")
    expect(statedIdentifiers(output, { wholeStamps: true })).toEqual(["deployctl 2.14.0 (build 9f3e2a1, 2026-03-11) darwin/arm64, API v2"])
    expect(statedIdentifiers(output)).toEqual(["deployctl 2.14.0"])
    // A long banner keeps its name and version only.
    const banner = `rustc 1.83.0 (90b35a623 2024-11-26) ${"x".repeat(100)}`
    expect(statedIdentifiers(banner, { wholeStamps: true })).toEqual(["rustc 1.83.0"])
  })
})

describe("prefixedIds", () => {
  it("takes the type-prefixed ids a CLI lists, at most three, first found first", () => {
    const output = [
      "ID              NAME          CREATED",
      "cus_NffrFeUfNV2Hib  Ada Lovelace  2026-01-02",
      "ws_8KD2PQ        staging       2026-01-03",
      "ses_3d5f9a1bffe1  (idle)",
      "prj_77ZZQ1A      archive       2026-01-04",
    ].join("\n")
    expect(prefixedIds(output)).toEqual(["cus_NffrFeUfNV2Hib", "ws_8KD2PQ", "ses_3d5f9a1bffe1"])
  })

  it("leaves snake_case words and short suffixes alone", () => {
    expect(prefixedIds("target linux_amd64, python3_11, test_case123, max_retries=3, build_2024, snake_case_variable1234567890")).toEqual([])
  })
})

