import { ServiceError } from '../../errors.js';
import { MigrationProgress } from './migration-progress.js';
import { takeMigrationLock } from './migration-wait.js';
import type { PostgresClient, PostgresPool } from './pool.js';
import { fillSearchTables } from './search-backfill.js';
import { searchTables } from './search-statements.js';
import { lockName } from './statements.js';

/**
 * One step of the tables' layout. Migrations run in order, each once per schema, in one
 * transaction with the row that records it in `migrations`; a release only ever adds steps at the
 * end (a step that has run is never changed).
 */
export interface Migration {
  readonly version: number;
  readonly name: string;
  /** The statements, given the schema's quoted name. */
  readonly sql: (schema: string) => string;
  /**
   * Rows the step makes from what the store holds, after its statements, in the same transaction;
   * it tells `progress` how far it got (logged, for a step that may take minutes).
   */
  readonly fill?: (client: PostgresClient, schema: string, progress: MigrationProgress) => Promise<void>;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'records, list items and versions',
    sql: (s) => `
      -- One row per record: its JSON text without its id lists (see record-codec.ts).
      CREATE TABLE ${s}.records (
        collection text NOT NULL,
        id text NOT NULL,
        body text NOT NULL,
        version bigint NOT NULL,
        ord bigint NOT NULL,
        PRIMARY KEY (collection, id)
      );
      -- Listing a collection in insertion order, a page at a time.
      CREATE INDEX records_by_order ON ${s}.records (collection, ord);
      -- The id lists: a record's list is its rows in ord order.
      CREATE TABLE ${s}.list_items (
        collection text NOT NULL,
        id text NOT NULL,
        field text NOT NULL,
        ord bigint NOT NULL,
        item text NOT NULL,
        PRIMARY KEY (collection, id, field, ord)
      );
      -- Which records name an id (and removing one id from a long list).
      CREATE INDEX list_items_by_item ON ${s}.list_items (collection, field, item);
      -- Versions of writes and the order of new records.
      CREATE SEQUENCE ${s}.versions;
    `,
  },
  {
    version: 2,
    name: 'changes',
    sql: (s) => `
      -- The records each committed transaction wrote, by its transaction id: what the change feed
      -- of every instance reads (see change-feed.ts). Rows older than a day are pruned.
      CREATE TABLE ${s}.changes (
        xid xid8 NOT NULL DEFAULT pg_current_xact_id(),
        collection text NOT NULL,
        id text NOT NULL,
        at timestamptz NOT NULL DEFAULT now()
      );
      -- The feed reads the changes past a transaction id.
      CREATE INDEX changes_by_xid ON ${s}.changes (xid);
    `,
  },
  {
    version: 3,
    name: 'search',
    // Full-text search in the database (see text-search.ts): the records held already are indexed here.
    sql: searchTables,
    fill: fillSearchTables,
  },
];

/** setTimeout's longest wait (about 24 days), as node-postgres's `query_timeout`: it reads 0 as "the pool's". */
const UNBOUNDED_MS = 2 ** 31 - 1;

/** The newest layout this release knows. */
export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1]!.version;

/**
 * Brings the schema's tables to {@link SCHEMA_VERSION}, creating the schema when missing. Many
 * instances may start together: the steps run under a transaction-scoped advisory lock named
 * after the schema, so one instance runs them and the others, waiting, find them done. A schema a
 * newer release has migrated further is refused (STORE_TOO_NEW) and left as it is. With
 * `mustExist`, a schema that holds no store yet is refused (NOT_FOUND) and nothing is created.
 *
 * A long step is said through `log`: the instance running it says what it does and how fast it
 * goes (see MigrationProgress), each one waiting for it says whom it waits for (see takeMigrationLock).
 */
export async function migrate(
  pool: PostgresPool,
  schema: string,
  quoted: string,
  mustExist = false,
  log: (message: string) => void = () => undefined,
): Promise<void> {
  // Most starts find the tables current: answered without the lock, or any right to create.
  const found = refuseNewer(await appliedVersion(pool, quoted), schema);
  if (found === SCHEMA_VERSION) return;
  if (found === 0 && mustExist) {
    throw new ServiceError('NOT_FOUND', `The PostgreSQL schema "${schema}" holds no conversation-model-service store.`, {
      resource: 'store',
      id: schema,
    });
  }
  const client = await pool.connect();
  // A connection cut while a step runs (the server restarted, the connection terminated) rejects
  // the step's query, and node-postgres also emits it as an event: without a listener, that would
  // end the process.
  const ignore = () => undefined;
  client.on('error', ignore);
  let failure: unknown;
  try {
    // Neither the wait for the lock (another instance migrating, which says how far it got) nor a
    // step (an index over every record) is bounded by the pool's statement timeout: they take what
    // they take, once. The schema's name is letters, digits and underscores only (see quoteSchema).
    await client.query({ text: 'BEGIN; SET LOCAL statement_timeout = 0;', query_timeout: UNBOUNDED_MS });
    const waited = await takeMigrationLock(client, lockName(schema), schema, log, UNBOUNDED_MS);
    await client.query({
      text: `
      CREATE SCHEMA IF NOT EXISTS ${quoted};
      CREATE TABLE IF NOT EXISTS ${quoted}.migrations (version integer PRIMARY KEY, name text NOT NULL, applied timestamptz NOT NULL DEFAULT now());`,
      query_timeout: UNBOUNDED_MS,
    });
    const applied = refuseNewer(await appliedVersion(client, quoted), schema);
    if (waited > 0) {
      log(
        `PostgreSQL schema "${schema}": the other connection's migration ${applied === SCHEMA_VERSION ? 'is done' : 'ended'} ` +
          `after ${(waited / 1000).toFixed(1)} s of waiting (the schema is at migration ${applied}).`,
      );
    }
    for (const migration of MIGRATIONS.filter((step) => step.version > applied)) {
      await client.query({
        text: `${migration.sql(quoted)};\nINSERT INTO ${quoted}.migrations (version, name) VALUES (${migration.version}, '${migration.name.replaceAll("'", "''")}');`,
        query_timeout: UNBOUNDED_MS,
      });
      await migration.fill?.(client, quoted, new MigrationProgress(client, schema, migration, log));
    }
    await client.query({ text: 'COMMIT', query_timeout: UNBOUNDED_MS });
  } catch (error) {
    failure = error;
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.off('error', ignore);
    client.release(failure instanceof ServiceError ? undefined : (failure as Error | undefined));
  }
}

/** The last migration applied to the schema; 0 when it has no tables yet. */
async function appliedVersion(db: PostgresPool | PostgresClient, quoted: string): Promise<number> {
  try {
    const { rows } = await db.query(`SELECT coalesce(max(version), 0)::text AS version FROM ${quoted}.migrations`);
    return Number(rows[0]!.version);
  } catch (error) {
    // No schema (3F000) or no migrations table (42P01) yet.
    const code = (error as { code?: unknown }).code;
    if (code === '42P01' || code === '3F000') return 0;
    throw error;
  }
}

function refuseNewer(applied: number, schema: string): number {
  if (applied > SCHEMA_VERSION) {
    throw new ServiceError(
      'STORE_TOO_NEW',
      `The PostgreSQL schema "${schema}" has migration ${applied}, newer than this release knows (${SCHEMA_VERSION}): ` +
        'it was written by a newer release of conversation-model-service. Run that release (or newer), or restore a copy made before the upgrade.',
      { resource: 'store', limit: SCHEMA_VERSION },
    );
  }
  return applied;
}
