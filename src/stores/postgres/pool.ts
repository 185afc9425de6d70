/**
 * What the store needs of node-postgres, structurally: a `pg.Pool` (the host's own, or one the
 * store makes) fits, and this package's types do not depend on `@types/pg`.
 */

/** A query: its text, its parameters, and a name under which the connection keeps it prepared. */
export interface PostgresQuery {
  readonly text: string;
  readonly values?: unknown[];
  readonly name?: string;
}

/** The rows of a query's answer. */
export interface PostgresResult {
  readonly rows: Record<string, unknown>[];
}

/** One connection, checked out of the pool (a `pg.PoolClient`). */
export interface PostgresClient {
  query(query: string | PostgresQuery, values?: unknown[]): Promise<PostgresResult>;
  /** Back to the pool; with an error, the connection is closed instead. */
  release(error?: Error | boolean): void;
  on(event: 'error', listener: (error: Error) => void): unknown;
  /** A NOTIFY on a channel the connection LISTENs on (the change feed's). */
  on(event: 'notification', listener: (message: { channel: string }) => void): unknown;
  /** The connection closed. */
  on(event: 'end', listener: () => void): unknown;
  off(event: 'error', listener: (error: Error) => void): unknown;
}

/** A pool of connections (a `pg.Pool`). */
export interface PostgresPool {
  query(query: string | PostgresQuery, values?: unknown[]): Promise<PostgresResult>;
  connect(): Promise<PostgresClient>;
  end(): Promise<void>;
}

/** A pool of the `pg` package for `connectionString`, loaded now (it is an optional dependency). */
export async function openPool(connectionString: string, warn: (message: string) => void): Promise<PostgresPool> {
  let pg: typeof import('pg');
  try {
    pg = await import('pg');
  } catch (error) {
    throw new Error('The PostgreSQL store runs on the `pg` package, which is not installed: npm install pg', { cause: error });
  }
  const Pool = pg.Pool ?? (pg as unknown as { default: typeof import('pg') }).default.Pool;
  const pool = new Pool({ connectionString });
  // An idle connection the server closes (a restart, a network cut) must not end the process:
  // the pool drops it and opens another when next asked.
  pool.on('error', (error) => warn(`A PostgreSQL connection failed while idle: ${error.message}`));
  return pool as unknown as PostgresPool;
}
