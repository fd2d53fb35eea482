import { createHash } from "node:crypto"

/**
 * OpenAI's rules on the reasoning items a Responses API request sends back in `input`, as a mock provider enforces
 * them (`mock-openai-responses-server.ts`). Each rule names where it is written down.
 *
 * - A reasoning item goes back in `input` on later turns when the caller manages the context. Without server storage
 *   (`store: false`) it travels as `encrypted_content`, asked for with `include: ["reasoning.encrypted_content"]` and
 *   taken from `response.output_item.done` (the copy in `response.output_item.added` may be incomplete).
 *   https://cookbook.openai.com/examples/responses_api/reasoning_items
 *   https://docs.rs/crate/openai-client-base/0.16.0/source/src/models/reasoning_item.rs (the OpenAPI spec's text)
 *   https://v03.api.js.langchain.com/interfaces/_langchain_openai.OpenAIClient.Responses.ResponseReasoningItem-1.html
 * - "you can discard older reasoning items unless you're responding to a function call, in which case you must include
 *   all reasoning items between the function call and the last user message": the reasoning guide's "preserve
 *   reasoning across calls", linked from the keep-prefix-unchanged page below and quoted on the forum (the guide
 *   itself was not retrievable). The API can tell such a gap only where the call names its item (its `fc_` id);
 *   elsewhere the model silently goes without that reasoning.
 *   https://developers.openai.com/api/docs/guides/reasoning?api-mode=responses#preserve-reasoning-across-calls
 *   https://community.openai.com/t/limiting-maximum-number-of-reasoning-tokens/1285430/2
 * - The pairing errors, 400 `invalid_request_error` with `param: "input"` and `code: null`, as the real API answers:
 *   `Item 'fc_…' of type 'function_call' was provided without its required 'reasoning' item: 'rs_…'.` and the same
 *   for an assistant `message` (`msg_…`), and
 *   `Item 'rs_…' of type 'reasoning' was provided without its required following item.` (a reasoning item whose call
 *   was dropped; a reasoning item with its id followed by a message without one). The pairing is by item id: a call
 *   replayed without its `fc_` id keeps only its `call_id`. Without storage a reasoning item standing alone is invalid.
 *   https://github.com/continuedev/continue/issues/10018
 *   https://github.com/cline/cline/issues/12242
 *   https://github.com/continuedev/continue/issues/12620
 *   https://github.com/mastra-ai/mastra/issues/22291
 *   https://github.com/continuedev/continue/issues/8933
 *   https://github.com/vercel/ai/issues/7099
 *   https://github.com/openai/openai-agents-python/pull/3207
 *   https://github.com/openai/openai-node/issues/1567
 *   https://github.com/laravel/ai/pull/1052
 *   https://github.com/microsoft/agent-framework/pull/6139
 * - `encrypted_content` comes back byte-identical, or the API answers 400
 *   `The encrypted content gAAA...DQ== could not be verified.` (`code: "invalid_encrypted_content"`, `param: null`).
 *   https://github.com/openai/codex/issues/8145
 * - Under `store: false` an id is all the API has to go on and it stored nothing:
 *   ``Item with id 'rs_…' not found. Items are not persisted when `store` is set to false. ...``
 *   https://community.openai.com/t/requests-api-does-not-support-manual-context-management/1269225
 * - Newer frontier models drop, silently, the reasoning items that follow a prefix change (an edited, shortened or
 *   summarized earlier item, changed `tools` or `instructions`): no error, the model redoes its reasoning. Reported
 *   (`prefixOk`), never answered with an error.
 *   https://developers.openai.com/api/docs/guides/keep-prefix-unchanged
 *   https://developers.openai.com/api/docs/guides/preserved-reasoning
 *
 * What the docs leave open is read strictly and said so: a reasoning item sent without its id must still be followed
 * by an item of the model's own output (a function call or an assistant message); `paired` records whether that item
 * is the very one made with it, `nextIntact` whether it came back unchanged (neither is an error by itself).
 */

/** A message: the user's, the system's or developer's, or an earlier assistant answer (`type` may be left out). */
export type ResponsesMessage = {
  type?: "message"
  role: "user" | "assistant" | "system" | "developer"
  content: string | { type: string; text?: string }[]
  id?: string
  status?: string
  phase?: string
}

/** A reasoning item as sent back: with its id, its encrypted content, or both. */
export type ResponsesReasoning = {
  type: "reasoning"
  id?: string
  encrypted_content?: string | null
  summary?: { type: "summary_text"; text: string }[]
}

/** A function call the model made (`id` is its `fc_` item id, `call_id` what its output pairs on). */
export type ResponsesFunctionCall = {
  type: "function_call"
  id?: string
  call_id: string
  name: string
  arguments: string
  status?: string
}

export type ResponsesFunctionCallOutput = { type: "function_call_output"; call_id: string; output: unknown }

/** A stored item named by id (only with `store: true`). */
export type ResponsesItemReference = { type: "item_reference"; id: string }

export type ResponsesItem =
  ResponsesMessage | ResponsesReasoning | ResponsesFunctionCall | ResponsesFunctionCallOutput | ResponsesItemReference

/** The fields of a `POST /v1/responses` body the rules and the mock read. */
export type ResponsesRequest = {
  model: string
  input: ResponsesItem[]
  instructions?: string | null
  tools?: { type: string; name?: string }[]
  store?: boolean | null
  include?: string[] | null
  reasoning?: { effort?: string | null; summary?: string | null } | null
  previous_response_id?: string | null
  stream?: boolean
}

/** What the mock remembers of a reasoning item it made, and of the item it made right after it. */
export type MadeReasoning = {
  /** Its `rs_` id. */
  id: string
  /** The request that made it. */
  request: number
  encryptedContent: string
  /** The item made with it: a function call (its `fc_` id and `call_id`) or a message (its `msg_` id and text). */
  next:
    | { type: "function_call"; id: string; callId: string; name: string; arguments: string }
    | { type: "message"; id: string; text: string }
  /** The hash of what it was made after (`prefixOf` of the whole request). */
  prefix: string
}

/** One reasoning item a request sent back, as checked. */
export type SentReasoning = {
  /** `input.N`. */
  path: string
  /** The reasoning item it is (by its id, else by its encrypted content); null: not one the mock made. */
  madeId: string | null
  /** The request that made it. */
  madeBy: number | null
  /** Its `encrypted_content` is byte-identical to the one made. */
  intact: boolean
  /**
   * The item right after it is the one made with it: by id, else the function call with its `call_id`, or an
   * assistant message.
   */
  paired: boolean
  /** That item is byte-identical to the one made (a call's name and arguments, a message's text). */
  nextIntact: boolean
  /** Everything before it is as when it was made (else newer models drop it, silently). */
  prefixOk: boolean
  /** It is between the last user message and a pending function call (the running turn). */
  runningTurn: boolean
}

/** An error body's fields, as the API answers them. */
export type ResponsesApiError = { message: string; param: string | null; code: string | null }

/** The verdict on one request's reasoning items. */
export type ReasoningVerdict = {
  reasoning: SentReasoning[]
  /** What the API answers 400 for, in input order (the first is the one answered). */
  errors: ResponsesApiError[]
  /** The running turn's reasoning items (by `rs_` id) the request left out, though its function calls are there. */
  missingFromRunningTurn: string[]
  /** True while a function call's output is the newest input (the model is answering a function call). */
  pendingCall: boolean
}

/** True for a message item (`type` "message" or left out). */
export function isMessage(item: ResponsesItem): item is ResponsesMessage {
  return item.type === undefined || item.type === "message"
}

/** The text of a message's content, parts joined by newlines. */
export function messageText(item: ResponsesMessage): string {
  if (typeof item.content === "string") return item.content
  return item.content.map((part) => part.text ?? "").join("\n")
}

/**
 * The hash of what comes before input item `index` (the whole request for the end): `instructions`, the names of
 * `tools` and every earlier input item but reasoning items. This is the prefix OpenAI's newer models compare.
 */
export function prefixOf(request: ResponsesRequest, index: number): string {
  // Ids and statuses name items, they are not what the model read.
  const items = request.input
    .slice(0, index)
    .filter((item) => item.type !== "reasoning")
    .map((item) => Object.fromEntries(Object.entries(item).filter(([key]) => key !== "id" && key !== "status")))
  const prefix = {
    instructions: request.instructions ?? null,
    tools: (request.tools ?? []).map((tool) => tool.name ?? tool.type),
    items,
  }
  return createHash("sha256").update(JSON.stringify(prefix)).digest("hex")
}

/** How the API abbreviates encrypted content in its errors: `gAAA...DQ==`. */
export function abbreviate(encrypted: string): string {
  return encrypted.length <= 8 ? encrypted : `${encrypted.slice(0, 4)}...${encrypted.slice(-4)}`
}

/** True for an item of the model's own output: a function call or an assistant message. */
function isModelOutput(item: ResponsesItem | undefined): boolean {
  return item !== undefined && (item.type === "function_call" || (isMessage(item) && item.role === "assistant"))
}

/** True when `item` is the item made right after `made` (by its id, else its `call_id`, else its role). */
function isNextOf(item: ResponsesItem | undefined, made: MadeReasoning): boolean {
  if (item === undefined) return false
  if (made.next.type === "function_call") {
    return (
      item.type === "function_call" &&
      (item.id === undefined ? item.call_id === made.next.callId : item.id === made.next.id)
    )
  }
  return isMessage(item) && item.role === "assistant" && (item.id === undefined || item.id === made.next.id)
}

/** True when `item` is byte-identical to the item made right after `made`. */
function isIntactNextOf(item: ResponsesItem | undefined, made: MadeReasoning): boolean {
  if (!isNextOf(item, made) || item === undefined) return false
  if (made.next.type === "function_call") {
    return item.type === "function_call" && item.name === made.next.name && item.arguments === made.next.arguments
  }
  return isMessage(item) && messageText(item) === made.next.text
}

/**
 * Checks every reasoning item of `request` (and every call or message naming one) against the reasoning items the
 * mock made (`made`), by OpenAI's rules above.
 */
export function checkReasoning(request: ResponsesRequest, made: readonly MadeReasoning[]): ReasoningVerdict {
  const byId = new Map(made.map((record) => [record.id, record]))
  const byEncrypted = new Map(made.map((record) => [record.encryptedContent, record]))
  const byItem = new Map(made.map((record) => [record.next.id, record]))
  const byCall = new Map(
    made.flatMap((record) => (record.next.type === "function_call" ? [[record.next.callId, record] as const] : [])),
  )
  const stored = request.store !== false
  const input = request.input
  const errors: ResponsesApiError[] = []
  const reasoning: SentReasoning[] = []

  let lastUser = -1
  input.forEach((item, index) => {
    if (isMessage(item) && item.role === "user") lastUser = index
  })
  const pendingCall = input[input.length - 1]?.type === "function_call_output"
  const sentIds = new Set<string>()

  input.forEach((item, index) => {
    if (item.type === "item_reference" && !stored) {
      errors.push(notStored(item.id))
      return
    }
    if (item.type === "reasoning") {
      const path = `input.${index}`
      const encrypted = item.encrypted_content ?? null
      const record =
        (item.id === undefined ? undefined : byId.get(item.id)) ??
        (encrypted === null ? undefined : byEncrypted.get(encrypted))
      if (encrypted === null && !stored && item.id !== undefined) {
        // Nothing was stored to find it by: the API names it and reads no further.
        errors.push(notStored(item.id))
        return
      }
      if (record) sentIds.add(record.id)
      const intact = record !== undefined && encrypted === record.encryptedContent
      if (encrypted !== null && !intact) {
        errors.push({
          message: `The encrypted content ${abbreviate(encrypted)} could not be verified.`,
          param: null,
          code: "invalid_encrypted_content",
        })
      }
      const following = input[index + 1]
      const paired = record !== undefined && isNextOf(following, record)
      const nextIntact = record !== undefined && isIntactNextOf(following, record)
      // With its id the API finds the item made with it; without, it asks for an item of the model's own output.
      const followed =
        item.id !== undefined
          ? record !== undefined && following !== undefined && "id" in following && following.id === record.next.id
          : isModelOutput(following)
      if (!followed) {
        errors.push({
          message: `Item '${item.id ?? record?.id ?? "rs_unknown"}' of type 'reasoning' was provided without its required following item.`,
          param: "input",
          code: null,
        })
      }
      reasoning.push({
        path,
        madeId: record?.id ?? null,
        madeBy: record?.request ?? null,
        intact,
        paired,
        nextIntact,
        prefixOk: record !== undefined && record.prefix === prefixOf(request, index),
        runningTurn: pendingCall && index > lastUser,
      })
      return
    }
    const namedId =
      item.type === "function_call" || (isMessage(item) && item.role === "assistant") ? item.id : undefined
    const record = namedId === undefined ? undefined : byItem.get(namedId)
    if (namedId !== undefined && record !== undefined && !reasoningBefore(input, index, record)) {
      const type = item.type === "function_call" ? "function_call" : "message"
      errors.push({
        message: `Item '${namedId}' of type '${type}' was provided without its required 'reasoning' item: '${record.id}'.`,
        param: "input",
        code: null,
      })
    }
  })

  // Answering a function call, every reasoning item made between the last user message and it must be there.
  const missingFromRunningTurn: string[] = []
  if (pendingCall) {
    for (const item of input.slice(lastUser + 1)) {
      if (item.type !== "function_call") continue
      const record = (item.id === undefined ? undefined : byItem.get(item.id)) ?? byCall.get(item.call_id)
      if (record && !sentIds.has(record.id)) missingFromRunningTurn.push(record.id)
    }
  }
  return { reasoning, errors, missingFromRunningTurn, pendingCall }
}

/** True when the reasoning item `record` is in the run of model output that ends right before input item `index`. */
function reasoningBefore(input: readonly ResponsesItem[], index: number, record: MadeReasoning): boolean {
  for (let at = index - 1; at >= 0; at -= 1) {
    const item = input[at] as ResponsesItem
    if (item.type === "reasoning") {
      if (item.id === record.id || item.encrypted_content === record.encryptedContent) return true
      continue
    }
    if (!isModelOutput(item)) return false
  }
  return false
}

function notStored(id: string): ResponsesApiError {
  return {
    message: `Item with id '${id}' not found. Items are not persisted when \`store\` is set to false. Try again with \`store\` set to true, or remove this item from your input.`,
    param: "input",
    code: null,
  }
}
