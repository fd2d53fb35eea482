/**
 * Google's documented rules on the thought signatures a Gemini 3 request sends back, as a mock provider enforces them
 * (`mock-gemini-server.ts`). Read from the Gemini API's "Thought signatures" page
 * (https://ai.google.dev/gemini-api/docs/thought-signatures) and Vertex AI's
 * (https://docs.cloud.google.com/vertex-ai/generative-ai/docs/thought-signatures):
 * - a signature comes back exactly as received, in the part it came in ("pass it back exactly as received");
 * - Gemini 3 puts one on every response with a function call: on the first `functionCall` part of the response (the
 *   later calls of parallel calls carry none), and, in a response without a call, on its last part;
 * - "Strict validation is enforced on all function calls within the current turn. (Only the current turn is required;
 *   we don't validate previous turns.)": the current turn starts at the most recent user content with standard content
 *   such as `text` (a `functionResponse` does not start one), and the first `functionCall` part of each step (each
 *   model content) of the current turn must carry its signature, else HTTP 400 INVALID_ARGUMENT;
 * - the FAQ's dummy signatures (`context_engineering_is_the_way_to_go`, `skip_thought_signature_validator`) pass the
 *   validator. Newer AI SDK Google providers inject the second into a Gemini 3 function call they replay without a
 *   signature (a lost signature then shows as a dummy, not as a 400); the one OpenCode 1.18.33 runs for
 *   `@ai-sdk/google` does not (it sends `{ functionCall: { name, args }, thoughtSignature }` as it stored it).
 * Error texts as the API sends them (not in the docs; quoted from users' reports): the missing signature
 * (https://github.com/lbjlaq/Antigravity-Manager/issues/733, https://github.com/BigPizzaV3/CodexPlusPlus/issues/367:
 * the function name with the API's `default_api:` prefix, then " , position N"; what N counts is not documented, here
 * the content's index), and "Corrupted thought signature." for a signature the API cannot verify
 * (https://github.com/google-gemini/gemini-cli/issues/13467, https://github.com/charmbracelet/crush/issues/1698).
 * Besides, the API rejects function calls and responses out of turn (what a fold that cuts a step apart would send), in
 * every turn: a call's content comes right after a user content (text or responses), a response's right after a
 * call's, with one response part per call part (https://github.com/google-gemini/gemini-cli/issues/11814,
 * https://github.com/GoogleCloudPlatform/generative-ai/pull/368, https://github.com/google-gemini/gemini-cli/issues/4217).
 */

/** One part of a content, as the generateContent API has it (only the fields the rules read). */
export type GeminiPart = {
  text?: string
  thought?: boolean
  thoughtSignature?: string
  functionCall?: { id?: string; name: string; args?: unknown }
  functionResponse?: { id?: string; name: string; response?: unknown }
  inlineData?: { mimeType: string; data: string }
  fileData?: { mimeType: string; fileUri: string }
}

/** One content of `contents`: the user's (text, function responses) or the model's. */
export type GeminiContent = { role?: "user" | "model"; parts: GeminiPart[] }

/** A generateContent request body (the fields the rules and the mock read). */
export type GeminiRequest = {
  contents: GeminiContent[]
  systemInstruction?: { parts: { text: string }[] }
  tools?: { functionDeclarations?: { name: string }[] }[]
  toolConfig?: unknown
  generationConfig?: {
    maxOutputTokens?: number
    thinkingConfig?: { includeThoughts?: boolean; thinkingLevel?: string; thinkingBudget?: number }
  }
}

/** The documented dummy signatures that pass the validator (the FAQ of the thought-signatures page). */
export const DUMMY_SIGNATURES: readonly string[] = [
  "context_engineering_is_the_way_to_go",
  "skip_thought_signature_validator",
]

/** What the mock remembers of a signature it made: the request, and the call it came on (null: a text answer). */
export type MadeSignature = { request: number; call: { name: string; args: string } | null }

/**
 * How a function call's signature came back: as made on this call, a documented dummy, none, one the mock made for
 * another part, or one the mock never made.
 */
export type SignatureState = "made" | "dummy" | "missing" | "moved" | "foreign"

/** One `functionCall` part a request sent back, as checked. */
export type SentCall = {
  path: string
  /** The index of its content in `contents`. */
  content: number
  name: string
  /** Its content comes after the start of the current turn. */
  currentTurn: boolean
  /** The first `functionCall` part of its content (its step): the one that must carry the signature. */
  first: boolean
  signature: SignatureState
  /** The request that made its signature (null: not one the mock made). */
  madeBy: number | null
}

/** The verdict on one request's thought signatures. */
export type SignatureVerdict = {
  /** The index of the content that starts the current turn (-1: no user content with text). */
  turnStart: number
  calls: SentCall[]
  /** Signatures on parts other than function calls (text and thought parts), as made or not. */
  otherSignatures: { path: string; made: boolean }[]
  /** The message of a 400 over function calls and responses out of turn (`ORDER_MESSAGES`), or null. */
  orderError: string | null
  /** The message of the 400 the API answers (out of turn first, then a signature), or null when it accepts it. */
  error: string | null
}

/** A canonical JSON text of a call's arguments (keys sorted), so that a re-serialized call compares equal. */
export function canonicalArgs(value: unknown): string {
  const sorted = (field: unknown): unknown => {
    if (Array.isArray(field)) return field.map(sorted)
    if (field === null || typeof field !== "object") return field
    const copy: Record<string, unknown> = {}
    for (const key of Object.keys(field).sort()) copy[key] = sorted((field as Record<string, unknown>)[key])
    return copy
  }
  return JSON.stringify(sorted(value ?? {}))
}

/** True when a user content starts a turn: it holds standard content (text, a file), not only function responses. */
export function startsTurn(content: GeminiContent): boolean {
  if ((content.role ?? "user") !== "user") return false
  return content.parts.some((part) => part.functionResponse === undefined)
}

/** The index of the content that starts the current turn: the newest user content with standard content. */
export function currentTurnStart(request: GeminiRequest): number {
  for (let index = request.contents.length - 1; index >= 0; index -= 1) {
    if (startsTurn(request.contents[index] as GeminiContent)) return index
  }
  return -1
}

/** The API's message for the first function call of a current-turn step that came back without its signature. */
export function missingSignatureMessage(name: string, position: number): string {
  return (
    "Function call is missing a thought_signature in functionCall parts. This is required for tools to work " +
    "correctly, and missing thought_signature may lead to degraded model performance. Additional data, function " +
    `call \`default_api:${name}\` , position ${position}. Please refer to ` +
    "https://ai.google.dev/gemini-api/docs/thought-signatures for more details."
  )
}

/** The API's message for a signature it cannot verify (changed, foreign, or moved to another part). */
export const CORRUPTED_SIGNATURE_MESSAGE = "Corrupted thought signature."

/** The API's messages for function calls and responses out of turn. */
export const ORDER_MESSAGES = {
  call: "Please ensure that function call turn comes immediately after a user turn or after a function response turn.",
  response: "Please ensure that function response turn comes immediately after a function call turn.",
  count:
    "Please ensure that the number of function response parts is equal to the number of function call parts of the " +
    "function call turn.",
} as const

const countParts = (content: GeminiContent | undefined, field: "functionCall" | "functionResponse"): number =>
  (content?.parts ?? []).filter((part) => part[field] !== undefined).length

/** The first out-of-turn function call or response of `request`, as the API's message, or null. */
export function checkOrder(request: GeminiRequest): string | null {
  for (const [index, content] of request.contents.entries()) {
    const previous = index > 0 ? request.contents[index - 1] : undefined
    const afterUser = previous !== undefined && (previous.role ?? "user") === "user"
    if (content.role === "model" && countParts(content, "functionCall") > 0 && !afterUser) return ORDER_MESSAGES.call
    const responses = countParts(content, "functionResponse")
    if (responses === 0) continue
    const calls = previous?.role === "model" ? countParts(previous, "functionCall") : 0
    if (calls === 0) return ORDER_MESSAGES.response
    if (calls !== responses) return ORDER_MESSAGES.count
  }
  return null
}

/** How the signature of a function call part came back, against the signatures the mock made. */
function stateOf(
  part: GeminiPart,
  made: ReadonlyMap<string, MadeSignature>,
): { state: SignatureState; madeBy: number | null } {
  const signature = part.thoughtSignature
  if (signature === undefined || signature === "") return { state: "missing", madeBy: null }
  if (DUMMY_SIGNATURES.includes(signature)) return { state: "dummy", madeBy: null }
  const record = made.get(signature)
  if (record === undefined) return { state: "foreign", madeBy: null }
  const call = part.functionCall
  const same = record.call !== null && record.call.name === call?.name && record.call.args === canonicalArgs(call.args)
  return { state: same ? "made" : "moved", madeBy: record.request }
}

/** Checks every thought signature of `request` against the signatures the mock made (`made`, by signature). */
export function checkSignatures(request: GeminiRequest, made: ReadonlyMap<string, MadeSignature>): SignatureVerdict {
  const turnStart = currentTurnStart(request)
  const calls: SentCall[] = []
  const otherSignatures: { path: string; made: boolean }[] = []
  const orderError = checkOrder(request)
  let error: string | null = orderError
  request.contents.forEach((content, contentIndex) => {
    let first = true
    content.parts.forEach((part, partIndex) => {
      const path = `contents.${contentIndex}.parts.${partIndex}`
      if (part.functionCall === undefined) {
        if (part.thoughtSignature !== undefined) otherSignatures.push({ path, made: made.has(part.thoughtSignature) })
        return
      }
      const { state, madeBy } = stateOf(part, made)
      const currentTurn = content.role === "model" && contentIndex > turnStart
      const name = part.functionCall.name
      calls.push({ path, content: contentIndex, name, currentTurn, first, signature: state, madeBy })
      if (currentTurn && first && error === null) {
        if (state === "missing") error = missingSignatureMessage(name, contentIndex)
        else if (state === "foreign" || state === "moved") error = CORRUPTED_SIGNATURE_MESSAGE
      }
      first = false
    })
  })
  return { turnStart, calls, otherSignatures, orderError, error }
}
