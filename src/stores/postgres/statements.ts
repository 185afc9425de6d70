import { createHash } from 'node:crypto';
import { ServiceError } from '../../errors.js';
import type { PostgresQuery } from './pool.js';

/**
 * The store's SQL for one schema (its quoted name). Hot statements are named (see `named`), so
 * each connection prepares them once.
 */
export class Statements {
  /**
   * Records by id ($2), each with its version; its body only where `cached` ($3) is not its
   * version, and its lists too when not locking (a locking read reads them with `lists`). A
   * locking read locks its rows in the order of their ids, so two that lock the same records
   * never deadlock on each other.
   */
  readonly fetch: (lock: boolean) => string;
  /**
   * `fetch` without locking, of records of several collections: by collection ($1), id ($2) and
   * cached version ($3), each row with its collection (see read-batch.ts).
   */
  readonly fetchAcross: string;
  /** The lists of records ($2) as a JSON object of field to items, by record. */
  readonly lists: string;
  /** A page of a collection's ids in insertion order: after `ord` $2, skipping $3, at most $4 (null: all). */
  readonly page: (lock: boolean) => string;
  readonly versions: string;
  readonly count: string;
  /**
   * Held by a transaction that lists a collection: writers of records to that collection take it
   * shared (see `write`), so what it listed cannot gain a record before it commits.
   */
  readonly lockCollection = 'SELECT pg_advisory_xact_lock(hashtext($1), $2::int)';
  /**
   * A transaction's writes, in one statement (one round trip, however many records): the put
   * collections' advisory locks taken shared ($1, $2), list rows cleared ($3–$5: collection, id,
   * field) or removed by item ($6–$9), records deleted ($10, $11), records put ($12–$14:
   * collection, id, body), each with the next version (a new record's order too), in the order
   * given, list rows added ($15–$18: per list its collection, id and field, and its items as a
   * JSON array), and every record written logged in `changes` ($19, $20: collection, id) under the transaction's id. Answers that id on every row, with a row per record
   * put (collection, id and version; one row of nulls when none was).
   *
   * The data-modifying parts see the same snapshot, so they touch disjoint rows: a list is either
   * cleared, removed from or appended to, a record either deleted or put. The rows added go after
   * every row the snapshot holds (also where the list is cleared: the rows it clears are still
   * there to the statement, and a new row must not take the place of one being deleted). A list's
   * last row is looked up once, before its rows are added (`lists`): looked up for each row added,
   * it would pass over every row added before it, which the statement does not see, yet its index
   * holds (quadratic: a conversation created with 20,000 messages took more than 30 s).
   *
   * The lists cleared are also named by `= ANY` of each column, which the planner estimates from
   * the values (a join with `unnest` it cannot see into): a new record (a message, whose lists
   * have no rows) put beside one list of 20,000 rows would otherwise be planned as a scan of
   * every row, as if it had half of them.
   */
  readonly write: string;
  /**
   * The change feed's wake-up to the listening instances, on a schema's channel, sent after a
   * commit in a transaction of its own. Not from the writing transaction: PostgreSQL holds one lock
   * of the whole database from a NOTIFY's commit until that commit has reached the disk, so every
   * transaction that notified would commit one after another, each waiting for its own WAL flush.
   * This one is a hint (the feed also polls), so it does not wait for the disk.
   */
  readonly notify = (channel: string): string => `BEGIN; SET LOCAL synchronous_commit = off; SELECT pg_notify('${channel}', ''); COMMIT`;
  /**
   * The feed's poll: the changes of transactions from $1 on, with the oldest transaction id still
   * running (`xmin`): in READ COMMITTED the statement sees every transaction committed before it
   * started, and one below `xmin` can no longer commit, so the feed's position may move up to it.
   */
  readonly pollChanges: string;
  /**
   * Where the feed starts: the oldest transaction id still running, and the transactions at or
   * past it that committed changes already (one row each; one row with a null xid when none did).
   */
  readonly feedStart: string;
  /** Changes older than a day, deleted (the feed's pruning). */
  readonly pruneChanges: string;

  constructor(readonly schema: string) {
    // A record's lists as one JSON object of field to items, unless the caller holds its version.
    const listsUnlessCached = `CASE WHEN r.version = c.cached THEN NULL ELSE (
          SELECT json_object_agg(f.field, f.items)::text FROM (
            SELECT l.field, json_agg(l.item ORDER BY l.ord) AS items
            FROM ${schema}.list_items l
            WHERE l.collection = r.collection AND l.id = r.id
            GROUP BY l.field
          ) f
        ) END AS lists`;
    this.fetch = (lock) => `
      SELECT r.id, r.version::text AS version,
        CASE WHEN r.version = c.cached THEN NULL ELSE r.body END AS body
        ${lock ? '' : `, ${listsUnlessCached}`}
      FROM unnest($2::text[], $3::bigint[]) AS c(id, cached)
      JOIN ${schema}.records r ON r.collection = $1 AND r.id = c.id
      ${lock ? 'ORDER BY r.id FOR UPDATE OF r' : ''}`;
    this.fetchAcross = `
      SELECT r.collection, r.id, r.version::text AS version,
        CASE WHEN r.version = c.cached THEN NULL ELSE r.body END AS body,
        ${listsUnlessCached}
      FROM unnest($1::text[], $2::text[], $3::bigint[]) AS c(collection, id, cached)
      JOIN ${schema}.records r ON r.collection = c.collection AND r.id = c.id`;
    this.lists = `
      SELECT f.id, json_object_agg(f.field, f.items)::text AS lists FROM (
        SELECT l.id, l.field, json_agg(l.item ORDER BY l.ord) AS items
        FROM ${schema}.list_items l
        WHERE l.collection = $1 AND l.id = ANY($2::text[])
        GROUP BY l.id, l.field
      ) f
      GROUP BY f.id`;
    this.page = (lock) => `
      SELECT r.id, r.version::text AS version, r.ord::text AS ord_text
      FROM ${schema}.records r
      WHERE r.collection = $1 AND r.ord > $2
      ORDER BY r.ord OFFSET $3 LIMIT $4
      ${lock ? 'FOR UPDATE' : ''}`;
    this.versions = `SELECT id, version::text AS version FROM ${schema}.records WHERE collection = $1 AND id = ANY($2::text[])`;
    this.count = `SELECT count(*)::text AS count FROM ${schema}.records WHERE collection = $1`;
    this.write = `
      WITH held AS (
        SELECT count(pg_advisory_xact_lock_shared(hashtext($1), k)) AS locks FROM unnest($2::int[]) AS k
      ), cleared AS (
        DELETE FROM ${schema}.list_items l
        WHERE l.collection = ANY($3::text[]) AND l.id = ANY($4::text[]) AND l.field = ANY($5::text[])
          AND (l.collection, l.id, l.field) IN (SELECT * FROM unnest($3::text[], $4::text[], $5::text[]))
      ), removed AS (
        DELETE FROM ${schema}.list_items l USING unnest($6::text[], $7::text[], $8::text[], $9::text[]) AS d(c, i, f, item)
        WHERE l.collection = d.c AND l.field = d.f AND l.item = d.item AND l.id = d.i
      ), gone AS (
        DELETE FROM ${schema}.records r USING unnest($10::text[], $11::text[]) AS d(c, i)
        WHERE r.collection = d.c AND r.id = d.i
      ), put AS (
        INSERT INTO ${schema}.records (collection, id, body, version, ord)
        SELECT p.c, p.i, p.b, p.v, p.v FROM (
          SELECT o.c, o.i, o.b, nextval('${schema}.versions') AS v FROM (
            SELECT d.c, d.i, d.b FROM unnest($12::text[], $13::text[], $14::text[]) WITH ORDINALITY AS d(c, i, b, n), held ORDER BY d.n
          ) o
        ) p
        ON CONFLICT (collection, id) DO UPDATE SET body = excluded.body, version = excluded.version
        RETURNING collection, id, version
      ), lists AS MATERIALIZED (
        SELECT d.c, d.i, d.f, d.items, coalesce((
          SELECT max(l.ord) + 1 FROM ${schema}.list_items l WHERE l.collection = d.c AND l.id = d.i AND l.field = d.f
        ), 0) AS start
        FROM unnest($15::text[], $16::text[], $17::text[], $18::text[]) AS d(c, i, f, items)
      ), added AS (
        INSERT INTO ${schema}.list_items (collection, id, field, ord, item)
        SELECT s.c, s.i, s.f, s.start + e.n - 1, e.item
        FROM lists s CROSS JOIN LATERAL json_array_elements_text(s.items::json) WITH ORDINALITY AS e(item, n)
      ), logged AS (
        INSERT INTO ${schema}.changes (collection, id) SELECT * FROM unnest($19::text[], $20::text[])
      )
      SELECT put.collection, put.id, put.version::text AS version, x.xid
      FROM (SELECT pg_current_xact_id()::text AS xid) x LEFT JOIN put ON true`;
    // A row (xid null) even when there is no change, for xmin: a second statement's xmin could
    // pass a transaction that committed between the two.
    this.pollChanges = `
      SELECT s.xmin, c.xid::text AS xid, c.collection, c.id
      FROM (SELECT pg_snapshot_xmin(pg_current_snapshot())::text AS xmin) s
      LEFT JOIN ${schema}.changes c ON c.xid >= $1::xid8
      ORDER BY c.xid`;
    this.feedStart = `
      SELECT s.xmin::text AS xmin, c.xid::text AS xid
      FROM (SELECT pg_snapshot_xmin(pg_current_snapshot()) AS xmin) s
      LEFT JOIN (SELECT DISTINCT xid FROM ${schema}.changes) c ON c.xid >= s.xmin`;
    this.pruneChanges = `DELETE FROM ${schema}.changes WHERE at < now() - interval '24 hours'`;
  }

  /**
   * `text` with `values`, under a name derived from the text: each connection prepares it once,
   * and two schemas (or releases) never share a name.
   */
  named(text: string, values: unknown[]): PostgresQuery {
    let name = this.#names.get(text);
    if (name === undefined) this.#names.set(text, (name = `cms_${createHash('sha1').update(text).digest('hex').slice(0, 20)}`));
    return { name, text, values };
  }

  readonly #names = new Map<string, string>();
}

/**
 * A schema's name, quoted for SQL. Names are limited to letters, digits and underscores (at most
 * 63, PostgreSQL's limit), so nothing in one needs escaping.
 */
export function quoteSchema(schema: string): string {
  if (!/^[A-Za-z_][A-Za-z0-9_]{0,62}$/.test(schema)) {
    throw new ServiceError(
      'INVALID_INPUT',
      `"${schema}" is not a schema name this store uses: letters, digits and underscores, at most 63, not starting with a digit.`,
      { issues: [{ path: ['schema'], message: 'letters, digits and underscores, at most 63, not starting with a digit' }] },
    );
  }
  return `"${schema}"`;
}

/**
 * The notification channel of a schema's change feed: a hash of its name, since a channel name is
 * at most 63 bytes and a schema's name may be as long.
 */
export const channelName = (schema: string): string => `cms_changes_${createHash('sha1').update(schema).digest('hex').slice(0, 20)}`;

/** The name the store's advisory locks are taken under (hashed by the server): one schema's never meet another's. */
export const lockName = (schema: string): string => `conversation-model-service:${schema}`;
