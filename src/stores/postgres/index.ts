import type { ChangeFeed, Repository } from '../../ports.js';
import { PostgresChangeFeed } from './change-feed.js';
import { reportedAsStore } from './database-errors.js';
import { migrate } from './migrations.js';
import { openPool, type PostgresPool, SEARCH_PLAN_CACHE_MODE, SEARCH_POOL_SIZE } from './pool.js';
import { ReadBatch } from './read-batch.js';
import { RecordCache } from './record-cache.js';
import { type RunQuery, recordView, type StoreParts } from './record-view.js';
import { SearchQueries } from './search-queries.js';
import { SearchStatements } from './search-statements.js';
import { channelName, lockName, quoteSchema, Statements } from './statements.js';
import { PostgresTextSearch } from './text-search.js';
import { runTransaction } from './transaction.js';

export { MIGRATIONS, SCHEMA_VERSION } from './migrations.js';
export type { PostgresClient, PostgresPool, PostgresQuery, PostgresResult } from './pool.js';

/** Where the store's database is: a connection string (the store makes its pool), or a `pg.Pool` of yours. */
export type PostgresConnection = { readonly connectionString: string } | { readonly pool: PostgresPool };

export interface PostgresRepositoryOptions {
  /**
   * The schema that holds the store's tables, created (with them) when missing. Several stores can
   * share a database in schemas of their own. Letters, digits and underscores. Default
   * `conversation_model_service`.
   */
  readonly schema?: string;
  /**
   * Bytes of records this process keeps to avoid reading them again (a read still asks the
   * database for each record's version: it answers a kept record only while it is current).
   * Default 32 MiB; 0 keeps none.
   */
  readonly recordCacheBytes?: number;
  /**
   * Refuse a schema that holds no store (a ServiceError NOT_FOUND) instead of creating it: for a
   * store only read from, such as a copy's source. Default false.
   */
  readonly mustExist?: boolean;
  /**
   * Where warnings go (a connection of the store's own pool that failed while idle), and, to
   * `info` when it has one (else to `warn`), a migration that takes long: what it does and how fast,
   * or that this instance waits for another's. Default `console`.
   */
  readonly logger?: { warn(message: string): void; info?(message: string): void };
}

export const DEFAULT_SCHEMA = 'conversation_model_service';

/**
 * A Repository in PostgreSQL, which several service instances can share: every read asks the
 * database, and transactions lock the rows they read, so what one instance acknowledged the others
 * see, and concurrent writes from any of them lose nothing.
 *
 * Tables, in `options.schema` (created and migrated here, under an advisory lock, so instances
 * starting together do not race; a schema a newer release migrated is refused with STORE_TOO_NEW):
 * `records` (one row per record: its JSON text, without its id lists, readable in `psql`),
 * `list_items` (the id lists, one row per id, so appending one costs one row at any length) and
 * the `versions` sequence, `changes` (each transaction's written records, which the change
 * feed `changes` of every instance follows; see change-feed.ts), and the search tables, written
 * in the same transactions as the records, which its `search` reads (see text-search.ts). Needs the `pg` package (an optional dependency: `npm install pg`),
 * loaded only when a store is made from a connection string.
 *
 * `close()` ends the pool only when the store made it; a pool you pass stays yours.
 */
export async function createPostgresRepository(
  connection: PostgresConnection,
  options: PostgresRepositoryOptions = {},
): Promise<Repository> {
  const schema = options.schema ?? DEFAULT_SCHEMA;
  const quoted = quoteSchema(schema);
  const logger = options.logger ?? console;
  const ownPool = 'connectionString' in connection;
  const pool = ownPool ? await openPool(connection.connectionString, (message) => logger.warn(message)) : connection.pool;
  try {
    await migrate(pool, schema, quoted, options.mustExist, (message) => (logger.info ?? logger.warn).call(logger, message));
  } catch (error) {
    if (ownPool) await pool.end();
    throw error;
  }
  const statements = new Statements(quoted);
  const parts: StoreParts = {
    statements,
    search: new SearchStatements(quoted, statements),
    cache: new RecordCache(options.recordCacheBytes ?? 32 * 1024 * 1024),
    lockName: lockName(schema),
  };
  // Searches plan their statements once per connection (see SEARCH_PLAN_CACHE_MODE), so they get
  // a few connections of their own when the store makes its pool; on a host's pool they share it.
  const searchPool = ownPool
    ? await openPool(connection.connectionString, (message) => logger.warn(message), {
        planCacheMode: SEARCH_PLAN_CACHE_MODE,
        max: SEARCH_POOL_SIZE,
      })
    : pool;
  const runOnPool: RunQuery = (query) => pool.query(query);
  const view = recordView(runOnPool, parts);
  const feed = new PostgresChangeFeed(pool, view, parts.statements, channelName(schema), (message) => logger.warn(message));
  const endPools = async () => {
    if (ownPool) await Promise.all([pool.end(), searchPool.end()]);
  };
  try {
    await feed.open();
  } catch (error) {
    await endPools();
    throw error;
  }
  // Transactions under way, which close() lets finish.
  const running = new Set<Promise<unknown>>();
  let closed = false;
  const refuseClosed = () => {
    if (closed) throw new Error(`The PostgreSQL repository (schema "${schema}") is closed.`);
  };
  // A database that cannot answer is STORE_UNAVAILABLE (503), not a bug's 500: see database-errors.ts.
  const reported = <T>(work: () => Promise<T>) => reportedAsStore(schema, work);
  const changes: ChangeFeed = {
    subscribe: (listener) => feed.subscribe(listener),
    caughtUp: () => reported(() => feed.caughtUp()),
  };
  // Searches read the committed tables, each query on the pool.
  const search = new PostgresTextSearch(
    (query) =>
      reported(async () => {
        refuseClosed();
        return searchPool.query(query);
      }),
    new SearchQueries(quoted, statements),
  );
  return {
    changes,
    search,
    async read(fn) {
      refuseClosed();
      feed.used();
      // A view of its own: what it fetches together is one statement, and it asks once for a record (see read-batch.ts).
      return reported(async () => fn(recordView(runOnPool, parts, undefined, new ReadBatch(runOnPool, statements))));
    },
    transact(fn) {
      refuseClosed();
      feed.used();
      const work = reported(() => runTransaction(pool, parts, fn, feed));
      running.add(work);
      void work.then(
        () => running.delete(work),
        () => running.delete(work),
      );
      return work;
    },
    async close() {
      if (closed) return;
      closed = true;
      await Promise.allSettled(running);
      await feed.close();
      await endPools();
    },
  };
}
