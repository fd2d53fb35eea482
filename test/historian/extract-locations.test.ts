import { describe, expect, it } from "vitest"
import { extractLocations, formatLocation, locationPath } from "../../src/historian/extract-locations.js"
import { firstStackFrame } from "../../src/historian/failure-locations.js"

describe("extractLocations", () => {
  it.each([
    ["path:line", "see src/slugify.js:4 for the assert", "src/slugify.js:4"],
    ["path:line:col", "at file:///x hexToRgb (src/theme/theme.ts:148:9)", "src/theme/theme.ts:148:9"],
    ["a TypeScript diagnostic", "src/theme/theme.ts(5,15): error TS2305", "src/theme/theme.ts:5:15"],
    [
      "a Python frame",
      'File "/repo/pydicom/numpy_handler.py", line 293, in get_pixeldata',
      "/repo/pydicom/numpy_handler.py:293",
    ],
    ["line N of path", "the raise is on line 293 of numpy_handler.py", "numpy_handler.py:293"],
    ["path at line N", "look at match.c at line 317", "match.c:317"],
    ["a line range", "lines 287-296 in numpy_handler.py", "numpy_handler.py:287-296"],
    ["a Makefile rule", "make: *** [Makefile:192: build] Error 2", "Makefile:192"],
  ])("finds %s", (_, text, expected) => {
    expect(extractLocations(text).map((location) => location.text)).toEqual([expected])
  })

  it.each([
    ["a path without a line", "edit src/slugify.js now"],
    ["a time of day", "21:41:05.928 [info] done"],
    ["a URL with a port", "http://localhost:4000/x.js:12"],
    ["a line number without a path", "see line 42"],
  ])("ignores %s", (_, text) => {
    expect(extractLocations(text)).toEqual([])
  })
})

describe("dotnet-locations", () => {
  const frame = "   at Ledger.Api.Startup.Configure(IApplicationBuilder app) in /srv/ledger/src/Ledger.Api/Startup.cs:line 58"

  it("reads a .NET frame's `path:line N` in that spelling, only when asked", () => {
    expect(extractLocations(frame, { dotnet: true }).map((location) => location.text)).toEqual(["/srv/ledger/src/Ledger.Api/Startup.cs:line 58"])
    expect(extractLocations(frame)).toEqual([])
  })

  it("takes a .NET stack's first frame with a file, past the framework's frames and a reader's gutter", () => {
    const output = [
      "00011| Unhandled exception. System.InvalidOperationException: No service for type 'Ledger.Api.IClock' has been registered.",
      "00012|    at Microsoft.Extensions.DependencyInjection.ServiceProviderServiceExtensions.GetRequiredService(IServiceProvider provider, Type serviceType)",
      `00013| ${frame}`,
      "00014|    at Ledger.Api.Program.Main(String[] args) in /srv/ledger/src/Ledger.Api/Program.cs:line 12",
    ].join("\n")
    expect(firstStackFrame(output, { dotnet: true }).map((location) => location.text)).toEqual(["/srv/ledger/src/Ledger.Api/Startup.cs:line 58"])
    expect(firstStackFrame(output)).toEqual([])
  })
})

describe("locationPath", () => {
  it.each([
    ["src/a.ts:12", "src/a.ts"],
    ["src/a.ts:12:3", "src/a.ts"],
    ["src/a.ts:12-20", "src/a.ts"],
    ["src/a.ts", "src/a.ts"],
    ["src/A.cs:line 58", "src/A.cs"],
  ])("locationPath(%j) is %j", (location, path) => {
    expect(locationPath(location)).toBe(path)
  })

  it("inverts formatLocation", () => {
    const location = formatLocation("pkg/x.py", { line: 287, endLine: 296 })
    expect(location).toEqual({ text: "pkg/x.py:287-296", path: "pkg/x.py" })
    expect(locationPath(location.text)).toBe(location.path)
  })
})
