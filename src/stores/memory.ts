import type { Repository } from '../ports.js';
import { SearchIndex } from '../search/search-index.js';
import { bufferedTransaction, TransactionQueue } from './buffered-transaction.js';
import { ChangeEmitter } from './change-emitter.js';
import { RecordTables } from './record-tables.js';

/**
 * A Repository that keeps everything in memory: for tests, and for apps that persist elsewhere.
 * Nothing survives the process.
 */
export function createMemoryRepository(): Repository {
  const tables = new RecordTables();
  const view = tables.view();
  const queue = new TransactionQueue();
  const search = new SearchIndex();
  // Every write is this store's own, delivered before its transact resolves: a local feed.
  const changes = new ChangeEmitter(undefined, { local: true });
  return {
    search,
    changes,
    async read(fn) {
      return fn(view);
    },
    transact(fn) {
      return queue.run(async () => {
        const { tx, changes: buffered } = bufferedTransaction(view);
        const result = await fn(tx);
        const written = buffered();
        for (const { collection, id, record } of written) tables.set(collection, id, record);
        // Searchable first: what follows the feed (vectors of meaning) finds it in the index.
        search.apply(written);
        changes.emit(written);
        return result;
      });
    },
    async backup(folder) {
      // The records as they are between two transactions: records are immutable, so copying the
      // tables' rows (references, not records) is a consistent view that later writes do not change.
      const frozen = await queue.run(async () => tables.copy());
      // Loaded only when asked: the memory store does not carry the JSON-file store's code otherwise.
      const { backupRecords } = await import('./json-file/backup-from-records.js');
      return backupRecords(frozen.view(), folder);
    },
    async close() {},
  };
}
