import type { Database } from "../../src/store/driver.js"

/** Makes every transaction on `db` throw "store gone" until the returned function is called. */
export function failTransactions(db: Database): () => void {
  const transaction = db.transaction
  db.transaction = () => {
    throw new Error("store gone")
  }
  return () => {
    db.transaction = transaction
  }
}
