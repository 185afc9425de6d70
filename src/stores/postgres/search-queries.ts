import type { TextQuery, TimeRange } from '../../ports.js';
import { B, HITS_PER_CONVERSATION, K1, WEIGHT_ANNOTATION, WEIGHT_FIRST_REQUEST, WEIGHT_NAME } from '../../search/ranking.js';
import type { PostgresQuery } from './pool.js';
import type { Statements } from './statements.js';
import { toText } from './texts.js';

/** The collection's counts BM25 reads (see search-writes.ts, which keeps them). */
export interface SearchStats {
  readonly docs: number;
  readonly messages: number;
  readonly message_len: number;
  readonly names: number;
  readonly firsts: number;
  readonly first_len: number;
  readonly body_len: number;
}

/** Columns of the lists a search reads: term, group (one per term of a query word), weight, idf. */
export type ListColumns = [string[], number[], number[], number[]];

/**
 * The SQL of a search, for one schema (its quoted name): the look-ups that find a query's posting
 * lists and their lengths, and the statements that score them (BM25, and BM25F for conversations,
 * as src/search/text-index.ts does) and answer the best, with the constants of
 * src/search/ranking.ts written in. A statement's text depends on the query's filters only, so
 * each connection prepares a handful.
 */
export class SearchQueries {
  /** Longer terms a prefix starts, looked at at most (each costs an index probe and a count). */
  readonly prefixScan = 4096;
  /** A longer term's postings are counted up to this: the most frequent are kept, and a frequent one is frequent enough. */
  readonly prefixCountCap = 1000;

  /** The collection's counts: the sum of `search_stats`. */
  readonly stats: string;
  /** Terms ($1) the store holds, with their postings' counts. */
  readonly counts: string;
  /**
   * Terms ($1) with their counts (kind 0), and up to $3 longer terms that start with $2 (kind 1,
   * in byte order, each one's count capped), found by probing the terms' index once per term.
   */
  readonly lookup: string;
  /** Every document: field, id and conversation. */
  readonly documents: string;

  constructor(
    readonly schema: string,
    private readonly statements: Statements,
  ) {
    const s = schema;
    this.stats = `
      SELECT sum(docs)::float8 AS docs, sum(messages)::float8 AS messages, sum(message_len)::float8 AS message_len,
        sum(names)::float8 AS names, sum(firsts)::float8 AS firsts, sum(first_len)::float8 AS first_len, sum(body_len)::float8 AS body_len
      FROM ${s}.search_stats`;
    this.counts = `SELECT term, count(*)::int AS count FROM ${s}.search_postings WHERE term = ANY($1::text[]) GROUP BY term`;
    const end = `($2::text || U&'\\+10FFFF')`;
    this.lookup = `
      WITH RECURSIVE longer(term) AS (
        SELECT (SELECT min(p.term) FROM ${s}.search_postings p WHERE p.term > $2::text AND p.term < ${end})
        WHERE $2::text IS NOT NULL AND $3::int > 0
        UNION ALL
        SELECT (SELECT min(p.term) FROM ${s}.search_postings p WHERE p.term > l.term AND p.term < ${end})
        FROM longer l WHERE l.term IS NOT NULL
      ), scanned AS (
        SELECT term FROM longer WHERE term IS NOT NULL LIMIT $3::int
      )
      SELECT 0 AS kind, p.term, count(*)::int AS count FROM ${s}.search_postings p WHERE p.term = ANY($1::text[]) GROUP BY p.term
      UNION ALL
      SELECT 1, c.term, (SELECT count(*)::int FROM (SELECT 1 FROM ${s}.search_postings p WHERE p.term = c.term LIMIT ${this.prefixCountCap}) x)
      FROM scanned c`;
    this.documents = `
      SELECT d.field, d.id, c.id AS conversation FROM ${s}.search_docs d LEFT JOIN ${s}.search_conversations c ON c.num = d.conv`;
  }

  /** `text` with `values`, prepared once per connection (see Statements.named). */
  named(text: string, values: unknown[]): PostgresQuery {
    return this.statements.named(text, values);
  }

  /** The newest documents a query of no words finds: messages (of its conversation, if it names one), or conversations; within its times. */
  newest(conversations: boolean, query: TextQuery): PostgresQuery {
    const s = this.schema;
    const values: unknown[] = [query.limit];
    const where = [conversations ? 'd.field = 2' : 'd.field <= 1', ...this.#times('d', query, values)];
    if (!conversations && query.conversation !== undefined) {
      values.push(toText(query.conversation));
      where.push(`d.conv = (SELECT num FROM ${s}.search_conversations WHERE id = $${values.length})`);
    }
    return this.named(
      `SELECT d.field, d.id, c.id AS conversation, 0 AS score
       FROM ${s}.search_docs d LEFT JOIN ${s}.search_conversations c ON c.num = d.conv
       WHERE ${where.join(' AND ')}
       ORDER BY d.updated DESC, d.doc LIMIT $1`,
      values,
    );
  }

  /**
   * Messages scored by BM25 (each group's best list, summed over the groups), best first (ties:
   * the earlier written), within the query's conversation and times.
   */
  messages(query: TextQuery, lists: ListColumns, stats: SearchStats): PostgresQuery {
    const s = this.schema;
    const avgLength = stats.messages > 0 ? stats.message_len / stats.messages : 1;
    const values: unknown[] = [...lists, avgLength, query.limit];
    let conversation = '';
    if (query.conversation !== undefined) {
      values.push(toText(query.conversation));
      conversation = `AND p.conv = (SELECT num FROM ${s}.search_conversations WHERE id = $${values.length})`;
    }
    const times = this.#times('d', query, values);
    const scored = `
      WITH q AS (SELECT * FROM unnest($1::text[], $2::int[], $3::float8[], $4::float8[]) AS q(term, grp, weight, idf)),
      best AS (
        SELECT p.doc, max(q.weight * q.idf * p.tf * ${K1 + 1} / (p.tf + ${K1} * (${1 - B} + ${B} * p.len / $5::float8))) AS s
        FROM q JOIN ${s}.search_postings p ON p.term = q.term
        WHERE p.field <= 1 ${conversation}
        GROUP BY p.doc, q.grp
      ), scored AS (
        SELECT doc, sum(s) AS score FROM best GROUP BY doc
      )`;
    const answer = (from: string, where: string) => `
      ${scored}
      SELECT d.field, d.id, c.id AS conversation, sc.score
      FROM ${from} sc JOIN ${s}.search_docs d ON d.doc = sc.doc LEFT JOIN ${s}.search_conversations c ON c.num = d.conv
      ${where}
      ORDER BY sc.score DESC, sc.doc LIMIT $6`;
    // Without times, the best are chosen before their documents are read.
    return this.named(
      times.length > 0
        ? answer('scored', `WHERE ${times.join(' AND ')}`)
        : answer('(SELECT doc, score FROM scored ORDER BY score DESC, doc LIMIT $6)', ''),
      values,
    );
  }

  /**
   * Conversations scored by BM25F (see TextIndex): per group, a conversation's frequency is its
   * documents' counts of the group's terms, weighted by field (its first request, normalized by
   * the first requests' average length; its other messages, by its body's length against the
   * bodies' average; its name; its annotations) and saturated once; the group's idf is over the
   * conversations it touches. The best conversations that have a name document (within the query's
   * times), each with its best messages and annotations (by their own BM25 scores): one row per
   * document shown (or one with none), in rank order.
   */
  conversations(query: TextQuery, lists: ListColumns, stats: SearchStats, groups: number): PostgresQuery {
    const s = this.schema;
    const avgLength = stats.messages > 0 ? stats.message_len / stats.messages : 1;
    const avgFirst = stats.firsts > 0 ? stats.first_len / stats.firsts : 1;
    const avgBody = stats.names > 0 && stats.body_len > 0 ? stats.body_len / stats.names : 1;
    const values: unknown[] = [...lists, avgLength, avgFirst, avgBody, Math.max(1, stats.names), groups, query.limit];
    const times = this.#times('n', query, values);
    const named =
      times.length > 0
        ? `JOIN ${s}.search_docs n ON n.field = 2 AND n.conv = cv.conv WHERE cv.named AND ${times.join(' AND ')}`
        : 'WHERE cv.named';
    return this.named(
      `
      WITH q AS (SELECT * FROM unnest($1::text[], $2::int[], $3::float8[], $4::float8[]) AS q(term, grp, weight, idf)),
      docs AS (
        SELECT p.doc, p.field, p.conv, q.grp, min(p.len) AS len, sum(q.weight * p.tf) AS wtf,
          max(q.weight * q.idf * p.tf * ${K1 + 1} / (p.tf + ${K1} * (${1 - B} + ${B} * CASE WHEN p.field <= 1 THEN p.len / $5::float8 ELSE 1 END))) AS s
        FROM q JOIN ${s}.search_postings p ON p.term = q.term
        WHERE p.conv IS NOT NULL
        GROUP BY p.doc, p.field, p.conv, q.grp
      ), frequencies AS (
        SELECT d.conv, d.grp, bool_or(c.named) AS named, sum(d.wtf * CASE
          WHEN d.field = 2 THEN ${WEIGHT_NAME}
          WHEN d.field = 3 THEN ${WEIGHT_ANNOTATION}
          WHEN d.doc = c.first_doc THEN ${WEIGHT_FIRST_REQUEST} / (${1 - B} + ${B} * d.len / $6::float8)
          ELSE 1 / (${1 - B} + ${B} * (c.length - c.first_len) / $7::float8) END) AS f
        FROM docs d JOIN ${s}.search_conversations c ON c.num = d.conv
        GROUP BY d.conv, d.grp
      ), touched AS (
        SELECT grp, ln(1 + ($8::float8 - count(*) + 0.5) / (count(*) + 0.5)) AS idf FROM frequencies GROUP BY grp
      ), bound AS (
        SELECT sum(coalesce(t.idf, ln(1 + ($8::float8 + 0.5) / 0.5)) * ${K1 + 1}) AS bound
        FROM generate_series(0, $9::int - 1) g LEFT JOIN touched t ON t.grp = g
      ), scores AS (
        SELECT f.conv, bool_or(f.named) AS named, sum(t.idf * f.f * ${K1 + 1} / (f.f + ${K1})) AS score
        FROM frequencies f JOIN touched t ON t.grp = f.grp GROUP BY f.conv
      ), ranked AS (
        SELECT cv.conv, cv.score FROM scores cv ${named} ORDER BY cv.score DESC, cv.conv LIMIT $10
      ), shown AS (
        SELECT d.doc, d.field, d.conv, sum(d.s) AS score,
          row_number() OVER (PARTITION BY d.conv, d.field = 3 ORDER BY sum(d.s) DESC, d.doc) AS place
        FROM docs d WHERE d.conv IN (SELECT conv FROM ranked) AND d.field <> 2
        GROUP BY d.doc, d.field, d.conv
      )
      SELECT c.id AS conversation, r.score AS conversation_score, (SELECT bound FROM bound) AS conversation_bound,
        d.id, sh.field, sh.score
      FROM ranked r JOIN ${s}.search_conversations c ON c.num = r.conv
      LEFT JOIN shown sh ON sh.conv = r.conv AND sh.place <= ${HITS_PER_CONVERSATION}
      LEFT JOIN ${s}.search_docs d ON d.doc = sh.doc
      ORDER BY r.score DESC, r.conv, sh.score DESC, sh.doc`,
      values,
    );
  }

  /** Conditions on `alias`'s times for the query's ranges (whole seconds, as the embedded index), their values added to `values`. */
  #times(alias: string, query: TextQuery, values: unknown[]): string[] {
    const conditions: string[] = [];
    const add = (column: 'created' | 'updated', range: TimeRange | undefined) => {
      if (range?.from !== undefined) {
        values.push(Math.floor(range.from / 1000));
        conditions.push(`${alias}.${column} >= $${values.length}::bigint`);
      }
      if (range?.to !== undefined) {
        values.push(Math.floor(range.to / 1000));
        conditions.push(`${alias}.${column} <= $${values.length}::bigint`);
      }
    };
    add('created', query.created);
    add('updated', query.updated);
    return conditions;
  }
}
