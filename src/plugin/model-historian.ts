import type { PluginInput } from "@opencode-ai/plugin"
import { renderEpisodeSource } from "../historian/episode-source.js"
import { SURVIVAL_CONTRACTS, TIERS } from "../historian/fidelity-types.js"
import { parseHistorianOutput, type HistorianEpisodeOutput } from "../historian/parse-historian-output.js"
import { isCompartmentOf } from "../historian/compartment-id.js"
import { HISTORIAN_PROMPT_VERSION, historianRepairRequest, historianRequest } from "../historian/prompt.js"
import { parseDurationMs } from "../pressure/duration.js"
import { insertRepresentations, listCompartments, type StoredCompartment } from "../store/compartment-repository.js"
import { readMessagesBySeq } from "../store/raw-repository.js"
import { PluginError } from "../plugin-error.js"
import type { HostMessage } from "../transcript/host-message.js"
import type { HostRuntime } from "../host/host-runtime.js"

/** The hidden agent the historian's child sessions run as (registered in the `config` hook). */
export const HISTORIAN_AGENT = "ctx-historian"

type Client = PluginInput["client"]

/**
 * The model historian (`historian.strategy: "model"`): in the background, never on the request path, it asks a
 * model to write the four tiers of compartments that only have the canonical record, one request per batch, in a
 * child session of a hidden agent with no tools. The answer is validated (shape, episode ids, grounding); one repair
 * request follows a bad answer; after that, or on a timeout, the canonical record stays and the error is recorded.
 * Accepted tiers become visible at the next execute pass.
 */
export type ModelHistorian = {
  /** Starts a run for the session unless one is going on; resolves when it ends (callers need not wait). */
  schedule(sessionId: string): Promise<void>
  /** Child sessions the historian created: the plugin leaves them alone. */
  isHistorianSession(sessionId: string): boolean
  /** Lets go of a session the host ended: a run for it stops before its next batch; its tried episodes are dropped. */
  forget(sessionId: string): void
}

export function createModelHistorian(options: { runtime: HostRuntime; client: Client }): ModelHistorian {
  const { runtime, client } = options
  const running = new Map<string, Promise<void>>()
  const childSessions = new Set<string>()
  const attempted = new Set<string>()
  const timeoutMs = parseDurationMs(runtime.config.historian.timeout)

  const runOnce = async (sessionId: string): Promise<void> => {
    const db = await runtime.database()
    // The pass that scheduled this run may still owe the compartments it cut (`settleAfterPass`).
    runtime.settle(sessionId)
    const waiting = listCompartments(db, sessionId).filter(
      (compartment) =>
        !attempted.has(compartment.id) &&
        !compartment.representations.some((representation) => representation.strategy === "source-grounded-model"),
    )
    for (let start = 0; start < waiting.length; start += runtime.config.historian.batch) {
      // The host ended the session (`forget`): a batch would load it again.
      if (!running.has(sessionId)) return
      const batch = waiting.slice(start, start + runtime.config.historian.batch)
      for (const compartment of batch) attempted.add(compartment.id)
      await writeBatch(sessionId, batch)
    }
  }

  const writeBatch = async (sessionId: string, batch: StoredCompartment[]): Promise<void> => {
    const db = await runtime.database()
    const registry = await runtime.sessions()
    const state = registry.stateFor(
      { id: sessionId, source: "opencode", projectId: null, directory: null, title: null },
      runtime.counterFor(null),
    )
    const sources = new Map<string, string>()
    for (const compartment of batch) {
      const messages = readMessagesBySeq(db, sessionId, compartment.firstMessageSeq, compartment.lastMessageSeq) as HostMessage[]
      sources.set(displayId(compartment), renderEpisodeSource(messages, (partId) => state.tagsByPart.get(partId)?.tag ?? null))
    }
    let childId: string | undefined
    try {
      const child = await withTimeout(
        client.session.create({ body: { parentID: sessionId, title: "magic-context historian" } }),
        timeoutMs,
      )
      childId = child?.data?.id
      if (!childId) throw new PluginError("historian_failed", "the historian's child session could not be created")
      const id = childId
      childSessions.add(id)
      const ask = async (text: string): Promise<string> => {
        const response = await withTimeout(
          client.session.prompt({
            path: { id },
            body: {
              agent: HISTORIAN_AGENT,
              ...(runtime.config.historian.model ? { model: modelRef(runtime.config.historian.model) } : {}),
              parts: [{ type: "text", text }],
            },
          }),
          timeoutMs,
        )
        const parts = (response?.data?.parts ?? []) as { type: string; text?: string }[]
        return parts.filter((part) => part.type === "text").map((part) => part.text ?? "").join("")
      }
      const request = historianRequest([...sources].map(([id, source]) => ({ id, source })))
      let parsed = parseHistorianOutput({ text: await ask(request), sources })
      if (!parsed.ok) parsed = parseHistorianOutput({ text: await ask(historianRepairRequest(parsed.error)), sources })
      if (!parsed.ok) {
        throw new PluginError("historian_failed", `historian output rejected after one repair: ${parsed.error}; the canonical record stays`)
      }
      await store(sessionId, batch, parsed.value)
    } catch (error) {
      runtime.errors.record({ hook: "historian", sessionId, error })
      // A request that timed out would otherwise keep the model running (and costing) in the child session.
      if (childId) abortQuietly(client, childId)
    }
  }

  const store = (sessionId: string, batch: StoredCompartment[], episodes: HistorianEpisodeOutput[]): Promise<void> =>
    runtime.database().then((db) => {
      const counter = runtime.counterFor(null)
      const now = Date.now()
      db.transaction(() => {
        for (const compartment of batch) {
          const episode = episodes.find((candidate) => candidate.id === displayId(compartment))
          if (!episode) continue
          const sourceRefs = {
            tags: [...new Set(episode.facts.flatMap((fact) => fact.tags))].sort((a, b) => a - b),
            messageIds: [],
          }
          const representations = TIERS.flatMap((tier) => {
            const content = episode.tiers[tier]
            if (!content) return []
            return [
              {
                tier,
                strategy: "source-grounded-model" as const,
                content,
                tokens: counter.count(content),
                generatorModel: runtime.config.historian.model ?? "default",
                promptVersion: HISTORIAN_PROMPT_VERSION,
                survivalContract: SURVIVAL_CONTRACTS[tier],
                sourceRefs,
              },
            ]
          })
          insertRepresentations(db, compartment.id, representations, now)
        }
      })
      runtime.plannerOf(sessionId)?.invalidate()
    })

  return {
    schedule(sessionId) {
      if (runtime.config.historian.strategy !== "model" || childSessions.has(sessionId)) return Promise.resolve()
      const existing = running.get(sessionId)
      if (existing) return existing
      const run = runOnce(sessionId)
        .catch((error: unknown) => runtime.errors.record({ hook: "historian", sessionId, error }))
        .finally(() => running.delete(sessionId))
      running.set(sessionId, run)
      return run
    },
    isHistorianSession: (sessionId) => childSessions.has(sessionId),
    forget(sessionId) {
      running.delete(sessionId)
      childSessions.delete(sessionId)
      for (const id of attempted) if (isCompartmentOf(id, sessionId)) attempted.delete(id)
    },
  }
}

/** Asks the host to stop a child session's model call; whatever happens, the historian goes on. */
function abortQuietly(client: Client, sessionId: string): void {
  try {
    void Promise.resolve(client.session.abort({ path: { id: sessionId } })).catch(() => undefined)
  } catch {
    // A host without abort: the late answer is ignored anyway.
  }
}

function displayId(compartment: StoredCompartment): string {
  return compartment.id.slice(compartment.id.lastIndexOf("#") + 1)
}

function modelRef(model: string): { providerID: string; modelID: string } {
  const slash = model.indexOf("/")
  return { providerID: model.slice(0, slash), modelID: model.slice(slash + 1) }
}

/** Resolves with the promise's value, or rejects with a clear timeout error. */
function withTimeout<T>(promise: Promise<T>, timeoutMs: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new PluginError("historian_failed", `the historian did not answer within ${timeoutMs} ms; the canonical record stays`)),
      timeoutMs,
    )
    promise.then(
      (value) => {
        clearTimeout(timer)
        resolve(value)
      },
      (error: unknown) => {
        clearTimeout(timer)
        reject(error)
      },
    )
  })
}
