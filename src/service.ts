import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { healthOf, type ServiceHealth } from './health.js';
import type {
  AnnotationUpdateInput,
  ConversationSummarizeInput,
  ConversationUpdateInput,
  MessageUpdateInput,
  MessageValueUpdateInput,
  ModelDeleteCacheInput,
  ModelUpdateInput,
  SearchInput,
  SeededAnchorInput,
  SeededAnnotationInput,
  SeededAssetInput,
  SeededConversationInput,
  SeededConversationMessageInput,
  SeededModelInput,
  SeededPersonInput,
  SeededRangeInput,
  SeededScoreIncrementInput,
  SeededTagInput,
  SeededWebsiteInput,
  SeededWorkstreamEventInput,
  SeededWorkstreamPatternEngineSourceInput,
  SeededWorkstreamSummaryInput,
} from './inputs.js';
import { LINK_KINDS, type LinkKind } from './links.js';
import { type DownloadOptions, resolveDownloadOptions } from './models/download-options.js';
import { createDownloads } from './models/downloads.js';
import { createLocalModelRegistry } from './models/local-registry.js';
import * as annotationOps from './operations/annotations.js';
import { createBackups } from './operations/backup.js';
import type { ListOptions, OperationContext, ReadOptions } from './operations/context.js';
import type { JsonPage } from './operations/conversations.js';
import * as conversations from './operations/conversations.js';
import * as grounded from './operations/grounded-conversations.js';
import type { LinkSelector } from './operations/links.js';
import * as links from './operations/links.js';
import * as messageOps from './operations/messages.js';
import * as lifecycle from './operations/model-lifecycle.js';
import * as models from './operations/models.js';
import type { RecordKindName } from './operations/record-kinds.js';
import { createRecord, deleteRecordOfKind, getRecord, listRecords } from './operations/records.js';
import { incrementConversationScores, incrementModelScores, incrementScores, SCORED } from './operations/scores.js';
import * as search from './operations/search.js';
import { renameConversation, summarizeConversation } from './operations/summaries.js';
import * as trash from './operations/trash.js';
import { trashKeepMs } from './operations/trash-record.js';
import type { BackupReport, Embedder, ModelRegistry, ModelRuntime, Repository, Summarizer } from './ports.js';
import { ConversationJsonCache } from './render/json-cache.js';
import { withSearch } from './search/indexed-repository.js';
import { SEARCH_BUDGET, type SearchBudgetLimits } from './search/search-budget.js';
import { createJsonFileRepository } from './stores/json-file/lazy.js';
import { createMemoryRepository } from './stores/memory.js';
import type { IdentifierStream, WatchOptions } from './streams/identifier-stream.js';
import type { StreamCollection } from './streams/identifiers.js';
import { createWatcher } from './streams/watch.js';
import { type ExportOptions, exportConversations, type ImportOptions, type ImportReport, importConversations } from './transfer/index.js';
import { DEFAULT_PURGE_INTERVAL_MS, TrashPurger } from './trash-purger.js';
import type {
  Anchor,
  Annotation,
  Asset,
  Conversation,
  ConversationCreatedOutput,
  ConversationMessage,
  ConversationMessages,
  ConversationSummarizeOutput,
  FlattenedConversations,
  ListOf,
  Model,
  ModelDeleteCacheOutput,
  ModelDownloadProgress,
  Person,
  Range,
  SearchedAnnotations,
  SearchedConversationMessages,
  SearchedConversations,
  Tag,
  TrashEmptied,
  TrashedConversations,
  Website,
  WorkstreamEvent,
  WorkstreamPatternEngineSource,
  WorkstreamSummary,
} from './wire.js';

export interface ServiceOptions {
  /**
   * Folder for the data file (`db.json`) and the models' caches (`models/<id>/`). Without it and
   * without `repository`, everything stays in memory. With `repository` (a database, say) it holds
   * only this process's models' caches and vector files: the records stay in the repository.
   */
  readonly dataDir?: string;
  /** Where records live. Default: a JSON file in `dataDir`, or memory. */
  readonly repository?: Repository;
  /** Writes titles and summaries. Default: the embedded extractive summarizer. */
  readonly summarizer?: Summarizer;
  /** Built-in models and caches. Default: the summarizer as the one built-in, caches in `dataDir/models`. */
  readonly modelRegistry?: ModelRegistry;
  /** The clock, for tests. Default: `() => new Date()`. */
  readonly clock?: () => Date;
  /** Id source, for tests. Default: `crypto.randomUUID`. */
  readonly generateId?: () => string;
  /**
   * Bytes of serialized answers `getConversationJson` and `listConversationMessagesJsonPieces`
   * keep for repeated reads (about 7 KB for a conversation of 20 messages). Once it is full, only
   * a conversation read again soon displaces the least recently used ones. Default 16 MiB; 0
   * turns the cache off. A service whose clients read many conversations over and over can buy
   * speed with memory here: see the README's benchmarks.
   */
  readonly conversationJsonCacheBytes?: number;
  /**
   * Runtimes that run models (e.g. `createOpenAiCompatibleRuntime({ baseUrl })` from
   * `conversation-model-service/runtimes/openai-compatible`). Their models are listed by
   * `listModels`, and write a conversation's title and summary when the conversation's `model`
   * (or `defaultModel`) is one of them. Default: none.
   */
  readonly runtimes?: readonly ModelRuntime[];
  /**
   * The id or `unique` name of the model that writes titles and summaries when a conversation
   * names none (or names one no runtime runs). Default: none, the embedded summarizer writes.
   */
  readonly defaultModel?: string;
  /** How long a model may take to write; past it the embedded summarizer writes. Default 60 s. */
  readonly generationTimeoutMs?: number;
  /**
   * Makes vectors of meaning for `embeddings` search engines, e.g. `createOpenAiCompatibleEmbedder({
   * baseUrl: 'http://127.0.0.1:11434/v1', model: 'nomic-embed-text' })` from
   * `conversation-model-service/runtimes/openai-compatible`. Every message, name and annotation is
   * embedded in the background after it is written (never holding up the write), the vectors kept
   * in `dataDir/vectors-<model>.bin`. Default: none, and `embeddings` engines run as full text.
   */
  readonly embedder?: Embedder;
  /** Where warnings go (a model that failed and was replaced, say). Default `console`. */
  readonly logger?: { warn(message: string): void };
  /**
   * Take the data folder's lock even from a holder that seems to run: a lock written by another
   * machine sharing the folder, which cannot be checked from here. Only when you know no other
   * service uses the folder: two writers would corrupt it. With `dataDir` only (a `repository` of
   * your own takes it as `createJsonFileRepository`'s option). Default false.
   */
  readonly takeOverLock?: boolean;
  /**
   * How model downloads behave: the free space they leave (`minFreeBytes`), their deadlines
   * (`stallTimeoutMs`, `stallBytes`, `connectTimeoutMs`) and the addresses they may reach
   * (`privateAddresses`, `allowedHosts`). See {@link DownloadOptions}.
   */
  readonly downloads?: DownloadOptions;
  /**
   * The most work one search request may do, budget by budget: see `SEARCH_BUDGET` for each and
   * its default. Lower them on a slow machine, raise `postings` for a very large store.
   */
  readonly searchBudget?: Partial<SearchBudgetLimits>;
  /**
   * The trash: a deleted conversation is kept whole, with its messages, annotations and links,
   * for `keepDays` (default 30; fractions allowed; 0 keeps none, and a delete is final), and
   * `restoreConversation` brings it back meanwhile. A background purge removes expired ones, at
   * start and then every `purgeIntervalMs` (default one hour). See docs/trash.md.
   */
  readonly trash?: TrashOptions;
}

/** How the trash keeps deleted conversations: see {@link ServiceOptions.trash}. */
export interface TrashOptions {
  readonly keepDays?: number;
  readonly purgeIntervalMs?: number;
}

/** `associateAnchor(conversation, anchor)`, … one pair per link kind. */
export type LinkMethods = {
  [K in LinkKind as `associate${Capitalize<K>}`]: (conversation: string, target: string) => Promise<void>;
} & {
  [K in LinkKind as `disassociate${Capitalize<K>}`]: (conversation: string, target: string) => Promise<void>;
};

/** The operations of the service. Every method validates its input and throws ServiceError. */
export interface Service extends LinkMethods {
  // The spec's conversation operations
  getConversation(conversation: string, options?: ReadOptions): Promise<Conversation>;
  /** The same answer as `getConversation`, serialized as JSON: what transports send. Cached while unchanged. */
  getConversationJson(conversation: string, options?: ReadOptions): Promise<string>;
  /**
   * The text of `getConversationJson`: as UTF-8 bytes when cached (sent as they are), or for a long
   * conversation the pieces that joined are that text, serialized as they are taken: a transport
   * sends them one by one, without building a string of megabytes.
   */
  getConversationJsonPieces(conversation: string, options?: ReadOptions): Promise<string | Uint8Array | Iterable<string>>;
  listConversationMessages(conversation: string, options?: ListOptions): Promise<ConversationMessages>;
  /**
   * The answer of `listConversationMessages`, serialized as `getConversationJsonPieces` serializes
   * the conversation (cached while unchanged; a long page in pieces), with the page's `next`.
   */
  listConversationMessagesJsonPieces(conversation: string, options?: ListOptions): Promise<JsonPage>;
  renameConversation(conversation: string, options?: ReadOptions): Promise<Conversation>;
  summarizeConversation(conversation: string, input?: ConversationSummarizeInput): Promise<ConversationSummarizeOutput>;
  updateConversation(conversation: ConversationUpdateInput, options?: ReadOptions): Promise<Conversation>;
  incrementConversationScores(conversation: string, increment?: SeededScoreIncrementInput): Promise<void>;
  /** Every conversation's id, oldest first. */
  listConversationIdentifiers(): Promise<FlattenedConversations>;
  /** Starts a conversation linked both ways to an asset, named as it is (no message is written). NOT_FOUND for an unknown asset. */
  createConversationFromAsset(asset: string): Promise<ConversationCreatedOutput>;
  /** Starts a conversation linked both ways to a workstream summary, named as it is. NOT_FOUND for an unknown summary. */
  createConversationFromWorkstreamSummary(summary: string): Promise<ConversationCreatedOutput>;
  /** What the client calls when its input gets focus: checks the conversation exists; nothing to prepare here. */
  prepareConversation(conversation: string): Promise<void>;
  /**
   * Links record `a` to record `b` through a link of LINK (src/links.ts), `a` on its side a:
   * `associate('messageTags', message, tag)`, `associate('annotationConversation'…)`. Both records
   * are updated. A conversation's link may be named by its short name too (`anchor`: the
   * `associateX` methods are shorthands for those).
   */
  associate(link: LinkSelector, a: string, b: string): Promise<void>;
  /** Unlinks record `a` from record `b`, updating both; unlinking twice is harmless. */
  disassociate(link: LinkSelector, a: string, b: string): Promise<void>;
  // Search, as the official client calls it (limit and offset page the results; default 20)
  /** Conversations that match by their messages, names and annotations, best first. */
  searchConversations(input: SearchInput, options?: ListOptions): Promise<SearchedConversations>;
  /** Messages of one conversation that match, best first. */
  searchConversationMessages(conversation: string, input: SearchInput, options?: ListOptions): Promise<SearchedConversationMessages>;
  /** Messages of every conversation that match, best first. */
  searchMessages(input: SearchInput, options?: ListOptions): Promise<SearchedConversationMessages>;
  /** Annotations that match by their text, best first (`embeddings` engines run as full text). */
  searchAnnotations(input: SearchInput, options?: ListOptions): Promise<SearchedAnnotations>;
  // The spec's model operations
  createModel(seed: SeededModelInput): Promise<Model>;
  deleteModel(model: string): Promise<void>;
  deleteModelCache(model: string, input?: ModelDeleteCacheInput): Promise<ModelDeleteCacheOutput>;
  listModels(): Promise<ListOf<Model>>;
  unloadModels(): Promise<void>;
  // The model lifecycle of the official client's ModelApi
  /** One model with its live state; NOT_FOUND for an unknown id. */
  getModel(model: string): Promise<Model>;
  /** Loads a model into memory (a no-op when loaded); UNPROCESSABLE when nothing can run it. */
  loadModel(model: string): Promise<Model>;
  /** Frees a model's memory. */
  unloadModel(model: string): Promise<Model>;
  /** Starts downloading a model's file (its `unique` URL) in the background. */
  downloadModel(model: string): Promise<Model>;
  /** Stops a model's download and removes the partial file. */
  cancelModelDownload(model: string): Promise<Model>;
  /** Where a model's download stands: status and percentage. */
  modelDownloadProgress(model: string): Promise<ModelDownloadProgress>;
  /** Changes a custom model's fields; the body is a Model with its id. */
  updateModel(model: ModelUpdateInput): Promise<Model>;
  /** Adds to a custom model's score (`increment.model`); a built-in or runtime model's increment is checked, not counted. */
  incrementModelScores(model: string, increment?: SeededScoreIncrementInput): Promise<void>;
  // What the spec's operations act on
  createConversation(seed: SeededConversationInput, options?: ReadOptions): Promise<Conversation>;
  listConversations(options?: ListOptions): Promise<ListOf<Conversation>>;
  deleteConversation(conversation: string): Promise<void>;
  createMessage(seed: SeededConversationMessageInput, options?: ReadOptions): Promise<ConversationMessage>;
  deleteMessage(message: string): Promise<void>;
  /** One message, with the summaries that cover it; NOT_FOUND for an unknown id. */
  getMessage(message: string, options?: ReadOptions): Promise<ConversationMessage>;
  /** The messages of every conversation, oldest first (paged with limit and offset). */
  listMessages(options?: ListOptions): Promise<ConversationMessages>;
  /** Changes a message's fragment, role, sentiment, model or deleted; re-indexed for search at once. */
  updateMessage(message: MessageUpdateInput, options?: ReadOptions): Promise<ConversationMessage>;
  /** Sets a message's value (its fragment): a streamed reply that grew, a prompt edited. Re-indexed for search at once. */
  updateMessageValue(message: MessageValueUpdateInput, options?: ReadOptions): Promise<ConversationMessage>;
  /** Adds one to each field of the message's score set in `increment.conversationMessage`. */
  incrementMessageScores(message: string, increment?: SeededScoreIncrementInput): Promise<void>;
  createAnchor(seed: SeededAnchorInput): Promise<Anchor>;
  listAnchors(options?: ListOptions): Promise<ListOf<Anchor>>;
  deleteAnchor(anchor: string): Promise<void>;
  createAsset(seed: SeededAssetInput, options?: ReadOptions): Promise<Asset>;
  listAssets(options?: ListOptions): Promise<ListOf<Asset>>;
  deleteAsset(asset: string): Promise<void>;
  createWebsite(seed: SeededWebsiteInput): Promise<Website>;
  listWebsites(options?: ListOptions): Promise<ListOf<Website>>;
  deleteWebsite(website: string): Promise<void>;
  createRange(seed: SeededRangeInput): Promise<Range>;
  listRanges(options?: ListOptions): Promise<ListOf<Range>>;
  deleteRange(range: string): Promise<void>;
  createWorkstreamSummary(seed: SeededWorkstreamSummaryInput): Promise<WorkstreamSummary>;
  listWorkstreamSummaries(options?: ListOptions): Promise<ListOf<WorkstreamSummary>>;
  deleteWorkstreamSummary(summary: string): Promise<void>;
  createAnnotation(seed: SeededAnnotationInput): Promise<Annotation>;
  listAnnotations(options?: ListOptions): Promise<ListOf<Annotation>>;
  deleteAnnotation(annotation: string): Promise<void>;
  /** One annotation; NOT_FOUND for an unknown id. */
  getAnnotation(annotation: string): Promise<Annotation>;
  /** Changes an annotation's text, type, mechanism, favorited or model (a summary edited); re-indexed for search at once. */
  updateAnnotation(annotation: AnnotationUpdateInput): Promise<Annotation>;
  /** Adds one to each field of the annotation's score set in `increment.annotation`. */
  incrementAnnotationScores(annotation: string, increment?: SeededScoreIncrementInput): Promise<void>;
  // Records the client links messages and annotations to
  createTag(seed: SeededTagInput, options?: ReadOptions): Promise<Tag>;
  getTag(tag: string, options?: ReadOptions): Promise<Tag>;
  listTags(options?: ListOptions): Promise<ListOf<Tag>>;
  deleteTag(tag: string): Promise<void>;
  createPerson(seed: SeededPersonInput, options?: ReadOptions): Promise<Person>;
  getPerson(person: string, options?: ReadOptions): Promise<Person>;
  listPersons(options?: ListOptions): Promise<ListOf<Person>>;
  deletePerson(person: string): Promise<void>;
  createWorkstreamEvent(seed: SeededWorkstreamEventInput, options?: ReadOptions): Promise<WorkstreamEvent>;
  getWorkstreamEvent(event: string, options?: ReadOptions): Promise<WorkstreamEvent>;
  listWorkstreamEvents(options?: ListOptions): Promise<ListOf<WorkstreamEvent>>;
  deleteWorkstreamEvent(event: string): Promise<void>;
  createWorkstreamPatternEngineSource(
    seed: SeededWorkstreamPatternEngineSourceInput,
    options?: ReadOptions,
  ): Promise<WorkstreamPatternEngineSource>;
  getWorkstreamPatternEngineSource(source: string, options?: ReadOptions): Promise<WorkstreamPatternEngineSource>;
  listWorkstreamPatternEngineSources(options?: ListOptions): Promise<ListOf<WorkstreamPatternEngineSource>>;
  deleteWorkstreamPatternEngineSource(source: string): Promise<void>;
  /**
   * An export of the records, as chunks of text to write as they come (to a file, an HTTP answer):
   * `json`, this service's lossless format (every record of every collection but the trash, ids
   * and links kept: what `importConversations` reads back), or `markdown`, the conversations as a
   * person reads them. Read a page at a time: an export of any size is never held whole. With
   * `conversations`, only those (and what they hold and link to); NOT_FOUND for an unknown one,
   * when the first chunk is asked for. See docs/export-import.md.
   */
  exportConversations(options: ExportOptions): AsyncIterable<string>;
  /**
   * Imports a file (a path) or a stream (spooled into the data folder first) of this service's
   * JSON, ChatGPT's `conversations.json` or Open WebUI's chat export (`format`, or told from the
   * file; a Node Readable is such a stream: the package's types name no Node module). The whole file is checked before anything is written: a bad one is INVALID_INPUT naming
   * the record, a record stored differently CONFLICT, and nothing is imported; a second import of a
   * file writes nothing. Answers what was written and left unchanged. See docs/export-import.md.
   */
  importConversations(source: string | AsyncIterable<Uint8Array>, options?: ImportOptions): Promise<ImportReport>;
  /**
   * Whether what the service stores is sound: `status` is `ok`, or `damaged` once stored data was
   * found damaged, with the store's check (how far it got, which files are damaged, where) when
   * the store keeps one. What `GET /.well-known/health` answers, as text.
   */
  health(): Promise<ServiceHealth>;
  /**
   * The ids of a collection as they change: the frames of its WebSocket route
   * (`/conversations/stream/identifiers`, …), as an async iterator. The first frame holds every id;
   * each later one what was created, changed or deleted (`deleted: true`) since the frame before,
   * after the write is stored, whichever process sharing the store wrote it. A reader that falls
   * more than `maxPendingIds` behind is dropped with ServiceError `TOO_SLOW`; `return()` (or
   * `break` in `for await`) unsubscribes. Throws INVALID_INPUT for another collection.
   */
  watch(options: StreamCollection | WatchOptions): IdentifierStream;
  // The trash (this service's own: the official client has none; see docs/trash.md)
  /**
   * Brings a deleted conversation back from the trash, exactly as it was, with its links to the
   * records that still exist; answers it as `getConversation` does. NOT_FOUND when the trash does
   * not hold it; CONFLICT when a conversation of its id exists now. Either changes nothing.
   */
  restoreConversation(conversation: string, options?: ReadOptions): Promise<Conversation>;
  /** Every conversation in the trash (id, name, when deleted, when it expires, its message count), the most recently deleted first. */
  listTrash(): Promise<TrashedConversations>;
  /** Removes every conversation in the trash for good; answers how many. */
  emptyTrash(): Promise<TrashEmptied>;
  /** Removes one conversation from the trash for good; NOT_FOUND when the trash does not hold it. */
  purgeTrashed(conversation: string): Promise<void>;
  /** Removes the conversations whose time in the trash is over, now: what the background purge runs. Answers how many. */
  purgeExpiredTrash(): Promise<TrashEmptied>;
  /**
   * Writes a consistent copy of the store into `folder` (which must not exist, or be empty) while
   * the service goes on serving: every write acknowledged before the call is in it, none in part
   * (see {@link Repository.backup}). Without `folder`, into a new folder the service names,
   * `<dataDir>/backups/<time>` (what `POST /backup` does). The copy is a data folder: serve it, or
   * put it in the place of the data folder, to restore it (docs/backup-and-restore.md). One at a time: another
   * while one runs is `CONFLICT`; a full disk `INSUFFICIENT_STORAGE`, leaving nothing; a
   * PostgreSQL store `NOT_SUPPORTED` (use `pg_dump`).
   */
  backup(folder?: string): Promise<BackupReport>;
  /** Stops the trash's purge and every `watch()` stream, finishes pending writes and releases the data folder. */
  close(): Promise<void>;
}

/** Creates the service. With `dataDir`, data lives in `dataDir/db.json`; otherwise in memory. */
export async function createService(options: ServiceOptions = {}): Promise<Service> {
  // Checked before the data folder is opened: a bad option must not leave it locked.
  const downloadOptions = resolveDownloadOptions(options.downloads);
  const keepMs = trashKeepMs(options.trash?.keepDays);
  const purgeIntervalMs = options.trash?.purgeIntervalMs ?? DEFAULT_PURGE_INTERVAL_MS;
  if (!Number.isInteger(purgeIntervalMs) || purgeIntervalMs < 1 || purgeIntervalMs > 2 ** 31 - 1) {
    throw new RangeError(`trash.purgeIntervalMs must be a whole number of milliseconds from 1 to ${2 ** 31 - 1}, not ${purgeIntervalMs}.`);
  }
  if (options.takeOverLock && (options.repository || !options.dataDir)) {
    throw new Error(
      options.repository
        ? 'takeOverLock is for the data folder of `dataDir`: pass it to createJsonFileRepository, which opens your repository.'
        : 'takeOverLock needs a `dataDir`: without one the data stays in memory, and there is no folder to lock.',
    );
  }
  // The defaults are loaded only when used: importing the package loads neither the summarizer
  // nor the JSON-file store (lowdb, the journal), so a caller that brings its own pays for neither.
  // The summarizer is loaded before the data folder is opened, so a failed load cannot leave it locked.
  const summarizer = options.summarizer ?? (await import('./summarizers/extractive.js')).createExtractiveSummarizer();
  const store =
    options.repository ??
    (options.dataDir
      ? await createJsonFileRepository({
          file: path.join(options.dataDir, 'db.json'),
          ...(options.logger ? { logger: options.logger } : {}),
          ...(options.takeOverLock ? { takeOverLock: true } : {}),
        })
      : createMemoryRepository());
  // A store that keeps no search index gets one in memory, fed by the store's change feed (or, for
  // a store without one, by the service's own transactions).
  const repository = withSearch(store, options.logger ?? console);
  const cacheRoot = options.dataDir ? path.join(options.dataDir, 'models') : undefined;
  const clock = options.clock ?? (() => new Date());
  const ctx: OperationContext = {
    repository,
    summarizer,
    models:
      options.modelRegistry ??
      createLocalModelRegistry({
        summarizer,
        ...(cacheRoot ? { cacheRoot } : {}),
      }),
    now: () => ({ value: clock().toISOString() }),
    newId: options.generateId ?? randomUUID,
    conversationJson: new ConversationJsonCache(options.conversationJsonCacheBytes ?? 16 * 1024 * 1024, repository.changes),
    runtimes: options.runtimes ?? [],
    defaultModel: options.defaultModel,
    generationTimeoutMs: options.generationTimeoutMs ?? 60_000,
    logger: options.logger ?? console,
    cacheRoot,
    downloads: cacheRoot ? createDownloads({ ...downloadOptions, cacheRoot, logger: options.logger ?? console, now: clock }) : undefined,
    trashKeepMs: keepMs,
  };

  // Loaded only with an embedder: the vector file's code stays out of a service that has none.
  const vectors = options.embedder
    ? await (await import('./search/open-vectors.js')).openVectors(options.embedder, repository, {
        ...(options.dataDir ? { folder: options.dataDir } : {}),
        logger: ctx.logger,
        // A store of your own is indexed at its first search: until then there is nothing to check the vectors against.
        reconcile: store.search !== undefined,
      })
    : undefined;
  const searching: search.SearchContext = {
    search: repository.search,
    ctx,
    budget: { ...SEARCH_BUDGET, ...options.searchBudget },
    ...(vectors ? { vectors } : {}),
  };
  const records = <T>(kind: RecordKindName) => ({
    create: (seed: object, read?: ReadOptions) => createRecord(ctx, kind, seed, read) as Promise<T>,
    get: (id: string, read?: ReadOptions) => getRecord(ctx, kind, id, read) as Promise<T>,
    list: (options?: ListOptions) => listRecords(ctx, kind, options) as Promise<ListOf<T>>,
    delete: (id: string) => deleteRecordOfKind(ctx, kind, id),
  });
  const anchors = records<Anchor>('anchors');
  const assets = records<Asset>('assets');
  const websites = records<Website>('websites');
  const ranges = records<Range>('ranges');
  const summaries = records<WorkstreamSummary>('workstreamSummaries');
  const annotations = records<Annotation>('annotations');
  const messages = records<ConversationMessage>('messages');
  const tags = records<Tag>('tags');
  const persons = records<Person>('persons');
  const events = records<WorkstreamEvent>('workstreamEvents');
  const sources = records<WorkstreamPatternEngineSource>('sources');

  // Imports write through the service's repository, so the search index and caches follow them.
  const transfer = { repository, now: ctx.now, ...(options.dataDir ? { dataDir: options.dataDir } : {}) };
  const backups = createBackups({ store, dataDir: options.dataDir, now: clock });

  const watcher = createWatcher({
    repository,
    modelIds: async () => (await models.listModels(ctx)).iterable.map((model) => model.id),
  });

  const purger = new TrashPurger((stop) => trash.purgeExpiredTrash(ctx, stop), purgeIntervalMs, ctx.logger);
  purger.start();

  const linkMethods = {} as Record<string, (conversation: string, target: string) => Promise<void>>;
  for (const kind of Object.keys(LINK_KINDS) as LinkKind[]) {
    const suffix = kind[0]!.toUpperCase() + kind.slice(1);
    linkMethods[`associate${suffix}`] = (conversation, target) => links.associate(ctx, kind, conversation, target);
    linkMethods[`disassociate${suffix}`] = (conversation, target) => links.disassociate(ctx, kind, conversation, target);
  }

  return {
    ...(linkMethods as LinkMethods),
    getConversation: (id, read) => conversations.getConversation(ctx, id, read),
    getConversationJson: (id, read) => conversations.getConversationJson(ctx, id, read),
    getConversationJsonPieces: (id, read) => conversations.getConversationJsonPieces(ctx, id, read),
    listConversationMessages: (id, read) => conversations.listConversationMessages(ctx, id, read),
    listConversationMessagesJsonPieces: (id, read) => conversations.listConversationMessagesJsonPieces(ctx, id, read),
    renameConversation: (id, read) => renameConversation(ctx, id, read),
    summarizeConversation: (id, input) => summarizeConversation(ctx, id, input),
    updateConversation: (body, read) => conversations.updateConversation(ctx, body, read),
    incrementConversationScores: (id, increment) => incrementConversationScores(ctx, id, increment),
    listConversationIdentifiers: () => conversations.listConversationIdentifiers(ctx),
    createConversationFromAsset: (id) => grounded.createConversationFromAsset(ctx, id),
    createConversationFromWorkstreamSummary: (id) => grounded.createConversationFromWorkstreamSummary(ctx, id),
    prepareConversation: (id) => conversations.prepareConversation(ctx, id),
    associate: (kind, conversation, target) => links.associate(ctx, kind, conversation, target),
    disassociate: (kind, conversation, target) => links.disassociate(ctx, kind, conversation, target),
    searchConversations: (input, read) => search.searchConversations(searching, input, read),
    searchConversationMessages: (id, input, read) => search.searchConversationMessages(searching, id, input, read),
    searchMessages: (input, read) => search.searchMessages(searching, input, read),
    searchAnnotations: (input, read) => search.searchAnnotations(searching, input, read),
    createModel: (seed) => models.createModel(ctx, seed),
    deleteModel: (id) => models.deleteModel(ctx, id),
    deleteModelCache: (id, input) => models.deleteModelCache(ctx, id, input),
    listModels: () => models.listModels(ctx),
    unloadModels: () => models.unloadModels(ctx),
    getModel: (id) => lifecycle.getModel(ctx, id),
    loadModel: (id) => lifecycle.loadModel(ctx, id),
    unloadModel: (id) => lifecycle.unloadModel(ctx, id),
    downloadModel: (id) => lifecycle.downloadModel(ctx, id),
    cancelModelDownload: (id) => lifecycle.cancelDownload(ctx, id),
    modelDownloadProgress: (id) => lifecycle.downloadProgress(ctx, id),
    updateModel: (body) => lifecycle.updateModel(ctx, body),
    incrementModelScores: (id, increment) => incrementModelScores(ctx, id, increment),
    createConversation: (seed, read) => conversations.createConversation(ctx, seed, read),
    listConversations: (read) => conversations.listConversations(ctx, read),
    deleteConversation: (id) => conversations.deleteConversation(ctx, id),
    createMessage: messages.create,
    deleteMessage: messages.delete,
    getMessage: (id, read) => messageOps.getMessage(ctx, id, read),
    listMessages: (read) => messageOps.listMessages(ctx, read),
    updateMessage: (body, read) => messageOps.updateMessage(ctx, body, read),
    updateMessageValue: (body, read) => messageOps.updateMessageValue(ctx, body, read),
    incrementMessageScores: (id, increment) => incrementScores(ctx, SCORED.message, id, increment),
    createAnchor: anchors.create,
    listAnchors: anchors.list,
    deleteAnchor: anchors.delete,
    createAsset: assets.create,
    listAssets: assets.list,
    deleteAsset: assets.delete,
    createWebsite: websites.create,
    listWebsites: websites.list,
    deleteWebsite: websites.delete,
    createRange: ranges.create,
    listRanges: ranges.list,
    deleteRange: ranges.delete,
    createWorkstreamSummary: summaries.create,
    listWorkstreamSummaries: summaries.list,
    deleteWorkstreamSummary: summaries.delete,
    createAnnotation: annotations.create,
    listAnnotations: annotations.list,
    deleteAnnotation: annotations.delete,
    getAnnotation: (id) => annotationOps.getAnnotation(ctx, id),
    updateAnnotation: (body) => annotationOps.updateAnnotation(ctx, body),
    incrementAnnotationScores: (id, increment) => incrementScores(ctx, SCORED.annotation, id, increment),
    createTag: tags.create,
    getTag: tags.get,
    listTags: tags.list,
    deleteTag: tags.delete,
    createPerson: persons.create,
    getPerson: persons.get,
    listPersons: persons.list,
    deletePerson: persons.delete,
    createWorkstreamEvent: events.create,
    getWorkstreamEvent: events.get,
    listWorkstreamEvents: events.list,
    deleteWorkstreamEvent: events.delete,
    createWorkstreamPatternEngineSource: sources.create,
    getWorkstreamPatternEngineSource: sources.get,
    listWorkstreamPatternEngineSources: sources.list,
    deleteWorkstreamPatternEngineSource: sources.delete,
    exportConversations: (options) => exportConversations(transfer, options),
    importConversations: (source, options) => importConversations(transfer, source, options),
    health: async () => healthOf(store),
    restoreConversation: (id, read) => trash.restoreConversation(ctx, id, read),
    listTrash: () => trash.listTrash(ctx),
    emptyTrash: () => trash.emptyTrash(ctx),
    purgeTrashed: (id) => trash.purgeTrashed(ctx, id),
    purgeExpiredTrash: () => trash.purgeExpiredTrash(ctx),
    watch: (options) => watcher.watch(options),
    backup: (folder) => backups.backup(folder),
    close: async () => {
      // First: a purge under way finishes its transaction while the store is still open.
      await purger.close();
      watcher.close();
      ctx.conversationJson.close();
      await vectors?.close();
      await ctx.downloads?.close();
      await repository.close();
    },
  };
}
