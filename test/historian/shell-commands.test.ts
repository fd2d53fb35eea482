import { describe, expect, it } from "vitest"
import { isDocumentCommand } from "../../src/historian/shell-commands.js"

describe("isDocumentCommand", () => {
  it.each([
    "curl -sL https://docs.example.test/cli/reference.md",
    "curl -s https://docs.example.test/guide | head -300",
    "wget -qO- https://docs.example.test/guide",
    "cd /srv/app && cat docs/design/retention.md 2>&1",
    "head -120 NOTES.txt",
    "man rsync",
    "deployctl rollout --help",
    "deployctl help rollout",
  ])("reads %s as printing a document", (command) => {
    expect(isDocumentCommand(command)).toBe(true)
  })

  it.each([
    "curl -o page.html https://docs.example.test/guide",
    'curl -s https://api.example.test/v1/items -H "Authorization: Bearer $T"',
    "curl -s 'https://api.example.test/v1/items?page=2'",
    "curl -X POST https://api.example.test/v1/items",
    "curl -s https://api.example.test/v1/items | jq .",
    "wget https://example.test/release.tgz",
    "curl -s localhost:8080/health",
    "cat src/main.rs",
    "git status",
    "cargo test",
  ])("reads %s as a command's own output", (command) => {
    expect(isDocumentCommand(command)).toBe(false)
  })
})
