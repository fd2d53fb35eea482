// Minimal ambient types for the parts of `node:sqlite` (Node >= 22.13) the fallback driver uses; the Node these types
// are written against (20) has no such module, so the driver loads it at run time.
declare module "node:sqlite" {
  export class DatabaseSync {
    constructor(filename: string, options?: { readOnly?: boolean; open?: boolean })
    exec(sql: string): void
    prepare(sql: string): StatementSync
    close(): void
  }
  export interface StatementSync {
    get(...params: unknown[]): Record<string, unknown> | undefined
    all(...params: unknown[]): Record<string, unknown>[]
    run(...params: unknown[]): { changes: number | bigint; lastInsertRowid: number | bigint }
  }
}
