import type { HostPart as Part, HostToolState as ToolState } from "../../src/transcript/host-message.js"
import { describe, expect, it } from "vitest"
import { FULL_CUT_NOTE, MAX_FULL_PART_CHARS, renderFullEpisode } from "../../src/historian/episode-full.js"
import { PRUNED_TOOL_TEXT, type HostMessage } from "../../src/transcript/host-message.js"
import {
  assistantMessage,
  completed,
  failed,
  freshCopy,
  reasoning,
  running,
  syntheticText,
  text,
  tool,
  userMessage,
  type PartSpec,
} from "../helpers/host-messages.js"
import { tagMessages } from "./trace-episodes.js"

const ESC = "\u001b"

const PATCH = [
  "*** Begin Patch",
  "*** Add File: src/webhooks/retry-config.ts",
  "+export const MAX_ATTEMPTS = 6",
  '+export const SIGNATURE_HEADER = "X-Relay-Signature"',
  "*** Update File: src/webhooks/worker.ts",
  "@@ export async function deliver(job: Job) {",
  "-  await send(job)",
  '+  await withRetry(() => send(job), { attempts: MAX_ATTEMPTS, label: "deliver \\"webhook\\"" })',
  "*** End Patch",
].join("\n")

const DOC = [
  "<path>/home/dev/relay/docs/webhooks.md</path>",
  "<type>file</type>",
  "<content>",
  "1: # Webhook delivery",
  "2: Deliveries must be retried at most 6 times.",
  "",
  "(End of file - total 2 lines)",
  "</content>",
].join("\n")

const PLAN = [
  "I'll add a retry config and wrap the send.",
  "",
  "```ts",
  "export const MAX_ATTEMPTS = 6",
  "export const BACKOFF_BASE_MS = 500",
  "```",
].join("\n")

/** A file attached with @ as OpenCode 1.18 sends it: the Read call, its output, then the file part. */
function attachedFile(id: string, path: string, content: string): PartSpec {
  return (owner) => [
    { id: `${id}-call`, ...owner, type: "text", synthetic: true, text: `Called the Read tool with the following input: {"filePath":"${path}"}` },
    { id: `${id}-content`, ...owner, type: "text", synthetic: true, text: content },
    { id, ...owner, type: "file", mime: "text/plain", filename: "docs/webhooks.md", url: `file://${path}` },
  ]
}

function pruned(state: ToolState): ToolState {
  if (state.status !== "completed") throw new Error("expected a completed state")
  return { ...state, time: { ...state.time, compacted: 1_795_981_922_000 } }
}

function episode(): HostMessage[] {
  return [
    userMessage({
      id: "u1",
      parts: [
        text("u1-t", "@docs/webhooks.md add retries to the webhook worker as the spec says"),
        attachedFile("u1-f", "/home/dev/relay/docs/webhooks.md", DOC),
      ],
    }),
    assistantMessage({
      id: "a1",
      parts: [
        reasoning("a1-r", "The spec caps attempts at 6, so the config needs MAX_ATTEMPTS = 6."),
        text("a1-t", PLAN),
        tool("a1-p", "apply_patch", completed({ patchText: PATCH }, "Success. Updated the following files:\nA src/webhooks/retry-config.ts\nM src/webhooks/worker.ts")),
        tool("a1-b", "bash", failed({ command: "npm test", description: "Run the tests" }, `${ESC}[31mError: Cannot find module './retry.js'${ESC}[0m`)),
        tool("a1-g", "grep", pruned(completed({ pattern: "withRetry", path: "src" }, "src/webhooks/worker.ts:12: withRetry"))),
        tool("a1-d", "read", completed({ filePath: "/home/dev/relay/package.json" }, "<path>/home/dev/relay/package.json</path>")),
        tool("a1-s", "pty_spawn", running({ command: "npm", args: ["run", "dev"] })),
        text("a1-e", "The tests fail: retry.js is missing."),
      ],
    }),
  ]
}

function render(messages: HostMessage[], dropped: readonly string[] = []): string {
  return renderFullEpisode(messages, { tagOf: tagMessages(messages), droppedOf: (partId) => dropped.includes(partId) })
}

describe("renderFullEpisode", () => {
  it("holds the user's text under its tag", () => {
    expect(render(episode())).toContain("§1§ user: @docs/webhooks.md add retries to the webhook worker as the spec says")
  })

  it("holds an attached file: the Read call, its content and the file part", () => {
    const full = render(episode())
    expect(full).toContain('attached: Called the Read tool with the following input: {"filePath":"/home/dev/relay/docs/webhooks.md"}')
    expect(full).toContain(`attached: ${DOC}`)
    expect(full).toContain("§2§ file: docs/webhooks.md (text/plain)")
  })

  it("holds the assistant's reasoning and its text with the code block verbatim", () => {
    const full = render(episode())
    expect(full).toContain("reasoning: The spec caps attempts at 6, so the config needs MAX_ATTEMPTS = 6.")
    expect(full).toContain(`§3§ assistant: ${PLAN}`)
    expect(full).toContain("\nassistant: The tests fail: retry.js is missing.")
  })

  it("holds a patch's lines verbatim under its key, not as a JSON string", () => {
    const full = render(episode())
    expect(full).toContain(`§4§ tool apply_patch\n  patchText: ${PATCH}\n`)
    expect(full.split("\n")).toContain('+  await withRetry(() => send(job), { attempts: MAX_ATTEMPTS, label: "deliver \\"webhook\\"" })')
    expect(full).not.toContain("\\n*** Add File")
    expect(full).not.toContain('"patchText"')
  })

  it("holds outputs and errors, escape codes stripped", () => {
    const full = render(episode())
    expect(full).toContain("apply_patch output: Success. Updated the following files:\nA src/webhooks/retry-config.ts")
    expect(full).toContain("§5§ tool bash\n  command: npm test\n  description: Run the tests\nbash error: Error: Cannot find module './retry.js'")
    expect(full).not.toContain(ESC)
  })

  it("shows an output OpenCode pruned as the host's marker, as the model saw it", () => {
    const full = render(episode())
    expect(full).toContain(`§6§ tool grep\n  path: src\n  pattern: withRetry\ngrep output: ${PRUNED_TOOL_TEXT}`)
    expect(full).not.toContain("worker.ts:12: withRetry")
  })

  it("shows a dropped part as its marker", () => {
    const full = render(episode(), ["a1-d", "u1-t"])
    expect(full).toContain("§7§ [dropped read output]")
    expect(full).toContain("§1§ [dropped message]")
    expect(full).not.toContain("package.json")
    expect(full).not.toContain("add retries to the webhook worker")
  })

  it("shows an unfinished call with its input and state", () => {
    expect(render(episode())).toContain("§8§ tool pty_spawn\n  args[0]: run\n  args[1]: dev\n  command: npm\npty_spawn running")
  })

  it("leaves out ignored, empty and step parts", () => {
    const messages = [
      userMessage({ id: "u1", parts: [text("u1-t", "go"), text("u1-i", "hidden reminder", { ignored: true }), text("u1-e", "   ")] }),
      assistantMessage({
        id: "a1",
        parts: [(owner): Part => ({ id: "a1-step", ...owner, type: "step-start" }), reasoning("a1-r", ""), text("a1-t", "done")],
      }),
    ]
    expect(render(messages)).toBe("§1§ user: go\n§2§ assistant: done")
  })

  it("labels a synthetic assistant text as a note", () => {
    const messages = [assistantMessage({ id: "a1", parts: [syntheticText("a1-n", "Continue if you have next steps.")] })]
    expect(render(messages)).toContain("note: Continue if you have next steps.")
  })

  it("cuts a 10 MB part to its head and tail with the note", () => {
    const output = `HEAD-MARKER\n${"0123456789abcdef\n".repeat(620_000)}TAIL-MARKER`
    expect(output.length).toBeGreaterThan(10_000_000)
    const messages = [assistantMessage({ id: "a1", parts: [tool("a1-c", "bash", completed({ command: "cat big.log" }, output))] })]
    const started = performance.now()
    const full = render(messages)
    expect(performance.now() - started).toBeLessThan(1_000)
    expect(full.length).toBeLessThan(MAX_FULL_PART_CHARS + 200)
    expect(full).toContain("bash output: HEAD-MARKER")
    expect(full.endsWith("TAIL-MARKER")).toBe(true)
    expect(full).toContain(`[… ${output.length - MAX_FULL_PART_CHARS} ${FULL_CUT_NOTE} …]`)
  })

  it("cuts a 10 MB input value the same way", () => {
    const content = `FIRST\n${"x".repeat(10_000_000)}\nLAST`
    const messages = [assistantMessage({ id: "a1", parts: [tool("a1-w", "write", completed({ filePath: "big.txt", content }, "ok"))] })]
    const full = render(messages)
    expect(full.length).toBeLessThan(MAX_FULL_PART_CHARS + 300)
    expect(full).toContain("  content: FIRST")
    expect(full).toContain(FULL_CUT_NOTE)
    expect(full).toContain("  filePath: big.txt")
  })

  it("gives the same bytes for the same episode, and for input keys in another order", () => {
    const first = render(episode())
    expect(render(freshCopy(episode()))).toBe(first)
    const reordered = episode().map((message) => ({
      ...message,
      parts: message.parts.map((part) =>
        part.type === "tool" ? { ...part, state: { ...part.state, input: Object.fromEntries(Object.entries(part.state.input).reverse()) } } : part,
      ),
    })) as HostMessage[]
    expect(render(reordered)).toBe(first)
  })

  it("renders nothing for an episode the model was shown nothing of", () => {
    expect(render([userMessage({ id: "u1", parts: [text("u1-t", "")] })])).toBe("")
  })
})
