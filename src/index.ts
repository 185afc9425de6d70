export { type CopyOptions, type CopyReport, copyRepository } from './copy-repository.js';
export {
  type DamagedRecord,
  type ErrorCode,
  type InputIssue,
  isServiceError,
  ServiceError,
  type ServiceErrorDetails,
} from './errors.js';
export type { ServiceHealth } from './health.js';
export type * from './inputs.js';
export { LIMITS } from './limits.js';
export {
  LINK,
  LINK_KINDS,
  type Link,
  type LinkableName,
  type LinkKind,
  type LinkKindSpec,
  type LinkName,
  type LinkRoute,
  type RelationEnd,
} from './links.js';
export type { DownloadOptions } from './models/download-options.js';
export { createLocalModelRegistry, type LocalModelRegistryOptions } from './models/local-registry.js';
export type { ListOptions, ReadOptions } from './operations/context.js';
export type { JsonPage } from './operations/conversations.js';
export type { LinkSelector } from './operations/links.js';
export { isLlm, LLM_USAGES } from './operations/models.js';
// The summarizers have their own entry point, `conversation-model-service/summarizer` (src/summarizers/index.ts);
// createService loads the extractive one only when it is given no summarizer.
export { DEFAULT_SEARCH_LIMIT } from './operations/search.js';
export type {
  BackupReport,
  ChangeBatch,
  ChangeFeed,
  ChatMessage,
  ChatOptions,
  ConversationHit,
  DamagedFile,
  Embedder,
  Field,
  IndexedDocRef,
  LocalFeed,
  ModelLoadFailure,
  ModelRegistry,
  ModelRuntime,
  Page,
  PageRequest,
  QueryWord,
  ReadView,
  RecordChange,
  Repository,
  StoreHealth,
  Summarizer,
  SummarizerMessage,
  SummarizerModelInfo,
  TextHit,
  TextQuery,
  TextSearch,
  TimeRange,
  Transaction,
} from './ports.js';
export type * from './records.js';
export { COLLECTION_NAMES } from './records.js';
export * as schemas from './schemas/index.js';
export type { JsonValue } from './schemas/json.js';
export { SEARCH_BUDGET, type SearchBudget, type SearchBudgetLimits } from './search/search-budget.js';
export { createService, type LinkMethods, type Service, type ServiceOptions, type TrashOptions } from './service.js';
// The store's code (lowdb, the journal, the message files) is loaded on the first call of createJsonFileRepository.
export { createJsonFileRepository, JSON_FILE_FORMAT_VERSION, type JsonFileRepositoryOptions } from './stores/json-file/lazy.js';
export { createMemoryRepository } from './stores/memory.js';
export { type IdentifierStream, WATCH_DEFAULTS, type WatchOptions } from './streams/identifier-stream.js';
export {
  STREAM_COLLECTIONS,
  STREAMS,
  type StreamCollection,
  type StreamedIdentifier,
  type StreamedIdentifiers,
} from './streams/identifiers.js';
export {
  EXPORT_FORMAT,
  EXPORT_VERSION,
  EXPORTED_COLLECTIONS,
  type ExportFormat,
  type ExportOptions,
  type ImportFormat,
  type ImportOptions,
  type ImportReport,
  markdownFileName,
} from './transfer/index.js';
export { SERVICE_VERSION } from './version.js';
export type * from './wire.js';
