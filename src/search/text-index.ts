import type { ConversationHit, Field, QueryWord, TextHit, TextQuery, TimeRange } from '../search-types.js';
import { nextTurn, runAtOnce, runInSlices, Slices } from '../slices.js';
import { grown } from '../typed-arrays.js';
import { DocList } from './doc-list.js';
import {
  B,
  HITS_PER_CONVERSATION,
  idf as idfOf,
  K1,
  MAX_TYPO_WORDS,
  oneEditAway,
  PREFIX_EXPANSIONS,
  stemsTypedPast,
  TopLists,
  typoWorthTrying,
  WEIGHT_ANNOTATION,
  WEIGHT_FIRST_REQUEST,
  WEIGHT_NAME,
  WEIGHT_PREFIX,
  WEIGHT_TYPO,
} from './ranking.js';
import { FIELD_NUMBER, FIELDS } from './record-docs.js';
import { SearchBudget } from './search-budget.js';
import { type FlushLimits, TermDictionary, type TermPostings } from './term-dictionary.js';
import { MAX_DOCS, TermSegment } from './term-segment.js';
import { forEachTermOfWord, uncachedTermOf } from './tokens.js';
import { topOf } from './top-scores.js';
import { WordLists } from './word-lists.js';

export { FIELD_NUMBER, FIELDS } from './record-docs.js';

const NAME = 2;
const ANNOTATION = 3;

/** One document: a record's searchable text, the conversation it belongs to, and its times. */
export interface IndexedDoc {
  readonly field: Field;
  /** The record's id (a conversation's own, for its name). */
  readonly id: string;
  /** The conversation it belongs to; none for an annotation of no conversation. */
  readonly conversation: string | undefined;
  readonly text: string;
  /** Milliseconds since 1970. */
  readonly created: number;
  readonly updated: number;
}

/** Items a search's loops go through between two points where it may pause (~1 ms of work at most). */
const STEP = 1024;
/** Spellings of a typo tried between two such points (each goes through the stemmer, ~20 µs). */
const TYPO_STEP = 64;

/** What the index is once its documents' tables are built: what {@link TextIndex.restore} takes and {@link TextIndex.parts} gives. */
export interface IndexParts {
  /** Per document: its record's id, or undefined once it is dead. */
  readonly ids: (string | undefined)[];
  readonly owner: Int32Array<ArrayBuffer>;
  readonly field: Uint8Array<ArrayBuffer>;
  readonly length: Uint16Array<ArrayBuffer>;
  readonly created: Uint32Array<ArrayBuffer>;
  readonly updated: Uint32Array<ArrayBuffer>;
  readonly hash: Uint32Array<ArrayBuffer>;
  /** The conversations' ids, by the numbers `owner` holds. */
  readonly conversations: string[];
  /** Every term and its postings, for the documents above. */
  readonly segment: TermSegment;
}

/** Live documents of each kind: what the index holds, checked against the store it indexes. */
export interface DocCounts {
  /** Messages (the user's and the others'). */
  readonly messages: number;
  /** Conversations: each has a name document, empty or not. */
  readonly conversations: number;
  readonly annotations: number;
}

/** Dead documents past which the index renumbers its documents (and past a fifth of all). */
const COMPACT_DEAD = 5000;
/** Documents handled per step of the work done in slices (tables renumbered, maps built, counts taken). */
const DOCS_PER_STEP = 1024;

/**
 * A full-text index of messages, conversation names and annotations, in memory, kept small: the
 * terms and their postings are in a {@link TermDictionary} (a few immutable, front-coded
 * segments in byte arrays, and a small mutable one for the latest writes), and a document costs
 * its id and 19 bytes of typed arrays. A document written again gets a new number; its old
 * postings stay, dead, until a merge drops them, and once over 5,000 documents and a fifth of all
 * are dead the documents are renumbered. The work that grows with the index (merging segments,
 * renumbering) runs in the background a slice at a time (see slices.ts); while the documents'
 * tables are swapped for renumbered ones, writes are held and searches wait ({@link current}).
 * Ranking is BM25 for messages and, for conversations, BM25 over the conversation as
 * one document of fields (BM25F): its first request, its name and its annotations count several
 * times over its other messages, each field normalized by its own length.
 */
export class TextIndex {
  #dict: TermDictionary;
  /** Per field: record id → document number. */
  #docMaps: Map<string, number>[] = FIELDS.map(() => new Map());
  /** Document number → record id; undefined once the document is dead. */
  #ids: (string | undefined)[] = [];
  #owner = new Int32Array(1024);
  #field = new Uint8Array(1024);
  #length = new Uint16Array(1024);
  /** Seconds since 1970. */
  #created = new Uint32Array(1024);
  #updated = new Uint32Array(1024);
  /** A hash of the document's text: a write of the same text is not indexed again. */
  #hash = new Uint32Array(1024);
  #dead = 0;
  /** Live message documents and their total length, for BM25's average. */
  #messages = 0;
  #messageLength = 0;

  #conversationNumber = new Map<string, number>();
  #conversationIds: string[] = [];
  /**
   * Per conversation: the length of its body (its messages but the first request), and its first
   * request (-1: none known). Each field is normalized by its own length (BM25F): a long chat does
   * not drown what its first request says.
   */
  #conversationLength = new Float64Array(256);
  #firstRequest = new Int32Array(256);
  /** Per conversation: its name's document (-1: none, the conversation is gone or not written yet). */
  #nameDoc = new Int32Array(256);
  /** First requests and their total length, for their average. */
  #firsts = 0;
  #firstTotal = 0;
  /** Live conversations (with a name document) and their total weighted length. */
  #conversations = 0;
  #conversationTotal = 0;

  // Scratch space of the queries, kept between them.
  #score = new Float64Array(1024);
  #best = new Float64Array(1024);
  #conversationScore = new Float64Array(256);
  #conversationFrequency = new Float64Array(256);
  /** Per conversation: 1 once the query touched it; its place among the conversations found + 1 (0: none). */
  #conversationSeen = new Uint8Array(256);
  #conversationRank = new Int32Array(256);
  /** The documents a query scored; those one of its words scored; the conversations it touched, and those one word did. */
  readonly #touched = new DocList();
  readonly #groupDocs = new DocList();
  readonly #conversationsTouched = new DocList();
  readonly #found = new DocList();

  /** The lists of a word's terms in the mutable segment, made when a term is first seen there. */
  #listsOf = (word: string): number[] => {
    const lists: number[] = [];
    forEachTermOfWord(word, (term) => lists.push(this.#dict.listOf(term)));
    return lists;
  };
  #words = new WordLists(this.#listsOf);
  /** Scratch: a document's count of each term, by list number. */
  #frequency = new Uint16Array(1024);

  /** The merges and renumbering running in the background, if any. */
  #maintenance: Promise<void> | undefined;
  /** Writes held while the documents' tables are swapped for renumbered ones, in order. */
  #held: (() => void)[] | undefined;
  /** Settles once the writes held are applied. */
  #released: Promise<void> | undefined;
  /** Why the background work failed: the index takes no write from then on (the store rebuilds it at its next start). */
  #failed: Error | undefined;

  /**
   * Runs work no search may see half done, and no write may come into (the documents renumbered;
   * the copy the index file is written from): at once, by default. A SearchIndex runs it in a turn
   * of its own, as a search: after the searches before it, with writes held meanwhile.
   */
  exclusive: <T>(work: () => Promise<T>) => Promise<T> = (work) => work();

  /** `limits`: when the mutable segment is written into an immutable one (tests choose small ones). */
  constructor(limits: FlushLimits = {}) {
    this.#dict = new TermDictionary([], 0, limits);
  }

  /** Live documents. */
  get size(): number {
    return this.#ids.length - this.#dead;
  }

  /** Bytes the index holds, roughly: its segments and typed arrays, and its strings and maps at their usual cost in V8. */
  get bytes(): number {
    const terms = this.#dict.bytes;
    const docs = this.#ids.length * (8 + 56 + 30) + this.#owner.length * 18;
    const conversations = this.#conversationIds.length * 90 + this.#conversationLength.length * 12;
    const scratch =
      (this.#score.length + this.#best.length) * 8 + (this.#conversationScore.length + this.#conversationFrequency.length) * 8;
    return terms + docs + conversations + scratch;
  }

  /** Live documents of each kind. */
  get counts(): DocCounts {
    let messages = 0;
    let conversations = 0;
    let annotations = 0;
    for (const map of this.#docMaps.slice(0, 2)) messages += map.size;
    conversations = this.#docMaps[NAME]!.size;
    annotations = this.#docMaps[ANNOTATION]!.size;
    return { messages, conversations, annotations };
  }

  /**
   * Settles once the index holds every write it was given: at once, unless the documents are
   * being renumbered (writes are held meanwhile). A search waits for it.
   */
  current(): Promise<void> {
    return this.#released ?? Promise.resolve();
  }

  /** Settles once the background work (merges, renumbering) is done, including work it leads to. */
  async settled(): Promise<void> {
    while (this.#maintenance) await this.#maintenance;
    if (this.#failed) throw this.#failed;
  }

  /** Whether writes are outgrowing the background work: a build waits for {@link settled} before it writes more. */
  get behind(): boolean {
    return this.#dict.flushDue;
  }

  /** Adds a document, or replaces the one of the same field and id. */
  put(doc: IndexedDoc): void {
    if (this.#failed) throw this.#failed;
    if (this.#held) {
      this.#held.push(() => this.put(doc));
      return;
    }
    const field = FIELD_NUMBER[doc.field];
    const hash = textHash(doc.text);
    const before = this.#docMaps[field]!.get(doc.id);
    // The same text again (a conversation's name on each message added, a message's score or
    // links changed): only its times change. Re-indexing would leave a dead copy per write.
    if (before !== undefined && this.#hash[before] === hash && this.#ownerId(before) === doc.conversation) {
      this.#created[before] = seconds(doc.created);
      this.#updated[before] = seconds(doc.updated);
      return;
    }
    this.#removeDoc(field, doc.id);
    const number = this.#ids.length;
    if (number >= MAX_DOCS) throw new Error(`The search index holds ${MAX_DOCS} documents, as many as it can.`);
    if (number === this.#owner.length) this.#growDocs(number * 2);
    this.#hash[number] = hash;
    // Each term's count in the document, in a scratch array by list number (a Map per document
    // costs more than the rest of the indexing).
    let length = 0;
    const touched: number[] = [];
    this.#words.forEachList(doc.text, (list) => {
      if (list >= this.#frequency.length)
        this.#frequency = grown(this.#frequency, Math.max(list + 1, this.#frequency.length * 2), Uint16Array);
      if (this.#frequency[list] === 0) touched.push(list);
      if (this.#frequency[list]! < 0xffff) this.#frequency[list]!++;
      length++;
    });
    for (const list of touched) {
      this.#dict.add(list, number, this.#frequency[list]!);
      this.#frequency[list] = 0;
    }
    this.#ids.push(doc.id);
    this.#docMaps[field]!.set(doc.id, number);
    this.#field[number] = field;
    this.#length[number] = Math.min(length, 0xffff);
    this.#created[number] = seconds(doc.created);
    this.#updated[number] = seconds(doc.updated);
    const owner = doc.conversation === undefined ? -1 : this.#conversation(doc.conversation);
    this.#owner[number] = owner;
    if (field <= 1) {
      this.#messages++;
      this.#messageLength += this.#length[number]!;
    }
    if (field === NAME && owner >= 0) {
      this.#nameDoc[owner] = number;
      this.#conversations++;
      this.#conversationTotal += this.#conversationLength[owner]!;
    }
    if (owner >= 0 && field <= 1) {
      this.#addLength(owner, this.#length[number]!);
      if (field === 0) {
        const first = this.#firstRequest[owner]!;
        if (first < 0 || this.#created[first]! > this.#created[number]!) this.#setFirstRequest(owner, number);
      }
    }
    if (this.#dict.flushDue || this.#compactDue()) this.#maintain();
  }

  /** Removes the document of this field and id, if the index has it. */
  remove(field: Field, id: string): void {
    if (this.#failed) throw this.#failed;
    if (this.#held) {
      this.#held.push(() => this.remove(field, id));
      return;
    }
    this.#removeDoc(FIELD_NUMBER[field], id);
    if (this.#compactDue()) this.#maintain();
  }

  /** Whether over 5,000 documents, and a fifth of all, are dead: time to renumber the documents. */
  #compactDue(): boolean {
    return this.#dead > COMPACT_DEAD && this.#dead * 5 > this.#ids.length;
  }

  /** Every live document: its field, id and conversation. */
  *documents(): Generator<{ field: Field; id: string; conversation: string | undefined }> {
    for (let doc = 0; doc < this.#ids.length; doc++) {
      const id = this.#ids[doc];
      if (id === undefined) continue;
      const owner = this.#owner[doc]!;
      yield { field: FIELDS[this.#field[doc]!]!, id, conversation: owner < 0 ? undefined : this.#conversationIds[owner] };
    }
  }

  /** Whether the index holds this document. */
  has(field: Field, id: string): boolean {
    return this.#docMaps[FIELD_NUMBER[field]]!.has(id);
  }

  /** Messages that match, best first (only messages of `query.conversation` when it names one), at once. */
  searchMessages(query: TextQuery): TextHit[] {
    return runAtOnce(this.messageSearch(query));
  }

  /** Annotations that match, best first (only those of `query.conversation` when it names one), at once. */
  searchAnnotations(query: TextQuery): TextHit[] {
    return runAtOnce(this.annotationSearch(query));
  }

  /** Conversations that match, best first, each with its best matching messages and annotations, at once. */
  searchConversations(query: TextQuery): ConversationHit[] {
    return runAtOnce(this.conversationSearch(query));
  }

  /**
   * {@link searchMessages} as steps for `runInSlices`: it yields wherever it may pause. Until the
   * steps are done the index must not change, and no other search may run (they share scratch
   * arrays): `SearchIndex` runs searches one at a time and holds writes meanwhile.
   */
  *messageSearch(query: TextQuery): Generator<void, TextHit[]> {
    return yield* this.#documentSearch(query, (field) => field <= 1);
  }

  /** {@link searchAnnotations} as steps for `runInSlices` (see {@link messageSearch}). */
  *annotationSearch(query: TextQuery): Generator<void, TextHit[]> {
    return yield* this.#documentSearch(query, (field) => field === ANNOTATION);
  }

  /** The documents of the fields `ofField` accepts that match, best first, scored as messages are (BM25). */
  *#documentSearch(query: TextQuery, ofField: (field: number) => boolean): Generator<void, TextHit[]> {
    const budget = query.budget ?? new SearchBudget();
    const owner = query.conversation === undefined ? -1 : (this.#conversationNumber.get(query.conversation) ?? -2);
    if (owner === -2) return [];
    const fields = this.#field;
    const owners = this.#owner;
    const inTime = this.#timeFilter(query);
    // Checked for every posting walked: no more than the query needs.
    const keep =
      owner === -1 && !inTime
        ? (doc: number) => ofField(fields[doc]!)
        : (doc: number) => ofField(fields[doc]!) && (owner === -1 || owners[doc] === owner) && (!inTime || inTime(doc));
    if (query.words.length === 0) {
      const newest = yield* this.#newest(keep, query.limit, budget);
      return newest.map((doc) => ({ ...this.#hit(doc, 1), similarity: 0 }));
    }
    const { touched, bound } = yield* this.#scoreDocs(query, keep, false, budget);
    const hits = (yield* topOf(touched.items, this.#score, query.limit)).map((doc) => this.#hit(doc, bound));
    yield* clear(this.#score, touched.items);
    return hits;
  }

  /** {@link searchConversations} as steps for `runInSlices` (see {@link messageSearch}). */
  *conversationSearch(query: TextQuery): Generator<void, ConversationHit[]> {
    const budget = query.budget ?? new SearchBudget();
    if (query.words.length === 0) {
      const newest = yield* this.#newest((doc) => this.#field[doc] === NAME && this.#inTime(doc, query), query.limit, budget);
      return newest.map((doc) => ({ id: this.#ids[doc]!, similarity: 0, messages: [], annotations: [] }));
    }
    const { touched, bound, conversations, conversationBound } = yield* this.#scoreDocs(
      query,
      (doc) => this.#owner[doc]! >= 0,
      true,
      budget,
    );
    const inTime: number[] = [];
    for (let i = 0; i < conversations.length; i++) {
      if (i % STEP === STEP - 1) yield;
      const name = this.#nameDoc[conversations.at(i)]!;
      if (name >= 0 && this.#inTime(name, query)) inTime.push(conversations.at(i));
    }
    const ranked = yield* topOf(inTime, this.#conversationScore, query.limit);
    // Each ranked conversation's documents (its place in the ranking + 1, by conversation, finds them).
    const rank = this.#conversationRank;
    ranked.forEach((owner, i) => (rank[owner] = i + 1));
    const docsOf: number[][] = ranked.map(() => []);
    for (let i = 0; i < touched.length; i++) {
      if (i % STEP === STEP - 1) yield;
      const doc = touched.at(i);
      const place = rank[this.#owner[doc]!]!;
      if (place > 0) docsOf[place - 1]!.push(doc);
    }
    for (const owner of ranked) rank[owner] = 0;
    const hits: ConversationHit[] = [];
    for (const [place, owner] of ranked.entries()) {
      const docs = docsOf[place]!;
      const best = (field: (f: number) => boolean) =>
        runAtOnce(
          topOf(
            docs.filter((doc) => field(this.#field[doc]!)),
            this.#score,
            HITS_PER_CONVERSATION,
          ),
        ).map((doc) => this.#hit(doc, bound));
      hits.push({
        id: this.#conversationIds[owner]!,
        similarity: Math.min(1, this.#conversationScore[owner]! / conversationBound),
        messages: best((f) => f <= 1),
        annotations: best((f) => f === ANNOTATION),
      });
      // A conversation of many matching documents costs a pass over them.
      yield;
    }
    yield* clear(this.#score, touched.items);
    yield* clear(this.#conversationScore, conversations.items);
    yield* clear(this.#conversationSeen, conversations.items);
    return hits;
  }

  /**
   * The `limit` most recently updated live documents `keep` accepts: what a query of no words (a
   * filter alone) finds. Every document is looked at: counted as postings walked.
   */
  *#newest(keep: (doc: number) => boolean, limit: number, budget: SearchBudget): Generator<void, number[]> {
    budget.spend('postings', this.#ids.length);
    const kept = this.#touched;
    kept.clear();
    for (let doc = 0; doc < this.#ids.length; doc++) {
      if (doc % STEP === STEP - 1) yield;
      if (this.#ids[doc] !== undefined && keep(doc)) kept.push(doc);
    }
    return yield* topOf(kept.items, this.#updated, limit);
  }

  /**
   * Scores the documents `keep` accepts into `#score` (BM25, each query word's best term), and,
   * with `perConversation`, the conversations into `#conversationScore`. Answers the documents and
   * conversations touched and the highest score each could have (what similarity 1 means).
   *
   * First the posting lists of every word are found (expansions included, within the budget's
   * caps), then their lengths, the work of walking them, are counted against the budget at once:
   * a query over it is refused before any list is walked.
   */
  *#scoreDocs(
    query: TextQuery,
    keep: (doc: number) => boolean,
    perConversation: boolean,
    budget: SearchBudget,
  ): Generator<void, { touched: DocList; bound: number; conversations: DocList; conversationBound: number }> {
    const groups: [list: TermPostings, weight: number][][] = [];
    let postings = 0;
    // A typo costs ~74 spellings a letter, each through the stemmer: for a few words of a query at
    // most, counted by the words expanded (not by those a near-miss was found for).
    let typoWords = MAX_TYPO_WORDS;
    const words = query.words;
    for (let w = 0; w < words.length; w++) {
      const word = words[w]!;
      const expandPrefix = query.prefix && w === words.length - 1;
      // Only a word that is one term (not an identifier's parts) is looked for with a typo.
      const fuzzy = (query.fuzzy ?? true) && word.terms.length === 1 && typoWords > 0;
      for (const term of word.terms) {
        const { lists, typos } = yield* this.#listsFor(term, word.typed, expandPrefix, fuzzy, budget);
        if (typos) typoWords--;
        if (lists.length === 0) continue;
        groups.push(lists);
        for (const [list] of lists) postings += this.#count(list);
      }
      yield;
    }
    budget.spend('postings', postings);

    this.#reserveScratch();
    const touched = this.#touched;
    touched.clear();
    const conversationsTouched = this.#conversationsTouched;
    conversationsTouched.clear();
    let bound = 0;
    let conversationBound = 0;
    const norms: Norms = {
      avgLength: this.#messages > 0 ? this.#messageLength / this.#messages : 1,
      avgFirst: this.#firsts > 0 ? this.#firstTotal / this.#firsts : 1,
      avgBody: this.#conversations > 0 && this.#conversationTotal > 0 ? this.#conversationTotal / this.#conversations : 1,
    };
    // Counted with the dead documents, as the lists' lengths are (until a compaction drops both):
    // a list can never be longer than the documents, so every idf stays positive.
    const docs = Math.max(1, this.#ids.length);
    for (const lists of groups) {
      const groupDocs = this.#groupDocs;
      groupDocs.clear();
      // The conversations' frequencies of this word: their documents', weighted by field.
      const found = perConversation ? this.#found : undefined;
      found?.clear();
      let groupBound = 0;
      for (const [list, weight] of lists) {
        const count = this.#count(list);
        const idf = idfOf(docs, count);
        groupBound = Math.max(groupBound, weight * idf * (K1 + 1));
        this.#scoreList(list, weight, idf, keep, norms, groupDocs, found);
        yield;
      }
      bound += groupBound;
      for (let from = 0; from < groupDocs.length; from += STEP) {
        this.#addBest(groupDocs, from, Math.min(groupDocs.length, from + STEP), touched);
        yield;
      }
      if (found) {
        const n = Math.max(1, this.#conversations);
        const idf = idfOf(n, found.length);
        conversationBound += idf * (K1 + 1);
        for (let from = 0; from < found.length; from += STEP) {
          this.#addConversations(found, from, Math.min(found.length, from + STEP), idf, conversationsTouched);
          yield;
        }
      }
    }
    return { touched, bound: bound || 1, conversations: conversationsTouched, conversationBound: conversationBound || 1 };
  }

  // The loops every posting goes through, in plain methods of their own: the steps above call them
  // between two points where they may pause, on lists kept from one search to the next.

  /**
   * Walks one posting list of a query word: each document `keep` accepts gets its BM25 score into
   * `#best` (the best of the word's terms), listed in `groupDocs` the first time; with `found`, its
   * conversation's frequency of the word too (BM25F), listed in `found` the first time.
   */
  #scoreList(
    list: TermPostings,
    weight: number,
    idf: number,
    keep: (doc: number) => boolean,
    norms: Norms,
    groupDocs: DocList,
    found: DocList | undefined,
  ): void {
    // The tables a posting reads, read once: nothing changes them until the search is done.
    const ids = this.#ids;
    const owners = this.#owner;
    const fields = this.#field;
    const lengths = this.#length;
    const best = this.#best;
    const conversationFrequency = this.#conversationFrequency;
    const { avgLength, avgFirst, avgBody } = norms;
    this.#walk(list, (doc, frequency) => {
      if (ids[doc] === undefined || !keep(doc)) return;
      if (found) {
        const owner = owners[doc]!;
        if (conversationFrequency[owner] === 0) found.push(owner);
        conversationFrequency[owner]! += weight * frequency * this.#docWeight(doc, avgFirst, avgBody);
      }
      const norm = fields[doc]! <= 1 ? lengths[doc]! / avgLength : 1;
      const score = (weight * idf * frequency * (K1 + 1)) / (frequency + K1 * (1 - B + B * norm));
      if (score > best[doc]!) {
        if (best[doc] === 0) groupDocs.push(doc);
        best[doc] = score;
      }
    });
  }

  /** Adds the best scores of `groupDocs[from, to)` to theirs in `#score` (listing in `touched` those scored the first time), and clears them. */
  #addBest(groupDocs: DocList, from: number, to: number, touched: DocList): void {
    const score = this.#score;
    const best = this.#best;
    for (let i = from; i < to; i++) {
      const doc = groupDocs.at(i);
      if (score[doc] === 0) touched.push(doc);
      score[doc]! += best[doc]!;
      best[doc] = 0;
    }
  }

  /** Adds the word's BM25F score of the conversations `found[from, to)` to theirs, and clears their frequencies. */
  #addConversations(found: DocList, from: number, to: number, idf: number, touched: DocList): void {
    const frequencies = this.#conversationFrequency;
    const scores = this.#conversationScore;
    const seen = this.#conversationSeen;
    for (let i = from; i < to; i++) {
      const owner = found.at(i);
      // Frequencies come normalized by their fields' lengths: BM25F saturates their sum.
      const frequency = frequencies[owner]!;
      frequencies[owner] = 0;
      scores[owner]! += (idf * frequency * (K1 + 1)) / (frequency + K1);
      if (seen[owner] === 0) {
        seen[owner] = 1;
        touched.push(owner);
      }
    }
  }

  /**
   * The posting lists a query term stands for, with their weights: itself, longer words it starts
   * (the most frequent {@link PREFIX_EXPANSIONS} of the terms the budget lets it look at), words
   * one typo away (when the index does not hold it and the budget has room for all its spellings).
   * `typos` says whether it was looked for with a typo.
   */
  *#listsFor(
    term: string,
    typed: string,
    prefix: boolean,
    fuzzy: boolean,
    budget: SearchBudget,
  ): Generator<void, { lists: [list: TermPostings, weight: number][]; typos: boolean }> {
    const lists: [TermPostings, number][] = [];
    const exact = this.#listOf(term);
    if (exact !== undefined) lists.push([exact, 1]);
    if (prefix && typed.length >= 2) {
      const longer = new TopLists<TermPostings>(PREFIX_EXPANSIONS);
      let scanned = 0;
      const most = Math.min(budget.limits.prefixTermsPerWord, budget.left('prefixTerms'));
      if (most > 0) {
        for (const [candidate, list] of this.#prefixTerms(typed)) {
          if (candidate !== term && candidate.length > typed.length) longer.offer(list, this.#count(list));
          if (++scanned === most) break;
          if (scanned % STEP === 0) yield;
        }
      }
      budget.expand('prefixTerms', scanned);
      // Typed past the end of a stem (`documentati`, indexed as `document`): the stems it starts with.
      for (const stem of stemsTypedPast(typed)) {
        const list = this.#listOf(stem);
        if (list !== undefined && stem !== term) longer.offer(list, this.#count(list));
      }
      for (const list of longer.best()) lists.push([list, WEIGHT_PREFIX]);
    }
    if (exact !== undefined || !fuzzy || !typoWorthTrying(typed, budget.left('typoSpellings'))) {
      return { lists, typos: false };
    }
    // Typos are made in words as typed, before stemming: `compnents` is one letter from `components`, stemmed `compon`.
    // Each term once (several spellings may stem to one), as the lists are found anew per lookup.
    const seen = new Set<string>();
    let tried = 0;
    for (const candidate of oneEditAway(typed)) {
      if (++tried % TYPO_STEP === 0) yield;
      const spelled = uncachedTermOf(candidate);
      if (seen.has(spelled)) continue;
      seen.add(spelled);
      const list = this.#listOf(spelled);
      if (list !== undefined) lists.push([list, WEIGHT_TYPO]);
    }
    budget.expand('typoSpellings', tried);
    return { lists, typos: true };
  }

  /** The postings the index holds for these words' own terms, their expansions aside: a lower bound of a search's work (see `#scoreDocs`). */
  postingsOf(words: readonly QueryWord[]): number {
    let postings = 0;
    for (const word of words) {
      for (const term of word.terms) {
        const list = this.#listOf(term);
        if (list !== undefined) postings += this.#count(list);
      }
    }
    return postings;
  }

  // The few places where a search reads the dictionary and the postings: the term → list lookup,
  // the prefix scan, a list's length and its walk.

  /** The postings of a term (its lists in each segment that holds it), if the index holds it. */
  #listOf(term: string): TermPostings | undefined {
    return this.#dict.find(term);
  }

  /** Each term that starts with `prefix`, and its postings, in order. */
  #prefixTerms(prefix: string): Generator<[term: string, list: TermPostings]> {
    return this.#dict.termsWithPrefix(prefix);
  }

  /** How many postings a term has (dead documents' included, until a merge drops them). */
  #count(list: TermPostings): number {
    return list.count;
  }

  /** Calls `visit` with each posting of a term, in document order. */
  #walk(list: TermPostings, visit: (doc: number, frequency: number) => void): void {
    list.forEach(visit);
  }

  #ownerId(doc: number): string | undefined {
    const owner = this.#owner[doc]!;
    return owner < 0 ? undefined : this.#conversationIds[owner];
  }

  #hit(doc: number, bound: number): TextHit {
    const owner = this.#owner[doc]!;
    return {
      id: this.#ids[doc]!,
      field: FIELDS[this.#field[doc]!]!,
      conversation: owner < 0 ? undefined : this.#conversationIds[owner],
      similarity: Math.min(1, this.#score[doc]! / bound),
    };
  }

  #inTime(doc: number, query: TextQuery): boolean {
    return within(this.#created[doc]!, query.created) && within(this.#updated[doc]!, query.updated);
  }

  /** Whether a document is within the query's times, or undefined when the query has none. */
  #timeFilter(query: TextQuery): ((doc: number) => boolean) | undefined {
    if (!query.created && !query.updated) return undefined;
    return (doc) => this.#inTime(doc, query);
  }

  /**
   * How much one occurrence in the document counts in its conversation's frequency of a term: its
   * field's weight over its field's length norm (BM25F). A name or an annotation is short: no norm.
   */
  #docWeight(doc: number, avgFirst: number, avgBody: number): number {
    const field = this.#field[doc]!;
    if (field === NAME) return WEIGHT_NAME;
    if (field === ANNOTATION) return WEIGHT_ANNOTATION;
    const owner = this.#owner[doc]!;
    if (this.#firstRequest[owner] === doc) return WEIGHT_FIRST_REQUEST / (1 - B + (B * this.#length[doc]!) / avgFirst);
    return 1 / (1 - B + (B * this.#conversationLength[owner]!) / avgBody);
  }

  /** Adds to (or takes from) a conversation's body length, and the total of live conversations'. */
  #addLength(owner: number, length: number): void {
    this.#conversationLength[owner]! += length;
    if (this.#hasName(owner)) this.#conversationTotal += length;
  }

  #hasName(owner: number): boolean {
    return this.#nameDoc[owner]! >= 0;
  }

  /** Makes `doc` (-1: none) the conversation's first request: out of its body, into the first requests' field. */
  #setFirstRequest(owner: number, doc: number): void {
    const before = this.#firstRequest[owner]!;
    if (before >= 0) {
      this.#addLength(owner, this.#length[before]!);
      this.#firsts--;
      this.#firstTotal -= this.#length[before]!;
    }
    this.#firstRequest[owner] = doc;
    if (doc >= 0) {
      this.#addLength(owner, -this.#length[doc]!);
      this.#firsts++;
      this.#firstTotal += this.#length[doc]!;
    }
  }

  #removeDoc(field: number, id: string): void {
    const doc = this.#docMaps[field]!.get(id);
    if (doc === undefined) return;
    const owner = this.#owner[doc]!;
    if (owner >= 0 && field <= 1) {
      if (this.#firstRequest[owner] === doc) this.#setFirstRequest(owner, -1);
      this.#addLength(owner, -this.#length[doc]!);
    }
    if (field <= 1) {
      this.#messages--;
      this.#messageLength -= this.#length[doc]!;
    }
    if (field === NAME) {
      this.#conversations--;
      this.#conversationTotal -= this.#conversationLength[owner]!;
    }
    this.#docMaps[field]!.delete(id);
    if (field === NAME && owner >= 0) this.#nameDoc[owner] = -1;
    this.#ids[doc] = undefined;
    this.#dead++;
  }

  #conversation(id: string): number {
    let number = this.#conversationNumber.get(id);
    if (number === undefined) {
      number = this.#conversationIds.length;
      this.#conversationIds.push(id);
      this.#conversationNumber.set(id, number);
      if (number === this.#conversationLength.length) this.#growConversations(number * 2);
      this.#firstRequest[number] = -1;
      this.#nameDoc[number] = -1;
    }
    return number;
  }

  /** Starts the background work due (merges, renumbering), unless it runs already: it looks again once done. */
  #maintain(): void {
    if (!this.#maintenance && !this.#failed) this.#run(() => this.#maintainInSlices());
  }

  /** Runs `work` as the index's background work (one at a time); a failure stops the index taking writes. */
  #run(work: () => Promise<void>): Promise<void> {
    const running = work().then(
      () => {
        this.#maintenance = undefined;
        if (this.#dict.flushDue || this.#compactDue()) this.#maintain();
      },
      (error: Error) => {
        this.#failed = error;
        this.#maintenance = undefined;
        this.#release();
      },
    );
    this.#maintenance = running;
    return running;
  }

  async #maintainInSlices(): Promise<void> {
    // Not inside the write that asked for it: that write's caller goes on first.
    await nextTurn();
    const slices = new Slices();
    for (;;) {
      if (this.#dict.flushDue && !this.#dict.frozen) this.#freeze();
      if (this.#dict.frozen) await runInSlices(this.#dict.flush(this.#liveDoc), slices);
      else if (this.#compactDue()) await this.#compact(slices);
      else return;
    }
  }

  /** A document's number in a merge that drops the dead: itself, or -1 once dead. */
  #liveDoc = (doc: number): number => (this.#ids[doc] === undefined ? -1 : doc);

  /** Freezes the mutable segment (see TermDictionary.freeze): the words remembered name its lists. */
  #freeze(): void {
    this.#dict.freeze(this.#ids.length);
    this.#words.clear();
  }

  /**
   * Drops dead documents and renumbers the live ones, a slice at a time: every segment merged
   * into one (writes go on meanwhile, into a new mutable segment), then, with writes held, the
   * documents' tables renumbered and put in place with it. Conversations with no document left
   * are forgotten. `taken`, if given, receives the parts the new segment covers (copies, taken
   * before the writes held are applied): what the index file holds.
   */
  async #compact(slices: Slices, taken?: (parts: IndexParts) => void): Promise<void> {
    // Frozen where no write is held: every write given so far is in a document below `n`.
    const { n, renumber, live } = await this.exclusive(async () => {
      if (!this.#dict.frozen) this.#freeze();
      const n = this.#ids.length;
      const renumber = new Int32Array(n);
      let live = 0;
      for (let doc = 0; doc < n; doc++) renumber[doc] = this.#ids[doc] === undefined ? -1 : live++;
      return { n, renumber, live };
    });
    const segment = await runInSlices(
      this.#dict.compacted((doc) => renumber[doc]!),
      slices,
    );
    await this.exclusive(async () => {
      this.#hold();
      try {
        await runInSlices(this.#renumbered(renumber, n, n - live, segment), slices);
        taken?.(this.#copy(live, segment));
      } finally {
        this.#release();
      }
    });
  }

  /** Renumbers the documents' tables as `renumber` says below `n` (and shifted down by `dropped` from `n` on), a step at a time, and puts them in place with `segment`. */
  *#renumbered(renumber: Int32Array, n: number, dropped: number, segment: TermSegment): Generator<void, void> {
    const total = this.#ids.length;
    const size = total - dropped;
    const capacity = Math.max(1024, size);
    const ids: (string | undefined)[] = new Array(size);
    const owner = new Int32Array(capacity);
    const field = new Uint8Array(capacity);
    const length = new Uint16Array(capacity);
    const created = new Uint32Array(capacity);
    const updated = new Uint32Array(capacity);
    const hash = new Uint32Array(capacity);
    const conversationOf = new Int32Array(this.#conversationIds.length).fill(-1);
    const conversationIds: string[] = [];
    const conversationNumber = new Map<string, number>();
    const maps = FIELDS.map(() => new Map<string, number>());
    let dead = 0;
    for (let doc = 0; doc < total; doc++) {
      if (doc % DOCS_PER_STEP === 0) yield;
      const to = doc < n ? renumber[doc]! : doc - dropped;
      if (to < 0) continue;
      const id = this.#ids[doc];
      ids[to] = id;
      field[to] = this.#field[doc]!;
      length[to] = this.#length[doc]!;
      created[to] = this.#created[doc]!;
      updated[to] = this.#updated[doc]!;
      hash[to] = this.#hash[doc]!;
      let conversation = this.#owner[doc]!;
      if (conversation >= 0) {
        if (conversationOf[conversation]! < 0) {
          const id = this.#conversationIds[conversation]!;
          conversationOf[conversation] = conversationIds.length;
          conversationNumber.set(id, conversationIds.length);
          conversationIds.push(id);
        }
        conversation = conversationOf[conversation]!;
      }
      owner[to] = conversation;
      if (id === undefined) dead++;
      else maps[field[to]!]!.set(id, to);
    }
    this.#ids = ids;
    this.#owner = owner;
    this.#field = field;
    this.#length = length;
    this.#created = created;
    this.#updated = updated;
    this.#hash = hash;
    this.#dead = dead;
    this.#docMaps = maps;
    this.#conversationIds = conversationIds;
    this.#conversationNumber = conversationNumber;
    const conversations = Math.max(256, conversationIds.length);
    this.#conversationLength = new Float64Array(conversations);
    this.#firstRequest = new Int32Array(conversations);
    this.#nameDoc = new Int32Array(conversations);
    this.#dict.adopt(segment, n - dropped);
    yield* this.#recount();
  }

  /** The first `docs` documents' tables, copied, with `segment`: what an index file holds. */
  #copy(docs: number, segment: TermSegment): IndexParts {
    return {
      ids: this.#ids.slice(0, docs),
      owner: this.#owner.slice(0, docs),
      field: this.#field.slice(0, docs),
      length: this.#length.slice(0, docs),
      created: this.#created.slice(0, docs),
      updated: this.#updated.slice(0, docs),
      hash: this.#hash.slice(0, docs),
      conversations: this.#conversationIds.slice(),
      segment,
    };
  }

  /** Holds the writes from now on (see {@link current}). */
  #hold(): void {
    this.#held = [];
    this.#released = new Promise((resolve) => (this.#resolveReleased = resolve));
  }

  #resolveReleased: (() => void) | undefined;

  /** Applies the writes held, in order, and lets searches go on. */
  #release(): void {
    const held = this.#held;
    this.#held = undefined;
    try {
      for (const write of held ?? []) write();
    } catch (error) {
      this.#failed = error as Error;
    } finally {
      this.#released = undefined;
      this.#resolveReleased?.();
      this.#resolveReleased = undefined;
    }
  }

  /** Works out the counts, lengths and first requests from the documents (after a renumbering or a load), a step at a time. */
  *#recount(): Generator<void, void> {
    this.#messages = 0;
    this.#messageLength = 0;
    this.#conversations = 0;
    this.#conversationTotal = 0;
    this.#conversationLength.fill(0);
    this.#firstRequest.fill(-1);
    this.#firsts = 0;
    this.#firstTotal = 0;
    this.#nameDoc.fill(-1);
    const n = this.#ids.length;
    for (let doc = 0; doc < n; doc++) {
      if (doc % DOCS_PER_STEP === 0) yield;
      if (this.#ids[doc] === undefined) continue;
      const owner = this.#owner[doc]!;
      if (this.#field[doc]! <= 1) {
        this.#messages++;
        this.#messageLength += this.#length[doc]!;
      }
      if (this.#field[doc] === NAME && owner >= 0) this.#nameDoc[owner] = doc;
      if (this.#field[doc] === 0 && owner >= 0) {
        const first = this.#firstRequest[owner]!;
        if (first < 0 || this.#created[first]! > this.#created[doc]!) this.#firstRequest[owner] = doc;
      }
    }
    for (let doc = 0; doc < n; doc++) {
      if (doc % DOCS_PER_STEP === 0) yield;
      if (this.#ids[doc] === undefined || this.#field[doc]! > 1) continue;
      const owner = this.#owner[doc]!;
      if (owner < 0) continue;
      if (this.#firstRequest[owner] === doc) {
        this.#firsts++;
        this.#firstTotal += this.#length[doc]!;
      } else this.#conversationLength[owner]! += this.#length[doc]!;
    }
    this.#conversationIds.forEach((_, owner) => {
      if (!this.#hasName(owner)) return;
      this.#conversations++;
      this.#conversationTotal += this.#conversationLength[owner]!;
    });
  }

  /**
   * The index as one segment with the documents' tables it covers (copies): what the index file
   * holds, with every write given before the call. An index of several segments, or with dead
   * documents, is first merged and renumbered, in the background (writes go on meanwhile; those
   * the copy misses came after the call).
   */
  async parts(): Promise<IndexParts> {
    for (;;) {
      while (this.#maintenance) await this.#maintenance;
      if (this.#failed) throw this.#failed;
      if (!this.#dict.single || this.#dead > 0) break;
      // Taken where no write is held: the copy holds every write given so far.
      const copy = await this.exclusive(async () =>
        this.#dict.single && this.#dead === 0 ? this.#copy(this.#ids.length, this.#dict.segments[0] ?? TermSegment.EMPTY) : undefined,
      );
      if (copy) return copy;
    }
    let parts: IndexParts | undefined;
    await this.#run(() => this.#compact(new Slices(), (taken) => (parts = taken)));
    if (!parts) throw this.#failed ?? new Error('The search index could not be merged.');
    return parts;
  }

  /**
   * An index made of `parts` (as an index file holds them; its arrays are taken, not copied), a
   * step at a time: the maps of ids and the counts are built in slices.
   */
  static *restore(parts: IndexParts, limits: FlushLimits = {}): Generator<void, TextIndex> {
    const index = new TextIndex(limits);
    const n = parts.ids.length;
    index.#ids = parts.ids;
    index.#owner = parts.owner;
    index.#field = parts.field;
    index.#length = parts.length;
    index.#created = parts.created;
    index.#updated = parts.updated;
    index.#hash = parts.hash;
    index.#growDocs(Math.max(1024, n));
    for (let i = 0; i < parts.conversations.length; i++) {
      if (i % DOCS_PER_STEP === 0) yield;
      index.#conversation(parts.conversations[i]!);
    }
    for (let doc = 0; doc < n; doc++) {
      if (doc % DOCS_PER_STEP === 0) yield;
      const id = parts.ids[doc];
      const map = index.#docMaps[index.#field[doc]!]!;
      if (id === undefined) index.#dead++;
      else if (map.has(id)) throw new Error(`the document ${id} is there twice`);
      else map.set(id, doc);
    }
    index.#dict = new TermDictionary([parts.segment], n, limits);
    yield* index.#recount();
    return index;
  }

  #reserveScratch(): void {
    if (this.#score.length < this.#ids.length) {
      this.#score = new Float64Array(this.#owner.length);
      this.#best = new Float64Array(this.#owner.length);
    }
    if (this.#conversationScore.length < this.#conversationIds.length) {
      this.#conversationScore = new Float64Array(this.#conversationLength.length);
      this.#conversationFrequency = new Float64Array(this.#conversationLength.length);
      this.#conversationSeen = new Uint8Array(this.#conversationLength.length);
      this.#conversationRank = new Int32Array(this.#conversationLength.length);
    }
  }

  #growDocs(size: number): void {
    this.#owner = grown(this.#owner, size, Int32Array);
    this.#field = grown(this.#field, size, Uint8Array);
    this.#length = grown(this.#length, size, Uint16Array);
    this.#created = grown(this.#created, size, Uint32Array);
    this.#updated = grown(this.#updated, size, Uint32Array);
    this.#hash = grown(this.#hash, size, Uint32Array);
  }

  #growConversations(size: number): void {
    this.#conversationLength = grown(this.#conversationLength, size, Float64Array);
    this.#firstRequest = grown(this.#firstRequest, size, Int32Array);
    this.#nameDoc = grown(this.#nameDoc, size, Int32Array);
  }
}

/** The average lengths a search normalizes by (BM25's, and each field's for BM25F). */
interface Norms {
  readonly avgLength: number;
  readonly avgFirst: number;
  readonly avgBody: number;
}

/** FNV-1a over the text's UTF-16 code units. */
function textHash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

function seconds(ms: number): number {
  return Number.isFinite(ms) ? Math.max(0, Math.min(0xffffffff, Math.floor(ms / 1000))) : 0;
}

function within(at: number, range: TimeRange | undefined): boolean {
  if (!range) return true;
  return (range.from === undefined || at >= Math.floor(range.from / 1000)) && (range.to === undefined || at <= Math.floor(range.to / 1000));
}

/** Zeroes `scores` at `items`, as steps for `runInSlices`. */
function* clear(scores: Float64Array | Uint8Array, items: ArrayLike<number>): Generator<void, void> {
  for (let i = 0; i < items.length; i++) {
    if (i % STEP === STEP - 1) yield;
    scores[items[i]!] = 0;
  }
}
