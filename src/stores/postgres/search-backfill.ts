import type { RecordChange } from '../../ports.js';
import type { CollectionName } from '../../records.js';
import { INDEXED_COLLECTIONS } from '../../search/record-docs.js';
import type { MigrationProgress } from './migration-progress.js';
import type { PostgresClient } from './pool.js';
import { decodeRecord } from './record-codec.js';
import { SearchStatements } from './search-statements.js';
import { writeSearchRows } from './search-writes.js';
import { Statements } from './statements.js';
import { fromText } from './texts.js';

/** Records indexed per statement pair while filling the search tables. */
const PAGE = 1000;

/**
 * Fills the search tables from the records a store already holds (migration 3, in its
 * transaction, under the migrations' lock): each record as if written now, a page at a time, by
 * the code every transaction writes them with. Documents need no id list, so the bodies alone are
 * read. How far it got is told to `progress` (which logs it).
 *
 * In one transaction, on purpose: until it commits, the other instances wait, and none answers a
 * search from tables that hold part of the records (a search must never miss a committed record);
 * a failure leaves the store as it was, at migration 2, for the next start to index again.
 */
export async function fillSearchTables(client: PostgresClient, schema: string, progress: MigrationProgress): Promise<void> {
  const statements = new SearchStatements(schema, new Statements(schema));
  const run = (query: { text: string; values?: unknown[] }) => client.query(query);
  const { rows: counted } = await client.query({
    text: `SELECT count(*)::text AS n FROM ${schema}.records WHERE collection = ANY($1::text[])`,
    values: [[...INDEXED_COLLECTIONS]],
  });
  await progress.start(Number((counted[0] as { n: string }).n));
  for (const collection of INDEXED_COLLECTIONS) {
    let after = '';
    for (;;) {
      const { rows } = await client.query({
        text: `SELECT id, body FROM ${schema}.records WHERE collection = $1 AND id > $2 ORDER BY id LIMIT ${PAGE}`,
        values: [collection, after],
      });
      if (rows.length === 0) break;
      const changes: RecordChange[] = (rows as { id: string; body: string }[]).map((row) => ({
        collection: collection as CollectionName,
        id: fromText(row.id),
        record: decodeRecord(collection, row.body, undefined),
      }));
      await writeSearchRows(run, statements, changes, new Map());
      await progress.advance(rows.length);
      after = (rows[rows.length - 1] as { id: string }).id;
    }
  }
  progress.finish();
}
