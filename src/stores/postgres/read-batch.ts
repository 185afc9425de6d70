import type { CollectionName } from '../../records.js';
import type { RunQuery } from './record-view.js';
import type { Statements } from './statements.js';

/** A record's row as a fetch answers it: its body (and lists) only where the cache lacks its version. */
export interface FetchedRow {
  readonly id: string;
  readonly version: string;
  readonly body: string | null;
  readonly lists?: string | null;
}

/** What one read learned of a record: its version, and the record itself once decoded (undefined: absent). */
export interface Seen {
  readonly version: number | undefined;
  readonly record?: object;
}

/** At most this many records are remembered by one read: a read that walks a whole store keeps no more. */
const MAX_SEEN = 10_000;

/**
 * The fetches of one read (a `Repository.read` function's view), sent together: those asked for in
 * one turn of the event loop (an answer's stamps of messages and of annotations, asked for with
 * `Promise.all`) are one statement, one round trip, across collections. It also keeps what the
 * read has seen, each record with its version as one statement answered them, so that the read
 * asks the database once for a record: its stamp, then the record (what the answer cache does),
 * cost one round trip, and the record is exactly the one of that stamp.
 *
 * A read sees what was committed when it started or later (every statement runs after the read
 * began): what another instance acknowledged before is never missed. Kept for the read only.
 */
export class ReadBatch {
  readonly #seen = new Map<string, Seen>();
  #pending: {
    collection: CollectionName;
    ids: string[];
    cached: (number | null)[];
    resolve(rows: FetchedRow[]): void;
    reject(error: unknown): void;
  }[] = [];

  constructor(
    private readonly run: RunQuery,
    private readonly statements: Statements,
  ) {}

  /** What the read has seen of a record (by cache key), if anything. */
  seen(key: string): Seen | undefined {
    return this.#seen.get(key);
  }

  /** Remembers what the read saw of a record, while it has seen fewer than MAX_SEEN. */
  see(key: string, seen: Seen): void {
    if (this.#seen.size < MAX_SEEN || this.#seen.has(key)) this.#seen.set(key, seen);
  }

  /** The rows of records `ids` (stored ids) of `collection`, `cached` their versions in the cache: fetched with the others asked for in this turn. */
  rows(collection: CollectionName, ids: string[], cached: (number | null)[]): Promise<FetchedRow[]> {
    return new Promise((resolve, reject) => {
      this.#pending.push({ collection, ids, cached, resolve, reject });
      if (this.#pending.length === 1) queueMicrotask(() => void this.#flush());
    });
  }

  async #flush(): Promise<void> {
    const pending = this.#pending.splice(0);
    const columns: [string[], string[], (number | null)[]] = [[], [], []];
    for (const { collection, ids, cached } of pending) {
      ids.forEach((id, i) => {
        columns[0].push(collection);
        columns[1].push(id);
        columns[2].push(cached[i]!);
      });
    }
    try {
      const { rows } = await this.run(this.statements.named(this.statements.fetchAcross, columns));
      const byKey = new Map<string, FetchedRow>();
      for (const row of rows as unknown as (FetchedRow & { collection: string })[]) byKey.set(`${row.collection}\u0000${row.id}`, row);
      for (const { collection, ids, resolve } of pending) {
        resolve(ids.flatMap((id) => byKey.get(`${collection}\u0000${id}`) ?? []));
      }
    } catch (error) {
      for (const { reject } of pending) reject(error);
    }
  }
}
