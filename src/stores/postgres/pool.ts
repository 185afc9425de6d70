/**
 * What the store needs of node-postgres, structurally: a `pg.Pool` (the host's own, or one the
 * store makes) fits, and this package's types do not depend on `@types/pg`.
 */

/** A query: its text, its parameters, and a name under which the connection keeps it prepared. */
export interface PostgresQuery {
  readonly text: string;
  readonly values?: unknown[];
  readonly name?: string;
  /** Milliseconds this side waits for the answer (node-postgres); default the pool's. */
  readonly query_timeout?: number;
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

/**
 * How long a pool the store makes waits, so that a database that stops answering fails a request
 * instead of holding it forever. Each may be set in the connection string's query instead
 * (`postgres://…/app?connect_timeout=30&statement_timeout=60000`); 0 waits without end.
 */
export interface PoolBounds {
  /** Opening a connection, to its first answer (libpq's `connect_timeout`, in seconds in the URL). Default 10 s. */
  readonly connectMs: number;
  /**
   * One statement, on the server (`statement_timeout`), waits for locks included: then PostgreSQL
   * cancels it and the request fails. Default 30 s. Migrations are not bounded.
   */
  readonly statementMs: number;
  /**
   * A transaction left open between statements, on the server (`idle_in_transaction_session_timeout`):
   * an instance that hangs with rows locked (a network cut) frees them. Default 60 s.
   */
  readonly idleInTransactionMs: number;
  /**
   * One statement's answer, on this side (node-postgres's `query_timeout`): the server's own
   * bound plus 10 s, for a server or a network that died without closing the connection.
   */
  readonly queryMs: number;
}

export const DEFAULT_CONNECT_MS = 10_000;
export const DEFAULT_STATEMENT_MS = 30_000;
export const DEFAULT_IDLE_IN_TRANSACTION_MS = 60_000;

/** The bounds for `connectionString`: its own where it sets them, the defaults otherwise. */
export function poolBounds(connectionString: string): PoolBounds {
  let query = new URLSearchParams();
  try {
    query = new URL(connectionString).searchParams;
  } catch {
    // Not a URL (a socket path): the defaults.
  }
  const number = (name: string, fallback: number, scale = 1) => {
    const text = query.get(name);
    const value = text === null || text.trim() === '' ? Number.NaN : Number(text);
    return Number.isFinite(value) && value >= 0 ? Math.round(value * scale) : fallback;
  };
  const statementMs = number('statement_timeout', DEFAULT_STATEMENT_MS);
  return {
    connectMs: number('connect_timeout', DEFAULT_CONNECT_MS, 1000),
    statementMs,
    idleInTransactionMs: number('idle_in_transaction_session_timeout', DEFAULT_IDLE_IN_TRANSACTION_MS),
    queryMs: number('query_timeout', statementMs === 0 ? 0 : statementMs + 10_000),
  };
}

/**
 * How the store's connections plan its (prepared) statements: each execution with its values. A
 * plan made once for every value (PostgreSQL's generic plan, chosen after five runs) is costed on
 * the tables' sizes and statistics of that moment: made while the tables were small, it scans
 * them whole, and keeps doing so as they grow (an append to a 20,000-message conversation of a new
 * store took 5 times as long as one to 100) until the next ANALYZE; and the feed's poll
 * (`xid >= $1`) is only cheap when planned for its value. Replanning costs about 0.1 ms a statement.
 * Set on the store's own pool's connections, and in each of its transactions (a host's pool too).
 */
export const PLAN_CACHE_MODE = 'force_custom_plan';

/**
 * How searches plan theirs: once per connection. A search's statements are long (planning the
 * conversations' one took 1.2 ms, a fifth of its run), and their plans do not hang on the values:
 * what they read is fixed by lateral look-ups and limits, and a posting list passed as an array is
 * opaque to the planner either way.
 */
export const SEARCH_PLAN_CACHE_MODE = 'force_generic_plan';

/** Connections the store's own pool for searches opens, at most (see `openPool`'s `planCacheMode`). */
export const SEARCH_POOL_SIZE = 4;

/**
 * A pool of the `pg` package for `connectionString`, loaded now (it is an optional dependency),
 * with {@link poolBounds}; its connections plan statements as `planCacheMode` says, and it opens
 * `max` of them at most (node-postgres's default, 10, when not given).
 */
export async function openPool(
  connectionString: string,
  warn: (message: string) => void,
  { planCacheMode = PLAN_CACHE_MODE, max }: { planCacheMode?: string; max?: number } = {},
): Promise<PostgresPool> {
  let pg: typeof import('pg');
  try {
    pg = await import('pg');
  } catch (error) {
    throw new Error('The PostgreSQL store runs on the `pg` package, which is not installed: npm install pg', { cause: error });
  }
  const { Pool, Client } = pg.Pool ? pg : (pg as unknown as { default: typeof import('pg') }).default;
  const bounds = poolBounds(connectionString);
  const seconds = bounds.connectMs / 1000;
  // The connect timeout is the connection's own, not the pool's: the pool's would also fail a
  // request that waits for a free connection behind busy ones, which each end within the bounds.
  class BoundedClient extends Client {
    constructor(config: import('pg').ClientConfig) {
      super({ ...config, connectionTimeoutMillis: bounds.connectMs });
    }
    override connect(): Promise<import('pg').Client>;
    override connect(callback: (error: Error) => void): void;
    override connect(callback?: (error: Error) => void): Promise<import('pg').Client> | undefined {
      const explain = (error: Error) =>
        error?.message === 'timeout expired'
          ? new Error(`no answer within ${seconds} s of connecting (connect_timeout=${seconds})`, { cause: error })
          : error;
      if (callback) {
        super.connect((error: Error) => callback(explain(error)));
        return undefined;
      }
      return super.connect().catch((error: Error) => {
        throw explain(error);
      });
    }
  }
  const pool = new Pool({
    connectionString,
    Client: BoundedClient as typeof Client,
    keepAlive: true,
    // The connection string's own settings override these (node-postgres reads it last).
    statement_timeout: bounds.statementMs,
    idle_in_transaction_session_timeout: bounds.idleInTransactionMs,
    query_timeout: bounds.queryMs,
    // No JIT compilation either: the store's statements are short, and a search's estimates
    // (posting lists as arrays) can pass jit_above_cost, which then spends a second compiling a
    // query of milliseconds.
    options: `-c plan_cache_mode=${planCacheMode} -c jit=off`,
    ...(max === undefined ? {} : { max }),
  });
  // An idle connection the server closes (a restart, a network cut) must not end the process:
  // the pool drops it and opens another when next asked.
  pool.on('error', (error) => warn(`A PostgreSQL connection failed while idle: ${error.message}`));
  return pool as unknown as PostgresPool;
}
