import type { Repository } from '../ports.js';
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
  return {
    async read(fn) {
      return fn(view);
    },
    transact(fn) {
      return queue.run(async () => {
        const { tx, changes } = bufferedTransaction(view);
        const result = await fn(tx);
        for (const { collection, id, record } of changes()) tables.set(collection, id, record);
        return result;
      });
    },
    async close() {},
  };
}
