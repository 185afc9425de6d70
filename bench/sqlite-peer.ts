/**
 * The SQLite peer of the benchmarks: what a user would pick instead of this store for one process,
 * written as a plain SQLite-backed app would be (better-sqlite3, synchronous calls): a row per
 * conversation and a row per message (its conversation, its position, its text, and the rest of
 * its fields as JSON), every answer built per request from the rows (select, parse, assemble,
 * JSON.stringify); WAL with `synchronous=FULL`, so an acknowledged write is on disk; FTS5 with the
 * porter tokenizer over the messages' texts and the conversations' names, kept by triggers in the
 * writes' transactions. It answers the service's routes the benchmarks load (same paths, same
 * answer shapes for `?transferables=false`) on a Hono app served by the same @hono/node-server.
 *
 * A search is the words of the query OR'ed (each quoted, so no FTS5 syntax gets through), ranked
 * by FTS5's bm25; a conversation's score is the sum of its matching messages' and name's scores
 * (the conversation as one document of its messages, as the plain BM25 of
 * bench/search-quality.ts treats it).
 */
import { randomUUID } from 'node:crypto';
import { Hono } from 'hono';
import type { SqliteDatabase } from './sqlite-addon.js';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS conversations (rowid INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, name TEXT NOT NULL, json TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS messages (
  rowid INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, conversation TEXT NOT NULL, position INTEGER NOT NULL,
  text TEXT NOT NULL, json TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS messages_by_conversation ON messages (conversation, position);
CREATE VIRTUAL TABLE IF NOT EXISTS messages_fts USING fts5(text, content='messages', content_rowid='rowid', tokenize='porter unicode61');
CREATE VIRTUAL TABLE IF NOT EXISTS conversations_fts USING fts5(name, content='conversations', content_rowid='rowid', tokenize='porter unicode61');
CREATE TRIGGER IF NOT EXISTS messages_indexed AFTER INSERT ON messages BEGIN
  INSERT INTO messages_fts (rowid, text) VALUES (new.rowid, new.text);
END;
CREATE TRIGGER IF NOT EXISTS conversations_indexed AFTER INSERT ON conversations BEGIN
  INSERT INTO conversations_fts (rowid, name) VALUES (new.rowid, new.name);
END;
`;

/**
 * Opens (or creates) the peer's database at `file`: WAL, `synchronous=FULL` (each commit waits for
 * its fsync), the schema. `bulk` loads without syncing (as the JSON-file store is built, with
 * `durability: 'unsafe-no-fsync'`); reopen without it to serve.
 */
export function openPeer(Database: new (file: string) => SqliteDatabase, file: string, { bulk = false } = {}): SqliteDatabase {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma(`synchronous = ${bulk ? 'OFF' : 'FULL'}`);
  db.exec(SCHEMA);
  return db;
}

/**
 * A conversation to load: its answer's fields in their order (its `messages` key is filled per
 * request from the message rows) and its messages, each as its answer's object and its text.
 */
export interface PeerConversation {
  readonly id: string;
  readonly name: string;
  readonly fields: Record<string, unknown>;
  readonly messages: readonly { readonly fields: Record<string, unknown> & { id: string }; readonly text: string }[];
}

/** Inserts `conversations` in one transaction. */
export function loadPeer(db: SqliteDatabase, conversations: readonly PeerConversation[]): void {
  const insertConversation = db.prepare('INSERT INTO conversations (id, name, json) VALUES (?, ?, ?)');
  const insertMessage = db.prepare('INSERT INTO messages (id, conversation, position, text, json) VALUES (?, ?, ?, ?, ?)');
  db.transaction(() => {
    for (const conversation of conversations) {
      insertConversation.run(conversation.id, conversation.name, JSON.stringify({ ...conversation.fields, messages: null }));
      conversation.messages.forEach((message, position) =>
        insertMessage.run(message.fields.id, conversation.id, position, message.text, JSON.stringify(message.fields)),
      );
    }
  })();
}

/** Folds the WAL into the database file, so the file alone holds everything (for its size). */
export function checkpoint(db: SqliteDatabase): void {
  db.pragma('wal_checkpoint(TRUNCATE)');
}

/** An FTS5 query of `text`'s words OR'ed, each quoted; undefined when it has none. */
export function ftsQuery(text: string): string | undefined {
  const words = [...new Set(text.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? [])];
  return words.length === 0 ? undefined : words.map((word) => `"${word}"`).join(' OR ');
}

/** A search's hits, best first: identifiers and scores (higher is better). */
export interface PeerHits {
  readonly iterable: { identifier: string; similarity: number }[];
}

/** The peer's reads, writes and searches, as prepared statements over `db`. */
export function peerQueries(db: SqliteDatabase) {
  const conversation = db.prepare('SELECT json FROM conversations WHERE id = ?').pluck();
  const messages = db.prepare('SELECT json FROM messages WHERE conversation = ? ORDER BY position').pluck();
  const nextPosition = db.prepare('SELECT coalesce(max(position), -1) + 1 FROM messages WHERE conversation = ?').pluck();
  const insertMessage = db.prepare('INSERT INTO messages (id, conversation, position, text, json) VALUES (?, ?, ?, ?, ?)');
  const touch = db.prepare("UPDATE conversations SET json = json_set(json, '$.updated.value', ?) WHERE id = ?");
  const searchMessages = db.prepare(
    `SELECT m.id AS identifier, -f.score AS similarity
     FROM (SELECT rowid, rank AS score FROM messages_fts WHERE messages_fts MATCH ? ORDER BY rank LIMIT ?) f
     JOIN messages m ON m.rowid = f.rowid ORDER BY f.score`,
  );
  const searchConversations = db.prepare(
    `SELECT conversation AS identifier, -sum(score) AS similarity FROM (
       SELECT m.conversation AS conversation, f.rank AS score FROM messages_fts f JOIN messages m ON m.rowid = f.rowid WHERE messages_fts MATCH ?
       UNION ALL
       SELECT c.id, f.rank FROM conversations_fts f JOIN conversations c ON c.rowid = f.rowid WHERE conversations_fts MATCH ?
     ) GROUP BY conversation ORDER BY sum(score) LIMIT ?`,
  );
  const parsedMessages = (id: string) => (messages.all(id) as string[]).map((json) => JSON.parse(json) as { id: string });
  const append = db.transaction((conversationId: string, message: { id: string }, text: string, at: string): boolean => {
    if (conversation.get(conversationId) === undefined) return false;
    insertMessage.run(message.id, conversationId, nextPosition.get(conversationId), text, JSON.stringify(message));
    touch.run(at, conversationId);
    return true;
  });
  return {
    /** GET /conversation/{id}?transferables=false: the conversation with its messages as references, and their positions. */
    conversation(id: string): string | undefined {
      const json = conversation.get(id) as string | undefined;
      if (json === undefined) return undefined;
      const answer = JSON.parse(json) as Record<string, unknown>;
      const messages = parsedMessages(id);
      answer.messages = {
        iterable: messages.map((message) => ({ id: message.id, reference: message })),
        indices: Object.fromEntries(messages.map((message, position) => [message.id, position])),
      };
      return JSON.stringify(answer);
    },
    /** GET /conversation/{id}/messages?transferables=false. */
    messages(id: string): string | undefined {
      if (conversation.get(id) === undefined) return undefined;
      const messages = parsedMessages(id);
      return JSON.stringify({
        iterable: messages,
        indices: Object.fromEntries(messages.map((message, position) => [message.id, position])),
      });
    },
    /** POST /messages/create: a durable insert (the transaction commits with its fsync); undefined when the conversation is missing. */
    createMessage(body: { role?: string; fragment?: { string?: { raw?: string } }; conversation?: { id?: string } }): string | undefined {
      const at = new Date().toISOString();
      const conversationId = String(body.conversation?.id ?? '');
      const message = {
        id: randomUUID(),
        created: { value: at },
        updated: { value: at },
        conversation: { id: conversationId },
        role: body.role ?? 'USER',
        fragment: {},
      };
      return append(conversationId, message, String(body.fragment?.string?.raw ?? ''), at) ? JSON.stringify(message) : undefined;
    },
    searchMessages(text: string, limit = 20): PeerHits {
      const query = ftsQuery(text);
      return { iterable: query === undefined ? [] : (searchMessages.all(query, limit) as PeerHits['iterable']) };
    },
    searchConversations(text: string, limit = 20): PeerHits {
      const query = ftsQuery(text);
      return { iterable: query === undefined ? [] : (searchConversations.all(query, query, limit) as PeerHits['iterable']) };
    },
  };
}

/** The peer's HTTP routes, answering as the service's do for the benchmarks' requests. */
export function peerApp(db: SqliteDatabase): Hono {
  const queries = peerQueries(db);
  const app = new Hono();
  const json = { 'content-type': 'application/json' };
  const missing = () => new Response('{"error":"NOT_FOUND"}', { status: 404, headers: json });
  app.get('/.well-known/health', (c) => c.text('ok'));
  app.get('/conversation/:id', (c) => {
    const answer = queries.conversation(c.req.param('id'));
    return answer === undefined ? missing() : c.body(answer, 200, json);
  });
  app.get('/conversation/:id/messages', (c) => {
    const answer = queries.messages(c.req.param('id'));
    return answer === undefined ? missing() : c.body(answer, 200, json);
  });
  app.post('/messages/create', async (c) => {
    const answer = queries.createMessage(await c.req.json());
    return answer === undefined ? missing() : c.body(answer, 200, json);
  });
  const search = (kind: 'searchMessages' | 'searchConversations') => async (c: import('hono').Context) => {
    const body = (await c.req.json()) as { engines?: { iterable?: { query?: string }[] } };
    const text = (body.engines?.iterable ?? []).map((engine) => engine.query ?? '').join(' ');
    return c.body(JSON.stringify(queries[kind](text)), 200, json);
  };
  app.post('/messages/search', search('searchMessages'));
  app.post('/conversations/search', search('searchConversations'));
  return app;
}
