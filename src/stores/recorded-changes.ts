import { frozenCopy } from '../frozen.js';
import type { ChangeFeed, RecordChange, Repository, Transaction } from '../ports.js';
import { ChangeEmitter } from './change-emitter.js';

/**
 * `repository` with a change feed: itself when it has one (`repository.changes`), else wrapped so
 * that each transaction made through the wrapper is delivered as a batch once committed. Such a
 * feed sees only those transactions: writes made to the store by anything else (another process,
 * the store used directly) are not in it.
 */
export function withChangeFeed(repository: Repository): Repository & { readonly changes: ChangeFeed } {
  if (repository.changes) return repository as Repository & { changes: ChangeFeed };
  const changes = new ChangeEmitter();
  return {
    ...(repository.search ? { search: repository.search } : {}),
    ...(repository.health ? { health: () => repository.health!() } : {}),
    read: (fn) => repository.read(fn),
    async transact(fn) {
      let written: RecordChange[] = [];
      const result = await repository.transact(async (tx) => {
        const recorder = recording(tx);
        const answer = await fn(recorder.tx);
        written = recorder.changes();
        return answer;
      });
      // Committed: delivered now. (A store may run a transaction's function more than once: the
      // last run's writes are the ones committed.)
      changes.emit(written);
      return result;
    },
    close: () => repository.close(),
    changes,
  };
}

/** A transaction that remembers what it writes: the last write of each record. */
function recording(tx: Transaction): { tx: Transaction; changes(): RecordChange[] } {
  const writes = new Map<string, RecordChange>();
  const recorder: Transaction = {
    get: (collection, id) => tx.get(collection, id),
    getMany: (collection, ids) => tx.getMany(collection, ids),
    list: (collection, page) => tx.list(collection, page),
    count: (collection) => tx.count(collection),
    versions: (collection, ids) => tx.versions(collection, ids),
    put(collection, record) {
      tx.put(collection, record);
      // As the store keeps it (a copy, frozen): the caller may change its object afterwards.
      writes.set(`${collection}\u0000${record.id}`, { collection, id: record.id, record: frozenCopy(record) });
    },
    delete(collection, id) {
      tx.delete(collection, id);
      writes.set(`${collection}\u0000${id}`, { collection, id, record: null });
    },
  };
  return { tx: recorder, changes: () => [...writes.values()] };
}
