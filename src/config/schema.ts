import { z } from "zod"
import { ENCODINGS } from "../tokens/token-counter.js"
import { readPinPattern } from "./pin-pattern.js"
import { REASONING_RULE_IDS } from "../session/reasoning-rules.js"
import { PRICE_LIST_NAMES } from "../session/price-lists.js"

/** A duration such as "5m", "90s", "1h" or "250ms". */
export const DURATION_PATTERN = /^\d+(ms|s|m|h)$/

const thresholdPercent = z
  .number()
  .min(20)
  .max(92)
  .describe("Execute threshold, percent of the usable window (context minus the output reserve).")

/** A price relative to an uncached input token: a finite number from 0 to 10. */
const price = z.number().min(0).max(10)

const duration = z.string().regex(DURATION_PATTERN, 'a duration such as "5m", "90s" or "1h"')

/** Per-model overrides; every field is optional and falls back to the top-level setting or the host's limits. */
const ModelOverrideSchema = z
  .object({
    context: z.number().int().positive().optional().describe("Context window in tokens (overrides the host's limit)."),
    output: z.number().int().nonnegative().optional().describe("Output reserve in tokens (overrides the host's limit)."),
    execute_threshold: thresholdPercent.optional(),
    cache_ttl: duration.optional().describe("How long the provider keeps a prompt cache warm for this model."),
    prices: z
      .object({
        cached_read: price.optional().describe("A prompt token read from the cache."),
        cache_write: price.optional().describe("A prompt token written to the cache (1 when there is no write premium)."),
      })
      .strict()
      .refine((prices) => prices.cache_write === undefined || prices.cached_read === undefined || prices.cache_write >= prices.cached_read, {
        message: "cache_write at least cached_read (a cache write is never cheaper than a cached read)",
      })
      .optional()
      .describe(
        "Prompt token prices relative to an uncached input token (1), for the cost rule and the cost estimates, on " +
          "top of the model's price list (price_list).",
      ),
    price_list: z
      .enum(PRICE_LIST_NAMES)
      .optional()
      .describe(
        "The provider's price list for this model: anthropic-5m (write 1.25, read 0.1, 5-minute cache), " +
          "anthropic-1h (write 2, read 0.1, 1-hour cache; its cache lifetime applies unless cache_ttl is set), openai " +
          "(no write premium, read 0.1) or google (no write premium, read 0.1). Default: the provider's list; a " +
          "provider the table does not know gets the most conservative list (the highest write premium).",
      ),
    reasoning: z
      .enum(REASONING_RULE_IDS)
      .optional()
      .describe(
        "The provider's rule for the reasoning state this model returns, when the table does not know the model: " +
          "anthropic-prefix-check (signed thinking under Anthropic's preserved-thinking prefix check), " +
          "anthropic-thinking, openai-responses-reasoning, gemini-thought-signatures or none.",
      ),
  })
  .strict()

/**
 * The configuration schema: the single source of the config's types, defaults, JSON Schema
 * (`schema/magic-context.schema.json`), reference (`docs/configuration.md`) and example file. Every leaf has a
 * default, so `{}` is a complete configuration. Keys are snake_case.
 */
export const ConfigSchema = z
  .object({
    $schema: z.string().optional().describe("Path or URL of the JSON Schema, for editor completion. Ignored."),
    enabled: z
      .boolean()
      .default(true)
      .describe("Turns the plugin on. When false every hook passes OpenCode's data through untouched."),
    database: z
      .object({
        path: z
          .string()
          .min(1)
          .nullable()
          .default(null)
          .describe(
            "The SQLite store. null uses $XDG_DATA_HOME/magic-context/magic-context.db (one file for all projects); a " +
              "leading ~ is the home folder.",
          ),
        busy_timeout_ms: z
          .number()
          .int()
          .min(0)
          .max(5_000)
          .default(300)
          .describe(
            "How long a hook waits, in milliseconds, when another process holds the store's lock. After that the turn " +
              "goes on unchanged (messages passed through, no tags) and the messages are written once the store is " +
              "free; a long wait would hold up OpenCode, since SQLite waits synchronously. The CLI waits 5 s.",
          ),
      })
      .strict()
      .prefault({})
      .describe("Where the raw transcript, tags and pass records are stored."),
    tokenizer: z
      .object({
        encoding: z
          .enum(["auto", ...ENCODINGS])
          .default("auto")
          .describe(
            "Token encoding. auto picks by model family (o200k_base for GPT-4o/4.1/5 and o-series, cl100k_base for " +
              "GPT-4/3.5, o200k_base as the approximation for models whose tokenizer is not public).",
          ),
        models: z
          .record(z.string().min(1), z.enum(ENCODINGS))
          .default({})
          .describe(
            'Encoding per model, by pattern on "provider/model" or "model" with * wildcards, e.g. {"anthropic/*": ' +
              '"cl100k_base"}. Checked before the family rules; ignored when encoding is not auto.',
          ),
      })
      .strict()
      .prefault({})
      .describe("How tokens are counted. Each part is counted once, when it is first stored."),
    execute_threshold: thresholdPercent
      .default(65)
      .describe(
        "When context work runs: an execute pass happens once usage of the usable, output-reserved window reaches " +
          "this percentage (a trigger, not a target; there is no landing size). The force band starts at " +
          "max(85, threshold + 2) and the emergency band at 95; neither is configurable.",
      ),
    protected_tokens: z
      .number()
      .int()
      .nonnegative()
      .nullable()
      .default(null)
      .describe(
        "The protected recent window, in tokens: nothing in it is dropped or reclaimed in normal operation. null " +
          "derives it from the usable window: 16000 * (usable / 200000) ^ 0.708 (200k -> 16k, 1M -> 50k, 64k -> " +
          "7.1k, 2M -> 81.7k), at least 2000 and at most a quarter of the window. A set size over a quarter of a " +
          "model's usable window is clamped to that quarter for that model (the log, a toast and /ctx-status say so). " +
          "Counted in whole messages from the newest back: the message that crosses the line is in when most of it is.",
      ),
    protected_tags: z
      .number()
      .int()
      .optional()
      .describe("Deprecated: the protected window is measured in tokens (protected_tokens). Accepted, has no effect."),
    cache_ttl: duration
      .default("5m")
      .describe(
        "How long the provider keeps a prompt cache warm. A pass after this much idle time rebuilds the cache " +
          "anyway, so queued drops land there at no extra cost.",
      ),
    smart_drops: z
      .boolean()
      .default(false)
      .describe(
        "Content-aware cleanup on passes that already rebuild the cache: keeps only the newest todowrite and the " +
          "newest three spent ctx_reduce results, drops zero-value bash_status, bash_kill and ctx_note read/dismiss " +
          "results, and turns older edits or writes of a file into a marker with its path (the newest stays full).",
      ),
    history_budget: z
      .number()
      .min(1)
      .max(60)
      .default(15)
      .describe(
        "The least the compartment history may use, percent of the execute threshold's tokens (200k at 65% -> " +
          "19,500). An execute pass gives history more when the prompt has room below `history_landing`.",
      ),
    history_landing: z
      .number()
      .min(10)
      .max(90)
      .default(50)
      .describe(
        "Where an execute pass lands, percent of the usable window: history may use the room the live tail and the " +
          "fixed prompt leave below this line (never less than `history_budget`), so a pass demotes only as far as " +
          "pressure requires. Kept at least 5 points under the execute threshold.",
      ),
    lasting_landing: z
      .boolean()
      .default(false)
      .describe(
        "Under a cache write premium (Anthropic's price lists) an execute pass lands below `history_landing`, as low " +
          "as the reads it saves before the next threshold crossing pay back the premium its break adds: fewer breaks, " +
          "less history detail (bench:pi at 32k under anthropic-5m: 17.6% dearer than Pi alone without it, 5.0% " +
          "cheaper with it; the Lab at 32k under anthropic-1h keeps 59 of 69 probes instead of 65). No effect without " +
          "a write premium.",
      ),
    pin_budget: z
      .number()
      .min(1)
      .max(30)
      .default(5)
      .describe(
        "Pinned ledger budget, percent of the execute threshold's tokens (200k at 65% -> 6,500). The ledger keeps every " +
          "pin while they fit; once it is full it lets go of the pins that state no constraint first, oldest first, then " +
          "of the oldest constraints, and keeps each verbatim in the episode that holds it, in every tier of it (a line " +
          "in the ledger says how many). No pin is ever shortened.",
      ),
    pins: z
      .array(
        z
          .string()
          .min(1)
          .superRefine((pattern, context) => {
            const reading = readPinPattern(pattern)
            if (reading.kind === "invalid") {
              context.addIssue({ code: "custom", message: `a valid "/regex/flags" pattern (${reading.problem})` })
            }
          }),
      )
      .default([])
      .describe(
        "Patterns whose facts are pinned (kept verbatim at every pressure, like the user's own constraints): plain " +
          'text matches case-insensitively, "/regex/flags" as a regular expression (one that does not compile is ' +
          'refused with its error). E.g. ["API key", "/v\\d+\\.\\d+/"].',
      ),
    historian: z
      .object({
        strategy: z
          .enum(["canonical", "model", "off"])
          .default("canonical")
          .describe(
            "How compartment tiers are written. canonical: the deterministic canonical record (no model call, the " +
              "offline default). model: also ask a model, through OpenCode, in a hidden child session in the " +
              "background; its validated tiers replace the canonical ones at the next execute pass, and any failure " +
              "keeps the canonical record. off: no compartments and no history; only context reduction (tags, " +
              "ctx_reduce, reclaim) manages the window.",
          ),
        model: z
          .string()
          .regex(/^[^/\s]+\/\S+$/, '"provider/model"')
          .nullable()
          .default(null)
          .describe('The model the historian uses, as "provider/model"; null uses OpenCode\'s default model.'),
        timeout: z
          .string()
          .regex(DURATION_PATTERN, 'a duration such as "60s"')
          .default("90s")
          .describe("How long one historian request may take before the canonical record is kept instead."),
        batch: z
          .number()
          .int()
          .min(1)
          .max(12)
          .default(4)
          .describe("Compartments per historian request."),
      })
      .strict()
      .prefault({})
      .describe("The historian: who writes each compartment's tiers."),
    history_policy: z
      .enum(["default", "age-only", "flat", "truncation"])
      .default("default")
      .describe(
        "How compartments get their tier: default (retention floors + history budget + hysteresis), or the " +
          "comparison baselines age-only (older is shorter), flat (one level for all) and truncation (drop the oldest).",
      ),
    models: z
      .record(z.string().min(1), ModelOverrideSchema)
      .default({})
      .describe(
        'Per-model settings by pattern on "provider/model" or "model" with * wildcards, e.g. {"anthropic/claude-*": ' +
          '{"execute_threshold": 70, "cache_ttl": "1h"}}. The first matching pattern wins.',
      ),
  })
  .strict()

/** The effective configuration, every key present. */
export type Config = z.infer<typeof ConfigSchema>

export type ModelOverride = z.infer<typeof ModelOverrideSchema>

/** Keys that are still accepted but do nothing, with what to use instead. */
export const DEPRECATED_KEYS: Readonly<Record<string, string>> = {
  protected_tags:
    "is deprecated and has no effect: the protected window is measured in tokens (set protected_tokens, or leave it " +
    "null to derive it from the model's window)",
}

/** The configuration when no file sets anything. */
export function defaultConfig(): Config {
  return ConfigSchema.parse({})
}
