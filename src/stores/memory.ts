import type { Repository } from '../ports.js';
import { applyChanges, createReadView, createRecordTables, runBuffered } from './record-tables.js';

/**
 * A Repository that keeps everything in memory: for tests, and for apps that persist elsewhere.
 * Nothing survives the process.
 */
export function createMemoryRepository(): Repository {
  const tables = createRecordTables();
  return {
    async read(fn) {
      return fn(createReadView(tables));
    },
    async transact(fn) {
      const { result, changes } = runBuffered(tables, fn);
      applyChanges(tables, changes);
      return result;
    },
    async close() {},
  };
}
