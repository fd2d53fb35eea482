// Minimal ambient types for the parts of `bun:sqlite` the driver uses; Bun provides the module at run time.
declare module "bun:sqlite" {
  export class Database {
    constructor(filename: string, options?: { create?: boolean; readwrite?: boolean; readonly?: boolean; strict?: boolean })
    exec(sql: string): void
    query(sql: string): BunStatement
    prepare(sql: string): BunStatement
    close(): void
  }
  export interface BunStatement {
    get(...params: unknown[]): Record<string, unknown> | null
    all(...params: unknown[]): Record<string, unknown>[]
    run(...params: unknown[]): { changes: number; lastInsertRowid: number | bigint }
    finalize(): void
  }
}
