/**
 * Records the bundled OpenCode session fixture (`fixtures/opencode-session/session.json`): the real OpenCode binary
 * runs a three-turn session with magic-context loaded, against a scripted mock model that makes real tool calls
 * (todowrite, glob, read, bash, grep, edit) over a small scratch repository; the session is then exported with
 * `opencode export` and sanitized (the scratch path becomes /home/user/slugify-demo).
 *
 *   npx tsx scripts/record-opencode-fixture.ts        (needs `npm run build` first)
 */
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { isTitleRequest, messageText, startMockModelServer, type ChatRequest, type MockReply } from "../test/e2e/harness/mock-model-server.js"
import { createOpenCodeSandbox, REPO_ROOT } from "../test/e2e/harness/opencode-harness.js"
import { openStoreReadOnly } from "../test/e2e/harness/store-reader.js"

const SANITIZED_ROOT = "/home/user/slugify-demo"

const FILES: Record<string, string> = {
  "package.json": JSON.stringify({ name: "slugify-demo", version: "1.0.0", type: "module", scripts: { test: "node test/slugify.test.js" } }, null, 2) + "\n",
  "README.md": "# slugify-demo\n\nTurns titles into URL slugs: `slugify(\"Hello World\") === \"hello-world\"`.\n",
  "src/slugify.js": [
    "// Public API: slugify(title: string, options?: { separator?: string }): string",
    "export function slugify(title, options = {}) {",
    '  const separator = options.separator ?? "-"',
    "  return title",
    "    .trim()",
    '    .replace(/[^A-Za-z0-9]+/g, separator)',
    '    .replace(new RegExp(`^${separator}|${separator}$`, "g"), "")',
    "}",
    "",
  ].join("\n"),
  "test/slugify.test.js": [
    'import assert from "node:assert/strict"',
    'import { slugify } from "../src/slugify.js"',
    "",
    'assert.equal(slugify("Hello World"), "hello-world")',
    'assert.equal(slugify("  Many   spaces  "), "many-spaces")',
    'assert.equal(slugify("Crème brûlée"), "creme-brulee")',
    'assert.equal(slugify("a b", { separator: "_" }), "a_b")',
    'console.log("all slugify tests passed")',
    "",
  ].join("\n"),
}

function turns(project: string): MockReply[][] {
  const file = (name: string): string => join(project, name)
  const todos = (status: string) => ({
    todos: [
      { content: "Reproduce the failing slugify tests", status, priority: "high" },
      { content: "Fix slugify without changing its public API", status, priority: "high" },
    ],
  })
  return [
    [
      { kind: "tool", name: "todowrite", args: todos("in_progress") },
      { kind: "tool", name: "glob", args: { pattern: "**/*.js" } },
      { kind: "tool", name: "read", args: { filePath: file("src/slugify.js") } },
      { kind: "tool", name: "read", args: { filePath: file("test/slugify.test.js") } },
      { kind: "tool", name: "bash", args: { command: "node test/slugify.test.js", description: "Run the slugify tests" } },
      { kind: "tool", name: "grep", args: { pattern: "toLowerCase|normalize", path: file("src") } },
      {
        kind: "tool",
        name: "edit",
        args: {
          filePath: file("src/slugify.js"),
          oldString: "  return title\n    .trim()\n    .replace(/[^A-Za-z0-9]+/g, separator)",
          newString:
            '  return title\n    .normalize("NFKD")\n    .replace(/[\\u0300-\\u036f]/g, "")\n    .toLowerCase()\n    .trim()\n    .replace(/[^a-z0-9]+/g, separator)',
        },
      },
      { kind: "tool", name: "bash", args: { command: "node test/slugify.test.js", description: "Run the slugify tests again" } },
      { kind: "tool", name: "todowrite", args: todos("completed") },
      {
        kind: "text",
        text:
          "Fixed. Root cause: slugify never lower-cased its input and replaced accented letters with the separator, " +
          "so \"Hello World\" became \"Hello-World\" and \"Crème brûlée\" lost its letters. It now normalizes to NFKD, " +
          "strips combining marks and lower-cases before replacing; the public signature is unchanged. All tests pass.",
      },
    ],
    [
      { kind: "tool", name: "read", args: { filePath: file("README.md") } },
      {
        kind: "tool",
        name: "edit",
        args: {
          filePath: file("README.md"),
          oldString: '`slugify("Hello World") === "hello-world"`.\n',
          newString:
            '`slugify("Hello World") === "hello-world"`.\n\nAccented letters are folded to ASCII (NFKD, combining marks removed):\n`slugify("Crème brûlée") === "creme-brulee"`.\n',
        },
      },
      { kind: "text", text: "Added a note on Unicode handling to README.md." },
    ],
    [
      {
        kind: "text",
        text:
          "The root cause was in src/slugify.js: the input was never lower-cased and non-ASCII letters were treated as " +
          "separators. The rejected alternative was a lookup table of accented letters (it would miss characters); " +
          "NFKD normalization covers them all.",
      },
    ],
  ]
}

/** Which user turn and which step within it the request is for. */
function position(request: ChatRequest): { turn: number; step: number } {
  const authored = request.messages
    .map((message, index) => ({ message, index }))
    .filter(({ message }) => message.role === "user" && !messageText(message).startsWith("<system-reminder>"))
  const lastUser = authored[authored.length - 1]?.index ?? 0
  const step = request.messages.slice(lastUser).filter((message) => message.role === "assistant").length
  return { turn: authored.length - 1, step }
}

const mockState = { project: "" }
const mock = await startMockModelServer((request) => {
  if (isTitleRequest(request)) return { kind: "text", text: "Fix slugify for accents and case" }
  const { turn, step } = position(request)
  const reply = turns(mockState.project)[turn]?.[step]
  return reply ?? { kind: "text", text: `unscripted request (turn ${turn}, step ${step})` }
})
const sandbox = createOpenCodeSandbox({ mockUrl: mock.url, files: FILES })
mockState.project = sandbox.project
try {
  const prompts = [
    ["the", "slugify", "tests", "fail.", "Find", "out", "why", "and", "fix", "it.", "Constraint:", "do", "not", "change", "the", "public", "API", "of", "src/slugify.js"],
    ["also", "add", "a", "note", "to", "README.md", "about", "unicode", "handling"],
    ["what", "was", "the", "root", "cause", "again?"],
  ]
  for (const [index, words] of prompts.entries()) {
    const result = await sandbox.run(["run", ...(index > 0 ? ["--continue"] : []), ...words])
    if (result.exitCode !== 0) throw new Error(`turn ${index} failed:\n${result.stderr.slice(-2000)}`)
    process.stdout.write(`turn ${index}: ${result.stdout.trim().split("\n").pop()}\n`)
  }
  const db = openStoreReadOnly(sandbox.databaseFile)
  const session = db.prepare("SELECT id FROM sessions").get() as { id: string }
  db.close()
  const exported = JSON.stringify(sandbox.exportSession(session.id), null, 2)
  const sanitized = exported.split(sandbox.project).join(SANITIZED_ROOT).split(sandbox.root).join("/home/user")
  if (sanitized.includes("magic-context-e2e-")) throw new Error("sanitizing left a scratch path in the export")
  const target = join(REPO_ROOT, "fixtures", "opencode-session", "session.json")
  writeFileSync(target, `${sanitized}\n`)
  process.stdout.write(`wrote ${target} (${mock.requests.length} model requests)\n`)
} finally {
  await mock.close()
  sandbox.cleanup()
}
