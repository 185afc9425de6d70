import { deepFreeze, frozenCopy } from '../frozen.js';
import type { ReadView, Transaction } from '../ports.js';
import { COLLECTION_NAMES, type CollectionName, type Collections } from '../records.js';

/**
 * The in-memory state of a store: one Map of records per collection, in insertion order. Records
 * are frozen before anyone sees them: written ones at once, loaded ones on their first read (so
 * opening a large store does not pay for freezing what nobody reads).
 */
export type RecordTables = { [C in CollectionName]: Map<string, Collections[C]> };

/** One write of a transaction: the record to store, or null to delete it. */
export interface Change {
  readonly collection: CollectionName;
  readonly id: string;
  readonly record: object | null;
}

export function createRecordTables(): RecordTables {
  const tables = {} as Record<CollectionName, Map<string, unknown>>;
  for (const name of COLLECTION_NAMES) tables[name] = new Map();
  return tables as RecordTables;
}

/** A read-only view of the committed tables. */
export function createReadView(tables: RecordTables): ReadView {
  return {
    get: (collection, id) => sealed(tables[collection].get(id)),
    list: (collection) => Array.from(tables[collection].values(), sealed),
  };
}

/** The record, deep-frozen on its first read. */
function sealed<T>(record: T): T {
  return record && !Object.isFrozen(record) ? deepFreeze(record) : record;
}

/**
 * Runs `fn` against a buffered view of `tables`: its writes are collected, not applied. If `fn`
 * throws, nothing is returned and `tables` is untouched; otherwise the caller applies `changes`.
 */
export function runBuffered<T>(tables: RecordTables, fn: (tx: Transaction) => T): { result: T; changes: Change[] } {
  const pending = new Map<CollectionName, Map<string, object | null>>();
  const pendingOf = (collection: CollectionName) => {
    let map = pending.get(collection);
    if (!map) pending.set(collection, (map = new Map()));
    return map;
  };
  const tx: Transaction = {
    get(collection, id) {
      const buffered = pending.get(collection)?.get(id);
      if (buffered !== undefined) return (buffered ?? undefined) as never;
      return sealed(tables[collection].get(id)) as never;
    },
    list(collection) {
      const buffered = pending.get(collection);
      const committed = Array.from(tables[collection].values(), sealed);
      if (!buffered) return committed as never;
      const result: object[] = [];
      for (const record of committed) {
        const id = (record as { id: string }).id;
        const next = buffered.has(id) ? buffered.get(id) : record;
        if (next) result.push(next);
      }
      for (const [id, record] of buffered) if (record && !tables[collection].has(id)) result.push(record);
      return result as never;
    },
    put(collection, record) {
      pendingOf(collection).set(record.id, frozenCopy(record));
    },
    delete(collection, id) {
      pendingOf(collection).set(id, null);
    },
  };
  const result = fn(tx);
  if (typeof (result as { then?: unknown } | null)?.then === 'function') {
    // Its writes after the first `await` would land nowhere: none of them is kept.
    throw new TypeError('A transaction’s function must be synchronous; this one returned a promise, and none of its writes was kept.');
  }
  const changes: Change[] = [];
  for (const [collection, records] of pending) {
    for (const [id, record] of records) changes.push({ collection, id, record });
  }
  return { result, changes };
}

/** Applies committed changes to the tables. */
export function applyChanges(tables: RecordTables, changes: readonly Change[]): void {
  for (const { collection, id, record } of changes) {
    const table = tables[collection] as Map<string, object>;
    if (record) table.set(id, record);
    else table.delete(id);
  }
}
