import { describe, expect, it } from "vitest"
import {
  GENERIC_TOOL,
  HOST_TOOL_ROW_NAMES,
  HOST_TOOLS,
  hostTool,
  toolPatch,
  toolPath,
  readKeep,
  toolPaths,
  withoutFraming,
  type HostToolRow,
} from "../../src/session/host-tools.js"

/** One realistic call of a host tool: the name the host gives it, its input as the host records it, the paths it names. */
type Call = { host: string; tool: string; input: Record<string, unknown>; paths: string[] }

const OPENCODE_PATCH = [
  "*** Begin Patch",
  "*** Add File: src/billing/invoice-config.ts",
  "+export const INVOICE_DUE_DAYS = 14",
  "*** Update File: src/billing/invoice.ts",
  "@@ export function dueDate(issued: Date): Date {",
  "-  return addDays(issued, 30)",
  "+  return addDays(issued, INVOICE_DUE_DAYS)",
  "*** End Patch",
].join("\n")

/**
 * Every row of HOST_TOOLS and the generic row, with calls as each host records them (the input key names are the
 * host's own). The coverage test below fails when a row has no entry here.
 */
const CALLS: Record<string, Call[]> = {
  "tool:read": [
    { host: "OpenCode", tool: "read", input: { filePath: "/home/dev/billing/src/invoice.ts", offset: 40, limit: 80 }, paths: ["/home/dev/billing/src/invoice.ts"] },
    { host: "Claude Code", tool: "Read", input: { file_path: "/repo/docs/retention-policy.md" }, paths: ["/repo/docs/retention-policy.md"] },
    { host: "Pi", tool: "read", input: { path: "packages/core/src/queue.ts", offset: 1, limit: 200 }, paths: ["packages/core/src/queue.ts"] },
    { host: "OpenHands", tool: "read", input: { path: "/workspace/app/parser.c", start: 0, end: -1, thought: "look at the parser" }, paths: ["/workspace/app/parser.c"] },
    { host: "SWE-agent", tool: "open", input: { command: "open src/pkg/reader.py 120" }, paths: [] },
    { host: "generic viewer", tool: "view", input: { path: "README.md" }, paths: ["README.md"] },
    { host: "shell-like", tool: "cat", input: { file: "Makefile" }, paths: ["Makefile"] },
  ],
  "tool:list": [
    { host: "OpenCode", tool: "list", input: { path: "/home/dev/billing/src", ignore: ["dist/"] }, paths: ["/home/dev/billing/src"] },
    { host: "Claude Code", tool: "LS", input: { path: "/repo/packages" }, paths: ["/repo/packages"] },
    { host: "Pi", tool: "ls", input: { path: "src/routes" }, paths: ["src/routes"] },
  ],
  "tool:write": [
    { host: "OpenCode", tool: "write", input: { filePath: "/home/dev/billing/.env.example", content: "INVOICE_DUE_DAYS=14\n" }, paths: ["/home/dev/billing/.env.example"] },
    { host: "Claude Code", tool: "Write", input: { file_path: "/repo/scripts/seed.ts", content: "export {}\n" }, paths: ["/repo/scripts/seed.ts"] },
    { host: "Claude Code", tool: "NotebookEdit", input: { notebook_path: "/repo/analysis/churn.ipynb", cell_id: "c4", new_source: "df.head()" }, paths: ["/repo/analysis/churn.ipynb"] },
    { host: "Pi", tool: "write", input: { path: "config/limits.yaml", content: "max_batch: 50\n" }, paths: ["config/limits.yaml"] },
    { host: "SWE-agent", tool: "create", input: { command: "create reproduce_bug.py" }, paths: [] },
  ],
  "tool:edit": [
    {
      host: "OpenCode",
      tool: "edit",
      input: { filePath: "/home/dev/billing/src/invoice.ts", oldString: "addDays(issued, 30)", newString: "addDays(issued, 14)", replaceAll: false },
      paths: ["/home/dev/billing/src/invoice.ts"],
    },
    {
      host: "OpenCode",
      tool: "multiedit",
      input: {
        filePath: "/home/dev/billing/src/tax.ts",
        edits: [
          { filePath: "/home/dev/billing/src/tax.ts", oldString: "0.19", newString: "VAT_RATE" },
          { filePath: "/home/dev/billing/src/tax.ts", oldString: "round(x)", newString: "roundHalfEven(x)" },
        ],
      },
      paths: ["/home/dev/billing/src/tax.ts"],
    },
    {
      host: "Claude Code",
      tool: "Edit",
      input: { file_path: "/repo/src/auth/session.ts", old_string: "ttl: 3600", new_string: "ttl: 900" },
      paths: ["/repo/src/auth/session.ts"],
    },
    {
      host: "Claude Code",
      tool: "MultiEdit",
      input: { file_path: "/repo/src/auth/session.ts", edits: [{ old_string: "ttl: 900", new_string: "ttl: 600" }] },
      paths: ["/repo/src/auth/session.ts"],
    },
    { host: "Pi", tool: "edit", input: { path: "src/queue.ts", oldText: "retries = 3", newText: "retries = 5" }, paths: ["src/queue.ts"] },
    {
      host: "OpenHands",
      tool: "str_replace_editor",
      input: { command: "str_replace", path: "/workspace/app/lexer.c", old_str: "TK_NONE", new_str: "TK_ID" },
      paths: ["/workspace/app/lexer.c"],
    },
    { host: "SWE-agent", tool: "edit", input: { command: "edit 287:296\n    return value\nend_of_edit" }, paths: [] },
  ],
  "tool:apply_patch": [
    {
      host: "OpenCode (GPT models)",
      tool: "apply_patch",
      input: { patchText: OPENCODE_PATCH },
      paths: ["src/billing/invoice-config.ts", "src/billing/invoice.ts"],
    },
    {
      host: "OpenCode (older patch tool)",
      tool: "patch",
      input: { patchText: "*** Begin Patch\n*** Delete File: src/legacy/invoice-v1.ts\n*** End Patch" },
      paths: ["src/legacy/invoice-v1.ts"],
    },
  ],
  "tool:shell": [
    { host: "OpenCode", tool: "bash", input: { command: "npm test -- invoice", description: "Run the invoice tests" }, paths: [] },
    { host: "Claude Code", tool: "Bash", input: { command: "git status --short", description: "Show changed files" }, paths: [] },
    { host: "Pi", tool: "bash", input: { command: "cargo check", timeout: 120 }, paths: [] },
    { host: "OpenHands", tool: "execute_bash", input: { command: "make -C build -j2", is_input: "false" }, paths: [] },
    { host: "OpenHands (event stream)", tool: "run", input: { command: "ls -l /workspace/app", is_input: false }, paths: [] },
    { host: "other agents", tool: "shell", input: { command: ["bash", "-lc", "pytest -q"] }, paths: [] },
  ],
  "tool:search": [
    { host: "OpenCode", tool: "grep", input: { pattern: "INVOICE_DUE_DAYS", path: "/home/dev/billing/src", include: "*.ts" }, paths: ["/home/dev/billing/src"] },
    { host: "OpenCode", tool: "glob", input: { pattern: "**/*.test.ts", path: "/home/dev/billing" }, paths: ["/home/dev/billing"] },
    { host: "OpenCode", tool: "codesearch", input: { query: "stripe webhook signature verification express", tokensNum: 5000 }, paths: [] },
    { host: "Claude Code", tool: "Grep", input: { pattern: "retryDelivery", path: "/repo/src", output_mode: "content" }, paths: ["/repo/src"] },
    { host: "Pi", tool: "find", input: { pattern: "*.sql", path: "migrations" }, paths: ["migrations"] },
    { host: "SWE-agent", tool: "search_dir", input: { command: "search_dir PixelRepresentation src" }, paths: [] },
    { host: "SWE-agent", tool: "find_file", input: { command: "find_file reader.py" }, paths: [] },
  ],
  "tool:webfetch": [
    { host: "OpenCode", tool: "webfetch", input: { url: "https://docs.example.dev/queues/retries", format: "markdown" }, paths: [] },
    { host: "Claude Code", tool: "WebFetch", input: { url: "https://docs.example.dev/queues/limits", prompt: "What is the default visibility timeout?" }, paths: [] },
  ],
  "tool:websearch": [
    { host: "OpenCode", tool: "websearch", input: { query: "postgres advisory lock timeout default", numResults: 8 }, paths: [] },
    { host: "Claude Code", tool: "WebSearch", input: { query: "vitest fake timers nextTick" }, paths: [] },
  ],
  "tool:todo": [
    {
      host: "OpenCode",
      tool: "todowrite",
      input: { todos: [{ id: "1", content: "Add the invoice due-date setting", status: "in_progress", priority: "high" }] },
      paths: [],
    },
    { host: "OpenCode", tool: "todoread", input: {}, paths: [] },
    { host: "Claude Code", tool: "TodoWrite", input: { todos: [{ content: "Write the migration", status: "pending", activeForm: "Writing" }] }, paths: [] },
  ],
  "tool:task": [
    {
      host: "OpenCode",
      tool: "task",
      input: { description: "Find the retry code", prompt: "Locate where webhook deliveries are retried", subagent_type: "explore" },
      paths: [],
    },
    { host: "Claude Code", tool: "Task", input: { description: "Audit logging", prompt: "List every console.log", subagent_type: "general-purpose" }, paths: [] },
    { host: "Claude Code", tool: "TaskOutput", input: { task_id: "task_81" }, paths: [] },
    { host: "Claude Code", tool: "Agent", input: { description: "Review", prompt: "Review the diff" }, paths: [] },
  ],
  "tool:skill": [{ host: "OpenCode", tool: "skill", input: { name: "release-checklist" }, paths: [] }],
  "tool:question": [
    {
      host: "OpenCode",
      tool: "question",
      input: { questions: [{ question: "Which queue backend?", header: "Backend", options: [{ label: "SQS" }, { label: "Redis" }] }] },
      paths: [],
    },
    { host: "Claude Code", tool: "AskUserQuestion", input: { questions: [{ question: "Keep the v1 endpoint?", options: [] }] }, paths: [] },
  ],
  "tool:lsp": [
    { host: "OpenCode", tool: "lsp", input: { operation: "diagnostics", filePath: "/home/dev/billing/src/tax.ts", line: 12, character: 4 }, paths: ["/home/dev/billing/src/tax.ts"] },
    { host: "plugins", tool: "lsp_diagnostics", input: { path: "src/tax.ts" }, paths: ["src/tax.ts"] },
    { host: "plugins", tool: "lsp_hover", input: { filePath: "src/tax.ts", line: 3, character: 9 }, paths: ["src/tax.ts"] },
  ],
  "tool:context": [
    { host: "magic-context", tool: "ctx_reduce", input: { drop: "3-5,8" }, paths: [] },
    { host: "magic-context", tool: "ctx_expand", input: { target: "c12" }, paths: [] },
    { host: "magic-context", tool: "ctx_pin", input: { tags: "12,15" }, paths: [] },
  ],
  "tool:navigate": [
    { host: "SWE-agent", tool: "goto", input: { command: "goto 310" }, paths: [] },
    { host: "SWE-agent", tool: "scroll_down", input: { command: "scroll_down" }, paths: [] },
    { host: "SWE-agent", tool: "scroll_up", input: { command: "scroll_up" }, paths: [] },
  ],
  "tool:think": [
    { host: "OpenHands", tool: "think", input: { thought: "The tuple case is never matched." }, paths: [] },
  ],
  "tool:pty": [
    { host: "opencode-pty", tool: "pty_spawn", input: { command: "npm", args: ["run", "dev"], workdir: "/home/dev/billing", description: "Start the dev server" }, paths: [] },
    { host: "opencode-pty", tool: "pty_read", input: { id: "pty_3f9c2a1b", offset: 0, limit: 200 }, paths: [] },
    { host: "opencode-pty", tool: "pty_write", input: { id: "pty_3f9c2a1b", data: "\u0003" }, paths: [] },
    { host: "opencode-pty", tool: "pty_kill", input: { id: "pty_3f9c2a1b", cleanup: true }, paths: [] },
  ],
  "tool:mcp": [
    { host: "MCP context7", tool: "context7_resolve-library-id", input: { libraryName: "drizzle-orm" }, paths: [] },
    { host: "MCP context7", tool: "context7_get-library-docs", input: { context7CompatibleLibraryID: "/drizzle-team/drizzle-orm", topic: "migrations" }, paths: [] },
    { host: "MCP linear", tool: "linear_create_issue", input: { title: "Retry webhooks with backoff", teamId: "PLAT" }, paths: [] },
    { host: "MCP github", tool: "github_get_file_contents", input: { owner: "acme", repo: "billing", path: "src/tax.ts" }, paths: ["src/tax.ts"] },
  ],
  "tool:generic": [
    { host: "OpenHands", tool: "finish", input: { final_thought: "Fixed the parser.", task_completed: "true" }, paths: [] },
    { host: "SWE-agent", tool: "submit", input: { command: "submit" }, paths: [] },
    { host: "Claude Code", tool: "ExitPlanMode", input: { plan: "1. add the setting\n2. test it" }, paths: [] },
    { host: "unknown", tool: "deploy", input: { file: "infra/stack.yaml" }, paths: ["infra/stack.yaml"] },
  ],
}

/** What each row says its tools do, in table order. */
const ROW_PROPERTIES = [
  ["tool:read", { writes: false, readOnly: true, shell: false, patch: false, category: "navigation", keep: "document" }],
  ["tool:list", { writes: false, readOnly: true, shell: false, patch: false, category: "navigation", keep: "search" }],
  ["tool:write", { writes: true, readOnly: false, shell: false, patch: false, category: "edit", keep: "edit" }],
  ["tool:edit", { writes: true, readOnly: false, shell: false, patch: false, category: "edit", keep: "edit" }],
  ["tool:apply_patch", { writes: true, readOnly: false, shell: false, patch: true, category: "edit", keep: "edit" }],
  ["tool:shell", { writes: false, readOnly: false, shell: true, patch: false, category: null, keep: "command" }],
  ["tool:search", { writes: false, readOnly: true, shell: false, patch: false, category: "search", keep: "search" }],
  ["tool:webfetch", { writes: false, readOnly: true, shell: false, patch: false, category: null, keep: "document" }],
  ["tool:websearch", { writes: false, readOnly: true, shell: false, patch: false, category: "search", keep: "search" }],
  ["tool:todo", { writes: false, readOnly: true, shell: false, patch: false, category: null, keep: "none" }],
  ["tool:task", { writes: false, readOnly: true, shell: false, patch: false, category: null, keep: "document" }],
  ["tool:skill", { writes: false, readOnly: true, shell: false, patch: false, category: null, keep: "document" }],
  ["tool:question", { writes: false, readOnly: true, shell: false, patch: false, category: null, keep: "document" }],
  ["tool:lsp", { writes: false, readOnly: true, shell: false, patch: false, category: null, keep: "command" }],
  ["tool:context", { writes: false, readOnly: true, shell: false, patch: false, category: null, keep: "none" }],
  ["tool:navigate", { writes: false, readOnly: true, shell: false, patch: false, category: "navigation", keep: "generic" }],
  ["tool:think", { writes: false, readOnly: true, shell: false, patch: false, category: null, keep: "generic" }],
  ["tool:pty", { writes: false, readOnly: false, shell: true, patch: false, category: null, keep: "command" }],
  ["tool:mcp", { writes: false, readOnly: false, shell: false, patch: false, category: null, keep: "generic" }],
  ["tool:generic", { writes: false, readOnly: false, shell: false, patch: false, category: null, keep: "generic" }],
] as const

const ROWS: readonly HostToolRow[] = [...HOST_TOOLS, GENERIC_TOOL]
const CASES = Object.entries(CALLS).flatMap(([row, calls]) => calls.map((call) => ({ row, ...call })))

describe("HOST_TOOLS", () => {
  it("has realistic calls above for every row and the generic row, and for no row that does not exist", () => {
    expect(Object.keys(CALLS).sort()).toEqual([...HOST_TOOL_ROW_NAMES].sort())
    for (const entry of ROWS) expect(CALLS[entry.name]?.length ?? 0, entry.name).toBeGreaterThan(0)
  })

  it("names every row `tool:<name>` once and lists each tool name in one row only", () => {
    const names = ROWS.map((entry) => entry.name)
    expect(new Set(names).size).toBe(names.length)
    for (const name of names) expect(name).toMatch(/^tool:[a-z_]+$/)
    const listed = HOST_TOOLS.flatMap((entry) => entry.tools.filter((tool) => tool !== ""))
    expect(new Set(listed).size).toBe(listed.length)
    for (const tool of listed) expect(tool).toBe(tool.toLowerCase())
  })

  it.each(HOST_TOOLS.flatMap((entry) => entry.tools.filter((tool) => tool !== "").map((tool) => [tool, entry.name])))(
    "gives the tool %s its row %s",
    (tool, row) => {
      expect(hostTool(tool).name).toBe(row)
    },
  )

  it.each(ROW_PROPERTIES)("row %s says what the tool does", (name, fields) => {
    const entry = ROWS.find((candidate) => candidate.name === name)
    expect(entry).toMatchObject(fields)
    expect(entry?.reason.length ?? 0).toBeGreaterThan(10)
  })

  it("has a property row above for every row of the table (20 with the generic row)", () => {
    expect(ROW_PROPERTIES.map(([name]) => name)).toEqual([...HOST_TOOL_ROW_NAMES])
    expect(ROWS).toHaveLength(20)
  })
})

describe("hostTool", () => {
  it.each(CASES.map((call) => [call.host, call.tool, call.row] as const))("gives %s's %s the row %s", (_, tool, row) => {
    expect(hostTool(tool).name).toBe(row)
  })

  it("reads names in any case (Claude Code spells its tools in PascalCase)", () => {
    expect(hostTool("MultiEdit")).toBe(hostTool("multiedit"))
    expect(hostTool("NOTEBOOKEDIT").name).toBe("tool:write")
    expect(hostTool("Linear_Create_Issue").name).toBe("tool:mcp")
  })

  it("tries exact names before shapes: a listed name with an underscore is not an MCP tool", () => {
    expect(hostTool("execute_bash").name).toBe("tool:shell")
    expect(hostTool("lsp_diagnostics").name).toBe("tool:lsp")
    expect(hostTool("ctx_reduce").name).toBe("tool:context")
    expect(hostTool("apply_patch").name).toBe("tool:apply_patch")
    expect(hostTool("web_search").name).toBe("tool:websearch")
    expect(hostTool("pty_list").name).toBe("tool:pty")
  })

  it("gives a name with no server prefix, or one that is not a name at all, the generic row", () => {
    expect(hostTool("")).toBe(GENERIC_TOOL)
    expect(hostTool("_private")).toBe(GENERIC_TOOL)
    expect(hostTool("server_")).toBe(GENERIC_TOOL)
    expect(hostTool("my tool")).toBe(GENERIC_TOOL)
  })

  it("falls back to the generic row when the tool's row is switched off, and only then", () => {
    const without = (...rows: string[]) => (name: string) => !rows.includes(name)
    expect(hostTool("bash", without("tool:shell"))).toBe(GENERIC_TOOL)
    expect(hostTool("apply_patch", without("tool:apply_patch"))).toBe(GENERIC_TOOL)
    expect(hostTool("pty_read", without("tool:pty"))).toBe(GENERIC_TOOL)
    expect(hostTool("linear_create_issue", without("tool:mcp"))).toBe(GENERIC_TOOL)
    expect(hostTool("bash", without("tool:read", "tool:mcp")).name).toBe("tool:shell")
    expect(hostTool("pty_read", without("tool:mcp")).name).toBe("tool:pty")
  })

  it("strips the pty plugin's framing from its output and leaves every other tool's output whole", () => {
    const spawned = "<pty_spawned>\nID: pty_5c2e9a71\nTitle: Run the migrations\nCommand: npm run migrate\nPID: 51234\nStatus: running\n</pty_spawned>"
    expect(withoutFraming(hostTool("pty_spawn"), spawned)).toBe("ID: pty_5c2e9a71")
    const buffer = '<pty_output id="pty_5c2e9a71" status="exited">\n00001| Error: boom\n\n(End of buffer - total 1 lines)\n</pty_output>'
    expect(withoutFraming(hostTool("pty_read"), buffer)).toBe("00001| Error: boom\n")
    // Other rows name no framing: a shell's output is kept whole.
    expect(withoutFraming(hostTool("bash"), "Status: running\n</pty_output>")).toBe("Status: running\n</pty_output>")
  })

  it("reads a source file the agent read as code, any other read file as a document", () => {
    const read = hostTool("read")
    expect(readKeep(read, "lib/billing/retry.ex")).toBe("code")
    expect(readKeep(read, "src/App.TSX")).toBe("code")
    expect(readKeep(read, "docs/limits.md")).toBe("document")
    expect(readKeep(read, "config/app.yaml")).toBe("document")
    expect(readKeep(read, "Makefile")).toBe("document")
    expect(readKeep(read, null)).toBe("document")
    expect(readKeep(hostTool("bash"), "lib/billing/retry.ex")).toBe("command")
  })

  it("asks `enabled` about row names, never tool names", () => {
    const asked: string[] = []
    hostTool("Read", (name) => {
      asked.push(name)
      return true
    })
    hostTool("context7_resolve-library-id", (name) => {
      asked.push(name)
      return true
    })
    expect(asked).toEqual(["tool:read", "tool:mcp"])
  })
})

describe("toolPaths", () => {
  it.each(CASES.map((call) => [call.host, call.tool, call.input, call.paths] as const))(
    "reads the paths of %s's %s",
    (_, tool, input, paths) => {
      expect(toolPaths(tool, input)).toEqual(paths)
    },
  )

  it("names an OpenCode multiedit's file once, and inner files it has not named yet after it", () => {
    const input = {
      filePath: "src/a.ts",
      edits: [
        { filePath: "src/a.ts", oldString: "x", newString: "y" },
        { filePath: "src/b.ts", oldString: "x", newString: "y" },
        null,
        "not an edit",
      ],
    }
    expect(toolPaths("multiedit", input)).toEqual(["src/a.ts", "src/b.ts"])
  })

  it("skips blank and non-string values (OpenHands records `file_text: null`)", () => {
    expect(toolPaths("edit", { path: "  ", filePath: null, file_path: 42, notebook_path: "nb.ipynb" })).toEqual(["nb.ipynb"])
  })

  it("reads every file of a patch in patch order, a moved file under its new name", () => {
    const patchText = [
      "*** Begin Patch",
      "*** Update File: src/old-name.ts",
      "*** Move to: src/new-name.ts",
      "@@",
      "-a",
      "+b",
      "*** Delete File: src/unused.ts",
      "*** Add File: src/added.ts",
      "+export {}",
      "*** End Patch",
    ].join("\n")
    expect(toolPaths("apply_patch", { patchText })).toEqual(["src/new-name.ts", "src/unused.ts", "src/added.ts"])
  })

  it("reads a unified diff given as `patch` or `diff`", () => {
    const diff = "--- a/lib/retry.js\n+++ b/lib/retry.js\n@@ -1,2 +1,2 @@\n-const MAX = 3\n+const MAX = 5\n"
    expect(toolPaths("patch", { patch: diff })).toEqual(["lib/retry.js"])
    expect(toolPaths("apply_patch", { diff })).toEqual(["lib/retry.js"])
  })

  it("reads no patch when the patch row is switched off (the generic row has no patch)", () => {
    const enabled = (name: string): boolean => name !== "tool:apply_patch"
    expect(toolPaths("apply_patch", { patchText: OPENCODE_PATCH }, enabled)).toEqual([])
    expect(toolPaths("apply_patch", { patchText: OPENCODE_PATCH })).toHaveLength(2)
  })

  it("reads a patch text only for patch tools", () => {
    expect(toolPaths("bash", { command: "git apply", patchText: OPENCODE_PATCH })).toEqual([])
  })
})

describe("toolPatch", () => {
  it("returns the files and lines of a patch tool's input, and nothing for other rows or inputs", () => {
    const files = toolPatch(hostTool("apply_patch"), { patchText: OPENCODE_PATCH })
    expect(files).toEqual([
      { path: "src/billing/invoice-config.ts", operation: "add", added: ["export const INVOICE_DUE_DAYS = 14"], removed: [] },
      {
        path: "src/billing/invoice.ts",
        operation: "update",
        added: ["  return addDays(issued, INVOICE_DUE_DAYS)"],
        removed: ["  return addDays(issued, 30)"],
      },
    ])
    expect(toolPatch(hostTool("edit"), { patchText: OPENCODE_PATCH })).toEqual([])
    expect(toolPatch(hostTool("apply_patch"), { patchText: 42 })).toEqual([])
    expect(toolPatch(hostTool("apply_patch"), {})).toEqual([])
  })
})

describe("toolPath", () => {
  it("returns the first path a call names, or null", () => {
    expect(toolPath("apply_patch", { patchText: OPENCODE_PATCH })).toBe("src/billing/invoice-config.ts")
    expect(toolPath("Edit", { file_path: "/repo/a.ts", old_string: "a", new_string: "b" })).toBe("/repo/a.ts")
    expect(toolPath("bash", { command: "ls" })).toBeNull()
  })
})
