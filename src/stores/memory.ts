import type { Repository } from '../ports.js';
import { SearchIndex } from '../search/search-index.js';
import { bufferedTransaction, TransactionQueue } from './buffered-transaction.js';
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
  return {
    search,
    async read(fn) {
      return fn(view);
    },
    transact(fn) {
      return queue.run(async () => {
        const { tx, changes } = bufferedTransaction(view);
        const result = await fn(tx);
        const written = changes();
        for (const { collection, id, record } of written) tables.set(collection, id, record);
        search.apply(written);
        return result;
      });
    },
    async close() {},
  };
}
