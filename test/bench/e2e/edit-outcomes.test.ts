import { describe, expect, it } from "vitest"
import { countFailedEdits } from "../../../bench/e2e/edit-outcomes.js"

const call = (id: string, name: string) => ({
  role: "assistant",
  content: "",
  tool_calls: [{ id, function: { name } }],
})
const result = (id: string, content: string) => ({ role: "tool", tool_call_id: id, content })

describe("countFailedEdits", () => {
  it("judges each edit and write by its first result, tags and later placeholders aside", () => {
    const first = [call("c1", "edit"), result("c1", "§4§ Edit applied successfully."), call("c2", "write")]
    const second = [
      call("c1", "edit"),
      result("c1", "[pruned]"),
      call("c2", "write"),
      result("c2", "Wrote file successfully."),
      call("c3", "edit"),
      result("c3", "Could not find oldString in the file."),
      call("c4", "read"),
      result("c4", "<path>a.txt</path>"),
    ]
    expect(countFailedEdits([{ messages: first }, { messages: second }])).toEqual({ calls: 3, failed: 1 })
  })
})
