import { deepFreeze } from '../frozen.js';
import type { Page, PageRequest, ReadView } from '../ports.js';
import { COLLECTION_NAMES, type CollectionName, type Collections } from '../records.js';

/** A stored record with its version stamp and its place in insertion order. */
export interface Row<T = object> {
  readonly record: T;
  /** Changes on every write of the record (see {@link ReadView.versions}). */
  readonly version: number;
  /** Its place in the collection's insertion order: kept when the record is written again. */
  readonly order: number;
}

/**
 * Records held in memory: one Map of rows per collection, in insertion order. Records are frozen
 * before anyone sees them: written ones at once, loaded ones on their first read (so opening a
 * large store does not pay for freezing what nobody reads).
 */
export class RecordTables {
  readonly #maps = new Map<CollectionName, Map<string, Row>>(COLLECTION_NAMES.map((name) => [name, new Map()]));
  /** The last version stamp and order number given out (shared by all collections). */
  #clock = 0;

  /** The rows of one collection. */
  rows(collection: CollectionName): Map<string, Row> {
    return this.#maps.get(collection)!;
  }

  /** Stores or replaces a record (null deletes it); a new record goes at the end of the order. */
  set(collection: CollectionName, id: string, record: object | null): void {
    const rows = this.rows(collection);
    if (record === null) {
      rows.delete(id);
      return;
    }
    const version = ++this.#clock;
    rows.set(id, { record, version, order: rows.get(id)?.order ?? version });
  }

  /** A record as it was loaded, frozen on first read. */
  get(collection: CollectionName, id: string): object | undefined {
    const row = this.rows(collection).get(id);
    return row && sealed(row.record);
  }

  /** Tables holding the same rows, which writes to these do not change (records are immutable: they are shared). */
  copy(): RecordTables {
    const copy = new RecordTables();
    for (const [name, rows] of this.#maps) copy.#maps.set(name, new Map(rows));
    copy.#clock = this.#clock;
    return copy;
  }

  /** An async view of these tables. */
  view(): ReadView {
    return {
      get: async (collection, id) => this.get(collection, id) as never,
      getMany: async (collection, ids) => ids.map((id) => this.get(collection, id)) as never,
      list: async (collection, page) => pageOfRows(this.rows(collection), page) as never,
      count: async (collection) => this.rows(collection).size,
      versions: async (collection, ids) => {
        const rows = this.rows(collection);
        return ids.map((id) => rows.get(id)?.version);
      },
    };
  }
}

/** The record, deep-frozen on its first read. */
export function sealed<T>(record: T): T {
  return record && !Object.isFrozen(record) ? deepFreeze(record) : record;
}

/**
 * The page of `rows` that `page` asks for. The cursor is the order number of the page's last
 * record, so it stays valid when that record is deleted meanwhile.
 */
export function pageOfRows(rows: ReadonlyMap<string, Row>, page: PageRequest = {}): Page<object> {
  const after = page.after === undefined ? undefined : cursorOrder(page.after);
  let skip = page.offset ?? 0;
  const limit = page.limit ?? Infinity;
  const records: object[] = [];
  let last: Row | undefined;
  let more = false;
  for (const row of rows.values()) {
    if (after !== undefined && row.order <= after) continue;
    if (skip > 0) {
      skip--;
      continue;
    }
    if (records.length >= limit) {
      more = true;
      break;
    }
    records.push(sealed(row.record));
    last = row;
  }
  return more && last ? { records, next: String(last.order) } : { records };
}

function cursorOrder(cursor: string): number {
  const order = Number(cursor);
  if (!Number.isSafeInteger(order)) throw new TypeError(`"${cursor}" is not a cursor this store gave out.`);
  return order;
}

/**
 * The page of `records` (in their order) that `page` asks for: its `limit` records after `offset`,
 * starting after the cursor `after`, with `next` when more follow. The cursor is the position
 * after the page's last record: for a list that only grows at its end (a store's records in
 * insertion order, deletions aside).
 */
export function pageOfArray<T>(records: readonly T[], page: PageRequest = {}): Page<T> {
  const start = (page.after === undefined ? 0 : Number(page.after)) + (page.offset ?? 0);
  const end = Math.min(records.length, start + (page.limit ?? Infinity));
  const slice = records.slice(start, end);
  return end < records.length ? { records: slice, next: String(end) } : { records: slice };
}
