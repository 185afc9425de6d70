import type { PostgresQuery } from './pool.js';
import { WEIGHT_ORDER } from './search-queries.js';
import type { Statements } from './statements.js';

/** Rows of `search_stats`: a writer adds its counts to one, by its connection, so that writers rarely share one. */
export const STATS_SHARDS = 64;

/**
 * The SQL of full-text search for one schema (its quoted name): what a transaction writes (see
 * search-writes.ts) and what a search reads (see text-search.ts). The tables are made by
 * migration 3 (migrations.ts).
 */
export class SearchStatements {
  /**
   * Locks the rows of conversations ($1, stored ids, in that order; made when missing), and reads
   * the documents of fields and ids $2, $3 (with their conversation's stored id) and their terms,
   * and takes $4 new numbers: one row of four JSON columns.
   */
  readonly lockRows: string;
  /**
   * The first request (earliest user message) of each conversation ($1, numbers) among its
   * documents but those going ($2): one row per conversation that has one.
   */
  readonly firstRequests: string;
  /**
   * A transaction's search rows: postings of documents $1 deleted, documents $2 deleted,
   * documents put ($3–$9: number, field, id, conversation, length, created, updated; one written
   * anew keeps its row), postings inserted ($10–$15: term, document, field, conversation, count,
   * length; their impacts, $25), conversations' rows set ($16–$22) or deleted ($23), their terms'
   * counts added to ($26–$31: term, conversation, and the counts in its name, annotations, first
   * request and other messages), the times of documents whose text is as it was ($32–$35: field,
   * id, created, updated), and the counts ($24) added to the connection's row of `search_stats`. That row is locked last: a transaction that holds it waits
   * for nothing more but its commit.
   */
  readonly applyRows: string;
  /** The terms of documents ($1) and their counts in each. */
  readonly docTerms: string;
  /** Rows of `search_conversation_terms` of conversations $1 and terms $2 that count nothing any more, deleted. */
  readonly pruneTerms: string;
  /** Documents' times set ($1–$4: field, id, created, updated): their text is as it was. */
  readonly writeTimes: string;
  constructor(
    readonly schema: string,
    private readonly statements: Statements,
  ) {
    const s = schema;
    this.lockRows = `
      WITH conversations AS (
        INSERT INTO ${s}.search_conversations (num, id)
        SELECT nextval('${s}.search_numbers'), c.id FROM unnest($1::text[]) WITH ORDINALITY AS c(id, n) ORDER BY c.n
        ON CONFLICT (id) DO UPDATE SET id = excluded.id
        RETURNING num, id, docs, length, first_doc, first_len, first_created, named
      ), docs AS (
        SELECT d.doc, d.field, d.id, c.id AS conversation, d.len, d.created
        FROM unnest($2::smallint[], $3::text[]) AS k(field, id)
        JOIN ${s}.search_docs d ON d.field = k.field AND d.id = k.id
        LEFT JOIN ${s}.search_conversations c ON c.num = d.conv
      )
      SELECT
        (SELECT coalesce(json_agg(conversations), '[]') FROM conversations)::text AS conversations,
        (SELECT coalesce(json_agg(docs), '[]') FROM docs)::text AS docs,
        (SELECT coalesce(json_agg(json_build_array(p.doc, p.term, p.tf)), '[]') FROM docs JOIN ${s}.search_postings p ON p.doc = docs.doc)::text AS terms,
        (SELECT coalesce(json_agg(nextval('${s}.search_numbers')), '[]') FROM generate_series(1, $4::int))::text AS numbers`;
    this.firstRequests = `
      SELECT DISTINCT ON (d.conv) d.conv::text AS num, d.doc::text AS doc, d.len, d.created::text AS created
      FROM ${s}.search_docs d
      WHERE d.conv = ANY($1::bigint[]) AND d.field = 0 AND d.doc <> ALL($2::bigint[])
      ORDER BY d.conv, d.created, d.doc`;
    this.applyRows = `
      WITH gone AS (
        DELETE FROM ${s}.search_postings p USING unnest($1::bigint[]) AS g(doc) WHERE p.doc = g.doc
      ), removed AS (
        DELETE FROM ${s}.search_docs d USING unnest($2::bigint[]) AS g(doc) WHERE d.doc = g.doc
      ), put AS (
        INSERT INTO ${s}.search_docs (doc, field, id, conv, len, created, updated)
        SELECT * FROM unnest($3::bigint[], $4::smallint[], $5::text[], $6::bigint[], $7::int[], $8::bigint[], $9::bigint[])
        ON CONFLICT (field, id) DO UPDATE
          SET doc = excluded.doc, conv = excluded.conv, len = excluded.len, created = excluded.created, updated = excluded.updated
      ), postings AS (
        INSERT INTO ${s}.search_postings (term, doc, field, conv, tf, len, impact)
        SELECT * FROM unnest($10::text[], $11::bigint[], $12::smallint[], $13::bigint[], $14::int[], $15::int[], $25::real[])
      ), conversations AS (
        UPDATE ${s}.search_conversations c
        SET docs = u.docs, length = u.length, first_doc = u.first_doc, first_len = u.first_len, first_created = u.first_created, named = u.named
        FROM unnest($16::bigint[], $17::int[], $18::bigint[], $19::bigint[], $20::int[], $21::bigint[], $22::boolean[])
          AS u(num, docs, length, first_doc, first_len, first_created, named)
        WHERE c.num = u.num
      ), dropped AS (
        DELETE FROM ${s}.search_conversations c USING unnest($23::bigint[]) AS g(num) WHERE c.num = g.num
      ), terms AS (
        INSERT INTO ${s}.search_conversation_terms AS t (term, conv, name_tf, note_tf, first_tf, body_tf)
        SELECT u.term, u.conv, u.n, u.a, u.f, u.b
        FROM unnest($26::text[], $27::bigint[], $28::int[], $29::int[], $30::int[], $31::int[]) WITH ORDINALITY AS u(term, conv, n, a, f, b, o)
        ORDER BY u.o
        ON CONFLICT (term, conv) DO UPDATE SET name_tf = t.name_tf + excluded.name_tf, note_tf = t.note_tf + excluded.note_tf,
          first_tf = t.first_tf + excluded.first_tf, body_tf = t.body_tf + excluded.body_tf
      ), times AS (
        UPDATE ${s}.search_docs d SET created = t.created, updated = t.updated
        FROM unnest($32::smallint[], $33::text[], $34::bigint[], $35::bigint[]) AS t(field, id, created, updated)
        WHERE d.field = t.field AND d.id = t.id
      )
      UPDATE ${s}.search_stats SET
        docs = docs + ($24::bigint[])[1], messages = messages + ($24::bigint[])[2], message_len = message_len + ($24::bigint[])[3],
        names = names + ($24::bigint[])[4], firsts = firsts + ($24::bigint[])[5], first_len = first_len + ($24::bigint[])[6],
        body_len = body_len + ($24::bigint[])[7]
      WHERE shard = pg_backend_pid() % ${STATS_SHARDS}`;
    this.docTerms = `SELECT doc::text AS doc, term, tf FROM ${s}.search_postings WHERE doc = ANY($1::bigint[])`;
    this.pruneTerms = `
      DELETE FROM ${s}.search_conversation_terms
      WHERE term = ANY($2::text[]) AND conv = ANY($1::bigint[]) AND name_tf = 0 AND note_tf = 0 AND first_tf = 0 AND body_tf = 0`;
    this.writeTimes = `
      UPDATE ${s}.search_docs d SET created = t.created, updated = t.updated
      FROM unnest($1::smallint[], $2::text[], $3::bigint[], $4::bigint[]) AS t(field, id, created, updated)
      WHERE d.field = t.field AND d.id = t.id`;
  }

  /** `text` with `values`, prepared once per connection (see Statements.named). */
  named(text: string, values: unknown[]): PostgresQuery {
    return this.statements.named(text, values);
  }
}

/**
 * Migration 3's tables (see migrations.ts): documents, postings, conversations' lengths and the
 * collection's counts. Postings carry what scoring reads (the term, the document's number, field,
 * conversation, the term's count and the document's length), so a search reads the term's index
 * alone; numbers rather than ids keep that index small.
 */
export const searchTables = (s: string): string => `
  -- Numbers of documents and conversations (a document written anew takes a new one).
  CREATE SEQUENCE ${s}.search_numbers;
  -- One row per document: a message (field 0, the user's; 1, another role's), a conversation's
  -- name (2: every conversation has one, empty or not) or an annotation (3). Times in seconds.
  CREATE TABLE ${s}.search_docs (
    doc bigint PRIMARY KEY,
    field smallint NOT NULL,
    id text NOT NULL,
    conv bigint,
    len integer NOT NULL,
    created bigint NOT NULL,
    updated bigint NOT NULL,
    UNIQUE (field, id)
  );
  -- A conversation's first request; the newest documents (a search of no words).
  CREATE INDEX search_docs_by_conversation ON ${s}.search_docs (conv, field, created);
  CREATE INDEX search_docs_by_updated ON ${s}.search_docs (updated);
  -- One row per term of a document, with the term's count in it (tf), the document's length and
  -- its impact: the term's BM25 weight in it at a fixed average length (IMPACT_AVERAGE_LENGTH),
  -- the order in which a search of messages reads a long list.
  CREATE TABLE ${s}.search_postings (
    term text COLLATE "C" NOT NULL,
    doc bigint NOT NULL,
    field smallint NOT NULL,
    conv bigint,
    tf integer NOT NULL,
    len integer NOT NULL,
    impact real NOT NULL
  );
  -- By term, best first (and by prefix: byte order); by conversation and term (one conversation's
  -- messages, those shown with the conversations found); by document, for rewrites.
  CREATE INDEX search_postings_by_term ON ${s}.search_postings (term, impact DESC) INCLUDE (doc, field, conv, tf, len);
  CREATE INDEX search_postings_by_conversation ON ${s}.search_postings (conv, term) INCLUDE (doc, field, tf, len);
  CREATE INDEX search_postings_by_doc ON ${s}.search_postings (doc);
  -- One row per term of a conversation: its count in the conversation's name, annotations, first
  -- request and other messages, what BM25F weighs (a conversation search reads these, one row per
  -- conversation that holds the term, not one per message).
  CREATE TABLE ${s}.search_conversation_terms (
    term text COLLATE "C" NOT NULL,
    conv bigint NOT NULL,
    name_tf integer NOT NULL,
    note_tf integer NOT NULL,
    first_tf integer NOT NULL,
    body_tf integer NOT NULL,
    PRIMARY KEY (term, conv) INCLUDE (name_tf, note_tf, first_tf, body_tf)
  );
  -- A long list read best first (see WEIGHT_ORDER in search-queries.ts).
  CREATE INDEX search_conversation_terms_by_weight ON ${s}.search_conversation_terms (term, ${WEIGHT_ORDER} DESC)
    INCLUDE (conv, name_tf, note_tf, first_tf, body_tf);
  -- Per conversation: its documents, its messages' total length, its first request, whether it has its name document.
  CREATE TABLE ${s}.search_conversations (
    num bigint PRIMARY KEY,
    id text NOT NULL UNIQUE,
    docs integer NOT NULL DEFAULT 0,
    length bigint NOT NULL DEFAULT 0,
    first_doc bigint,
    first_len integer NOT NULL DEFAULT 0,
    first_created bigint,
    named boolean NOT NULL DEFAULT false
  );
  -- The collection's counts, the sum of ${STATS_SHARDS} rows (a writer adds to one, by its connection).
  CREATE TABLE ${s}.search_stats (
    shard integer PRIMARY KEY,
    docs bigint NOT NULL DEFAULT 0,
    messages bigint NOT NULL DEFAULT 0,
    message_len bigint NOT NULL DEFAULT 0,
    names bigint NOT NULL DEFAULT 0,
    firsts bigint NOT NULL DEFAULT 0,
    first_len bigint NOT NULL DEFAULT 0,
    body_len bigint NOT NULL DEFAULT 0
  );
  INSERT INTO ${s}.search_stats (shard) SELECT generate_series(0, ${STATS_SHARDS - 1});
`;
