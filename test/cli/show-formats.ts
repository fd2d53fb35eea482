import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { REPO_ROOT } from "../e2e/harness/opencode-harness.js"
import { samplePath, tracePath } from "../transcript/trace-path.js"

/** One bundled transcript of every format the importers read, with a window it crosses where it is long enough to. */
export type FormatSample = { format: string; args: string[]; folds: boolean }

/**
 * The samples `show` and `show --html` are tested on. Pi's is the first 80 records of a bundled Pi session (a session's
 * beginning is a session, and replays fast), written into `dir`.
 */
export function formatSamples(dir: string): FormatSample[] {
  const pi = readFileSync(join(REPO_ROOT, "fixtures/synthetic/pi-kvgate-watch.jsonl"), "utf8").split("\n")
  const piPrefix = join(dir, "pi-kvgate-watch-80.jsonl")
  writeFileSync(piPrefix, `${pi.slice(0, 80).join("\n")}\n`)
  return [
    { format: "opencode-export", args: [join(REPO_ROOT, "fixtures/opencode-session/session.json")], folds: false },
    { format: "pi", args: [piPrefix, "--window", "8000"], folds: true },
    { format: "claude-code", args: [samplePath("claudecode-queued-messages.jsonl")], folds: false },
    { format: "openhands", args: [`${tracePath("openhands-llama4-ponyc.jsonl")}#0`, "--window", "16000"], folds: true },
    { format: "swe-agent", args: [tracePath("sweagent-gpt4-pydicom-1458.traj"), "--window", "8000"], folds: true },
  ]
}
