import type { Page, PageRequest, ReadView } from '../../ports.js';
import { COLLECTION_NAMES, type CollectionName } from '../../records.js';
import { listFieldsOf } from './list-fields.js';
import type { PostgresQuery, PostgresResult } from './pool.js';
import type { FetchedRow, ReadBatch, Seen } from './read-batch.js';
import { type CachedRecord, cacheKey, type RecordCache, recordBytes } from './record-cache.js';
import { decodeRecord } from './record-codec.js';
import type { SearchStatements } from './search-statements.js';
import type { Statements } from './statements.js';
import { fromText, toText } from './texts.js';

/** Runs one query on a connection (a transaction's) or on the pool (a read's). */
export type RunQuery = (query: PostgresQuery) => Promise<PostgresResult>;

/** What the views of one store share. */
export interface StoreParts {
  readonly statements: Statements;
  /** The SQL of full-text search (see search-writes.ts, text-search.ts). */
  readonly search: SearchStatements;
  readonly cache: RecordCache;
  /** Names the store's advisory locks (hashed by the server): one schema's never meet another's. */
  readonly lockName: string;
}

/**
 * What a transaction read: each record under its row lock (undefined: absent when read). A record
 * read again is answered from here: its lock keeps it as it was. Its writes are diffed against
 * these at commit (see commit-writes.ts).
 */
export class TransactionReads {
  readonly records = new Map<string, object | undefined>();
  /** Collections the transaction has listed, whose advisory lock it holds (see Statements.lockCollection). */
  readonly listed = new Set<CollectionName>();
}

/**
 * A read's `versions` of at most this many records it has not seen fetches the records too (the
 * bodies the cache lacks): an answer's stamps are read to read its records next (see
 * render/json-cache.ts), and one statement then serves both. Above it (the stamps of a long
 * conversation's messages, for one page of them), only the versions are read.
 */
export const VERSIONS_WITH_RECORDS = 200;

/**
 * The records as the database holds them, each call one query (or two: a page's ids, then the
 * records of it not in the cache; a locking read's records, then their lists). Without `reads`, each call sees what is committed when it
 * runs; with them (a transaction's), every record read is locked (`FOR UPDATE`) until the
 * transaction ends, so two transactions that read then write one record run one after the other.
 * With `batch` (one `Repository.read`'s), the fetches asked for together are one statement, and
 * a record the read has seen is answered as it was seen (see read-batch.ts).
 */
export function recordView(run: RunQuery, parts: StoreParts, reads?: TransactionReads, batch?: ReadBatch): ReadView {
  const { statements, cache } = parts;
  const lock = reads !== undefined;
  const fetchSql = { locking: statements.fetch(true), plain: statements.fetch(false) };

  /**
   * The records with these (distinct) ids, each with its version, fetching only what the cache
   * lacks or holds at another version. For `versions` (`stampsOnly`), a record that cannot be
   * decoded is answered by its version alone: reading it (get) fails, as it would have.
   */
  const fetch = async (
    collection: CollectionName,
    ids: readonly string[],
    lockRows = lock,
    stampsOnly = false,
  ): Promise<Map<string, Seen>> => {
    const found = new Map<string, Seen>();
    if (ids.length === 0) return found;
    const known = new Map<string, CachedRecord>();
    const versions = ids.map((id) => {
      const cached = cache.get(cacheKey(collection, id));
      if (cached) known.set(id, cached);
      return cached?.version ?? null;
    });
    const fetched =
      batch && !lockRows
        ? await batch.rows(collection, ids.map(toText), versions)
        : ((await run(statements.named(lockRows ? fetchSql.locking : fetchSql.plain, [collection, ids.map(toText), versions])))
            .rows as unknown as FetchedRow[]);
    // A locking read that waited for another transaction's lock answers the row as that one left
    // it, but what else it reads comes from the snapshot it started with: the lists of the records
    // it locked are read by a second statement, which sees that transaction's rows. (Nobody changes
    // them meanwhile: every write of a record's lists writes its row, which is locked now.)
    const lockedLists = lockRows && listFieldsOf(collection).length > 0 ? await listsOf(collection, fetched) : undefined;
    for (const row of fetched) {
      const id = fromText(row.id);
      const version = Number(row.version);
      let record: object;
      if (row.body === null) record = known.get(id)!.record;
      else {
        const text = lockedLists ? lockedLists.get(row.id) : row.lists;
        try {
          const lists = text === null || text === undefined ? undefined : (JSON.parse(text) as Record<string, string[]>);
          record = decodeRecord(collection, row.body, lists);
          const items = lists ? Object.values(lists).reduce((sum, list) => sum + list.length, 0) : 0;
          cache.set(cacheKey(collection, id), version, record, recordBytes(row.body, items));
        } catch (error) {
          if (!stampsOnly) throw error;
          found.set(id, { version });
          batch?.see(cacheKey(collection, id), { version });
          continue;
        }
      }
      found.set(id, { version, record });
      batch?.see(cacheKey(collection, id), { version, record });
    }
    for (const id of ids) {
      if (found.has(id)) continue;
      cache.delete(cacheKey(collection, id));
      batch?.see(cacheKey(collection, id), { version: undefined });
    }
    return found;
  };

  /** The lists (a JSON object of field to items) of the rows fetched with their body, by stored id. */
  const listsOf = async (collection: CollectionName, rows: readonly { id: string; body: string | null }[]) => {
    const ids = rows.filter((row) => row.body !== null).map((row) => row.id);
    const lists = new Map<string, string>();
    if (ids.length === 0) return lists;
    const { rows: found } = await run(statements.named(statements.lists, [collection, ids]));
    for (const row of found as { id: string; lists: string }[]) lists.set(row.id, row.lists);
    return lists;
  };

  const getMany = async (collection: CollectionName, ids: readonly string[]): Promise<(object | undefined)[]> => {
    const wanted = [...new Set(ids)];
    let held: Map<string, object | undefined> | undefined;
    if (reads) {
      // Locked by this transaction already: as it was read.
      held = new Map();
      for (const id of wanted) {
        const record = reads.records.get(cacheKey(collection, id));
        if (record) held.set(id, record);
      }
    } else if (batch) {
      // Seen by this read already (absent, or decoded): as it was seen.
      held = new Map();
      for (const id of wanted) {
        const seen = batch.seen(cacheKey(collection, id));
        if (seen && (seen.record !== undefined || seen.version === undefined)) held.set(id, seen.record);
      }
    }
    const found = await fetch(collection, held ? wanted.filter((id) => !held.has(id)) : wanted);
    if (reads) {
      for (const id of wanted) if (!held!.has(id)) reads.records.set(cacheKey(collection, id), found.get(id)?.record);
    }
    return ids.map((id) => (held?.has(id) ? held.get(id) : found.get(id)?.record));
  };

  return {
    get: async (collection, id) => (await getMany(collection, [id]))[0] as never,
    getMany: (collection, ids) => getMany(collection, ids) as never,
    async list(collection, page: PageRequest = {}) {
      const after = page.after === undefined ? 0 : cursorOrder(page.after);
      const limit = page.limit;
      if (reads && !reads.listed.has(collection)) {
        await run({ text: statements.lockCollection, values: [parts.lockName, COLLECTION_NAMES.indexOf(collection)] });
        reads.listed.add(collection);
      }
      const { rows } = await run(
        statements.named(statements.page(lock), [collection, after, Math.max(0, page.offset ?? 0), limit === undefined ? null : limit + 1]),
      );
      const more = limit !== undefined && rows.length > limit;
      const listed = (rows as { id: string; version: string; ord_text: string }[]).slice(0, limit ?? rows.length);
      const ids = listed.map((row) => fromText(row.id));
      // Those the cache holds at their version need no other query; the rest are fetched (and,
      // in a transaction, are locked already by the page's query).
      const records = new Map<string, object>();
      const missing: string[] = [];
      listed.forEach((row, i) => {
        const id = ids[i]!;
        const held = reads?.records.get(cacheKey(collection, id));
        const cached = held ? undefined : cache.get(cacheKey(collection, id));
        if (held) records.set(id, held);
        else if (cached && cached.version === Number(row.version)) records.set(id, cached.record);
        else missing.push(id);
      });
      for (const [id, { record }] of await fetch(collection, missing, false)) if (record) records.set(id, record);
      const answered: object[] = [];
      for (const id of ids) {
        const record = records.get(id);
        // Gone between the two queries (outside a transaction): left out, as a later page would.
        if (!record) continue;
        answered.push(record);
        reads?.records.set(cacheKey(collection, id), record);
      }
      const last = listed[listed.length - 1];
      return (more && last ? { records: answered, next: last.ord_text } : { records: answered }) as unknown as Page<never>;
    },
    async count(collection) {
      const { rows } = await run(statements.named(statements.count, [collection]));
      return Number(rows[0]!.count);
    },
    async versions(collection, ids) {
      if (ids.length === 0) return [];
      const stamps = new Map<string, number | undefined>();
      let unseen = [...new Set(ids)];
      if (batch) {
        unseen = unseen.filter((id) => {
          const seen = batch.seen(cacheKey(collection, id));
          if (seen) stamps.set(id, seen.version);
          return !seen;
        });
        if (unseen.length > 0 && unseen.length <= VERSIONS_WITH_RECORDS) {
          const found = await fetch(collection, unseen, false, true);
          for (const id of unseen) stamps.set(id, found.get(id)?.version);
          unseen = [];
        }
      }
      if (unseen.length > 0) {
        const { rows } = await run(statements.named(statements.versions, [collection, unseen.map(toText)]));
        for (const row of rows as { id: string; version: string }[]) stamps.set(fromText(row.id), Number(row.version));
      }
      return ids.map((id) => stamps.get(id));
    },
  };
}

function cursorOrder(cursor: string): number {
  const order = Number(cursor);
  if (!/^\d+$/.test(cursor) || !Number.isSafeInteger(order)) throw new TypeError(`"${cursor}" is not a cursor this store gave out.`);
  return order;
}
