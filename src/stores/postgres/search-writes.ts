import type { RecordChange } from '../../ports.js';
import { B, K1 } from '../../search/ranking.js';
import { FIELD_NUMBER, INDEXED_COLLECTIONS, indexActions } from '../../search/record-docs.js';
import type { IndexedDoc } from '../../search/text-index.js';
import { forEachTerm } from '../../search/tokens.js';
import { cacheKey } from './record-cache.js';
import type { RunQuery } from './record-view.js';
import type { SearchStatements } from './search-statements.js';
import { toText } from './texts.js';

const USER_MESSAGE = FIELD_NUMBER.userMessage;
const NAME = FIELD_NUMBER.name;
/** A term's count in a document and a document's length are kept as the embedded index keeps them: at most 65,535. */
const MAX_COUNT = 0xffff;

/** A document as the search tables hold it (times in seconds, as the embedded index compares them). */
interface DocRow {
  readonly doc: number;
  readonly field: number;
  readonly id: string;
  readonly conversation: string | null;
  readonly len: number;
  readonly created: number;
}

/** A conversation's row of `search_conversations`: what BM25F normalizes its fields by. */
interface ConversationRow {
  readonly num: number;
  readonly id: string;
  /** Its documents of any field; the row goes with the last. */
  docs: number;
  /** The terms of all its messages (its first request's included). */
  length: number;
  first_doc: number | null;
  first_len: number;
  first_created: number | null;
  named: boolean;
}

/** A document to put: its terms counted. */
interface NewDoc {
  readonly doc: IndexedDoc;
  readonly field: number;
  readonly terms: Map<string, number>;
  readonly len: number;
}

/**
 * Writes the search rows of a transaction's record writes, in that transaction (before it
 * commits), so they can never drift from the records, whichever instance wrote them: a message's,
 * a conversation name's or an annotation's document (see record-docs.ts, which the embedded index
 * follows too), its postings (one row per term), its conversation's lengths and first request,
 * and the collection's counts (in one of 64 rows, by connection, so that concurrent writers
 * rarely wait on one another and never deadlock on them: the row is the last one a transaction
 * locks). A document whose text, field and conversation the transaction read unchanged only has
 * its times written: a conversation's every append, a score changed, rewrite no postings.
 *
 * `read` holds the records as the transaction read them (locked), by cache key: undefined for
 * one read absent; a record it did not read is looked up in the search tables instead.
 */
export async function writeSearchRows(
  run: RunQuery,
  statements: SearchStatements,
  changes: readonly RecordChange[],
  read: ReadonlyMap<string, object | undefined>,
): Promise<void> {
  const puts: NewDoc[] = [];
  const times: IndexedDoc[] = [];
  /** Documents that may be held now and go (removed, or put anew), by field and stored id. */
  const stale: [number[], string[]] = [[], []];
  for (const change of changes) {
    if (!INDEXED_COLLECTIONS.has(change.collection)) continue;
    const key = cacheKey(change.collection, change.id);
    const known = read.has(key);
    const before = known ? previousDocs(change, read.get(key)) : undefined;
    for (const action of indexActions(change)) {
      if ('remove' in action) {
        // Read as it was: removed only if it was there.
        if (!before || before.has(action.remove)) pushKey(stale, FIELD_NUMBER[action.remove], action.id);
        continue;
      }
      const doc = action.put;
      const was = before?.get(doc.field);
      if (was && was.text === doc.text && was.conversation === doc.conversation) {
        if (was.created !== doc.created || was.updated !== doc.updated) times.push(doc);
        continue;
      }
      if (!before || was) pushKey(stale, FIELD_NUMBER[doc.field], doc.id);
      puts.push(counted(doc));
    }
  }
  const timeColumns = [
    times.map((doc) => FIELD_NUMBER[doc.field]),
    times.map((doc) => toText(doc.id)),
    times.map((doc) => seconds(doc.created)),
    times.map((doc) => seconds(doc.updated)),
  ];
  if (puts.length > 0 || stale[0].length > 0) await rewrite(run, statements, puts, stale, timeColumns);
  else if (times.length > 0) await run(statements.named(statements.writeTimes, timeColumns));
}

/** The documents a record made before this write, by field (none when it was absent). */
function previousDocs(change: RecordChange, record: object | undefined): Map<string, IndexedDoc> {
  const docs = new Map<string, IndexedDoc>();
  if (!record) return docs;
  for (const action of indexActions({ ...change, record })) if ('put' in action) docs.set(action.put.field, action.put);
  return docs;
}

function pushKey(keys: [number[], string[]], field: number, id: string): void {
  keys[0].push(field);
  keys[1].push(toText(id));
}

/** A document's terms and length, as the embedded index counts them. */
function counted(doc: IndexedDoc): NewDoc {
  const terms = new Map<string, number>();
  let len = 0;
  forEachTerm(doc.text, (term) => {
    terms.set(term, Math.min(MAX_COUNT, (terms.get(term) ?? 0) + 1));
    len++;
  });
  return { doc, field: FIELD_NUMBER[doc.field], terms, len: Math.min(len, MAX_COUNT) };
}

/**
 * Removes the `stale` documents (and their postings) and puts `puts` (each under a new number,
 * as the embedded index numbers a document written anew), with their conversations' rows, their
 * terms' counts per conversation and the collection's counts brought up to date: a first
 * statement locks the conversations' rows (made when missing) and reads the documents that go,
 * with their terms; a second writes everything. A conversation whose first request changes has
 * the terms of the documents that stop or start being it moved (read when not written here).
 */
async function rewrite(
  run: RunQuery,
  statements: SearchStatements,
  puts: readonly NewDoc[],
  stale: [number[], string[]],
  times: unknown[][],
): Promise<void> {
  const wanted = new Set<string>();
  for (const put of puts) if (put.doc.conversation !== undefined) wanted.add(toText(put.doc.conversation));
  const locked = await run(statements.named(statements.lockRows, [[...wanted].sort(), ...stale, puts.length]));
  const answer = locked.rows[0] as { conversations: string; docs: string; terms: string; numbers: string };
  /** By stored id (see texts.ts), as the rows hold them. */
  const conversations = new Map<string, ConversationRow>();
  const before = new Map<string, ConversationRow>();
  const take = (rows: ConversationRow[]) => {
    for (const row of rows) {
      conversations.set(row.id, row);
      before.set(row.id, { ...row });
    }
  };
  take(JSON.parse(answer.conversations) as ConversationRow[]);
  const gone = JSON.parse(answer.docs) as DocRow[];
  const termsOf = termsByDoc(JSON.parse(answer.terms) as [number, string, number][]);
  const numbers = JSON.parse(answer.numbers) as number[];
  // A document that goes may belong to a conversation no document put names (a message deleted).
  const more = [
    ...new Set(gone.flatMap((doc) => (doc.conversation !== null && !conversations.has(doc.conversation) ? [doc.conversation] : []))),
  ];
  if (more.length > 0) {
    const { rows } = await run(statements.named(statements.lockRows, [more.sort(), [], [], 0]));
    take(JSON.parse((rows[0] as { conversations: string }).conversations) as ConversationRow[]);
  }

  const termCounts = new TermCounts();
  const delta = { docs: 0, messages: 0, messageLength: 0 };
  /** Conversations whose first request went: looked for again among those that stay. */
  const lostFirst = new Set<ConversationRow>();
  for (const doc of gone) {
    delta.docs--;
    if (doc.field <= 1) {
      delta.messages--;
      delta.messageLength -= doc.len;
    }
    const conversation = doc.conversation === null ? undefined : conversations.get(doc.conversation);
    if (!conversation) continue;
    conversation.docs--;
    if (doc.field <= 1) conversation.length -= doc.len;
    if (doc.field === NAME) conversation.named = false;
    const wasFirst = conversation.first_doc === doc.doc;
    termCounts.add(
      conversation.num,
      termsOf.get(doc.doc),
      wasFirst ? FIRST : doc.field === NAME ? NAME_TF : doc.field === 3 ? NOTE : BODY,
      -1,
    );
    if (wasFirst) {
      conversation.first_doc = null;
      conversation.first_len = 0;
      conversation.first_created = null;
      lostFirst.add(conversation);
    }
  }
  if (lostFirst.size > 0) {
    const { rows } = await run(statements.named(statements.firstRequests, [[...lostFirst].map((c) => c.num), gone.map((doc) => doc.doc)]));
    for (const row of rows as { num: string; doc: string; len: number; created: string }[]) {
      const conversation = [...lostFirst].find((c) => c.num === Number(row.num))!;
      conversation.first_doc = Number(row.doc);
      conversation.first_len = row.len;
      conversation.first_created = Number(row.created);
    }
  }

  const docs: [number[], number[], string[], (number | null)[], number[], number[], number[]] = [[], [], [], [], [], [], []];
  const postings: [string[], number[], number[], (number | null)[], number[], number[]] = [[], [], [], [], [], []];
  const impacts: number[] = [];
  /** The new documents' terms by number, for those that turn out to be a first request. */
  const added = new Map<number, Map<string, number>>();
  const owners = new Map<number, ConversationRow | undefined>();
  puts.forEach((put, i) => {
    const number = numbers[i]!;
    const { doc, field, len } = put;
    const conversation = doc.conversation === undefined ? undefined : conversations.get(toText(doc.conversation));
    const created = seconds(doc.created);
    delta.docs++;
    if (field <= 1) {
      delta.messages++;
      delta.messageLength += len;
    }
    if (conversation) {
      conversation.docs++;
      if (field <= 1) conversation.length += len;
      if (field === NAME) conversation.named = true;
      // The earliest request is the first (the first written of those at one time).
      if (field === USER_MESSAGE && (conversation.first_created === null || conversation.first_created > created)) {
        conversation.first_doc = number;
        conversation.first_len = len;
        conversation.first_created = created;
      }
    }
    added.set(number, put.terms);
    owners.set(number, conversation);
    const num = conversation?.num ?? null;
    [number, field, toText(doc.id), num, len, created, seconds(doc.updated)].forEach((value, c) => (docs[c] as unknown[]).push(value));
    for (const [term, tf] of put.terms) {
      [term, number, field, num, tf, len].forEach((value, c) => (postings[c] as unknown[]).push(value));
      impacts.push(impactOf(field, tf, len));
    }
  });
  // The new documents' terms, counted where they now belong.
  puts.forEach((put, i) => {
    const number = numbers[i]!;
    const conversation = owners.get(number);
    if (conversation)
      termCounts.add(
        conversation.num,
        put.terms,
        conversation.first_doc === number ? FIRST : put.field === NAME ? NAME_TF : put.field === 3 ? NOTE : BODY,
        1,
      );
  });
  // Documents that stay but stop or start being their conversation's first request: their terms move.
  const moved: [ConversationRow, number, 1 | -1][] = [];
  const goneNumbers = new Set(gone.map((doc) => doc.doc));
  for (const conversation of conversations.values()) {
    const was = before.get(conversation.id)!.first_doc;
    const now = conversation.first_doc;
    if (was === now) continue;
    if (was !== null && !goneNumbers.has(was)) moved.push([conversation, was, -1]);
    if (now !== null && !added.has(now)) moved.push([conversation, now, 1]);
  }
  if (moved.length > 0) {
    const { rows } = await run(statements.named(statements.docTerms, [moved.map(([, doc]) => doc)]));
    const stayed = termsByDoc((rows as { doc: string; term: string; tf: number }[]).map((row) => [Number(row.doc), row.term, row.tf]));
    for (const [conversation, doc, into] of moved) {
      termCounts.add(conversation.num, stayed.get(doc), into === 1 ? FIRST : BODY, 1);
      termCounts.add(conversation.num, stayed.get(doc), into === 1 ? BODY : FIRST, -1);
    }
  }

  // A document put anew keeps its row (given its new number); one that only goes is deleted.
  const putKeys = new Set(puts.map((put) => `${put.field}:${toText(put.doc.id)}`));
  const removed = gone.filter((doc) => !putKeys.has(`${doc.field}:${doc.id}`)).map((doc) => doc.doc);
  const kept: [number[], number[], number[], (number | null)[], number[], (number | null)[], boolean[]] = [[], [], [], [], [], [], []];
  const dropped: number[] = [];
  const totals = { names: 0, firsts: 0, firstLength: 0, body: 0 };
  for (const conversation of conversations.values()) {
    const was = before.get(conversation.id)!;
    addTotals(totals, was, -1);
    if (conversation.docs <= 0) {
      dropped.push(conversation.num);
      continue;
    }
    addTotals(totals, conversation, 1);
    const c = conversation;
    [c.num, c.docs, c.length, c.first_doc, c.first_len, c.first_created, c.named].forEach((value, i) => (kept[i] as unknown[]).push(value));
  }
  const counts = termCounts.columns();
  await run(
    statements.named(statements.applyRows, [
      gone.map((doc) => doc.doc),
      removed,
      ...docs,
      ...postings,
      ...kept,
      dropped,
      [delta.docs, delta.messages, delta.messageLength, totals.names, totals.firsts, totals.firstLength, totals.body],
      impacts,
      ...counts,
      ...times,
    ]),
  );
  // Counts that may have fallen to nothing: such a row would still count its conversation as holding the term.
  const fallen = termCounts.fallen();
  if (fallen.conversations.length > 0) await run(statements.named(statements.pruneTerms, [fallen.conversations, fallen.terms]));
}

/** Where a term's count goes in `search_conversation_terms`: name, annotations, first request, other messages. */
const NAME_TF = 0;
const NOTE = 1;
const FIRST = 2;
const BODY = 3;

/** Changes to the rows of `search_conversation_terms`, by conversation and term. */
class TermCounts {
  readonly #rows = new Map<string, [term: string, conversation: number, counts: [number, number, number, number]]>();
  #fell = false;

  /** Adds each term's count (times `sign`) to its place in the conversation's row. */
  add(conversation: number, terms: ReadonlyMap<string, number> | undefined, place: number, sign: 1 | -1): void {
    if (!terms) return;
    if (sign < 0) this.#fell = true;
    for (const [term, tf] of terms) {
      const key = `${conversation}\u0000${term}`;
      let row = this.#rows.get(key);
      if (!row) this.#rows.set(key, (row = [term, conversation, [0, 0, 0, 0]]));
      row[2][place]! += sign * tf;
    }
  }

  /** The changes as the statement's columns, in the order of their keys (conversation, then term: the order rows are locked in). */
  columns(): [string[], number[], number[], number[], number[], number[]] {
    const columns: [string[], number[], number[], number[], number[], number[]] = [[], [], [], [], [], []];
    const rows = [...this.#rows.values()].filter(([, , c]) => c.some((n) => n !== 0));
    rows.sort((a, b) => a[1] - b[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    for (const [term, conversation, counts] of rows) {
      columns[0].push(term);
      columns[1].push(conversation);
      counts.forEach((n, i) => (columns[i + 2] as number[]).push(n));
    }
    return columns;
  }

  /** The rows something was taken from, which may now count nothing. */
  fallen(): { conversations: number[]; terms: string[] } {
    if (!this.#fell) return { conversations: [], terms: [] };
    const rows = [...this.#rows.values()].filter(([, , c]) => c.some((n) => n < 0));
    return { conversations: [...new Set(rows.map(([, c]) => c))], terms: [...new Set(rows.map(([t]) => t))] };
  }
}

/** Rows of (document, term, count) as a map per document. */
function termsByDoc(rows: readonly [number, string, number][]): Map<number, Map<string, number>> {
  const byDoc = new Map<number, Map<string, number>>();
  for (const [doc, term, tf] of rows) {
    let terms = byDoc.get(Number(doc));
    if (!terms) byDoc.set(Number(doc), (terms = new Map()));
    terms.set(term, tf);
  }
  return byDoc;
}

/**
 * The average document length impacts are computed at: a search of messages reads a long list in
 * the order of impact, so this only chooses which of a long list's postings it reads first (its
 * scores use the collection's real average).
 */
export const IMPACT_AVERAGE_LENGTH = 40;

/** A term's BM25 weight in a document (without idf) at {@link IMPACT_AVERAGE_LENGTH}: a name or an annotation is not normalized by length. */
export function impactOf(field: number, tf: number, len: number): number {
  const norm = field <= 1 ? len / IMPACT_AVERAGE_LENGTH : 1;
  return (tf * (K1 + 1)) / (tf + K1 * (1 - B + B * norm));
}

/** Adds (sign 1) or takes away (-1) a conversation's share of the collection's counts: BM25F's averages. */
function addTotals(totals: { names: number; firsts: number; firstLength: number; body: number }, c: ConversationRow, sign: number): void {
  if (c.first_doc !== null) {
    totals.firsts += sign;
    totals.firstLength += sign * c.first_len;
  }
  // As the embedded index: only a conversation with a name document (it exists) counts in the body's average.
  if (c.named) {
    totals.names += sign;
    totals.body += sign * (c.length - c.first_len);
  }
}

/** Milliseconds as the embedded index keeps times: whole seconds, 0 for none. */
export function seconds(ms: number): number {
  return Number.isFinite(ms) ? Math.max(0, Math.min(0xffffffff, Math.floor(ms / 1000))) : 0;
}
