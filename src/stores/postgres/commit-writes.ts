import type { RecordChange } from '../../ports.js';
import { COLLECTION_NAMES, type CollectionName } from '../../records.js';
import { listFieldsOf } from './list-fields.js';
import { type ListWrite, listWrite } from './list-writes.js';
import { cacheKey, recordBytes } from './record-cache.js';
import { encodeRecord, isIdList } from './record-codec.js';
import type { RunQuery, StoreParts, TransactionReads } from './record-view.js';
import { writeSearchRows } from './search-writes.js';
import { toText } from './texts.js';

/** A record a transaction stored, to keep in the cache once it commits. */
export interface Stored {
  readonly key: string;
  readonly version: number;
  readonly record: object;
  readonly bytes: number;
}

/** What a transaction's writes changed, for the cache once it commits. */
export interface Committed {
  readonly stored: readonly Stored[];
  /** Cache keys of the records deleted. */
  readonly deleted: readonly string[];
  /** The transaction's id (xid8), under which its changes are logged; undefined when it wrote nothing. */
  readonly xid?: bigint;
}

/**
 * Applies a transaction's writes: one statement, however many records it wrote (the Statements'
 * `write`: records, list rows, and the log of the records written in `changes`, which the change
 * feed of every instance reads: change-feed.ts), then the search rows of the messages, names and
 * annotations written (see search-writes.ts: none, one or two statements). Each list a put
 * changes is compared with the list the transaction read (see list-writes.ts), so appending an id
 * to a list of 20,000 adds one row and rewrites none. Answers the records put, with their new
 * versions, those deleted, and the transaction's id.
 */
export async function commitWrites(
  run: RunQuery,
  parts: StoreParts,
  changes: readonly RecordChange[],
  reads: TransactionReads,
): Promise<Committed> {
  const deleted: string[] = [];
  if (changes.length === 0) return { stored: [], deleted };
  const locks = new Set<number>();
  const cleared: [string[], string[], string[]] = [[], [], []];
  const removed: [string[], string[], string[], string[]] = [[], [], [], []];
  const gone: [string[], string[]] = [[], []];
  const logged: [string[], string[]] = [[], []];
  const put: [string[], string[], string[]] = [[], [], []];
  const added: [string[], string[], string[], string[]] = [[], [], [], []];
  const pending = new Map<string, Omit<Stored, 'version'>>();

  for (const { collection, id, record } of changes) {
    const textId = toText(id);
    push(logged, collection, textId);
    const fields = listFieldsOf(collection);
    if (record === null) {
      gone[0].push(collection);
      gone[1].push(textId);
      deleted.push(cacheKey(collection, id));
      for (const field of fields) push(cleared, collection, textId, field);
      continue;
    }
    const { body, lists } = encodeRecord(collection, record);
    locks.add(COLLECTION_NAMES.indexOf(collection));
    put[0].push(collection);
    put[1].push(textId);
    put[2].push(body);
    let items = 0;
    const key = cacheKey(collection, id);
    // Undefined when not read in this transaction, or absent when read: its rows are not known.
    const before = reads.records.get(key) as Record<string, unknown> | undefined;
    for (const field of fields) {
      const after = lists.get(field) ?? [];
      items += after.length;
      const was = before === undefined ? undefined : isIdList(before[field]) ? before[field] : [];
      const write: ListWrite = listWrite(was, after);
      if (write.kind === 'none') continue;
      if (write.kind === 'remove') {
        for (const item of write.items) push(removed, collection, textId, field, toText(item));
        continue;
      }
      if (write.kind === 'rewrite') push(cleared, collection, textId, field);
      if (write.items.length > 0) push(added, collection, textId, field, JSON.stringify(write.items.map(toText)));
    }
    pending.set(`${collection}\u0000${textId}`, { key, record, bytes: recordBytes(body, items) });
  }

  const { statements } = parts;
  const { rows } = await run(
    statements.named(statements.write, [parts.lockName, [...locks], ...cleared, ...removed, ...gone, ...put, ...added, ...logged]),
  );
  await writeSearchRows(run, parts.search, changes, reads.records);
  const written = rows as { collection: CollectionName | null; id: string; version: string; xid: string }[];
  const xid = BigInt(written[0]!.xid);
  const stored = written.flatMap((row) =>
    row.collection === null ? [] : [{ ...pending.get(`${row.collection}\u0000${row.id}`)!, version: Number(row.version) }],
  );
  return { stored, deleted, xid };
}

/** Appends one value to each column. */
function push<T extends unknown[][]>(columns: T, ...values: { [K in keyof T]: T[K][number] }): void {
  values.forEach((value, i) => columns[i]!.push(value));
}
