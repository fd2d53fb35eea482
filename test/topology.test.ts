import { readdirSync, readFileSync } from "node:fs"
import { dirname, join, relative, resolve, sep } from "node:path"
import { fileURLToPath } from "node:url"
import ts from "typescript"
import { describe, expect, it } from "vitest"
import { moduleState } from "./helpers/module-state.js"

/**
 * The layering of `src/` (docs/ARCHITECTURE.md, "Layers"): every folder has a rank, and a file imports only files
 * of its own folder or of a lower rank, so nothing imports upward and the folders form no cycle. Pure folders do
 * no I/O: no `node:*` or `bun:*` module, no SQLite driver, no host plugin package; the file readers named in
 * IO_EDGES are their only way in. `session/`, the vocabulary every other folder shares, imports no package at all.
 * No files import each other round a circle, type-only imports included, and a file over MAX_LINES lines opens with a
 * comment line saying why (LONG_FILE_MARKER).
 */
const LAYERS: readonly string[] = [
  "(root)", // plugin-error.ts, result.ts: the error and result types everything may throw or return
  "tokens",
  "transcript",
  "session",
  "config",
  "historian",
  "reduce",
  "render",
  "pressure",
  "store",
  "pass",
  "report",
  "status",
  "lab",
  "install", // what a host's config files say about the installed copies: entries, their targets, this copy
  "host", // what every host adapter shares: the runtime, the error log, the store gate, the tools' cores
  "plugin", // the OpenCode adapter
  "pi", // the Pi adapter
  "tui", // the OpenCode TUI adapter: the sidebar panel
  "cli",
  "(entry)", // index.ts: the OpenCode plugin; pi.ts: the Pi extension; tui.ts: the OpenCode TUI plugin
]
/** The package's entries: the OpenCode plugin, the Pi extension and the OpenCode TUI plugin. */
const ENTRIES = new Set(["index.ts", "pi.ts", "tui.ts"])
const PURE = new Set(["tokens", "transcript", "session", "config", "historian", "reduce", "render", "pressure", "report"])
/** Files of pure folders that read files, each the one reader of its input. */
const IO_EDGES: Readonly<Record<string, string>> = {
  "transcript/read-transcript.ts": "reads a recorded session file for replay and the Lab",
  "config/read-config-files.ts": "reads the user's and the project's config files",
}
/** The host adapters and the package entries: the only folders that may import a host's packages. */
const ADAPTERS = new Set(["plugin", "pi", "tui", "(entry)"])
/** Host packages: OpenCode's plugin API and SDK and the TUI's renderer (OpenTUI, Solid), Pi's packages. */
const HOST_MODULE = /^(@opencode-ai\/|@opentui\/|solid-js|@mariozechner\/)/
const IO_MODULE = /^(node:|bun:|better-sqlite3$|@opencode-ai\/plugin)/

const SRC = fileURLToPath(new URL("../src/", import.meta.url))

/** Folders whose files keep no state between calls: the pure folders and the pass (state lives in a session's values). */
const STATELESS = new Set([...PURE, "pass"])
/**
 * Module-level state a stateless folder still declares, by file and name, with the reason: each must still be found
 * (an exception that no longer matches is removed from here).
 */
const MODULE_STATE_EXCEPTIONS: Readonly<Record<string, Readonly<Record<string, string>>>> = {}

/** The longest a src file may be without a reason; a longer one opens with a comment line starting `LONG_FILE_MARKER`. */
const MAX_LINES = 300
const LONG_FILE_MARKER = "Over 300 lines:"

describe("src/ topology", () => {
  const files = sourceFiles(SRC)
  const trees = new Map(files.map((file) => [file, parse(file, readFileSync(file, "utf8"))]))

  it("knows every folder of src/", () => {
    const folders = new Set(files.map(folderOf))
    expect([...folders].filter((folder) => !LAYERS.includes(folder))).toEqual([])
    expect(files.length).toBeGreaterThan(150)
  })

  it("imports only from the same folder or a lower layer", () => {
    expect(files.flatMap((file) => upwardImports(trees.get(file) ?? parse(file, "")))).toEqual([])
  })

  it("keeps I/O out of the pure folders but for the named file readers", () => {
    expect(files.flatMap((file) => ioImports(trees.get(file) ?? parse(file, "")))).toEqual([])
    for (const edge of Object.keys(IO_EDGES)) expect(files).toContain(join(SRC, edge))
  })

  it("keeps host packages out of the engine: only the adapters (and the entries) import OpenCode's or Pi's", () => {
    const offenders = files.flatMap((file) => {
      const path = relative(SRC, file).split(sep).join("/")
      if (ADAPTERS.has(folderOf(file))) return []
      return moduleSpecifiers(trees.get(file) ?? parse(file, "")).filter((specifier) => HOST_MODULE.test(specifier)).map((specifier) => `${path}: ${specifier}`)
    })
    expect(offenders).toEqual([])
  })

  it("keeps the host adapters apart", () => {
    const adapters = new Set(["plugin", "pi", "tui"])
    const crossings = files.flatMap((file) => {
      const own = folderOf(file)
      if (!adapters.has(own)) return []
      return moduleSpecifiers(trees.get(file) ?? parse(file, ""))
        .filter((specifier) => {
          if (!specifier.startsWith(".")) return false
          const target = folderOf(resolve(dirname(file), specifier))
          return target !== own && adapters.has(target)
        })
        .map((specifier) => `${relative(SRC, file)}: ${specifier}`)
    })
    expect(crossings).toEqual([])
  })

  it("keeps the chart library out of what OpenCode and Pi load: only the CLI's reports draw charts", () => {
    const reached = new Set<string>()
    const visit = (file: string): void => {
      if (reached.has(file)) return
      reached.add(file)
      for (const specifier of moduleSpecifiers(trees.get(file) ?? parse(file, ""))) {
        if (specifier.startsWith(".")) visit(resolve(dirname(file), specifier).replace(/\.js$/, ".ts"))
      }
    }
    for (const entry of ENTRIES) visit(join(SRC, entry))
    expect(reached.size).toBeGreaterThan(100)
    const charting = [...reached].filter((file) => moduleSpecifiers(trees.get(file) ?? parse(file, "")).some((specifier) => /^vega(-lite)?$/.test(specifier)))
    expect(charting.map((file) => relative(SRC, file))).toEqual([])
    expect(files.some((file) => moduleSpecifiers(trees.get(file) ?? parse(file, "")).includes("vega"))).toBe(true)
  })

  it("keeps packages out of src/session/", () => {
    const session = files.filter((file) => folderOf(file) === "session")
    expect(session.flatMap((file) => moduleSpecifiers(trees.get(file) ?? parse(file, "")).filter((specifier) => !specifier.startsWith(".")))).toEqual([])
  })

  it("has no import circle, type-only imports included", () => {
    expect(importCycles(trees)).toEqual([])
  })

  it("keeps module-level mutable state out of the pure folders and pass/ but for the named exceptions", () => {
    const found = files
      .filter((file) => STATELESS.has(folderOf(file)))
      .flatMap((file) => {
        const path = relative(SRC, file).split(sep).join("/")
        return moduleState(trees.get(file) ?? parse(file, "")).map((finding) => ({ path, name: finding.split(" ")[0] ?? "", finding }))
      })
    const allowed = (path: string, name: string): boolean => Object.hasOwn(MODULE_STATE_EXCEPTIONS[path] ?? {}, name)
    expect(found.filter(({ path, name }) => !allowed(path, name)).map(({ path, finding }) => `${path}: ${finding}`)).toEqual([])
    const stale = Object.entries(MODULE_STATE_EXCEPTIONS).flatMap(([path, names]) =>
      Object.keys(names).filter((name) => !found.some((entry) => entry.path === path && entry.name === name)).map((name) => `${path}: ${name}`),
    )
    expect(stale).toEqual([])
  })

  it(`keeps files to ${MAX_LINES} lines unless their opening comment says why ("${LONG_FILE_MARKER} …")`, () => {
    expect(files.flatMap((file) => unexplainedLongFile(trees.get(file) ?? parse(file, "")))).toEqual([])
  })
})

describe("the layering checks", () => {
  it.each([
    ["render/example.ts", 'import type { LiveView } from "../session/live-view.js"', []],
    ["render/example.ts", 'import { x } from "./markers.js"', []],
    ["render/example.ts", 'import { runPass } from "../pass/run-pass.js"', ["render/example.ts: ../pass/run-pass.js"]],
    ["session/example.ts", 'type T = import("../store/driver.js").Database', ["session/example.ts: ../store/driver.js"]],
    ["transcript/importers/example.ts", 'export { y } from "../../session/edit.js"', ["transcript/importers/example.ts: ../../session/edit.js"]],
    ["store/example.ts", 'const m = await import("../plugin/hooks.js")', ["store/example.ts: ../plugin/hooks.js"]],
    ["plugin-error.ts", 'import { z } from "./session/edit.js"', ["plugin-error.ts: ./session/edit.js"]],
    ["cli/example.ts", 'import { x } from "../plugin-error.js"', []],
  ])("in %s, flags the upward imports of %j", (file, source, expected) => {
    expect(upwardImports(parse(join(SRC, file), source))).toEqual(expected)
  })

  it.each([
    ["reduce/example.ts", 'import { readFileSync } from "node:fs"', 1],
    ["tokens/example.ts", 'import Database from "better-sqlite3"', 1],
    ["historian/example.ts", 'import type { Plugin } from "@opencode-ai/plugin"', 1],
    ["historian/example.ts", 'import { z } from "zod"', 0],
    ["store/example.ts", 'import { readFileSync } from "node:fs"', 0],
    ["config/read-config-files.ts", 'import { readFileSync } from "node:fs"', 0],
  ])("in %s, flags the I/O of %j", (file, source, count) => {
    expect(ioImports(parse(join(SRC, file), source))).toHaveLength(count)
  })
})

describe("the module state check", () => {
  it.each([
    ["let count = 0", ["count (line 1)"]],
    ["var seen = 1", ["seen (line 1)"]],
    ["const cache = new WeakMap<object, number>()", ["cache (line 1)"]],
    ["const byName = new Map([['a', 1]])", ["byName (line 1)"]],
    ["const names = new Set(['a'])", ["names (line 1)"]],
    ["const queue: string[] = []", ["queue (line 1)"]],
    ["const table = ['a', 'b'] as string[]", ["table (line 1)"]],
    ["const byName: ReadonlyMap<string, number> = new Map([['a', 1]])", []],
    ["const names: ReadonlySet<string> = new Set(['a'])", []],
    ["const table: readonly string[] = ['a']", []],
    ["const frozen = Object.freeze(['a'])", []],
    ["const literal = ['a', 'b'] as const", []],
    ["const limit = 3", []],
    ["function f() { let local = 0; const map = new Map(); return [local, map] }", []],
  ])("in %j, finds %j", (source, expected) => {
    expect(moduleState(parse(join(SRC, "render/example.ts"), source))).toEqual(expected)
  })
})

describe("the import circle check", () => {
  it.each([
    ["no circle in a chain", { "session/a.ts": 'import { b } from "./b.js"', "session/b.ts": 'import { c } from "./c.js"', "session/c.ts": "" }, []],
    ["a type-only circle of two", { "config/a.ts": 'import type { B } from "./b.js"', "config/b.ts": 'import { a } from "./a.js"' }, [["config/a.ts", "config/b.ts"]]],
    [
      "a circle across folders, without the file that only imports into it",
      {
        "cli/a.ts": 'import { b } from "../session/b.js"',
        "session/b.ts": 'type C = import("./c.js").C',
        "session/c.ts": 'export { a } from "../cli/a.js"',
        "session/d.ts": 'import { b } from "./b.js"',
      },
      [["cli/a.ts", "session/b.ts", "session/c.ts"]],
    ],
    ["a file importing itself", { "render/a.ts": 'const a = await import("./a.js")' }, [["render/a.ts"]]],
    [
      "two circles apart",
      {
        "cli/a.ts": 'import { b } from "./b.js"',
        "cli/b.ts": 'import { a } from "./a.js"',
        "store/c.ts": 'import { d } from "./d.js"',
        "store/d.ts": 'import { c } from "./c.js"',
      },
      [
        ["cli/a.ts", "cli/b.ts"],
        ["store/c.ts", "store/d.ts"],
      ],
    ],
  ])("finds %s", (_case, sources: Record<string, string>, expected) => {
    const trees = new Map(Object.entries(sources).map(([file, source]) => [join(SRC, file), parse(join(SRC, file), source)]))
    expect(importCycles(trees)).toEqual(expected)
  })
})

describe("the long file check", () => {
  const lines = (count: number): string => "export const x = 1\n".repeat(count)
  it.each([
    ["300 lines", 0, lines(300)],
    ["301 lines", 1, lines(301)],
    ["301 lines opening with a reason", 0, `// ${LONG_FILE_MARKER} one table, read top to bottom\n${lines(300)}`],
    ["301 lines with the reason in an opening block comment", 0, `/**\n * The planner.\n * ${LONG_FILE_MARKER} one closure\n */\n${lines(297)}`],
    ["301 lines with the reason only further down", 1, `${lines(300)}// ${LONG_FILE_MARKER} too late\n`],
    ["301 lines with the marker but no reason", 1, `// ${LONG_FILE_MARKER}\n${lines(300)}`],
  ])("for %s, flags %i file", (_case, count, source) => {
    expect(unexplainedLongFile(parse(join(SRC, "render/example.ts"), source))).toHaveLength(count)
  })
})

/**
 * The import circles among `trees`' files (their strongly connected components, and files importing themselves), each
 * as its files relative to src/, sorted; the circles sorted by their first file. Type-only imports count: erased at run
 * time, they still tie the files together.
 */
function importCycles(trees: ReadonlyMap<string, ts.SourceFile>): string[][] {
  const edges = new Map<string, string[]>()
  for (const [file, root] of trees) {
    const targets = moduleSpecifiers(root)
      .filter((specifier) => specifier.startsWith("."))
      .map((specifier) => resolve(dirname(file), specifier).replace(/\.js$/, ".ts"))
      .filter((target) => trees.has(target))
    edges.set(file, targets)
  }
  // Tarjan's strongly connected components.
  const index = new Map<string, number>()
  const lowest = new Map<string, number>()
  const stack: string[] = []
  const onStack = new Set<string>()
  const cycles: string[][] = []
  const connect = (file: string): void => {
    index.set(file, index.size)
    lowest.set(file, index.get(file) ?? 0)
    stack.push(file)
    onStack.add(file)
    for (const target of edges.get(file) ?? []) {
      if (!index.has(target)) {
        connect(target)
        lowest.set(file, Math.min(lowest.get(file) ?? 0, lowest.get(target) ?? 0))
      } else if (onStack.has(target)) lowest.set(file, Math.min(lowest.get(file) ?? 0, index.get(target) ?? 0))
    }
    if (lowest.get(file) !== index.get(file)) return
    const component: string[] = []
    for (let member = stack.pop(); member !== undefined; member = stack.pop()) {
      onStack.delete(member)
      component.push(member)
      if (member === file) break
    }
    if (component.length > 1 || (edges.get(file) ?? []).includes(file)) cycles.push(component.map((member) => relative(SRC, member).split(sep).join("/")).sort())
  }
  for (const file of [...trees.keys()].sort()) if (!index.has(file)) connect(file)
  return cycles.sort((first, second) => ((first[0] ?? "") < (second[0] ?? "") ? -1 : 1))
}

/**
 * `file: N lines` when a file is over MAX_LINES lines and the comments it opens with (before its first statement) have
 * no line starting LONG_FILE_MARKER followed by a reason.
 */
function unexplainedLongFile(root: ts.SourceFile): string[] {
  const text = root.getFullText()
  const lineCount = text.split("\n").length - (text.endsWith("\n") ? 1 : 0)
  if (lineCount <= MAX_LINES) return []
  const opening = (ts.getLeadingCommentRanges(text, 0) ?? []).map((range) => text.slice(range.pos, range.end)).join("\n")
  const reasoned = opening
    .split("\n")
    .map((line) => line.replace(/^\s*(\/\*\*?|\*\/|\*|\/\/)?\s*/, ""))
    .some((line) => line.startsWith(LONG_FILE_MARKER) && line.slice(LONG_FILE_MARKER.length).replace(/\*\/$/, "").trim().length > 0)
  return reasoned ? [] : [`${relative(SRC, root.fileName).split(sep).join("/")}: ${lineCount} lines`]
}

/** The `.ts` files under `dir`, sorted. */
function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .filter((name) => name.endsWith(".ts"))
    .map((name) => join(dir, name))
    .sort()
}

/** The layer a file belongs to: its top folder under src/, or a root file's role. */
function folderOf(file: string): string {
  const path = relative(SRC, file)
  if (!path.includes(sep)) return ENTRIES.has(path) ? "(entry)" : "(root)"
  return path.split(sep)[0] ?? "(root)"
}

/** `file: specifier` of every relative import into a higher layer. */
function upwardImports(root: ts.SourceFile): string[] {
  const file = root.fileName
  const rank = LAYERS.indexOf(folderOf(file))
  return moduleSpecifiers(root)
    .filter((specifier) => specifier.startsWith("."))
    .filter((specifier) => {
      const target = folderOf(resolve(dirname(file), specifier))
      return target !== folderOf(file) && LAYERS.indexOf(target) > rank
    })
    .map((specifier) => `${relative(SRC, file)}: ${specifier}`)
}

/** `file: specifier` of every I/O module a pure folder's file names (the named readers excepted). */
function ioImports(root: ts.SourceFile): string[] {
  const file = root.fileName
  if (!PURE.has(folderOf(file)) || Object.hasOwn(IO_EDGES, relative(SRC, file).split(sep).join("/"))) return []
  return moduleSpecifiers(root)
    .filter((specifier) => IO_MODULE.test(specifier))
    .map((specifier) => `${relative(SRC, file)}: ${specifier}`)
}

/** Every module specifier of a file: imports and re-exports (type-only too), dynamic imports, `import("…")` types. */
function moduleSpecifiers(root: ts.SourceFile): string[] {
  const specifiers: string[] = []
  const visit = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier !== undefined) {
      if (ts.isStringLiteral(node.moduleSpecifier)) specifiers.push(node.moduleSpecifier.text)
    }
    if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [argument] = node.arguments
      if (argument !== undefined && ts.isStringLiteral(argument)) specifiers.push(argument.text)
    }
    if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      specifiers.push(node.argument.literal.text)
    }
    ts.forEachChild(node, visit)
  }
  visit(root)
  return specifiers
}

function parse(file: string, source: string): ts.SourceFile {
  return ts.createSourceFile(file, source, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS)
}
