import { COLLECTION_NAMES, type CollectionName } from '../records.js';

/** The `format` field of this service's JSON export, and the version this release writes and reads. */
export const EXPORT_FORMAT = 'conversation-model-service';
export const EXPORT_VERSION = 1;

/**
 * Collections that are never exported, by name: an export holds what a person sees. The trash
 * (conversations deleted and kept for a while) is not: it is this store's own undo, not data.
 */
export const NOT_EXPORTED: ReadonlySet<string> = new Set(['trash']);

/** The collections an export holds, in the store's order: every one but those {@link NOT_EXPORTED}. */
export const EXPORTED_COLLECTIONS: readonly CollectionName[] = COLLECTION_NAMES.filter((name) => !NOT_EXPORTED.has(name));

/** Formats an import reads. `auto` looks at the file's start. */
export type ImportFormat = 'json' | 'chatgpt' | 'openwebui';

/** Formats an export writes. */
export type ExportFormat = 'json' | 'markdown';

/** What an export holds. */
export interface ExportOptions {
  readonly format: ExportFormat;
  /**
   * Only these conversations (with their messages, annotations and the records they link to).
   * Default: every record of every exported collection (json), every conversation (markdown).
   */
  readonly conversations?: readonly string[];
}

/** How an import runs. */
export interface ImportOptions {
  /** The file's format; `auto` (the default) tells from its start. */
  readonly format?: ImportFormat | 'auto';
  /** Records written per transaction. Default 500. */
  readonly batch?: number;
  /** The most bytes a stream source may bring (it is spooled to a file first). Default 1 GiB. */
  readonly maxBytes?: number;
}

/** What an import did. */
export interface ImportReport {
  /** The format the file was read as. */
  readonly format: ImportFormat;
  /** Conversations written (new, or brought back) and conversations already stored as the file has them. */
  readonly conversations: { readonly written: number; readonly unchanged: number };
  readonly messages: { readonly written: number; readonly unchanged: number };
  /** Every collection's records, written and unchanged (collections the file has none of are left out). */
  readonly collections: Partial<Record<CollectionName, { readonly written: number; readonly unchanged: number }>>;
}
