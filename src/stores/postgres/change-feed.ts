import type { ChangeBatch, ChangeFeed, ReadView, RecordChange } from '../../ports.js';
import type { CollectionName } from '../../records.js';
import { ChangeEmitter } from '../change-emitter.js';
import type { PostgresClient, PostgresPool } from './pool.js';
import type { Statements } from './statements.js';
import { fromText } from './texts.js';
import type { CommitObserver } from './transaction.js';

/** How often the feed polls without a notification: a safety net for a notification lost. */
const SAFETY_POLL_MS = 5_000;
/** The listening connection's reconnect waits: 1 s, doubling, at most 30 s. */
const FIRST_RETRY_MS = 1_000;
const LAST_RETRY_MS = 30_000;
/** Pruning of `changes` (rows older than a day) runs at most this often. */
const PRUNE_EVERY_MS = 60 * 60 * 1000;
/**
 * While nobody follows, the starting position is taken again when the store is used and it is
 * older than this, or this process's own transactions since it number more than
 * {@link UNFOLLOWED_DELIVERED}: what a first subscription delivers from before it stays small.
 */
const BASELINE_STALE_MS = 10_000;
const UNFOLLOWED_DELIVERED = 1024;

/**
 * The change feed of a PostgreSQL store: this process's transactions, delivered as they commit
 * (before `transact` resolves), and every instance's, read from the `changes` table that each
 * transaction writes (see Statements.write).
 *
 * The feed's position is a transaction id `W`: every change of a transaction below it has been
 * delivered, and `delivered` holds the transactions at or past it delivered already. A poll reads
 * the changes from `W` on in one statement, whose snapshot also gives the oldest transaction still
 * running (`xmin`): the statement sees every transaction committed before it, and none below
 * `xmin` can commit any more, so `W` moves up to `xmin` and nothing committed is ever passed over.
 * Each new transaction's records are read back (as they are now, which the contract allows) and
 * delivered as one batch, in transaction id order. Batches are numbered by this process's
 * {@link ChangeEmitter}, never by transaction ids.
 *
 * This process's own transactions are delivered with the records as they left them, read from
 * nothing: no state of those records can have been delivered after theirs, unless a batch of
 * records read back (a poll's) was delivered while one of them was committing or waiting for its
 * turn and held one of its records. Such a transaction's records are read back as they are now,
 * as a poll's are, so that no batch ever holds an older state than one before it.
 *
 * The starting position is taken before anyone subscribes ({@link open}, then again while the
 * store is used and nobody follows): a subscription cannot wait for the database, and a position
 * taken after it returned would pass over a transaction of another instance that committed in
 * between. Its transactions committed by then are remembered as delivered, so a first
 * subscription gets what committed since that position was taken: every transaction committed
 * after it returned, and perhaps a few from shortly before. It starts following: one connection
 * of the pool is held to LISTEN on the schema's channel and polls on each notification, and a
 * poll runs every few seconds besides. When that connection fails it is dropped, another is
 * opened after 1 s (doubling to 30 s), and the feed polls from its position: a reconnect resyncs,
 * it never skips. Rows of `changes` older than a day are pruned (at most once an hour): an
 * instance away longer rebuilds what follows the feed.
 *
 * The notifications: after each of this process's commits the feed sends one on the channel (see
 * Statements.notify), at most one at a time: commits while one is under way ask for one more
 * after it, which follows them all. A notification only wakes the listeners up sooner; one lost
 * (a failed send, a crash) delays the other instances' delivery until their next safety poll, at
 * most SAFETY_POLL_MS later.
 */
export class PostgresChangeFeed implements ChangeFeed, CommitObserver {
  readonly #emitter = new ChangeEmitter();
  /** W: every change below it delivered (or committed before the feed's start). Undefined until {@link open}. */
  #position: bigint | undefined;
  readonly #delivered = new Set<bigint>();
  /**
   * This process's transactions from their last statement until they are delivered (or their
   * commit failed): a poll leaves them to `committed`. Each with the keys (`collection\0id`) of
   * the records it wrote, and whether a batch of records read back held one of them meanwhile.
   */
  readonly #committing = new Map<bigint, Committing>();
  #starting: Promise<void> | undefined;
  /** The starting position being taken again (see {@link used}). */
  #rebasing: Promise<void> | undefined;
  /** When the starting position was last taken (Date.now()). */
  #baselineAt = 0;
  #running: Promise<void> | undefined;
  #queued: Promise<void> | undefined;
  #listener: PostgresClient | undefined;
  #timer: ReturnType<typeof setInterval> | undefined;
  #retry: ReturnType<typeof setTimeout> | undefined;
  #retryMs = FIRST_RETRY_MS;
  #lastPrune = 0;
  #closed = false;
  /** The notification being sent, if any; and whether a commit since it began asks for another. */
  #notifying: Promise<void> | undefined;
  #notifyAgain = false;
  /** Whether anyone subscribed: then the feed follows the database. */
  #following = false;

  constructor(
    private readonly pool: PostgresPool,
    private readonly view: ReadView,
    private readonly statements: Statements,
    private readonly channel: string,
    private readonly warn: (message: string) => void,
  ) {}

  /** Takes the starting position: before the store is handed out, so that no subscription comes first. */
  async open(): Promise<void> {
    await this.#takeBaseline();
  }

  subscribe(listener: (batch: ChangeBatch) => void): () => void {
    const stop = this.#emitter.subscribe(listener);
    this.#following = true;
    if (!this.#closed) this.#start().catch((error) => this.warn(`The change feed could not start: ${(error as Error).message}`));
    return stop;
  }

  /** Polls (after the poll under way, if any) and answers the last batch's number; rejects when the database cannot be reached. */
  async caughtUp(): Promise<number> {
    if (this.#following && !this.#closed) {
      await this.#start();
      await this.poll();
    }
    return this.#emitter.seq;
  }

  /**
   * The store is being used (a read, a transaction): while nobody follows, the starting position
   * is taken again, in the background, once it is old or this process's transactions since it
   * are many, so that a later first subscription has little to deliver from before it.
   */
  used(): void {
    if (this.#following || this.#closed || this.#rebasing) return;
    if (Date.now() - this.#baselineAt < BASELINE_STALE_MS && this.#delivered.size < UNFOLLOWED_DELIVERED) return;
    this.#rebasing = this.#takeBaseline()
      .catch(() => undefined)
      .finally(() => {
        this.#rebasing = undefined;
      });
  }

  /**
   * Where the database's changes are now: the oldest transaction still running, and those at or
   * past it committed already, in one statement. Applied only while nobody follows: a position
   * taken after a subscription returned could pass over a transaction committed in between.
   */
  async #takeBaseline(): Promise<void> {
    const following = this.#following;
    const { rows } = await this.pool.query(this.statements.feedStart);
    if (this.#following !== following) return;
    const found = rows as { xmin: string; xid: string | null }[];
    const position = BigInt(found[0]!.xmin);
    for (const xid of this.#delivered) if (xid < position) this.#delivered.delete(xid);
    for (const row of found) if (row.xid !== null) this.#delivered.add(BigInt(row.xid));
    this.#position = position;
    this.#baselineAt = Date.now();
  }

  committing(xid: bigint, changes: readonly RecordChange[]): void {
    this.#committing.set(xid, { keys: new Set(changes.map(({ collection, id }) => `${collection}\u0000${id}`)), readBack: false });
  }

  committed(xid: bigint, changes: readonly RecordChange[] | undefined): Promise<void> {
    // Also when the commit's outcome is unknown: it may have committed.
    this.#notify();
    if (changes === undefined) {
      this.#committing.delete(xid);
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      this.#commits.push({ xid, changes, resolve, reject });
      if (this.#commits.length === 1) void this.#inTurn(() => this.#deliverCommits());
    });
  }

  /** This process's commits waiting for their turn to be delivered. */
  #commits: { xid: bigint; changes: readonly RecordChange[]; resolve(): void; reject(error: unknown): void }[] = [];

  /**
   * Delivers the commits waiting, each as a batch, in the order they committed: with the records
   * as each transaction left them, unless a batch read back since it began to commit held one of
   * them (it may have delivered a later state, which the state the transaction left must not
   * follow). Then every commit waiting is delivered with its records read back as they are now,
   * as a poll delivers them, read together (one query a collection however many commits waited):
   * one read back at a time per commit would bound this process's commits per second.
   */
  async #deliverCommits(): Promise<void> {
    const commits = this.#commits.splice(0);
    try {
      let readBack = false;
      const keys = new Set<string>();
      for (const { xid, changes } of commits) {
        readBack ||= this.#committing.get(xid)?.readBack ?? true;
        this.#committing.delete(xid);
        this.#delivered.add(xid);
        // Two of them wrote one record: they may have reached here out of their commit order.
        for (const { collection, id } of changes) {
          const key = `${collection}\u0000${id}`;
          readBack ||= keys.has(key);
          keys.add(key);
        }
      }
      if (!readBack) {
        // Through #emitRead: a transaction of this process still committing that wrote one of
        // these records may have committed before it, and must not deliver its older state after.
        for (const { changes } of commits) this.#emitRead(changes);
      } else {
        const records = await this.#readBack(commits.flatMap(({ changes }) => changes));
        for (const { changes } of commits) {
          this.#emitRead(
            changes.map(({ collection, id }) => ({ collection, id, record: records.get(`${collection}\u0000${id}`) ?? null })),
          );
        }
      }
      for (const commit of commits) commit.resolve();
    } catch (error) {
      for (const commit of commits) commit.reject(error);
    }
  }

  /** Tells the listening instances (this one too) that transactions committed: at most one notification under way. */
  #notify(): void {
    if (this.#notifying) {
      this.#notifyAgain = true;
      return;
    }
    this.#notifying = this.pool
      .query(this.statements.notify(this.channel))
      .then(
        () => undefined,
        (error) =>
          this.warn(`The change feed could not notify the other instances (they find the changes by polling): ${(error as Error).message}`),
      )
      .finally(() => {
        this.#notifying = undefined;
        if (this.#notifyAgain) {
          this.#notifyAgain = false;
          this.#notify();
        }
      });
  }

  /** Deliveries one at a time, in the order asked for: each reads its records after the one before has delivered. */
  #turns: Promise<unknown> = Promise.resolve();
  #inTurn<T>(work: () => Promise<T>): Promise<T> {
    const result = this.#turns.then(work);
    this.#turns = result.catch(() => undefined);
    return result;
  }

  /**
   * Delivers a batch (read back, or a transaction's own): a transaction of this process still to
   * be delivered that wrote one of its records will be read back too (its own state may be older
   * than the one delivered).
   */
  #emitRead(changes: readonly RecordChange[]): void {
    if (this.#committing.size > 0) {
      for (const pending of this.#committing.values()) {
        if (!pending.readBack) pending.readBack = changes.some(({ collection, id }) => pending.keys.has(`${collection}\u0000${id}`));
      }
    }
    this.#emitter.emit(changes);
  }

  /** The records of these changes as the store holds them now (null for one deleted), by `collection\0id`. */
  async #readBack(changes: Iterable<{ collection: CollectionName; id: string }>): Promise<Map<string, object | null>> {
    const wanted = new Map<CollectionName, Set<string>>();
    for (const { collection, id } of changes) {
      let ids = wanted.get(collection);
      if (!ids) wanted.set(collection, (ids = new Set()));
      ids.add(id);
    }
    const records = new Map<string, object | null>();
    for (const [collection, ids] of wanted) {
      const list = [...ids];
      const read = await this.view.getMany(collection, list);
      list.forEach((id, i) => records.set(`${collection}\u0000${id}`, read[i] ?? null));
    }
    return records;
  }

  /** One poll at a time: one asked for while another runs runs once after it. */
  poll(): Promise<void> {
    if (this.#queued) return this.#queued;
    if (!this.#running) {
      this.#running = this.#inTurn(() => this.#pollOnce()).finally(() => {
        this.#running = undefined;
      });
      return this.#running;
    }
    this.#queued = this.#running
      .catch(() => undefined)
      .then(() => {
        this.#queued = undefined;
        return this.poll();
      });
    return this.#queued;
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#timer);
    clearTimeout(this.#retry);
    await Promise.allSettled([this.#starting, this.#running, this.#queued, this.#rebasing]);
    // The last commits' notification, and the one they asked for after it (no commit comes now).
    while (this.#notifying) await this.#notifying;
    const listener = this.#listener;
    this.#listener = undefined;
    // Closed, not returned to the pool (a pool of the host's, maybe): it LISTENs, and its events come here.
    listener?.release(true);
  }

  #start(): Promise<void> {
    this.#starting ??= (async () => {
      // Taken by open(); again here only if the store was made without it.
      if (this.#position === undefined) await this.#takeBaseline();
      if (this.#closed) return;
      this.#timer = setInterval(() => this.#pollQuietly(), SAFETY_POLL_MS);
      this.#timer.unref?.();
      void this.#listen();
    })().catch((error) => {
      // Tried again by the next caughtUp.
      this.#starting = undefined;
      throw error;
    });
    return this.#starting;
  }

  #pollQuietly(): void {
    this.poll().catch((error) => this.warn(`The change feed could not poll: ${(error as Error).message}`));
  }

  /** Holds a connection that LISTENs on the channel; when it fails, another after a wait, then a poll from the position. */
  async #listen(): Promise<void> {
    if (this.#closed) return;
    let client: PostgresClient | undefined;
    let lost = false;
    const lose = (error: Error) => {
      if (lost) return;
      lost = true;
      // Closing ended it (see close).
      if (this.#closed && this.#listener === undefined) return;
      if (this.#listener === client) this.#listener = undefined;
      client?.release(error);
      if (this.#closed) return;
      this.warn(`The change feed's connection failed (${error.message}): reconnecting in ${this.#retryMs / 1000} s.`);
      this.#retry = setTimeout(() => void this.#listen(), this.#retryMs);
      this.#retry.unref?.();
      this.#retryMs = Math.min(LAST_RETRY_MS, this.#retryMs * 2);
    };
    try {
      client = await this.pool.connect();
      // Never removed: a connection that fails after it was dropped must not throw the event.
      client.on('error', lose);
      client.on('end', () => lose(new Error('the connection ended')));
      client.on('notification', (message) => {
        if (message.channel === this.channel) this.#pollQuietly();
      });
      await client.query(`LISTEN "${this.channel}"`);
      if (this.#closed) {
        lost = true;
        client.release(true);
        return;
      }
      this.#listener = client;
      this.#retryMs = FIRST_RETRY_MS;
      // What committed while nobody listened.
      this.#pollQuietly();
    } catch (error) {
      lose(error as Error);
    }
  }

  async #pollOnce(): Promise<void> {
    const from = this.#position;
    if (from === undefined || this.#closed) return;
    const { rows } = await this.pool.query(this.statements.named(this.statements.pollChanges, [from.toString()]));
    const found = rows as { xmin: string; xid: string | null; collection: CollectionName; id: string }[];
    // The changes of each transaction not delivered yet, in xid order (the rows come in it).
    const groups = new Map<bigint, Map<string, { collection: CollectionName; id: string }>>();
    for (const row of found) {
      if (row.xid === null) continue;
      const xid = BigInt(row.xid);
      if (this.#delivered.has(xid) || this.#committing.has(xid)) continue;
      let group = groups.get(xid);
      if (!group) groups.set(xid, (group = new Map()));
      const id = fromText(row.id);
      group.set(`${row.collection}\u0000${id}`, { collection: row.collection, id });
    }
    const records = await this.#readBack([...groups.values()].flatMap((group) => [...group.values()]));
    for (const [xid, group] of groups) {
      if (this.#delivered.has(xid)) continue;
      this.#delivered.add(xid);
      this.#emitRead([...group].map(([key, { collection, id }]) => ({ collection, id, record: records.get(key) ?? null })));
    }
    // Up to the oldest transaction still running, but not past one of ours still committing.
    let next = BigInt(found[0]!.xmin);
    for (const xid of this.#committing.keys()) if (xid < next) next = xid;
    if (next > from) {
      this.#position = next;
      for (const xid of this.#delivered) if (xid < next) this.#delivered.delete(xid);
    }
    if (Date.now() - this.#lastPrune >= PRUNE_EVERY_MS) {
      this.#lastPrune = Date.now();
      await this.pool.query(this.statements.pruneChanges);
    }
  }
}

/** A transaction of this process between its last statement and its delivery (see PostgresChangeFeed's #committing). */
interface Committing {
  readonly keys: ReadonlySet<string>;
  readBack: boolean;
}
