import type { CollectionName, Collections, MessageRole, ModelRecord } from './records.js';
import type { ConversationHit, Field, QueryWord, TextHit, TextQuery } from './search-types.js';

export type { ConversationHit, Field, QueryWord, TextHit, TextQuery, TimeRange } from './search-types.js';

/** Which records of a collection a `list` answers: a cursor to start after, and how many. */
export interface PageRequest {
  /** Start after this cursor: the `next` of the page before. Opaque to callers. */
  readonly after?: string;
  /** Skip this many records first (after `after`, if given). Default 0. */
  readonly offset?: number;
  /** At most this many records. Default: all that are left. */
  readonly limit?: number;
}

/** One page of a collection, in insertion order, and the cursor of the next page when there is one. */
export interface Page<T> {
  readonly records: readonly T[];
  /** Pass as `after` to get the next page; absent on the last page. */
  readonly next?: string;
}

/**
 * Reads of the stored records. Records are deep-frozen, never live: build a new record to change
 * one. Every read is async, so a store may serve it from disk, an index or a database.
 */
export interface ReadView {
  /**
   * The record with this id, or undefined. A store that finds the record damaged on disk rejects
   * with ServiceError `DATA_DAMAGED` naming it (details `file`, `offset`, `id`).
   */
  get<C extends CollectionName>(collection: C, id: string): Promise<Collections[C] | undefined>;
  /**
   * The records with these ids, index for index (undefined where one is missing). A store that
   * finds any of them damaged on disk rejects with ServiceError `DATA_DAMAGED`, whose
   * `details.damaged` names every damaged one among them, so a caller can read the rest again
   * without them (see `readSkippingDamaged`).
   */
  getMany<C extends CollectionName>(collection: C, ids: readonly string[]): Promise<(Collections[C] | undefined)[]>;
  /** A page of the collection's records, in insertion order (all of them without `limit`). */
  list<C extends CollectionName>(collection: C, page?: PageRequest): Promise<Page<Collections[C]>>;
  /** How many records the collection holds. */
  count(collection: CollectionName): Promise<number>;
  /**
   * Version stamps of these records, index for index: a number that changes whenever the record
   * is written (undefined where one is missing). Cheap (no record is read), so caches key on it.
   */
  versions(collection: CollectionName, ids: readonly string[]): Promise<(number | undefined)[]>;
}

/**
 * The view inside one transaction: reads see the transaction's own writes; nothing is visible to
 * others, or stored, until the transaction's function has returned (or its promise resolved).
 */
export interface Transaction extends ReadView {
  /** Inserts or replaces the record with `record.id`. */
  put<C extends CollectionName>(collection: C, record: Collections[C]): void;
  /** Removes the record; removing an absent record does nothing. */
  delete(collection: CollectionName, id: string): void;
}

/**
 * A committed write of one record: the record as it is now, or null once deleted. A change says
 * what the record is, never what changed in it: taking it twice is taking it once.
 */
export interface RecordChange {
  readonly collection: CollectionName;
  readonly id: string;
  readonly record: object | null;
}

/** One committed transaction's writes, numbered: what a {@link ChangeFeed} delivers. */
export interface ChangeBatch {
  /**
   * The batch's position in the feed: larger than the position of every batch delivered before
   * it. Positions may skip numbers (a database may number by its transaction ids), and mean
   * nothing across stores.
   */
  readonly seq: number;
  /**
   * The transaction's writes, each record once: as the transaction left it, or as a transaction
   * committed after it left it (a store that reads the records back to deliver them, having
   * learned only their ids, may see a later state). Never an older state than a batch before it
   * delivered. Frozen: a listener reads it, and never changes it.
   */
  readonly changes: readonly RecordChange[];
}

/**
 * The writes committed to a store, as numbered batches, one per committed transaction that
 * wrote something, delivered after the commit: what indexes kept beside the records (the search
 * index the service builds for a store without its own, the vectors of meaning) follow, so that
 * they see every write, from this process and from others sharing the store.
 *
 * The contract (`conversation-model-service/testing` checks it):
 * - **Order.** A listener gets batches in increasing `seq`, in commit order: a change never
 *   holds an older state of its record than one delivered before it.
 * - **After commit.** When a listener is called, the batch's writes are committed: a read the
 *   listener starts then sees them (or later ones). A transaction that failed delivers nothing; one
 *   that wrote nothing delivers no batch.
 * - **Nothing skipped, at least once.** Every transaction committed after `subscribe` returned
 *   reaches the listener. A store that loses track of the changes for a while (its connection to a
 *   database dropped) resumes from the position of the last batch it delivered, never from "now",
 *   and may then deliver a change again: taken as the record's state, it does no harm. Within one
 *   connection, each batch comes once.
 * - **When.** A store in one process delivers a transaction's batch before its `transact`
 *   resolves. A store shared by processes delivers the other processes' batches once it learns of
 *   them (a notification, a poll): a reader that must see every write acknowledged before it
 *   started calls {@link caughtUp} first.
 *
 * A listener is called synchronously, from the store's commit path, one batch at a time. It must
 * return quickly (queue slow work, such as embedding, for later), must not throw (the store
 * reports what it throws and goes on: the write is committed, and the other listeners get the
 * batch), must not change the batch, and must not wait for a transaction of the same store (the
 * store may be delivering from inside its queue of transactions: that wait would never end).
 */
export interface ChangeFeed {
  /**
   * Calls `listener` with every batch committed from now on, in order (see {@link ChangeFeed}),
   * however soon after the call it commits, in this process or another. Batches committed before
   * are not delivered, except that a store shared by processes may deliver some committed shortly
   * before (it cannot wait for the database here, so it starts from a position it took earlier):
   * a reader that subscribes, then reads the records, misses no write (one committed meanwhile is
   * read, or delivered, or both). Answers a function that stops the calls (a batch being delivered
   * when it is called may still reach the listener).
   */
  subscribe(listener: (batch: ChangeBatch) => void): () => void;
  /**
   * Resolves once every batch committed before the call has been delivered to every listener
   * (and their calls have returned), with the position of the last batch delivered (0 before the
   * first). A store in one process resolves at once; a store shared by processes asks where its
   * changes are now (a database's current position) and delivers what comes before it first.
   * Rejects when it cannot tell (the database unreachable): a search that waits for it fails
   * rather than answering from an index that may be stale.
   */
  caughtUp(): Promise<number>;
  /**
   * Present on a feed that tells a listener in this process of every write as it happens, so that
   * a cache may follow the feed instead of reading version stamps at each use: every write to the
   * store is made through this process, and each transaction's batch is delivered before its
   * `transact` resolves (the memory and JSON-file stores). Absent on a store shared by processes
   * (PostgreSQL): another process's write reaches the feed only once this process learns of it.
   */
  readonly local?: LocalFeed;
}

/** What a {@link ChangeFeed.local} feed adds: the writes it undid after reads could see them. */
export interface LocalFeed {
  /**
   * Calls `listener`, synchronously, whenever the store undoes writes that reads could already
   * see and that no batch will deliver: a store that shows a transaction's writes to reads before
   * they are committed (the JSON-file store, while its journal line is written) undoes them when
   * the commit fails (a full disk). What was read since may have been undone: a listener that
   * keeps what it read drops it. Answers a function that stops the calls.
   */
  onUndone(listener: () => void): () => void;
}

/**
 * Where records live: the ConversationStore. Implementations: `createMemoryRepository`,
 * `createJsonFileRepository` and `createPostgresRepository` (`conversation-model-service/postgres`);
 * each passes the contract suite that `conversation-model-service/testing` ships, which a store of
 * your own can run too.
 */
export interface Repository {
  /**
   * Runs `fn` against the committed records and answers its result. Each read sees every
   * transaction committed before it (a function that awaits between reads may see one commit
   * meanwhile, as in a database's read-committed isolation); read inside `transact` for reads
   * that must agree with each other.
   */
  read<T>(fn: (view: ReadView) => T | Promise<T>): Promise<T>;
  /**
   * Runs `fn` and applies its writes atomically: all of them or, if `fn` throws (or its promise
   * rejects), none. `fn` may await its reads; transactions that write the same records never
   * interleave (the file and memory stores run them one at a time; the PostgreSQL store locks the
   * rows a transaction reads until it commits). The promise resolves once the writes are stored
   * (on disk, for file stores; committed, for a database) and answers what the last run of `fn`
   * answered.
   *
   * **`fn` may run more than once.** A database may give up a transaction that deadlocked or
   * failed to serialize with another and run it again from the start: the PostgreSQL store runs
   * `fn` again, on a fresh `tx`, until one run commits (a few tries at most). So `fn` must have no
   * effect outside `tx`: no call to a summarizer or a model, no change to a cache, a counter or an
   * object that outlives the call, no event sent. Do such work before `transact` (and pass its
   * result in) or after it resolves (with what it answered). A store that runs `fn` once (the file
   * and memory stores) is a special case of this.
   */
  transact<T>(fn: (tx: Transaction) => T | Promise<T>): Promise<T>;
  /** Finishes pending writes and releases the store's resources (file handles, locks). */
  close(): Promise<void>;
  /**
   * Full-text search of the records, kept in the same writes as they are (the file and memory
   * stores keep one). A store without it is searched through an index the service builds by
   * reading every record once, at its first search, and keeps up to date from {@link changes}
   * (or, for a store without a feed, from the transactions made through the service alone).
   */
  readonly search?: TextSearch;
  /**
   * The store's committed writes, as numbered batches (see {@link ChangeFeed}): its own and, for a
   * store several processes share, the other processes'. The file and memory stores deliver their
   * own, each after their own search index (if any) has taken it. A store without a feed is
   * followed through the service's own transactions: a store that other processes write to must
   * have one, or the service's indexes miss their writes.
   */
  readonly changes?: ChangeFeed;
  /**
   * What the store knows of the soundness of what it holds, from memory (no I/O): a store that
   * checks its files (the JSON-file store checks every message's checksum after it opens) says how
   * far the check got and which files it found damaged. `service.health()` answers it.
   */
  health?(): StoreHealth;
  /**
   * Writes a consistent copy of the store into `folder` (which must not exist, or be empty) while
   * the store goes on serving: every write acknowledged before the call is in it, none is in it
   * in part, and writes made meanwhile may or may not be. The copy is a JSON-file store's data
   * folder (`db.json` and the files beside it), which `createJsonFileRepository` opens as it is.
   * It is written beside `folder` under a temporary name, flushed, and renamed into place: a
   * failure (a full disk: ServiceError `INSUFFICIENT_STORAGE`) leaves nothing of it behind. A
   * `folder` that holds anything is refused with `CONFLICT`. A store without it (PostgreSQL) is
   * backed up with its own tools (`pg_dump`).
   */
  backup?(folder: string): Promise<BackupReport>;
}

/** What a backup wrote (see {@link Repository.backup}). */
export interface BackupReport {
  /** The backup's folder, as an absolute path. */
  readonly folder: string;
  /** How many files it holds, and their bytes. */
  readonly files: number;
  readonly bytes: number;
}

/** A store's check of what it holds (see {@link Repository.health}). */
export interface StoreHealth {
  /** The check of every stored record that starts with the store, in the background: how far it got. */
  readonly check: {
    readonly state: 'running' | 'done' | 'stopped';
    /** Records checked so far, of `total` (what the store held when the check began). */
    readonly checked: number;
    readonly total: number;
  };
  /** Files in which damage was found (by the check, by reads, or at open), by name; empty when none. */
  readonly damaged: readonly DamagedFile[];
}

/** A file of the store in which damage was found. */
export interface DamagedFile {
  /** The file's name, in the store's folder. */
  readonly file: string;
  /** Damaged places (records or lines) found in it, and the byte offset of the first. */
  readonly places: number;
  readonly firstOffset: number;
  /** Records that cannot be read because of it (a damaged hint line loses where its records are), and the first ids among them. */
  readonly records: number;
  readonly ids: readonly string[];
}

/**
 * Full-text search over messages, conversation names and annotations: what a store offers when it
 * keeps an index (a database would answer it with its own full-text index). Queries come
 * tokenized (`words`, see `forEachTerm`); similarities are 0–1, best first.
 */
export interface TextSearch {
  /** Messages that match, best first; only one conversation's when `query.conversation` names it. */
  searchMessages(query: TextQuery): Promise<TextHit[]>;
  /** Conversations that match (by their messages, name and annotations), best first, with their best messages. */
  searchConversations(query: TextQuery): Promise<ConversationHit[]>;
  /**
   * Annotations that match, best first; only one conversation's when `query.conversation` names
   * it. Optional: without it, annotations are searched through {@link searchConversations} (the
   * best annotations of each conversation found; an annotation of no conversation is not found).
   */
  searchAnnotations?(query: TextQuery): Promise<TextHit[]>;
  /**
   * Every document the index holds: what an index kept beside it checks itself against at start.
   * It holds at least every batch of {@link Repository.changes} delivered before the call.
   */
  documents?(): Promise<Iterable<IndexedDocRef>>;
  /**
   * The postings the index holds for these words' own terms (their prefixes and typos aside): a
   * lower bound of what a search for them walks, known before it is done, so a request over its
   * budget (`SEARCH_BUDGET.postings`) is refused before any of its engines run.
   */
  postings?(words: readonly QueryWord[]): Promise<number>;
}

/** A document of the text index by its record: which field, its id and its conversation. */
export interface IndexedDocRef {
  readonly field: Field;
  readonly id: string;
  readonly conversation: string | undefined;
}

/**
 * Turns texts into vectors of meaning, for `embeddings` search engines: an OpenAI-compatible
 * server's `/embeddings` (`createOpenAiCompatibleEmbedder`: Ollama, LM Studio, llama.cpp's server).
 */
export interface Embedder {
  /** The model's name: vectors made by another model are never compared with its. */
  readonly model: string;
  /** One vector per text, index for index. Rejects with an Error saying why when it cannot. */
  embed(texts: readonly string[], signal: AbortSignal): Promise<Float32Array[]>;
}

/** One message as a summarizer sees it: who said it and its plain text. */
export interface SummarizerMessage {
  readonly id: string;
  readonly role: MessageRole;
  readonly text: string;
}

/** How a summarizer describes itself in the models snapshot (the rest of the Model is derived). */
export interface SummarizerModelInfo {
  readonly id: string;
  readonly name: string;
  readonly version: string;
  readonly description: string;
  /** The API's ModelUsageEnum, e.g. `CODE_CONVERSATION`. */
  readonly usage: string;
  /** The API's ModelTypeEnum: `BALANCED`, `SPEED` or `ACCURACY`. */
  readonly type: string;
  readonly provider?: string;
  readonly foundation?: string;
  readonly cloud?: boolean;
}

/**
 * Writes titles and summaries of conversations. The service only calls it with at least one message
 * that has text; an implementation may still answer an empty string when it finds nothing to say,
 * and the service then reports that the conversation has nothing to name or summarize.
 */
export interface Summarizer {
  /** The model record that stands for this summarizer in the snapshot. */
  readonly model: SummarizerModelInfo;
  /**
   * The most characters of message text this summarizer reads at once. A longer conversation is
   * cut before it gets here: its first request, the opening of the answer to it and the latest
   * messages are kept, the middle left out. Default: 100,000.
   */
  readonly maxInputChars?: number;
  /** A short title (a few words, no trailing period) for the conversation made of `messages`. */
  title(messages: readonly SummarizerMessage[]): Promise<string>;
  /** A few sentences that summarize `messages` from an observer's point of view. */
  summarize(messages: readonly SummarizerMessage[]): Promise<string>;
  /** True while the summarizer holds its model in memory. */
  isLoaded(): boolean;
  /** Releases what the summarizer holds in memory; the next call loads it again. */
  unload(): Promise<void>;
  /** Loads what the summarizer needs into memory ahead of the first call. Default: nothing to load. */
  load?(): Promise<void>;
}

/**
 * The runtime side of models: which models ship with the service, what is loaded, what is
 * downloaded. Custom models are records in the Repository; this port owns everything else.
 */
export interface ModelRegistry {
  /** Models that ship with the service (`custom: false`), with their live `loaded`/`downloaded` state. */
  builtins(): readonly ModelRecord[];
  /** Releases every model held in memory. Answers the ids of the models that were loaded. */
  unloadAll(): Promise<string[]>;
  /**
   * Removes the files downloaded for `modelId` (its folder in the cache root) and nothing else.
   * Removing a cache that does not exist is not an error.
   */
  deleteCache(modelId: string): Promise<void>;
}

/** A model that failed to load: why, and when (ISO 8601). */
export interface ModelLoadFailure {
  readonly reason: string;
  readonly at: string;
}

/** One message of a chat with a model, in the OpenAI chat format. */
export interface ChatMessage {
  readonly role: 'system' | 'user' | 'assistant';
  readonly content: string;
}

/** What one generation may use. */
export interface ChatOptions {
  /** Most tokens the answer may have. */
  readonly maxTokens: number;
  /** Aborts the generation (a timeout, or the caller giving up). */
  readonly signal: AbortSignal;
}

/**
 * Something that runs models: an OpenAI-compatible server (Ollama, LM Studio, llama.cpp's server,
 * vLLM, LocalAI), or a runtime in this process. The service asks it to write titles and summaries
 * with a conversation's model, and lists its models beside the built-in and custom ones.
 */
export interface ModelRuntime {
  /** Names the runtime in model ids and messages, e.g. `openai`. */
  readonly name: string;
  /**
   * The models it offers, as Model records (`custom: false`), with their live `loaded` state.
   * Never rejects: a runtime it cannot reach answers the models it last saw, marked not loaded.
   */
  models(): Promise<ModelRecord[]>;
  /** Whether `model` runs here: one of its own, or a custom model naming one of them in `unique`. */
  accepts(model: ModelRecord): Promise<boolean>;
  /**
   * The model's answer to `messages`. Rejects with an Error that says why when it cannot (the
   * runtime unreachable, the model unknown to it, a timeout through `options.signal`).
   */
  chat(model: ModelRecord, messages: readonly ChatMessage[], options: ChatOptions): Promise<string>;
  /** Tokens of context `model` reads, when the runtime knows. */
  contextTokens?(model: ModelRecord): number | undefined;
  /**
   * Loads `model` into memory ahead of use (a no-op when it is loaded, or when the runtime loads on
   * demand). Rejects with an Error that says why when it cannot (no files, no runtime installed).
   */
  load?(model: ModelRecord): Promise<void>;
  /** Frees `model`'s memory; answers whether it was loaded. */
  unload?(model: ModelRecord): Promise<boolean>;
  /** Whether `model` is in memory now. */
  isLoaded?(model: ModelRecord): boolean;
  /**
   * Why `model` failed to load, when it did and the runtime will not try again by itself (until
   * its files change, or `load` is called). Shown in the model's answers as `loadFailure`.
   */
  loadFailure?(model: ModelRecord): Promise<ModelLoadFailure | undefined>;
  /** Frees what it holds in memory; answers the ids of the models that were loaded. */
  unloadAll?(): Promise<string[]>;
}
