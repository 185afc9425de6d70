import { frozenCopy } from '../frozen.js';
import type { ReadView, RecordChange, Transaction } from '../ports.js';
import type { CollectionName } from '../records.js';
import { pageOfArray } from './record-tables.js';

/**
 * A transaction over `committed` whose writes are collected, not applied: reads see them first,
 * then the committed records. The store applies `changes()` once the transaction's function has
 * returned; if it throws, they are dropped and nothing was touched. Records are copied and frozen
 * as they are put (refusing what is not JSON with ServiceError `INVALID_INPUT`), so the caller's
 * objects never become stored ones.
 *
 * `changes()` holds each record written once, as the transaction left it (the record, or null for
 * a delete): what the store writes, and what its change feed delivers. Inside the transaction,
 * `versions` answers 0 for a record it wrote (no stamp until committed) and undefined for one it
 * deleted; `list` of a collection it wrote reads the whole committed collection to merge them.
 */
export function bufferedTransaction(committed: ReadView): { tx: Transaction; changes(): RecordChange[] } {
  const pending = new Map<CollectionName, Map<string, object | null>>();
  const pendingOf = (collection: CollectionName) => {
    let map = pending.get(collection);
    if (!map) pending.set(collection, (map = new Map()));
    return map;
  };
  const tx: Transaction = {
    async get(collection, id) {
      const buffered = pending.get(collection)?.get(id);
      if (buffered !== undefined) return (buffered ?? undefined) as never;
      return committed.get(collection, id);
    },
    async getMany(collection, ids) {
      const buffered = pending.get(collection);
      if (!buffered) return committed.getMany(collection, ids);
      const unbuffered = ids.filter((id) => !buffered.has(id));
      const found = new Map((await committed.getMany(collection, unbuffered)).map((record, i) => [unbuffered[i]!, record]));
      return ids.map((id) => (buffered.has(id) ? (buffered.get(id) ?? undefined) : found.get(id))) as never;
    },
    async list(collection, page) {
      const buffered = pending.get(collection);
      if (!buffered) return committed.list(collection, page);
      // Rare inside a transaction (no operation lists while it writes): merged whole, then paged.
      const { records } = await committed.list(collection);
      const merged: object[] = [];
      const seen = new Set<string>();
      for (const record of records) {
        const id = (record as { id: string }).id;
        seen.add(id);
        const next = buffered.has(id) ? buffered.get(id) : record;
        if (next) merged.push(next);
      }
      for (const [id, record] of buffered) if (record && !seen.has(id)) merged.push(record);
      return pageOfArray(merged, page) as never;
    },
    async count(collection) {
      const buffered = pending.get(collection);
      const total = await committed.count(collection);
      if (!buffered) return total;
      const ids = [...buffered.keys()];
      const before = await committed.versions(collection, ids);
      let count = total;
      ids.forEach((id, i) => {
        const existed = before[i] !== undefined;
        const exists = buffered.get(id) !== null;
        count += Number(exists) - Number(existed);
      });
      return count;
    },
    async versions(collection, ids) {
      const buffered = pending.get(collection);
      const stamps = await committed.versions(collection, ids);
      // Written here: no stamp until it is committed (0), or gone.
      if (buffered) ids.forEach((id, i) => buffered.has(id) && (stamps[i] = buffered.get(id) ? 0 : undefined));
      return stamps;
    },
    put(collection, record) {
      pendingOf(collection).set(record.id, frozenCopy(record));
    },
    delete(collection, id) {
      pendingOf(collection).set(id, null);
    },
  };
  return {
    tx,
    changes() {
      const changes: RecordChange[] = [];
      for (const [collection, records] of pending) for (const [id, record] of records) changes.push({ collection, id, record });
      return changes;
    },
  };
}

/**
 * Runs transactions one at a time, in the order they were asked for: a transaction's function may
 * await its reads without another one writing between them.
 */
export class TransactionQueue {
  #tail: Promise<unknown> = Promise.resolve();

  /** Runs `work` once every transaction asked for before it has settled; answers what it answers, or rejects as it does. */
  run<T>(work: () => Promise<T>): Promise<T> {
    const result = this.#tail.then(work);
    this.#tail = result.catch(() => undefined);
    return result;
  }
}
