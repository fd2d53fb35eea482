/*
 * Where a failed run points: the places a traceback, a stack or a test runner's report name in a tool's output.
 */
import { isErrorLine } from "./error-lines.js"
import { extractLocations, formatLocation, type LocationMatch } from "./extract-locations.js"

/** How far above the first error line a test runner's location line is looked for. */
const FAILURE_HEADER_LINES = 3

/**
 * Where a failing test is, as a test runner prints it on a line of its own a little above the first error line
 * (ExUnit's `test/x_test.exs:34` under `1) test …`, rustc's `--> src/lib.rs:10:5`): the nearest such line among the
 * few above it.
 */
export function failureHeaderLocation(output: string): LocationMatch[] {
  const lines = output.split("\n")
  const first = lines.findIndex(isErrorLine)
  for (let index = first - 1; index >= Math.max(0, first - FAILURE_HEADER_LINES); index -= 1) {
    const bare = /^\s*(?:-->\s*)?(\S+:\d+)(?::\d+)?:?\s*$/.exec(lines[index] ?? "")
    const location = bare?.[1] === undefined ? undefined : extractLocations(bare[1])[0]
    if (location !== undefined) return [location]
  }
  return []
}

/** The raise site of a Python traceback: its last `File "…", line N` frame. */
export function lastTracebackFrame(output: string): LocationMatch[] {
  const frames = [...output.matchAll(/File "([^"\n]+)", line (\d+)/g)]
  const last = frames.at(-1)
  if (last === undefined || last[1] === undefined) return []
  return [formatLocation(last[1], { line: Number(last[2]) })]
}

/**
 * The throw site of a JavaScript stack: its first `at …path:line:col` frame outside node_modules. With `dotnet` (rule
 * `dotnet-locations`) also .NET's first frame with a file (`at Program.<Main>$(…) in /src/Program.cs:line 36`: the
 * framework's frames above it have none), behind a reader's line-number gutter (`00020|`) too.
 */
export function firstStackFrame(output: string, options: { dotnet?: boolean } = {}): LocationMatch[] {
  const frame = options.dotnet === true ? /^(?:\s*\d+\|)?\s+at\s/ : /^\s+at\s/
  for (const line of output.split("\n")) {
    if (!frame.test(line)) continue
    const location = extractLocations(line.replace(/file:\/\//g, ""), options)[0]
    if (location !== undefined && !location.path.includes("node_modules")) return [location]
  }
  return []
}
