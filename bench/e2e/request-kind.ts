import { isHistorianRequest } from "../../test/e2e/harness/history-inspection.js"
import { isTitleRequest, type ChatRequest } from "../../test/e2e/harness/mock-model-server.js"
import { isCompactionRequest } from "../../test/e2e/harness/prompt-inspection.js"

/**
 * What a request to the mock is for. Only `main` requests (the session's own steps) advance the script and are
 * measured; the others are answered on the side so they never consume a scripted step.
 */
export type RequestKind = "main" | "title" | "compaction" | "historian" | "other"

/** Classifies a request by the markers OpenCode and magic-context put in it (the e2e harness's detectors). */
export function classifyRequest(request: ChatRequest): RequestKind {
  if (isTitleRequest(request)) return "title"
  if (isCompactionRequest(request)) return "compaction"
  if (isHistorianRequest(request)) return "historian"
  // A session step always offers tools; anything else without them is some other side request.
  if ((request.tools ?? []).length === 0) return "other"
  return "main"
}
