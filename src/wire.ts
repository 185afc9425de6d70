import type { AnnotationType, ConversationType, Fragment, MessageRole, ModelRecord, Score, Timestamp } from './records.js';

/**
 * The records as the service answers them: the wire shapes of the Pieces OS API that its official
 * client parses. Links are list wrappers; an item's `reference` (when present) is the linked record.
 */

export interface Reference<T = never> {
  id: string;
  reference?: T;
}

/** A list wrapper ("Flattened…" in the client). `iterable` is always present. */
export interface ReferenceList<T = never> {
  iterable: Reference<T>[];
  /** Position of each item by id, where order matters (messages). */
  indices?: Record<string, number>;
}

export interface ConversationMessage {
  id: string;
  created: Timestamp;
  updated: Timestamp;
  conversation: { id: string };
  role: MessageRole;
  /** Without `string` when transferables are left out. */
  fragment?: Fragment;
  sentiment?: string;
  model?: Record<string, unknown>;
  score?: Score;
  deleted?: Timestamp;
  annotations?: ReferenceList;
}

export interface ConversationMessages {
  iterable: ConversationMessage[];
  /** Each message's position in the conversation (the whole conversation, not this page). */
  indices: Record<string, number>;
  /** When the conversation goes on past this page: the `offset` of the next page. */
  next?: number;
}

export interface Annotation {
  id: string;
  created: Timestamp;
  updated: Timestamp;
  type: AnnotationType;
  text: string;
  mechanism?: string;
  favorited?: boolean;
  model?: { id: string };
  conversation?: { id: string };
  messages?: ReferenceList;
}

export interface Conversation {
  id: string;
  created: Timestamp;
  updated: Timestamp;
  type: ConversationType;
  name?: string;
  favorited?: boolean;
  deleted?: Timestamp;
  model?: { id: string };
  score?: Score;
  application?: Record<string, unknown>;
  pipeline?: Record<string, unknown>;
  demo?: boolean;
  messages: ReferenceList<ConversationMessage> & { indices: Record<string, number> };
  annotations: ReferenceList<Annotation>;
  anchors: ReferenceList;
  assets: ReferenceList;
  websites: ReferenceList;
  summaries: ReferenceList;
  grounding: { messages: ReferenceList; temporal: { workstreams: ReferenceList } };
}

export interface AnchorPoint {
  id: string;
  created: Timestamp;
  updated: Timestamp;
  fullpath: string;
  platform?: string;
  anchor: { id: string };
}

export interface Anchor {
  id: string;
  created: Timestamp;
  updated: Timestamp;
  type: 'UNKNOWN' | 'FILE' | 'DIRECTORY';
  name?: string;
  watch?: boolean;
  points: ReferenceList<AnchorPoint>;
  conversations: ReferenceList;
}

export interface Format {
  id: string;
  creator: string;
  created: Timestamp;
  updated: Timestamp;
  classification: Record<string, unknown>;
  role: 'BOTH';
  application: Record<string, unknown>;
  asset: { id: string };
  bytes: { value: number };
  /** Without `string` when transferables are left out. */
  fragment?: Fragment;
}

export interface Asset {
  id: string;
  name?: string;
  creator: string;
  created: Timestamp;
  updated: Timestamp;
  mechanism: string;
  formats: { iterable: Format[] };
  preview: { base: { id: string } };
  original: { id: string };
  conversations: ReferenceList;
}

export interface Website {
  id: string;
  url: string;
  name: string;
  created: Timestamp;
  updated: Timestamp;
  conversations: ReferenceList;
}

export interface WorkstreamSummary {
  id: string;
  name: string;
  created: Timestamp;
  updated: Timestamp;
  model: Record<string, unknown>;
  favorited?: boolean;
  conversations: ReferenceList;
}

export interface Range {
  id: string;
  created: Timestamp;
  updated: Timestamp;
  from?: Timestamp;
  to?: Timestamp;
  between?: boolean;
  conversations: ReferenceList;
}

/** A failure the service keeps for a model: why, and when (ISO 8601). */
export interface ModelFailure {
  reason: string;
  at: string;
}

/**
 * A model as answered: the record with its live state. Besides the API's fields, two the official
 * client ignores: `loadFailure`, while the model is marked failed to load (it is not loaded again
 * until its files change or it is loaded explicitly), and `downloadFailure`, the reason its last
 * download failed.
 */
export type Model = ModelRecord & { loadFailure?: ModelFailure; downloadFailure?: ModelFailure };

/** A snapshot of a collection, or one page of it: `{ iterable: [...] }`. */
export interface ListOf<T> {
  iterable: T[];
  /** When the list goes on past this page: the `offset` of the next page. */
  next?: number;
}

export interface ConversationSummarizeOutput {
  conversation: { id: string };
  annotation: { id: string };
}

export interface ModelDeleteCacheOutput {
  model: { id: string };
}
