import { Low } from 'lowdb';
import { JSONFile } from 'lowdb/node';
import type { Repository } from '../src/index.js';
import { COLLECTION_NAMES } from '../src/index.js';
import { applyChanges, createReadView, createRecordTables, runBuffered } from '../src/stores/record-tables.js';

/**
 * The baseline: the first release's JSON-file repository, which rewrites the whole file through
 * lowdb on every transaction. Reads the same snapshot layout as the journaled repository.
 */
export async function createNaiveLowdbRepository(file: string): Promise<Repository> {
  const db = new Low<Record<string, unknown>>(new JSONFile(file), { version: 2, journalSeq: 0 });
  await db.read();
  const tables = createRecordTables();
  for (const name of COLLECTION_NAMES) {
    const table = tables[name] as Map<string, object>;
    for (const record of (db.data[name] as { id: string }[] | undefined) ?? []) table.set(record.id, record);
  }
  return {
    async read(fn) {
      return fn(createReadView(tables));
    },
    async transact(fn) {
      const { result, changes } = runBuffered(tables, fn);
      if (changes.length === 0) return result;
      applyChanges(tables, changes);
      const data: Record<string, unknown> = { version: 2, journalSeq: 0 };
      for (const name of COLLECTION_NAMES) data[name] = [...tables[name].values()];
      db.data = data;
      await db.write();
      return result;
    },
    async close() {},
  };
}
