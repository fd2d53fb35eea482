import { z } from "zod"
import { ConfigSchema } from "./schema.js"

/**
 * The keys the schema accepts in the object at `path` of a config file (`[]` for the top level, `["models", "gpt-*"]`
 * for one model's overrides), in the schema's order; empty when no object of fixed keys sits there.
 */
export function knownKeysAt(path: readonly PropertyKey[], schema: z.ZodType = ConfigSchema): string[] {
  const here = unwrapped(schema)
  if (path.length === 0) return here instanceof z.ZodObject ? Object.keys(here.shape) : []
  const [head, ...rest] = path
  if (here instanceof z.ZodObject) {
    const child: unknown = (here.shape as Record<string, unknown>)[String(head)]
    return child instanceof z.ZodType ? knownKeysAt(rest, child) : []
  }
  if (here instanceof z.ZodRecord) return knownKeysAt(rest, here.valueType as z.ZodType)
  if (here instanceof z.ZodArray) return knownKeysAt(rest, here.element as z.ZodType)
  return []
}

/** The schema under its defaults and optionality. */
function unwrapped(schema: z.ZodType): z.ZodType {
  if (schema instanceof z.ZodDefault || schema instanceof z.ZodPrefault || schema instanceof z.ZodOptional || schema instanceof z.ZodNullable) {
    return unwrapped(schema.unwrap() as z.ZodType)
  }
  return schema
}
