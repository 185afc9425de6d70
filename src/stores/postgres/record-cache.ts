/**
 * Records this process has read or written, with the version each was stored with: a read asks
 * the database for the record's current version and is sent the body and the id lists only when
 * the version differs from the one kept here. A version is given to one write only (a sequence),
 * so a record kept under its version is that write's record, whichever instance wrote it since:
 * the cache can be behind, never wrong. Least recently used records go first once it holds more
 * than its budget (sizes estimated from the text stored).
 */
export class RecordCache {
  readonly #entries = new Map<string, CachedRecord>();
  #bytes = 0;

  constructor(readonly budget: number) {}

  /** The record kept for `key`, if any (and marks it recently used). */
  get(key: string): CachedRecord | undefined {
    const entry = this.#entries.get(key);
    if (entry) {
      this.#entries.delete(key);
      this.#entries.set(key, entry);
    }
    return entry;
  }

  /** Keeps `record` as the one stored with `version`, unless a later version is kept already. */
  set(key: string, version: number, record: object, bytes: number): void {
    if (bytes > this.budget) {
      this.delete(key);
      return;
    }
    const old = this.#entries.get(key);
    if (old && old.version > version) return;
    this.delete(key);
    this.#entries.set(key, { version, record, bytes });
    this.#bytes += bytes;
    for (const [oldest, entry] of this.#entries) {
      if (this.#bytes <= this.budget) break;
      this.#entries.delete(oldest);
      this.#bytes -= entry.bytes;
    }
  }

  delete(key: string): void {
    const entry = this.#entries.get(key);
    if (!entry) return;
    this.#entries.delete(key);
    this.#bytes -= entry.bytes;
  }
}

export interface CachedRecord {
  readonly version: number;
  readonly record: object;
  readonly bytes: number;
}

/** The cache's key of a record. */
export const cacheKey = (collection: string, id: string): string => `${collection}\u0000${id}`;

/** Bytes a stored record takes in memory, roughly: its body, and each id of its lists. */
export function recordBytes(body: string, listItems: number): number {
  return 2 * body.length + 64 * listItems + 200;
}
