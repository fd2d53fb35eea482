import { existsSync } from "node:fs"
import { openStoreReadOnly } from "../../test/e2e/harness/store-reader.js"

/** What a pass recorded the provider would bill for its request (`detail.billed` in the store's pass rows). */
export type BilledRecord = { uncached: number; cachedRead: number; cacheWrite: number; cost: number; readPrice: number }

/** The prices the engine decided under, as its passes' billed records show them; null where no record tells. */
export type EnginePrices = { cacheWrite: number | null; cachedRead: number | null }

/**
 * The write and read prices behind the billed records: a record with written tokens gives the write price
 * (its cost less the cached reads, over the written tokens); records that bill fresh tokens as uncached and none as
 * written mean no write premium (1). Rounded to 3 decimals.
 */
export function enginePricesOf(records: readonly BilledRecord[]): EnginePrices {
  const cachedRead = records[0]?.readPrice ?? null
  const written = records.find((record) => record.cacheWrite > 0)
  if (written) {
    const price = (written.cost - written.cachedRead * written.readPrice - written.uncached) / written.cacheWrite
    return { cacheWrite: Math.round(price * 1000) / 1000, cachedRead }
  }
  return { cacheWrite: records.some((record) => record.uncached > 0) ? 1 : null, cachedRead }
}

/** The engine's prices read from a sandbox's store (null when there is no store or no billed pass). */
export function readEnginePrices(databaseFile: string): EnginePrices | null {
  if (!existsSync(databaseFile)) return null
  const db = openStoreReadOnly(databaseFile)
  try {
    const rows = db.prepare("SELECT detail_json FROM passes WHERE trigger = 'transform' ORDER BY seq").all()
    const records = rows.flatMap((row) => {
      const detail = JSON.parse(String((row as { detail_json: unknown }).detail_json)) as { billed?: BilledRecord | null }
      return detail.billed ? [detail.billed] : []
    })
    return records.length === 0 ? null : enginePricesOf(records)
  } finally {
    db.close()
  }
}
