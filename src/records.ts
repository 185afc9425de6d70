/**
 * The records as the repository keeps them. They are close to the wire shapes of the Pieces OS API,
 * with one difference: links are plain arrays of ids (`anchors: ["…"]`), which `render.ts` turns into
 * the client's `{ iterable: [{ id, reference? }] }` wrappers. Stored records are immutable: the
 * repository freezes them, and operations build new records instead of mutating.
 */

/** `{ value: ISO 8601 }`, the API's GroupedTimestamp. */
export interface Timestamp {
  readonly value: string;
  readonly readable?: string;
}

/** The API's TransferableString; only `raw` is used in practice. */
export interface TransferableString {
  readonly raw?: string;
  readonly base64?: string;
  readonly base64_url?: string;
  readonly data_url?: string;
}

/** A message's or a format's content. `string` is transferable data. */
export interface Fragment {
  readonly string?: TransferableString;
  readonly metadata?: Readonly<Record<string, unknown>>;
}

export interface Score {
  readonly manual: number;
  readonly automatic: number;
  readonly priority?: number;
  readonly reuse?: number;
  readonly update?: number;
  readonly reference?: number;
  readonly searched?: number;
}

export type MessageRole = 'UNKNOWN' | 'USER' | 'SYSTEM' | 'ASSISTANT';
export type ConversationType = 'UNKNOWN' | 'COPILOT';

/** Fields every stored record has. */
export interface BaseRecord {
  readonly id: string;
  readonly created: Timestamp;
  readonly updated: Timestamp;
}

export type AnnotationType = 'UNKNOWN' | 'DESCRIPTION' | 'COMMENT' | 'DOCUMENTATION' | 'SUMMARY' | 'EXPLANATION' | 'GIT_COMMIT';

export type {
  AnchorRecord,
  AnnotationRecord,
  AssetRecord,
  CollectionName,
  Collections,
  ConversationRecord,
  MessageRecord,
  ModelRecord,
  PersonRecord,
  RangeRecord,
  SourceRecord,
  TagRecord,
  TrashRecord,
  WebsiteRecord,
  WorkstreamEventRecord,
  WorkstreamSummaryRecord,
} from './kinds/index.js';
export { COLLECTION_NAMES } from './kinds/index.js';
