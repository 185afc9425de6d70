import type { TextQuery, TimeRange } from '../../ports.js';
import { B, HITS_PER_CONVERSATION, K1, WEIGHT_ANNOTATION, WEIGHT_FIRST_REQUEST, WEIGHT_NAME } from '../../search/ranking.js';
import type { PostgresQuery } from './pool.js';
import type { Statements } from './statements.js';
import { toText } from './texts.js';

/** Postings of a long list a search of messages reads, best first (more when it asks for more hits). */
const LIST_READ = 1000;
/** The best documents those postings find, scored again from all their postings (more when the search asks for more hits). */
const RESCORED = 100;

/**
 * Postings a look-up counts of a term, at most: a term with more is counted whole apart (and its
 * count kept a while, see text-search.ts), since a count reads every posting.
 */
export const COUNT_CAP = 2000;

/** Conversations met in the rows read best first that are scored from all their rows (more when the search asks for more hits). */
const RESCORED_CONVERSATIONS = 200;
/**
 * Rows of a long list a search of conversations reads, best first (more when it asks for more
 * hits): fewer than of messages, since its candidates are scored again from all their rows and a
 * list's whole count is kept a minute. On 10,000 conversations, reading 1,000 took a fifth longer
 * and found the exact ranking's top 3 barely more often (80% against 77% of queries of 1–3 words).
 */
const CONVERSATION_LIST_READ = 400;
/**
 * The order a conversation's row of a term is read in when its list is long (an index keeps it):
 * where the term is, weighted roughly as BM25F weighs it, without the lengths (a row's own
 * score needs the conversation's lengths, which change at every message).
 */
export const WEIGHT_ORDER = '(name_tf * 4 + note_tf * 2 + first_tf * 8 + body_tf)';

/** A number as a float8 constant of SQL (a bare `0.75` would be numeric, and slow). */
const f = (n: number): string => `${n}::float8`;

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

/** Documents a search of documents finds: those of which fields, and whether their lengths count (a message's do, as in the embedded index). */
const DOCUMENTS = {
  messages: { field: (alias: string) => `${alias}.field <= 1`, normalized: true },
  annotations: { field: (alias: string) => `${alias}.field = 3`, normalized: false },
} as const;

/** What a search of documents finds. */
export type DocumentKind = keyof typeof DOCUMENTS;

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
  readonly prefixScan = 1024;
  /** A longer term's postings are counted up to this: the most frequent are kept, and a frequent one is frequent enough. */
  readonly prefixCountCap = 100;

  /** The collection's counts: the sum of `search_stats`. */
  readonly stats: string;
  /** Terms ($1) the store holds, with their postings' counts. */
  readonly counts: string;
  /** Terms ($1) with their postings counted up to COUNT_CAP (0: the store does not hold it). */
  readonly cappedCounts: string;
  /**
   * Terms ($1) with their counts (kind 0; 0 for a term the store does not hold; one with
   * COUNT_CAP postings or more is counted whole in the same statement, which saves a round trip
   * after it), and up to $3 longer terms that start with $2 (kind 1, in byte order, each one's
   * count capped), found by probing the terms' index once per term.
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
    this.cappedCounts = `
      SELECT t.term, (SELECT count(*)::int FROM (SELECT 1 FROM ${s}.search_postings p WHERE p.term = t.term LIMIT ${COUNT_CAP}) x) AS count
      FROM unnest($1::text[]) AS t(term)`;
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
      SELECT 0 AS kind, t.term,
        CASE WHEN c.count < ${COUNT_CAP} THEN c.count
          ELSE (SELECT count(*)::int FROM ${s}.search_postings p WHERE p.term = t.term) END AS count
      FROM unnest($1::text[]) AS t(term) CROSS JOIN LATERAL (
        SELECT count(*)::int AS count FROM (SELECT 1 FROM ${s}.search_postings p WHERE p.term = t.term LIMIT ${COUNT_CAP}) x
      ) c
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

  /**
   * The newest documents a query of no words finds: messages or annotations (of its conversation,
   * if it names one), or conversations (their names); within its times.
   */
  newest(kind: DocumentKind | 'conversations', query: TextQuery): PostgresQuery {
    const s = this.schema;
    const values: unknown[] = [query.limit];
    const conversations = kind === 'conversations';
    const where = [conversations ? 'd.field = 2' : DOCUMENTS[kind].field('d'), ...this.#times('d', query, values)];
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
   * Messages (or annotations: `kind`) scored by BM25 (each group's best list, summed over the groups), best first (ties:
   * the earlier written), within the query's conversation and times. One conversation's are read
   * whole through its postings; with times, every posting of the lists is read. Otherwise a list
   * is read best first (by impact) up to `LIST_READ` postings, which is all of most lists: the
   * documents met are scored by what was read, and the best of them scored again from all
   * their postings, so a long list's best documents are found without reading the whole of it.
   */
  messages(query: TextQuery, lists: ListColumns, stats: SearchStats, kind: DocumentKind = 'messages'): PostgresQuery {
    const s = this.schema;
    const documents = DOCUMENTS[kind];
    const avgLength = stats.messages > 0 ? stats.message_len / stats.messages : 1;
    // A length not counted is null: its ratio to the average, 1.
    const values: unknown[] = [...lists, documents.normalized ? avgLength : null, query.limit];
    const score = `max(q.weight * q.idf * p.tf * ${f(K1 + 1)} / (p.tf + ${f(K1)} * (${f(1 - B)} + ${f(B)} * coalesce(p.len / $5::float8, 1))))`;
    const q = 'q AS (SELECT * FROM unnest($1::text[], $2::int[], $3::float8[], $4::float8[]) AS q(term, grp, weight, idf))';
    const answer = (scored: string, where = '') => `
      SELECT d.field, d.id, c.id AS conversation, sc.score
      FROM ${scored} sc JOIN ${s}.search_docs d ON d.doc = sc.doc LEFT JOIN ${s}.search_conversations c ON c.num = d.conv
      ${where}
      ORDER BY sc.score DESC, sc.doc LIMIT $6`;
    if (query.conversation !== undefined || query.created || query.updated) {
      let conversation = '';
      if (query.conversation !== undefined) {
        values.push(toText(query.conversation));
        conversation = `AND p.conv = (SELECT num FROM ${s}.search_conversations WHERE id = $${values.length})`;
      }
      const times = this.#times('d', query, values);
      return this.named(
        `WITH ${q}, best AS (
          SELECT p.doc, ${score} AS s FROM q JOIN ${s}.search_postings p ON p.term = q.term ${conversation}
          WHERE ${documents.field('p')} GROUP BY p.doc, q.grp
        ), scored AS (SELECT doc, sum(s) AS score FROM best GROUP BY doc)
        ${times.length > 0 ? answer('scored', `WHERE ${times.join(' AND ')}`) : answer('(SELECT doc, score FROM scored ORDER BY score DESC, doc LIMIT $6)')}`,
        values,
      );
    }
    values.push(LIST_READ + query.limit, Math.max(RESCORED, query.limit));
    return this.named(
      `WITH ${q}, seen AS (
        SELECT p.doc, p.conv, ${score} AS s
        FROM q CROSS JOIN LATERAL (
          SELECT r.doc, r.conv, r.tf, r.len FROM ${s}.search_postings r WHERE r.term = q.term AND ${documents.field('r')} ORDER BY r.impact DESC LIMIT $7
        ) p
        GROUP BY p.doc, p.conv, q.grp
      ), partial AS (
        SELECT doc, conv FROM seen GROUP BY doc, conv ORDER BY sum(s) DESC, doc LIMIT $8
      ), best AS (
        -- A look-up per document and term (by its conversation's postings of the term), not a
        -- read of the whole lists: the planner cannot tell how long they are.
        SELECT p.doc, ${score} AS s
        FROM partial pa CROSS JOIN LATERAL (
          SELECT q.grp, q.weight, q.idf, r.doc, r.tf, r.len
          FROM q JOIN ${s}.search_postings r ON r.conv = pa.conv AND r.term = q.term AND r.doc = pa.doc
          OFFSET 0
        ) p CROSS JOIN LATERAL (SELECT p.grp, p.weight, p.idf) q
        WHERE pa.conv IS NOT NULL
        GROUP BY p.doc, q.grp
        UNION ALL
        SELECT p.doc, ${score} AS s
        FROM partial pa CROSS JOIN LATERAL (
          SELECT q.grp, q.weight, q.idf, r.doc, r.tf, r.len
          FROM ${s}.search_postings r JOIN q ON q.term = r.term WHERE r.doc = pa.doc
          OFFSET 0
        ) p CROSS JOIN LATERAL (SELECT p.grp, p.weight, p.idf) q
        WHERE pa.conv IS NULL
        GROUP BY p.doc, q.grp
      ), scored AS (
        SELECT doc, sum(s) AS score FROM best GROUP BY doc ORDER BY score DESC, doc LIMIT $6
      )
      ${answer('scored')}`,
      values,
    );
  }

  /**
   * Conversations scored by BM25F (see TextIndex) from `search_conversation_terms`: per group, a
   * conversation's frequency is its counts of the group's terms, weighted by where they are (its
   * first request, normalized by the first requests' average length; its other messages, by its
   * body's length against the bodies' average; its name; its annotations) and saturated once; the
   * group's idf is over the conversations that hold its terms. The best conversations that have a
   * name document (within the query's times), each with its best messages and annotations (by
   * their own BM25 scores, from its postings of the terms): one row per document shown (or one
   * with none), in rank order. `known`: the conversations holding each list's term (aligned with
   * `lists`; null: unknown), counted lately, used for a list read in part instead of counting it
   * again; the counts it made are answered in `counted` (JSON, term to count) of every row.
   */
  conversations(
    query: TextQuery,
    lists: ListColumns,
    stats: SearchStats,
    groups: number,
    known: readonly (number | null)[] = lists[0].map(() => null),
  ): PostgresQuery {
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
    // A group's BM25F frequency in a conversation (`k`: its counts, by where they are; `c`: its
    // row of search_conversations, with the lengths), and what it adds to the score (`n`: the
    // conversations that hold the group's terms; $8, all of them).
    const frequency = (k: string, c: string) => `${k}.fixed
          + ${k}.first * ${f(WEIGHT_FIRST_REQUEST)} / (${f(1 - B)} + ${f(B)} * ${c}.first_len / $6::float8)
          + ${k}.body / (${f(1 - B)} + ${f(B)} * (${c}.length - ${c}.first_len) / $7::float8)`;
    const saturated = (n: string, frequency: string) =>
      `ln(1 + ($8::float8 - ${n} + 0.5) / (${n} + 0.5)) * (${frequency}) * ${f(K1 + 1)} / ((${frequency}) + ${f(K1)})`;
    const counts = (from: string) => `
        SELECT t.conv, q.grp, sum(q.weight * (t.name_tf * ${f(WEIGHT_NAME)} + t.note_tf * ${f(WEIGHT_ANNOTATION)})) AS fixed,
          sum(q.weight * t.first_tf) AS first, sum(q.weight * t.body_tf) AS body
        ${from}
        GROUP BY t.conv, q.grp`;
    // With times, every conversation that holds a term is scored; else each list is read best
    // first (by WEIGHT_ORDER) up to CONVERSATION_LIST_READ rows, and the best conversations met are scored from
    // all their rows. A group's idf is over the conversations that hold its terms: counted from
    // the rows read, or (a list read in part) from its whole count.
    const scored =
      times.length > 0
        ? `counted AS (${counts(`FROM q JOIN ${s}.search_conversation_terms t ON t.term = q.term`)}
      ), touched AS (
        SELECT grp, count(*)::float8 AS n FROM counted GROUP BY grp`
        : `known AS (SELECT * FROM unnest($1::text[], $13::float8[]) AS k(term, n) WHERE k.n IS NOT NULL
      ), read AS (
        SELECT q.grp, q.term, q.weight, q.idf, t.conv, t.impact, t.name_tf, t.note_tf, t.first_tf, t.body_tf
        FROM q CROSS JOIN LATERAL (
          SELECT r.conv, ${WEIGHT_ORDER} AS impact, r.name_tf, r.note_tf, r.first_tf, r.body_tf FROM ${s}.search_conversation_terms r
          WHERE r.term = q.term ORDER BY ${WEIGHT_ORDER} DESC LIMIT $11
        ) t
      ), lists AS (
        SELECT l.grp, l.term, CASE WHEN count(*) < $11 THEN count(*) ELSE coalesce((SELECT max(k.n) FROM known k WHERE k.term = l.term), (
          SELECT count(*) FROM ${s}.search_conversation_terms w WHERE w.term = l.term)) END AS whole, count(*) >= $11 AS part
        FROM read l GROUP BY l.grp, l.term
      ), touched AS (
        SELECT l.grp, CASE WHEN bool_or(l.part) THEN least($8::float8, sum(l.whole))
          ELSE (SELECT count(DISTINCT r.conv) FROM read r WHERE r.grp = l.grp) END::float8 AS n
        FROM lists l GROUP BY l.grp
      ), candidates AS (
        -- Ordered by the rows read, each saturated and weighed by its term's rarity: roughly what
        -- BM25F makes of them without the conversations' lengths (reading those for every
        -- conversation met would cost more than scoring the best few hundred again).
        SELECT conv FROM read GROUP BY conv ORDER BY sum(weight * idf * impact / (impact + ${f(K1)})) DESC, conv LIMIT $12
      ), counted AS (${counts(`FROM (
          -- A list read whole holds every candidate's row of its term: read. A list read in part is
          -- looked up per candidate and term (its row may lie past what was read), not merged into
          -- a read of the whole list (OFFSET 0).
          SELECT r.grp, r.weight, r.conv, r.name_tf, r.note_tf, r.first_tf, r.body_tf
          FROM read r JOIN candidates ca ON ca.conv = r.conv JOIN lists l ON l.grp = r.grp AND l.term = r.term AND NOT l.part
          UNION ALL
          SELECT p.grp, p.weight, p.conv, p.name_tf, p.note_tf, p.first_tf, p.body_tf
          FROM candidates ca CROSS JOIN LATERAL (
            SELECT q.grp, q.weight, r.conv, r.name_tf, r.note_tf, r.first_tf, r.body_tf
            FROM q JOIN lists l ON l.grp = q.grp AND l.term = q.term AND l.part
            JOIN ${s}.search_conversation_terms r ON r.term = q.term AND r.conv = ca.conv
            OFFSET 0
          ) p
        ) t CROSS JOIN LATERAL (SELECT t.grp, t.weight) q`)}`;
    if (times.length === 0) values.push(CONVERSATION_LIST_READ + query.limit, RESCORED_CONVERSATIONS + query.limit, known);
    return this.named(
      `
      WITH q AS (SELECT * FROM unnest($1::text[], $2::int[], $3::float8[], $4::float8[]) AS q(term, grp, weight, idf)),
      ${scored}
      ), frequencies AS (
        SELECT k.conv, k.grp, c.named, ${frequency('k', 'c')} AS f
        FROM counted k JOIN ${s}.search_conversations c ON c.num = k.conv
      ), bound AS (
        SELECT sum(ln(1 + ($8::float8 - coalesce(t.n, 0) + 0.5) / (coalesce(t.n, 0) + 0.5)) * ${f(K1 + 1)}) AS bound
        FROM generate_series(0, $9::int - 1) g LEFT JOIN touched t ON t.grp = g
      ), scores AS (
        SELECT fr.conv, bool_or(fr.named) AS named, sum(${saturated('t.n', 'fr.f')}) AS score
        FROM frequencies fr JOIN touched t ON t.grp = fr.grp GROUP BY fr.conv
      ), ranked AS (
        SELECT cv.conv, cv.score FROM scores cv ${named} ORDER BY cv.score DESC, cv.conv LIMIT $10
      ), docs AS (
        SELECT p.doc, p.field, p.conv,
          max(q.weight * q.idf * p.tf * ${f(K1 + 1)} / (p.tf + ${f(K1)} * (${f(1 - B)} + ${f(B)} * CASE WHEN p.field <= 1 THEN p.len / $5::float8 ELSE 1 END))) AS s
        FROM ranked r CROSS JOIN LATERAL (
          SELECT q.grp, q.weight, q.idf, x.doc, x.field, x.conv, x.tf, x.len
          FROM q JOIN ${s}.search_postings x ON x.conv = r.conv AND x.term = q.term
          WHERE x.field <> 2
          OFFSET 0 -- a look-up per conversation and term, not a read of each conversation's postings
        ) p CROSS JOIN LATERAL (SELECT p.grp, p.weight, p.idf) q
        GROUP BY p.doc, p.field, p.conv, q.grp
      ), shown AS (
        SELECT d.doc, d.field, d.conv, sum(d.s) AS score,
          row_number() OVER (PARTITION BY d.conv, d.field = 3 ORDER BY sum(d.s) DESC, d.doc) AS place
        FROM docs d GROUP BY d.doc, d.field, d.conv
      )
      SELECT c.id AS conversation, r.score AS conversation_score, (SELECT bound FROM bound) AS conversation_bound, ${
        times.length > 0 ? 'NULL' : '(SELECT json_object_agg(term, whole) FROM lists WHERE part)'
      }::text AS counted,
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
