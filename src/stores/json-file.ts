import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { Low } from 'lowdb';
import { JSONFile } from 'lowdb/node';
import type { Repository } from '../ports.js';
import { COLLECTION_NAMES, type CollectionName, type Collections } from '../records.js';
import { applyChanges, createReadView, createRecordTables, freezeCopy, runBuffered, type RecordTables } from './record-tables.js';

/** The version of the file's layout; a newer service migrates older files when it opens them. */
export const JSON_FILE_FORMAT_VERSION = 1;

/** What the JSON file holds: every collection as an array of records, readable by a person. */
export type JsonFileData = { version: number } & { [C in CollectionName]?: Collections[C][] };

export interface JsonFileRepositoryOptions {
  /** Path of the JSON file. Its folder is created if missing; the file is created on first write. */
  readonly file: string;
}

/**
 * A Repository kept in one JSON file through lowdb. Reads are served from memory; each transaction
 * rewrites the whole file (atomically: lowdb writes a temporary file and renames it), so its cost
 * grows with the data.
 */
export async function createJsonFileRepository(options: JsonFileRepositoryOptions): Promise<Repository> {
  await mkdir(path.dirname(path.resolve(options.file)), { recursive: true });
  // Not JSONFilePreset: it silently switches to memory when NODE_ENV=test.
  const db = new Low<JsonFileData>(new JSONFile(options.file), { version: JSON_FILE_FORMAT_VERSION });
  await db.read();
  const tables = loadTables(db.data, options.file);

  return {
    async read(fn) {
      return fn(createReadView(tables));
    },
    async transact(fn) {
      const { result, changes } = runBuffered(tables, fn);
      if (changes.length === 0) return result;
      applyChanges(tables, changes);
      db.data = toData(tables);
      await db.write();
      return result;
    },
    async close() {},
  };
}

function loadTables(data: JsonFileData, file: string): RecordTables {
  if (typeof data !== 'object' || data === null || typeof data.version !== 'number') {
    throw new Error(`${file} is not a data file of this service (no "version" field).`);
  }
  if (data.version > JSON_FILE_FORMAT_VERSION) {
    throw new Error(`${file} has format version ${data.version}; this service reads up to ${JSON_FILE_FORMAT_VERSION}.`);
  }
  const tables = createRecordTables();
  for (const name of COLLECTION_NAMES) {
    const table = tables[name] as Map<string, object>;
    for (const record of data[name] ?? []) table.set((record as { id: string }).id, freezeCopy(record));
  }
  return tables;
}

function toData(tables: RecordTables): JsonFileData {
  const data: Record<string, unknown> = { version: JSON_FILE_FORMAT_VERSION };
  for (const name of COLLECTION_NAMES) data[name] = [...tables[name].values()];
  return data as JsonFileData;
}
