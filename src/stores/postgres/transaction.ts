import type { RecordChange, Transaction } from '../../ports.js';
import { bufferedTransaction } from '../buffered-transaction.js';
import { commitWrites } from './commit-writes.js';
import { PLAN_CACHE_MODE, type PostgresPool, type PostgresQuery } from './pool.js';
import { recordView, type StoreParts, TransactionReads } from './record-view.js';

/** How often a transaction that met a deadlock or a serialization failure runs again before its error is answered. */
export const MAX_ATTEMPTS = 10;

/** SQLSTATEs after which the whole transaction may simply run again: deadlock_detected, serialization_failure. */
const RETRYABLE = new Set(['40P01', '40001']);

export const isRetryable = (error: unknown): boolean => RETRYABLE.has((error as { code?: unknown } | undefined)?.code as string);

/** Opens a transaction whose statements are planned for their values (see PLAN_CACHE_MODE), in one round trip. */
const BEGIN = `BEGIN; SET LOCAL plan_cache_mode = ${PLAN_CACHE_MODE}`;

/** What the change feed learns of this process's transactions (see change-feed.ts). */
export interface CommitObserver {
  /** Transaction `xid`, which wrote `changes`, is about to commit: a poll that finds it meanwhile leaves it to {@link committed}. */
  committing(xid: bigint, changes: readonly RecordChange[]): void;
  /** It committed, with these writes (as it left them); or, with undefined, its commit failed (it may have committed or not). */
  committed(xid: bigint, changes: readonly RecordChange[] | undefined): void | Promise<void>;
}

/**
 * Runs `fn` in a PostgreSQL transaction (READ COMMITTED): its reads lock the rows they read, its
 * writes are buffered (reads see them) and applied at the end (see commit-writes.ts), then it
 * commits. When PostgreSQL chose it as the victim of a deadlock, or it failed to serialize, the
 * whole function runs again on a new transaction, after a short random wait that grows with each
 * try: the reason `transact` may run its function more than once.
 */
export async function runTransaction<T>(
  pool: PostgresPool,
  parts: StoreParts,
  fn: (tx: Transaction) => T | Promise<T>,
  observer?: CommitObserver,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const outcome = await attemptOnce(pool, parts, fn, observer);
    if (outcome.ok) {
      // Its connection back in the pool first: the feed may wait for a poll, which needs one.
      if (outcome.committed) await observer!.committed(outcome.committed.xid, outcome.committed.changes);
      return outcome.result;
    }
    if (attempt >= MAX_ATTEMPTS || !isRetryable(outcome.error)) throw outcome.error;
    await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(1000, 10 * 2 ** attempt)));
  }
}

type Outcome<T> = { ok: true; result: T; committed?: { xid: bigint; changes: readonly RecordChange[] } } | { ok: false; error: unknown };

async function attemptOnce<T>(
  pool: PostgresPool,
  parts: StoreParts,
  fn: (tx: Transaction) => T | Promise<T>,
  observer: CommitObserver | undefined,
): Promise<Outcome<T>> {
  const client = await pool.connect();
  // A connection that fails while checked out says so here too (and its query rejects): without a
  // listener, node-postgres would throw the event and end the process.
  const ignore = () => undefined;
  client.on('error', ignore);
  // The first query of this attempt that failed: once one has, PostgreSQL refuses the rest of the
  // transaction, so it is the one that says why, whatever the function made of it.
  let failed: unknown;
  let broken: Error | undefined;
  const run = async (query: PostgresQuery | string) => {
    try {
      return await client.query(query);
    } catch (error) {
      failed ??= error;
      // Not an answer of the server (no SQLSTATE): the connection itself failed.
      if (typeof (error as { code?: unknown }).code !== 'string') broken = error as Error;
      throw error;
    }
  };
  // Whether a transaction is open on the connection, to be rolled back when the attempt ends.
  let open = false;
  // The transaction's id once the feed was told it is committing, until it is told how that went.
  let committing: bigint | undefined;
  try {
    await run(BEGIN);
    open = true;
    const reads = new TransactionReads();
    const { tx, changes } = bufferedTransaction(recordView(run, parts, reads));
    let result: T;
    try {
      result = await fn(tx);
    } catch (error) {
      return { ok: false, error: isRetryable(failed) ? failed : error };
    }
    if (failed !== undefined) return { ok: false, error: failed };
    const written = changes();
    const committed = await commitWrites(run, parts, written, reads);
    if (committed.xid !== undefined && observer) observer.committing((committing = committed.xid), written);
    await run('COMMIT');
    open = false;
    // Committed: the cache learns the new versions (a deleted record is forgotten).
    for (const key of committed.deleted) parts.cache.delete(key);
    for (const { key, version, record, bytes } of committed.stored) parts.cache.set(key, version, record, bytes);
    if (committing !== undefined) {
      committing = undefined;
      return { ok: true, result, committed: { xid: committed.xid!, changes: written } };
    }
    return { ok: true, result };
  } catch (error) {
    return { ok: false, error };
  } finally {
    if (committing !== undefined) void observer!.committed(committing, undefined);
    if (open && !broken) {
      try {
        await client.query('ROLLBACK');
      } catch (error) {
        broken = error as Error;
      }
    }
    client.off('error', ignore);
    // A connection that failed is closed, not given to the next transaction.
    client.release(broken);
  }
}
