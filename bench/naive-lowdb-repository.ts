import { Low } from 'lowdb';
import { JSONFile } from 'lowdb/node';
import type { Repository } from '../src/index.js';
import { COLLECTION_NAMES } from '../src/index.js';
import { bufferedTransaction, TransactionQueue } from '../src/stores/buffered-transaction.js';
import { RecordTables } from '../src/stores/record-tables.js';

/**
 * The baseline: the first release's JSON-file repository, which rewrites the whole file through
 * lowdb on every transaction. Reads the same snapshot layout as the journaled repository did.
 */
export async function createNaiveLowdbRepository(file: string): Promise<Repository> {
  const db = new Low<Record<string, unknown>>(new JSONFile(file), { version: 2, journalSeq: 0 });
  await db.read();
  const tables = new RecordTables();
  for (const name of COLLECTION_NAMES) {
    for (const record of (db.data[name] as { id: string }[] | undefined) ?? []) tables.set(name, record.id, record);
  }
  const view = tables.view();
  const queue = new TransactionQueue();
  return {
    async read(fn) {
      return fn(view);
    },
    async transact(fn) {
      // Applied one at a time; the whole-file writes overlap as they did (lowdb's writer coalesces them).
      const { result, written } = await queue.run(async () => {
        const { tx, changes } = bufferedTransaction(view);
        const result = await fn(tx);
        const written = changes();
        for (const { collection, id, record } of written) tables.set(collection, id, record);
        return { result, written };
      });
      if (written.length === 0) return result;
      const data: Record<string, unknown> = { version: 2, journalSeq: 0 };
      for (const name of COLLECTION_NAMES) data[name] = Array.from(tables.rows(name).values(), (row) => row.record);
      db.data = data;
      await db.write();
      return result;
    },
    async close() {},
  };
}
