/**
 * One active magic-context per host instance, whatever the number of copies loaded. A host can load the plugin
 * twice in one process (OpenCode with two entries for it, e.g. `.opencode/opencode.json` written by `opencode plugin`
 * and a `file://` entry in `opencode.json`; two copies of the package at different paths). Two active copies would
 * each tag the same messages (`§1§ §1§`), each add the guidance and each record the same pass. The first copy to
 * claim an instance runs; every later one stays inert and is named in the first one's status report.
 *
 * The claims live on `globalThis` under a `Symbol.for` key, so copies loaded from different files (each with its own
 * module state) see each other. The record's shape is part of the contract between versions: only add fields.
 */

const REGISTRY_KEY = Symbol.for("magic-context.instance-claims.v1")

/** What the registry holds for one host instance: the module that runs it and the modules that stayed inert. */
type ClaimRecord = { owner: string; inert: string[] }

/** The claim a copy of the plugin got for an instance. */
export type InstanceClaim =
  | {
      kind: "active"
      /** The modules that asked for the same instance after this one and stayed inert, one line each, with the fix. */
      duplicateNotes(): string[]
      /** Gives the instance up (the host disposed it); a later copy may then claim it. */
      release(): void
    }
  | { kind: "inert"; /** The module that runs the instance. */ owner: string; /** Why this copy does nothing. */ reason: string }

function registry(): Map<string, ClaimRecord> {
  const holder = globalThis as unknown as Record<symbol, Map<string, ClaimRecord> | undefined>
  const existing = holder[REGISTRY_KEY]
  if (existing) return existing
  const created = new Map<string, ClaimRecord>()
  holder[REGISTRY_KEY] = created
  return created
}

/**
 * Claims the host instance `instance` (OpenCode: the project directory) for the module `module` (its URL). The first
 * claim of an instance is active; any later one, from this module or another copy, is inert until the active one is
 * released.
 */
export function claimInstance(options: { instance: string; module: string }): InstanceClaim {
  const claims = registry()
  const current = claims.get(options.instance)
  if (current) {
    current.inert.push(options.module)
    return {
      kind: "inert",
      owner: current.owner,
      reason: `magic-context is loaded more than once for ${options.instance}: ${current.owner} runs, this copy (${options.module}) stays inert`,
    }
  }
  const record: ClaimRecord = { owner: options.module, inert: [] }
  claims.set(options.instance, record)
  return {
    kind: "active",
    duplicateNotes: () =>
      record.inert.map(
        (module) =>
          `magic-context is loaded more than once: ${module} stays inert, ${record.owner} runs; ` +
          "remove one of the plugin entries (`magic-context doctor` lists them)",
      ),
    release: () => {
      if (claims.get(options.instance) === record) claims.delete(options.instance)
    },
  }
}
