import { createHash, type Hash } from 'node:crypto';
import type { FileHandle } from 'node:fs/promises';
import { openOwnFileToRead } from '../files/own-files.js';
import { writeSharedFileAtomically } from '../files/shared-files.js';
import type { Embedder, IndexedDocRef, RecordChange } from '../ports.js';
import type { Field } from '../search-types.js';
import { Slices } from '../slices.js';
import { grown } from '../typed-arrays.js';
import { INDEXED_COLLECTIONS, indexActions } from './record-docs.js';
import { FIELD_NUMBER, FIELDS } from './text-index.js';

/** Options of {@link VectorIndex}. */
export interface VectorIndexOptions {
  /** Makes the vectors, of documents and of queries. */
  readonly embedder: Embedder;
  /** Where the vectors are kept between runs ({@link VectorIndex.load}, {@link VectorIndex.save}). Default: nowhere. */
  readonly file?: string;
  /** Where failures are said: a server that cannot embed (once per streak), a file that cannot be used. Default: `console`. */
  readonly logger?: { warn(message: string): void };
  /**
   * The texts of these documents, index for index (undefined for one that is gone): how the
   * documents {@link VectorIndex.reconcile} queues are read, a batch at a time.
   */
  readonly readTexts: (docs: readonly IndexedDocRef[]) => Promise<(string | undefined)[]>;
  /** Texts embedded in one call. Default 32. */
  readonly batchSize?: number;
  /** Longer texts are cut to this many characters before they are embedded (models read a few thousand tokens at most). Default 8,000. */
  readonly maxTextChars?: number;
  /** The wait after a failed batch: `firstMs`, doubled at each failure in a row up to `maxMs`. Default 1 s to 60 s. */
  readonly retry?: { readonly firstMs: number; readonly maxMs: number };
  /** The worker saves once `vectors` new vectors are made, at most once in `ms`. Default 1,000 vectors, once a minute. */
  readonly saveEvery?: { readonly vectors: number; readonly ms: number };
}

/** A document found by meaning: its record, and how close its meaning is to the query's (0–1). */
export interface VectorHit {
  /** The record's id; for the `conversations` scope, the conversation's. */
  readonly id: string;
  readonly conversation: string | undefined;
  /** The document's field; for the `conversations` scope, the field of the conversation's best document. */
  readonly field: Field;
  readonly similarity: number;
}

/** A search of the vectors. */
export interface VectorQuery {
  /** At most this many hits, best first. */
  readonly limit: number;
  /** `messages`: messages alone, each a hit; `conversations`: one hit per conversation, by its best document of any field. */
  readonly scope: 'messages' | 'conversations';
  /** Only this conversation's documents. */
  readonly conversation?: string;
  /** Aborts the query's embedding (the search then answers undefined). */
  readonly signal?: AbortSignal;
  /**
   * The clock of the request the search is part of: the pass over every vector gives other work a
   * turn whenever its slice has run its time (a store of half a million vectors takes a good part
   * of a second to compare with). Writes applied meanwhile are seen or not, never half.
   */
  readonly slices?: Slices;
}

/** A document waiting for its vector. */
interface Item {
  readonly key: string;
  readonly field: Field;
  readonly id: string;
  conversation: string | undefined;
  /** The text to embed, already cut; undefined until read (documents queued by `reconcile`). */
  text: string | undefined;
  /** {@link textHash} of `text`. */
  hash: number;
}

const MAGIC = 'conversation-model-service vector index\n';
const VERSION = 1;
/** Bytes the magic line and the header line may take: the header holds a model name and a few numbers. */
const HEAD_BYTES = 64 * 1024;
/** Bytes read, hashed or written at once: large files neither sit in memory twice nor hold the event loop. */
const CHUNK_BYTES = 4 << 20;

interface Header {
  readonly version: number;
  readonly model: string;
  readonly dimension: number;
  readonly count: number;
  /** Bytes of each section: ids, conversations (JSON), fields, text hashes, vectors. */
  readonly sections: number[];
  readonly sha256: string;
}

/**
 * Vectors of meaning of the documents the full-text index holds (messages, conversation names,
 * annotations; one per field and record id), for search by meaning beside search by words.
 *
 * Writes are never held up by it: {@link apply} (called in the store's write path, through
 * the store's change feed, `Repository.changes`) only queues what changed, and a worker in the background embeds the queue a
 * batch at a time. A server that fails is said once per streak of failures and retried with
 * backoff; what it failed on stays queued. Vectors are kept unit length (a dot product is the
 * cosine) in one growing Float32Array, rows reused once freed: a document costs its vector and a
 * few bytes beside it, not an object. Each row keeps a hash of the text it was made from, so a
 * record written again with the same text (a conversation renamed to its own name, or touched for
 * another reason) is not embedded again.
 *
 * With a `file`, {@link load} reads the vectors of the last run, {@link reconcile} fits them to
 * the text index's documents, and {@link save} writes them (atomically) at {@link close} and while
 * the worker goes.
 */
export class VectorIndex {
  readonly #embedder: Embedder;
  readonly #file: string | undefined;
  readonly #logger: { warn(message: string): void };
  readonly #readTexts: VectorIndexOptions['readTexts'];
  readonly #batchSize: number;
  readonly #maxTextChars: number;
  readonly #retry: { readonly firstMs: number; readonly maxMs: number };
  readonly #saveEvery: { readonly vectors: number; readonly ms: number };

  // The vectors: row r is #matrix[r * #dimension, (r + 1) * #dimension), live while #ids[r] is set.
  #dimension = 0;
  #matrix = new Float32Array(0);
  #ids: (string | undefined)[] = [];
  #conversations: (string | undefined)[] = [];
  #fields = new Uint8Array(0);
  #hashes = new Uint32Array(0);
  /** Rows used so far (live or free). */
  #rows = 0;
  #free: number[] = [];
  /** Field and id (see {@link keyOf}) → row. */
  #rowOf = new Map<string, number>();

  /** Documents to embed, by key, oldest first. */
  #queue = new Map<string, Item>();
  /** Documents of the batch being embedded, by key: an item no longer here when its vector comes was written again, or removed, meanwhile. */
  #inFlight = new Map<string, Item>();
  #working = false;
  #controller: AbortController | undefined;
  #retryTimer: NodeJS.Timeout | undefined;
  #failures = 0;
  #closed = false;
  #idleWaiters: (() => void)[] = [];

  /** Changes since the last save (or load). */
  #dirty = false;
  #madeSinceSave = 0;
  #savedAt = Number.NEGATIVE_INFINITY;
  /** Saves run one at a time: a later snapshot is never overwritten by an earlier one. */
  #saving: Promise<void> = Promise.resolve();

  constructor(options: VectorIndexOptions) {
    this.#embedder = options.embedder;
    this.#file = options.file;
    this.#logger = options.logger ?? console;
    this.#readTexts = options.readTexts;
    this.#batchSize = options.batchSize ?? 32;
    this.#maxTextChars = options.maxTextChars ?? 8_000;
    this.#retry = options.retry ?? { firstMs: 1_000, maxMs: 60_000 };
    this.#saveEvery = options.saveEvery ?? { vectors: 1_000, ms: 60_000 };
    // A NaN or zero here would make a worker that never takes anything, unnoticed.
    if (!(this.#batchSize >= 1)) throw new RangeError(`batchSize must be at least 1, not ${this.#batchSize}.`);
    if (!(this.#maxTextChars >= 1)) throw new RangeError(`maxTextChars must be at least 1, not ${this.#maxTextChars}.`);
    if (!(this.#retry.firstMs >= 0 && this.#retry.maxMs >= this.#retry.firstMs))
      throw new RangeError('retry must have 0 <= firstMs <= maxMs.');
  }

  /** The embedding model the vectors are of. */
  get model(): string {
    return this.#embedder.model;
  }

  /** Documents that have a vector. */
  get size(): number {
    return this.#rowOf.size;
  }

  /** Documents waiting for their vector: queued, or being embedded. */
  get pending(): number {
    return this.#queue.size + this.#inFlight.size;
  }

  /** Numbers in each vector; 0 until the first vector is made or loaded. */
  get dimension(): number {
    return this.#dimension;
  }

  /**
   * Takes in committed writes: queues the documents they put, drops the ones they remove, and has
   * the worker start. Synchronous and cheap (it runs in the store's write path): no embedding,
   * reading or waiting here.
   */
  apply(changes: readonly RecordChange[]): void {
    if (this.#closed) return;
    for (const change of changes) {
      if (!INDEXED_COLLECTIONS.has(change.collection)) continue;
      for (const action of indexActions(change)) {
        if ('put' in action) {
          const { field, id, conversation, text } = action.put;
          this.#put(field, id, conversation, text);
        } else this.#remove(keyOf(action.remove, action.id));
      }
    }
    this.#schedule();
  }

  /**
   * Fits the vectors to the documents the text index holds, at start (after {@link load}): drops
   * the vectors of documents it does not hold, queues the documents that have none (their texts
   * are read as the worker takes them, a batch at a time), and has the worker start.
   */
  reconcile(docs: Iterable<IndexedDocRef>): void {
    if (this.#closed) return;
    const seen = new Uint8Array(this.#rows);
    for (const doc of docs) {
      const key = keyOf(doc.field, doc.id);
      const row = this.#rowOf.get(key);
      if (row !== undefined) {
        seen[row] = 1;
        if (this.#conversations[row] !== doc.conversation) {
          this.#conversations[row] = doc.conversation;
          this.#dirty = true;
        }
      } else if (!this.#queue.has(key) && !this.#inFlight.has(key)) {
        this.#queue.set(key, { key, field: doc.field, id: doc.id, conversation: doc.conversation, text: undefined, hash: 0 });
      }
    }
    for (let row = 0; row < seen.length; row++) {
      const id = this.#ids[row];
      if (id !== undefined && seen[row] === 0) this.#drop(keyOf(FIELDS[this.#fields[row]!]!, id));
    }
    this.#schedule();
  }

  /**
   * The documents whose meaning is closest to `query`'s, best first: embeds the query, then takes
   * the cosine with every stored vector. Answers undefined when the query cannot be embedded (a
   * blank query, the embedder failing, a vector of another length than the stored ones'): the
   * caller then searches by words. Documents still waiting for their vector are not found.
   */
  async search(query: string, options: VectorQuery): Promise<VectorHit[] | undefined> {
    const limit = Math.floor(options.limit);
    const text = cut(query.trim(), this.#maxTextChars);
    if (this.#closed || text === '') return undefined;
    let vector: Float32Array | undefined;
    try {
      const signal = options.signal ?? new AbortController().signal;
      vector = (await this.#embedder.embed([text], signal))[0];
    } catch {
      return undefined;
    }
    if (!vector || !normalize(vector)) return undefined;
    // No vector yet: nothing to find, and no length to compare with.
    if (this.#dimension === 0 || limit <= 0) return [];
    // A vector of another length is of another model, or of another configuration of it: not comparable.
    if (vector.length !== this.#dimension) return undefined;
    const dimension = this.#dimension;
    const rows = this.#rows;
    const slices = options.slices ?? new Slices();
    // A row may be dropped and given to another document while the pass has paused: a hit takes
    // its document from the row when it is scored, with the vector it was scored by.
    const hitOf = (row: number, similarity: number): VectorHit => ({
      id: this.#ids[row]!,
      conversation: this.#conversations[row],
      field: FIELDS[this.#fields[row]!]!,
      similarity: clamp(similarity),
    });
    const score = (row: number) => {
      // The matrix of now: one grown while the pass paused holds the rows given out meanwhile.
      const matrix = this.#matrix;
      let dot = 0;
      for (let i = 0, at = row * dimension; i < dimension; i++, at++) dot += vector[i]! * matrix[at]!;
      return dot;
    };
    const clamp = (similarity: number) => Math.min(1, Math.max(0, similarity));
    const { conversation } = options;
    // Vectors of a new length replace every row: a pass that paused across that has nothing to answer.
    const live = () => this.#dimension === dimension;
    if (options.scope === 'messages') {
      const top = new TopK<VectorHit>(limit);
      for (let row = 0; row < rows; row++) {
        if ((row & 255) === 0 && slices.due) {
          await slices.next();
          if (!live()) return [];
        }
        // Fields 0 and 1: userMessage and message.
        if (this.#ids[row] === undefined || this.#fields[row]! > FIELD_NUMBER.message) continue;
        if (conversation !== undefined && this.#conversations[row] !== conversation) continue;
        const similarity = score(row);
        if (top.takes(similarity)) top.offer(similarity, hitOf(row, similarity));
      }
      return top.best().map(([, hit]) => hit);
    }
    // Each conversation's best document: a conversation is as close as the closest thing in it.
    const best = new Map<string, VectorHit>();
    const bestScore = new Map<string, number>();
    for (let row = 0; row < rows; row++) {
      if ((row & 255) === 0 && slices.due) {
        await slices.next();
        if (!live()) return [];
      }
      const owner = this.#conversations[row];
      if (this.#ids[row] === undefined || owner === undefined) continue;
      if (conversation !== undefined && owner !== conversation) continue;
      const similarity = score(row);
      const before = bestScore.get(owner);
      if (before === undefined || similarity > before) {
        bestScore.set(owner, similarity);
        best.set(owner, { ...hitOf(row, similarity), id: owner });
      }
    }
    const top = new TopK<VectorHit>(limit);
    for (const [owner, hit] of best) top.offer(bestScore.get(owner)!, hit);
    return top.best().map(([, hit]) => hit);
  }

  /**
   * The work of one {@link search}, in the postings a text search walks in about the same time (a
   * search budget counts both): each stored vector is compared with the query, a row of 256
   * numbers in about the time a posting is scored.
   */
  get searchCost(): number {
    return this.#rows * Math.ceil(this.#dimension / 256);
  }

  /** Resolves once nothing is queued or being embedded (or the index is closed). For tests and benchmarks. */
  idle(): Promise<void> {
    if (this.#isIdle()) return Promise.resolve();
    return new Promise((resolve) => this.#idleWaiters.push(resolve));
  }

  /**
   * Reads the vectors of `file`, kept by the last run. Call it first, before {@link apply} and
   * {@link reconcile}. A file made with another model, of another version, cut short or damaged
   * is not used: the index starts empty and says so (a missing file is said nothing of).
   */
  async load(): Promise<void> {
    if (!this.#file) return;
    const file = this.#file;
    let loaded: Awaited<ReturnType<typeof readVectorFile>>;
    try {
      loaded = await readVectorFile(file, this.#embedder.model);
    } catch (error) {
      this.#logger.warn(`The vector index ${file} cannot be read (${(error as Error).message}): its vectors are made again.`);
      return;
    }
    if (loaded === undefined) return;
    if ('reason' in loaded) {
      this.#logger.warn(`The vector index ${file} cannot be used (${loaded.reason}): its vectors are made again.`);
      return;
    }
    if (this.#closed) return;
    if (loaded.count === 0) return;
    if (this.#dimension !== 0 && this.#dimension !== loaded.dimension) {
      this.#logger.warn(
        `The vector index ${file} holds vectors of ${loaded.dimension} numbers, not ${this.#dimension}: its vectors are made again.`,
      );
      return;
    }
    // Loading is no change to save; what was written before it (if anything) is.
    const dirty = this.#dirty;
    this.#setDimension(loaded.dimension);
    // Room for them all at once, rather than doubling (and copying) the matrix as they come.
    if (this.#fields.length < this.#rows + loaded.count) this.#grow(this.#rows + loaded.count);
    for (let i = 0; i < loaded.ids.length; i++) {
      const field = FIELDS[loaded.fields[i]!]!;
      const key = keyOf(field, loaded.ids[i]!);
      // What was written since this index started is newer than the file.
      if (this.#rowOf.has(key) || this.#queue.has(key) || this.#inFlight.has(key)) continue;
      this.#store(
        key,
        field,
        loaded.ids[i]!,
        loaded.conversations[i] ?? undefined,
        loaded.hashes[i]!,
        loaded.vectors.subarray(i * loaded.dimension, (i + 1) * loaded.dimension),
      );
    }
    this.#dirty = dirty;
  }

  /**
   * Writes the vectors to `file` atomically (a temporary sibling of this process's own, flushed,
   * renamed into place), with the model's name and a checksum: processes sharing the folder may
   * save it at once, and a reader finds one whole file. Does nothing without a `file`, or when nothing changed.
   */
  save(): Promise<void> {
    if (!this.#file || !this.#dirty) return this.#saving;
    const file = this.#file;
    // A snapshot, taken now: writes go on while the file is written.
    const snapshot = this.#snapshot();
    this.#dirty = false;
    this.#madeSinceSave = 0;
    this.#savedAt = Date.now();
    const saving = this.#saving.then(() =>
      writeVectorFile(file, snapshot, (message) => this.#logger.warn(message)).catch((error: unknown) => {
        this.#dirty = true;
        throw error;
      }),
    );
    // The next save waits for this one, whether it failed or not.
    this.#saving = saving.catch(() => undefined);
    return saving;
  }

  /**
   * Stops the worker (aborting a batch being embedded) and its timers, and saves. Nothing is queued
   * after. A save that fails is said, not thrown: the vectors are made again at the next start.
   */
  async close(): Promise<void> {
    if (this.#closed) return this.#saving;
    this.#closed = true;
    this.#controller?.abort(new Error('The vector index was closed.'));
    clearTimeout(this.#retryTimer);
    this.#retryTimer = undefined;
    this.#wakeIdle();
    await this.save().catch((error: unknown) =>
      this.#logger.warn(`The vector index ${this.#file} cannot be saved (${(error as Error).message}).`),
    );
  }

  #put(field: Field, id: string, conversation: string | undefined, fullText: string): void {
    const key = keyOf(field, id);
    const text = cut(fullText, this.#maxTextChars);
    if (text.trim() === '') {
      // Nothing to mean: an empty name is no document to find by meaning.
      this.#remove(key);
      return;
    }
    const hash = textHash(text);
    const row = this.#rowOf.get(key);
    if (row !== undefined && this.#hashes[row] === hash) {
      // The vector stored is of this text already (the record was written again for another reason): only its conversation may change.
      if (this.#conversations[row] !== conversation) {
        this.#conversations[row] = conversation;
        this.#dirty = true;
      }
      this.#queue.delete(key);
      this.#inFlight.delete(key);
      return;
    }
    const waiting = this.#queue.get(key) ?? this.#inFlight.get(key);
    if (waiting?.text !== undefined && waiting.hash === hash && waiting.text === text) {
      // Already on its way: only its conversation may have changed.
      waiting.conversation = conversation;
      return;
    }
    this.#inFlight.delete(key); // its vector, when it comes, is of the text before: the newer write wins
    // The vector of the text before would find the document by a meaning it no longer has.
    this.#drop(key);
    this.#queue.set(key, { key, field, id, conversation, text, hash });
  }

  #remove(key: string): void {
    this.#queue.delete(key);
    this.#inFlight.delete(key);
    this.#drop(key);
  }

  /** Frees the key's row. */
  #drop(key: string): void {
    const row = this.#rowOf.get(key);
    if (row === undefined) return;
    this.#rowOf.delete(key);
    this.#ids[row] = undefined;
    this.#conversations[row] = undefined;
    this.#free.push(row);
    this.#dirty = true;
  }

  /** Stores a vector (normalized already) for the key, in its row or a new one. */
  #store(key: string, field: Field, id: string, conversation: string | undefined, hash: number, vector: Float32Array): void {
    let row = this.#rowOf.get(key);
    if (row === undefined) {
      row = this.#free.pop() ?? this.#rows++;
      if (row >= this.#fields.length) this.#grow(Math.max(1024, this.#fields.length * 2));
      this.#rowOf.set(key, row);
    }
    this.#ids[row] = id;
    this.#conversations[row] = conversation;
    this.#fields[row] = FIELD_NUMBER[field];
    this.#hashes[row] = hash;
    this.#matrix.set(vector, row * this.#dimension);
    this.#dirty = true;
  }

  #grow(rows: number): void {
    this.#matrix = grown(this.#matrix, rows * this.#dimension, Float32Array);
    this.#fields = grown(this.#fields, rows, Uint8Array);
    this.#hashes = grown(this.#hashes, rows, Uint32Array);
  }

  /**
   * Sets the vectors' length. Vectors of another length are of another model, or of another
   * configuration of it: the ones stored are dropped, their documents queued to be embedded again.
   */
  #setDimension(dimension: number): void {
    if (this.#dimension === dimension) return;
    if (this.#rowOf.size > 0)
      this.#logger.warn(
        `The embedding model ${this.#embedder.model} now makes vectors of ${dimension} numbers, not ${this.#dimension}: the ${this.#rowOf.size} vectors made before are made again.`,
      );
    for (let row = 0; row < this.#rows; row++) {
      const id = this.#ids[row];
      if (id === undefined) continue;
      const field = FIELDS[this.#fields[row]!]!;
      const key = keyOf(field, id);
      if (!this.#queue.has(key) && !this.#inFlight.has(key))
        this.#queue.set(key, { key, field, id, conversation: this.#conversations[row], text: undefined, hash: 0 });
    }
    this.#dimension = dimension;
    this.#matrix = new Float32Array(0);
    this.#ids = [];
    this.#conversations = [];
    this.#fields = new Uint8Array(0);
    this.#hashes = new Uint32Array(0);
    this.#rows = 0;
    this.#free = [];
    this.#rowOf.clear();
    this.#dirty = true;
  }

  #schedule(): void {
    // While a retry waits, writes do not hurry it: a server that is down is not asked at every write.
    if (this.#closed || this.#working || this.#retryTimer || this.#queue.size === 0) {
      this.#wakeIdle();
      return;
    }
    this.#working = true;
    // On the next turn, not in the caller's: apply runs in the store's write path, and the writes of this turn join the batch.
    setImmediate(() => void this.#work());
  }

  async #work(): Promise<void> {
    try {
      while (!this.#closed && this.#queue.size > 0) {
        const batch = this.#take();
        const made = await this.#embedBatch(batch);
        if (made === undefined) return; // failed: a retry is scheduled
        this.#madeSinceSave += made;
        if (this.#file && this.#madeSinceSave >= this.#saveEvery.vectors && Date.now() - this.#savedAt >= this.#saveEvery.ms) {
          await this.save().catch((error: unknown) =>
            this.#logger.warn(`The vector index ${this.#file} cannot be saved (${(error as Error).message}).`),
          );
        }
      }
    } finally {
      this.#working = false;
      this.#controller = undefined;
      this.#wakeIdle();
    }
  }

  /** Moves the queue's first items into the batch in flight. */
  #take(): Item[] {
    const batch: Item[] = [];
    for (const item of this.#queue.values()) {
      if (batch.length === this.#batchSize) break;
      batch.push(item);
    }
    for (const item of batch) {
      this.#queue.delete(item.key);
      this.#inFlight.set(item.key, item);
    }
    return batch;
  }

  /** Embeds a batch and stores its vectors: answers how many were stored, or undefined when it failed (its items queued again, a retry scheduled). */
  async #embedBatch(batch: Item[]): Promise<number | undefined> {
    const current = (item: Item) => this.#inFlight.get(item.key) === item;
    try {
      const unread = batch.filter((item) => item.text === undefined);
      if (unread.length > 0) {
        const texts = await this.#readTexts(unread.map(({ field, id, conversation }) => ({ field, id, conversation })));
        unread.forEach((item, i) => {
          if (!current(item)) return;
          const text = cut(texts[i] ?? '', this.#maxTextChars);
          const row = this.#rowOf.get(item.key);
          const hash = textHash(text);
          // Gone, empty, or (after the vectors' length changed) still as embedded: nothing to make.
          if (text.trim() === '' || (row !== undefined && this.#hashes[row] === hash)) this.#inFlight.delete(item.key);
          else Object.assign(item, { text, hash });
        });
      }
      const ready = batch.filter(current);
      if (ready.length === 0 || this.#closed) return 0;
      this.#controller = new AbortController();
      const vectors = await this.#embedder.embed(
        ready.map((item) => item.text!),
        this.#controller.signal,
      );
      if (this.#closed) return 0;
      if (vectors.length !== ready.length) throw new Error(`the embedder answered ${vectors.length} vectors for ${ready.length} texts`);
      const dimension = vectors[0]!.length;
      if (dimension === 0 || vectors.some((vector) => vector.length !== dimension))
        throw new Error('the embedder answered vectors of different lengths');
      // After the checks: a batch that fails them changes nothing.
      this.#setDimension(dimension);
      // The embedder answered: a streak of failures is over (the next failure starts a new one, said again).
      this.#failures = 0;
      let made = 0;
      ready.forEach((item, i) => {
        if (!current(item)) return; // written again, or removed, while it was embedded: the newer write wins
        this.#inFlight.delete(item.key);
        const vector = vectors[i]!;
        if (!normalize(vector)) return; // no direction (a zero vector, numbers that are not finite): nothing to compare
        this.#store(item.key, item.field, item.id, item.conversation, item.hash, vector);
        made++;
      });
      return made;
    } catch (error) {
      for (const item of batch) {
        if (!current(item)) continue;
        this.#inFlight.delete(item.key);
        // Back to the end of the queue: a text the server chokes on does not hold up the others.
        if (!this.#queue.has(item.key)) this.#queue.set(item.key, item);
      }
      if (this.#closed) return 0;
      const delay = Math.min(this.#retry.maxMs, this.#retry.firstMs * 2 ** this.#failures);
      if (this.#failures === 0)
        this.#logger.warn(
          `Vectors of meaning cannot be made with model ${this.#embedder.model} (${(error as Error).message}): ${this.pending} documents wait, tried again in ${delay / 1000} s and on, with backoff.`,
        );
      this.#failures++;
      this.#retryTimer = setTimeout(() => {
        this.#retryTimer = undefined;
        this.#schedule();
      }, delay);
      // A retry waiting is no reason for the process to stay.
      this.#retryTimer.unref();
      return undefined;
    }
  }

  #isIdle(): boolean {
    return this.#closed || (this.#queue.size === 0 && this.#inFlight.size === 0 && !this.#working);
  }

  #wakeIdle(): void {
    if (!this.#isIdle() || this.#idleWaiters.length === 0) return;
    for (const resolve of this.#idleWaiters.splice(0)) resolve();
  }

  #snapshot(): Snapshot {
    const count = this.#rowOf.size;
    const dimension = this.#dimension;
    const snapshot: Snapshot = {
      model: this.#embedder.model,
      dimension,
      ids: new Array(count),
      conversations: new Array(count),
      fields: new Uint8Array(count),
      hashes: new Uint32Array(count),
      vectors: new Float32Array(count * dimension),
    };
    let at = 0;
    for (let row = 0; row < this.#rows; row++) {
      const id = this.#ids[row];
      if (id === undefined) continue;
      snapshot.ids[at] = id;
      snapshot.conversations[at] = this.#conversations[row] ?? null;
      snapshot.fields[at] = this.#fields[row]!;
      snapshot.hashes[at] = this.#hashes[row]!;
      snapshot.vectors.set(this.#matrix.subarray(row * dimension, (row + 1) * dimension), at * dimension);
      at++;
    }
    return snapshot;
  }
}

/** The vectors of a file: live rows only, packed. */
interface Snapshot {
  readonly model: string;
  readonly dimension: number;
  readonly ids: string[];
  readonly conversations: (string | null)[];
  readonly fields: Uint8Array;
  readonly hashes: Uint32Array;
  readonly vectors: Float32Array;
}

/** A document's key: its field's number (one character) and its record id. */
function keyOf(field: Field, id: string): string {
  return `${FIELD_NUMBER[field]}${id}`;
}

/** The text cut to `max` characters, never inside a surrogate pair. */
function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  const code = text.charCodeAt(max - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? max - 1 : max);
}

/** FNV-1a of the text's UTF-16 units: tells a text written again apart from a changed one (a collision costs one stale vector, at 1 in 4 billion). */
function textHash(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return hash >>> 0;
}

/** Scales the vector to unit length, in place; false when it has none (zero, or not finite). */
function normalize(vector: Float32Array): boolean {
  let sum = 0;
  for (let i = 0; i < vector.length; i++) sum += vector[i]! * vector[i]!;
  if (!(sum > 0) || !Number.isFinite(sum)) return false;
  const scale = 1 / Math.sqrt(sum);
  for (let i = 0; i < vector.length; i++) vector[i]! *= scale;
  return true;
}

/** The `k` best of the rows offered, by score: kept sorted, best first, as `k` is small beside the rows. */
class TopK<T> {
  readonly #scores: number[] = [];
  readonly #items: T[] = [];
  constructor(readonly k: number) {}

  /** Whether an item of this score would be kept (so the caller makes it only then). */
  takes(score: number): boolean {
    const scores = this.#scores;
    return scores.length < this.k || score > scores[scores.length - 1]!;
  }

  offer(score: number, item: T): void {
    if (!this.takes(score)) return;
    const scores = this.#scores;
    let at = scores.length;
    while (at > 0 && score > scores[at - 1]!) at--;
    scores.splice(at, 0, score);
    this.#items.splice(at, 0, item);
    if (scores.length > this.k) {
      scores.pop();
      this.#items.pop();
    }
  }

  best(): [score: number, item: T][] {
    return this.#scores.map((score, i) => [score, this.#items[i]!]);
  }
}

async function writeVectorFile(file: string, snapshot: Snapshot, warn: (message: string) => void): Promise<void> {
  const bytes = (array: ArrayBufferView) => Buffer.from(array.buffer, array.byteOffset, array.byteLength);
  const sections = [
    Buffer.from(JSON.stringify(snapshot.ids)),
    Buffer.from(JSON.stringify(snapshot.conversations)),
    bytes(snapshot.fields),
    bytes(snapshot.hashes),
    bytes(snapshot.vectors),
  ];
  const hash = createHash('sha256');
  for (const section of sections) await hashInChunks(hash, section);
  const header: Header = {
    version: VERSION,
    model: snapshot.model,
    dimension: snapshot.dimension,
    count: snapshot.ids.length,
    sections: sections.map((section) => section.length),
    sha256: hash.digest('hex'),
  };
  // Readable by its owner alone: the names and ids it holds are of people's conversations. Several
  // instances on one database may share the folder, and save the file at once (see shared-files.ts).
  await writeSharedFileAtomically(file, [Buffer.from(`${MAGIC}${JSON.stringify(header)}\n`), ...sections], warn);
}

/** Hashes a buffer a chunk at a time, letting other work run between chunks. */
async function hashInChunks(hash: Hash, buffer: Buffer): Promise<void> {
  for (let at = 0; at < buffer.length; at += CHUNK_BYTES) {
    hash.update(buffer.subarray(at, at + CHUNK_BYTES));
    if (at + CHUNK_BYTES < buffer.length) await new Promise((resolve) => setImmediate(resolve));
  }
}

/**
 * The vectors in `file`, undefined when there is none, or the reason it cannot be used (another
 * model or version, a checksum that does not match, a file cut short or too long). Sections are
 * read straight into their arrays, so a large file is never held twice.
 */
async function readVectorFile(
  file: string,
  model: string,
): Promise<(Omit<Snapshot, 'model'> & { count: number }) | { reason: string } | undefined> {
  let handle: FileHandle;
  try {
    handle = await openOwnFileToRead(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  try {
    const size = (await handle.stat()).size;
    const head = Buffer.alloc(Math.min(HEAD_BYTES, size));
    await readFully(handle, head, 0);
    if (head.subarray(0, MAGIC.length).toString() !== MAGIC) return { reason: 'it is not a vector index' };
    const headerEnd = head.indexOf(10, MAGIC.length);
    if (headerEnd < 0) return { reason: 'its header is cut short' };
    let header: Header;
    try {
      header = JSON.parse(head.subarray(MAGIC.length, headerEnd).toString()) as Header;
    } catch {
      return { reason: 'its header is damaged' };
    }
    if (header.version !== VERSION) return { reason: `it is of version ${header.version}, not ${VERSION}` };
    if (header.model !== model) return { reason: `its vectors are of model ${JSON.stringify(header.model)}, not ${JSON.stringify(model)}` };
    const { dimension, count, sections } = header;
    const whole = (n: unknown): n is number => typeof n === 'number' && Number.isSafeInteger(n) && n >= 0;
    if (!whole(dimension) || !whole(count) || !Array.isArray(sections) || sections.length !== 5 || !sections.every(whole))
      return { reason: 'its header is damaged' };
    if (count > 0 && dimension === 0) return { reason: 'its header is damaged' };
    if (sections[2] !== count || sections[3] !== count * 4 || sections[4] !== count * dimension * 4)
      return { reason: 'its sections do not fit its count' };
    if (headerEnd + 1 + sections.reduce((sum, n) => sum + n, 0) !== size) return { reason: 'it is cut short, or has bytes past its end' };
    const hash = createHash('sha256');
    let at = headerEnd + 1;
    const read = async (target: Uint8Array) => {
      await readFully(handle, target, at, hash);
      at += target.byteLength;
    };
    const ids = Buffer.alloc(sections[0]!);
    const conversations = Buffer.alloc(sections[1]!);
    const fields = new Uint8Array(count);
    const hashes = new Uint32Array(count);
    const vectors = new Float32Array(count * dimension);
    await read(ids);
    await read(conversations);
    await read(fields);
    await read(new Uint8Array(hashes.buffer));
    await read(new Uint8Array(vectors.buffer));
    if (hash.digest('hex') !== header.sha256) return { reason: 'its checksum does not match: it is damaged' };
    const idList = JSON.parse(ids.toString()) as unknown;
    const conversationList = JSON.parse(conversations.toString()) as unknown;
    if (!Array.isArray(idList) || idList.length !== count || !idList.every((id) => typeof id === 'string'))
      return { reason: 'its ids are damaged' };
    if (
      !Array.isArray(conversationList) ||
      conversationList.length !== count ||
      !conversationList.every((c) => c === null || typeof c === 'string')
    )
      return { reason: 'its conversations are damaged' };
    if (fields.some((field) => field >= FIELDS.length)) return { reason: 'its fields are damaged' };
    return { dimension, count, ids: idList as string[], conversations: conversationList as (string | null)[], fields, hashes, vectors };
  } finally {
    await handle.close();
  }
}

/** Fills `target` from the file at `position`, a chunk at a time, hashing what it reads; a file that ends first throws. */
async function readFully(handle: FileHandle, target: Uint8Array, position: number, hash?: Hash): Promise<void> {
  let done = 0;
  while (done < target.byteLength) {
    const length = Math.min(CHUNK_BYTES, target.byteLength - done);
    const { bytesRead } = await handle.read(target, done, length, position + done);
    if (bytesRead === 0) throw new Error('the file ended before its sections did');
    hash?.update(target.subarray(done, done + bytesRead));
    done += bytesRead;
  }
}
