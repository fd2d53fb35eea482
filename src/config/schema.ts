import { z } from "zod"
import { ENCODINGS } from "../tokens/token-counter.js"

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
            "The SQLite store. null uses $XDG_DATA_HOME/magic-context/magic-context.db (one file for all projects).",
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
  })
  .strict()

/** The effective configuration, every key present. */
export type Config = z.infer<typeof ConfigSchema>

/** The configuration when no file sets anything. */
export function defaultConfig(): Config {
  return ConfigSchema.parse({})
}
