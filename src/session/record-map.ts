/**
 * A map of stored records that remembers which messages its writes touched, so a pass can trust what it computed
 * for every other message without looking their records up again (`message-memo.ts`, `recordWrites`). Records are
 * replaced, never changed in place (invariant of the session state): every change is a `set`, and every `set` or
 * `delete` is logged by the message the record belongs to. Reads cost what a Map's cost.
 */
export class RecordMap<K, V> extends Map<K, V> {
  /** The owners written, oldest first; `logStart` is the write number of `log[0]`. */
  private log: string[] | undefined
  private logStart = 0
  private readonly ownerOf: (key: K, value: V) => string
  /** This map's own line of writes (a token: `derive` starts a new one, so two copies never share write numbers). */
  private readonly lineage: object = {}
  /** The map this one was copied from (its lineage) and that map's write count then; null for a map made afresh. */
  private parent: { lineage: object; writes: number } | null = null

  constructor(ownerOf: (key: K, value: V) => string, entries?: Iterable<readonly [K, V]>) {
    // Map's constructor calls `set` for each entry, before this class's fields exist: fill it afterwards.
    super()
    this.ownerOf = ownerOf
    this.log = []
    if (entries) for (const [key, value] of entries) super.set(key, value)
  }

  /**
   * A copy of `source` that goes on from its writes: the copy's log starts as the source's, so a reader that last read
   * the source (at a cursor not past the copy) reads the copy's writes since as the source's and then its own. Later
   * writes to the source are not the copy's (it is a line of its own from then on).
   */
  static derive<K, V>(source: RecordMap<K, V>): RecordMap<K, V> {
    const copy = new RecordMap<K, V>(source.ownerOf, source)
    copy.log = source.log ? [...source.log] : []
    copy.logStart = source.logStart
    copy.parent = { lineage: source.lineage, writes: source.writes }
    return copy
  }

  /** True when a reader that read `earlier` at write number `cursor` may read on from this map's log (`ownersSince`). */
  continues(earlier: Map<unknown, unknown>, cursor: number): boolean {
    if (earlier === (this as Map<unknown, unknown>)) return true
    return earlier instanceof RecordMap && this.parent !== null && this.parent.lineage === earlier.lineage && cursor <= this.parent.writes
  }

  override set(key: K, value: V): this {
    super.set(key, value)
    this.note(this.ownerOf(key, value))
    return this
  }

  override delete(key: K): boolean {
    const value = super.get(key)
    const deleted = super.delete(key)
    if (deleted) this.note(this.ownerOf(key, value as V))
    return deleted
  }

  override clear(): void {
    super.clear()
    // Everything may have changed: no reader can trust a cursor from before.
    this.logStart += (this.log?.length ?? 0) + 1
    this.log = []
  }

  /** The number of writes so far (a reader's cursor). */
  get writes(): number {
    return this.logStart + (this.log?.length ?? 0)
  }

  /**
   * The owners written since write number `cursor`, or null when the log no longer reaches back that far (it keeps
   * the newest writes only, so a reader that fell far behind checks every record instead).
   */
  ownersSince(cursor: number): string[] | null {
    if (cursor < this.logStart || cursor > this.writes) return null
    return (this.log ?? []).slice(cursor - this.logStart)
  }

  private note(owner: string): void {
    const log = this.log
    if (!log) return
    log.push(owner)
    if (log.length > MAX_LOG) {
      const dropped = log.length - MAX_LOG / 2
      log.splice(0, dropped)
      this.logStart += dropped
    }
  }
}

/** The writes a record map remembers: a pass that ingests more than this many messages checks every record once. */
const MAX_LOG = 8_192

/** The session's maps of records by the message they belong to. */
export function recordsByMessage<K, V extends { messageId: string }>(entries?: Iterable<readonly [K, V]>): RecordMap<K, V> {
  return new RecordMap<K, V>((_key, value) => value.messageId, entries)
}
