import { readdirSync, readFileSync } from "node:fs"
import { join, relative, sep } from "node:path"
import { fileURLToPath } from "node:url"
import ts from "typescript"
import { describe, expect, it } from "vitest"
import { HOST_TOOLS } from "../../src/session/host-tools.js"

/**
 * `src/session/` is the one place host-tool knowledge lives (what it may import: test/topology.test.ts):
 * 1. no file under `src/` but `session/host-tools.ts` writes a string array naming two or more file-writing tools
 *    (the table's `writes` rows: "edit", "write", "multiedit", …): such a list belongs in the table;
 * 2. no file under `src/` outside `session/` reads a tool input's `filePath`, `file_path` or `notebook_path`: a
 *    call's paths come from `toolPaths`/`toolPath`.
 */

const SRC = fileURLToPath(new URL("../../src/", import.meta.url))
const SESSION = join(SRC, "session")
const TABLE = join(SESSION, "host-tools.ts")
const WRITER_NAMES = new Set(HOST_TOOLS.filter((row) => row.writes).flatMap((row) => row.tools))
const PATH_KEYS = new Set(["filePath", "file_path", "notebook_path"])

describe("src/session topology", () => {
  const sessionFiles = sourceFiles(SESSION)
  const allFiles = sourceFiles(SRC)
  const parsed = new Map(allFiles.map((file) => [file, parse(file, readFileSync(file, "utf8"))]))
  const tree = (file: string): ts.SourceFile => parsed.get(file) ?? parse(file, readFileSync(file, "utf8"))

  it("finds the files it checks", () => {
    const names = sessionFiles.map((file) => relative(SESSION, file))
    expect(names).toEqual(expect.arrayContaining(["host-tools.ts", "patch-text.ts", "recognizers.ts"]))
    expect(allFiles.length).toBeGreaterThan(100)
  })

  it("leaves lists of file-writing tool names to the host tool table", () => {
    const violations = allFiles.filter((file) => file !== TABLE).flatMap((file) => writerLists(tree(file)))
    expect(violations).toEqual([])
  })

  it("leaves reading a tool input's path keys to the host tool table", () => {
    const outside = allFiles.filter((file) => !file.startsWith(SESSION + sep))
    expect(outside.flatMap((file) => pathKeyReads(tree(file)))).toEqual([])
  })
})

describe("the topology checks", () => {
  const otherFile = join(SRC, "reduce", "example.ts")

  it.each([
    ['const WRITERS = new Set(["edit", "write", "multiedit"])', 1],
    ['const tools = ["Edit", "apply_patch"]', 1],
    ['const ACTIONS = ["read", "write"]', 0],
    ['const one = ["edit"]', 0],
  ])("flags a list of file-writing tools in %j", (source, count) => {
    expect(writerLists(parse(otherFile, source))).toHaveLength(count)
  })

  it.each([
    ['const file = input["filePath"] ?? input["path"]', 1],
    ["const file = input.file_path", 1],
    ['const input = { filePath: path }', 0],
    ['const file = input["path"]', 0],
  ])("flags a path-key read in %j", (source, count) => {
    expect(pathKeyReads(parse(otherFile, source))).toHaveLength(count)
  })
})

/** The `.ts` files under `dir`, sorted. */
function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .filter((name) => name.endsWith(".ts"))
    .map((name) => join(dir, name))
    .sort()
}

/** `file:line` of every string array literal naming two or more of the table's file-writing tools. */
function writerLists(root: ts.SourceFile): string[] {
  const found: string[] = []
  const visit = (node: ts.Node): void => {
    if (ts.isArrayLiteralExpression(node)) {
      const writers = new Set(node.elements.filter(ts.isStringLiteralLike).map((element) => element.text.toLowerCase()))
      if ([...writers].filter((name) => WRITER_NAMES.has(name)).length >= 2) found.push(location(root, node))
    }
    ts.forEachChild(node, visit)
  }
  visit(root)
  return found
}

/** `file:line` of every `x["filePath"]` or `x.filePath` (and `file_path`, `notebook_path`). */
function pathKeyReads(root: ts.SourceFile): string[] {
  const found: string[] = []
  const visit = (node: ts.Node): void => {
    const key = ts.isElementAccessExpression(node) && ts.isStringLiteralLike(node.argumentExpression)
      ? node.argumentExpression.text
      : ts.isPropertyAccessExpression(node)
        ? node.name.text
        : null
    if (key !== null && PATH_KEYS.has(key)) found.push(location(root, node))
    ts.forEachChild(node, visit)
  }
  visit(root)
  return found
}

function parse(file: string, source: string): ts.SourceFile {
  return ts.createSourceFile(file, source, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS)
}

function location(root: ts.SourceFile, node: ts.Node): string {
  const { line } = root.getLineAndCharacterOfPosition(node.getStart(root))
  return `${relative(SRC, root.fileName)}:${line + 1}`
}
