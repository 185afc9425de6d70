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

export interface ConversationRecord extends BaseRecord {
  readonly type: ConversationType;
  readonly name?: string;
  readonly favorited?: boolean;
  readonly deleted?: Timestamp;
  readonly model?: { readonly id: string };
  readonly score?: Score;
  readonly application?: Readonly<Record<string, unknown>>;
  readonly pipeline?: Readonly<Record<string, unknown>>;
  readonly demo?: boolean;
  /** Ids of the conversation's messages, in order. */
  readonly messages: readonly string[];
  readonly annotations: readonly string[];
  readonly anchors: readonly string[];
  readonly assets: readonly string[];
  readonly websites: readonly string[];
  /** Workstream summaries. */
  readonly summaries: readonly string[];
  /** Messages (of any conversation) that ground this one. */
  readonly groundingMessages: readonly string[];
  /** Workstream ranges that ground this one in time. */
  readonly groundingRanges: readonly string[];
}

export interface MessageRecord extends BaseRecord {
  readonly conversation: string;
  readonly role: MessageRole;
  readonly fragment?: Fragment;
  readonly sentiment?: 'UNKNOWN' | 'LIKE' | 'DISLIKE' | 'REPORT';
  readonly model?: Readonly<Record<string, unknown>>;
  readonly score?: Score;
  readonly deleted?: Timestamp;
  /**
   * Conversations this message grounds. Not part of the wire format (the API keeps this link on the
   * conversation only); kept so deleting the message can clean every conversation that names it.
   */
  readonly groundedConversations: readonly string[];
}

export type AnnotationType = 'UNKNOWN' | 'DESCRIPTION' | 'COMMENT' | 'DOCUMENTATION' | 'SUMMARY' | 'EXPLANATION' | 'GIT_COMMIT';

export interface AnnotationRecord extends BaseRecord {
  readonly type: AnnotationType;
  readonly text: string;
  readonly mechanism?: string;
  readonly favorited?: boolean;
  readonly model?: { readonly id: string };
  /** The conversation this annotation belongs to, if any. */
  readonly conversation?: string;
  /** For summaries: the messages the text covers. */
  readonly messages: readonly string[];
  readonly score?: Score;
}

export interface AnchorRecord extends BaseRecord {
  readonly type: 'UNKNOWN' | 'FILE' | 'DIRECTORY';
  readonly name?: string;
  readonly watch?: boolean;
  readonly fullpath: string;
  readonly platform?: string;
  /** Id of the anchor's one point (where `fullpath` lives on the wire). */
  readonly point: string;
  readonly conversations: readonly string[];
}

export interface AssetRecord extends BaseRecord {
  readonly name?: string;
  readonly creator: string;
  readonly mechanism: string;
  readonly application?: Readonly<Record<string, unknown>>;
  /** The content the asset was seeded with (transferable data). */
  readonly content?: Fragment;
  /** Id of the asset's one format, stable across renders. */
  readonly format: string;
  readonly conversations: readonly string[];
}

export interface WebsiteRecord extends BaseRecord {
  readonly url: string;
  readonly name: string;
  readonly mechanism?: string;
  readonly conversations: readonly string[];
}

export interface WorkstreamSummaryRecord extends BaseRecord {
  readonly name: string;
  readonly model: Readonly<Record<string, unknown>>;
  readonly favorited?: boolean;
  readonly conversations: readonly string[];
}

export interface RangeRecord extends BaseRecord {
  readonly from?: Timestamp;
  readonly to?: Timestamp;
  readonly between?: boolean;
  readonly conversations: readonly string[];
}

/** The API's Model, stored as is (it has no links). */
export interface ModelRecord {
  readonly id: string;
  readonly version: string;
  readonly created: Timestamp;
  readonly name: string;
  readonly cloud: boolean;
  readonly type: string;
  readonly usage: string;
  readonly description?: string;
  readonly bytes?: { readonly value: number; readonly readable: string };
  readonly ram?: { readonly value: number; readonly readable: string };
  readonly quantization?: string;
  readonly foundation?: string;
  readonly downloaded?: boolean;
  readonly loaded?: boolean;
  readonly downloading?: boolean;
  readonly unique?: string;
  readonly parameters?: number;
  readonly provider?: string;
  readonly cpu?: boolean;
  readonly maxTokens?: Readonly<Record<string, unknown>>;
  readonly custom?: boolean;
  readonly capabilities?: Readonly<Record<string, unknown>>;
  readonly score?: Score;
}

/** Every collection the repository holds, by name. */
export interface Collections {
  conversations: ConversationRecord;
  messages: MessageRecord;
  annotations: AnnotationRecord;
  anchors: AnchorRecord;
  assets: AssetRecord;
  websites: WebsiteRecord;
  workstreamSummaries: WorkstreamSummaryRecord;
  ranges: RangeRecord;
  models: ModelRecord;
}

export type CollectionName = keyof Collections;

export const COLLECTION_NAMES: readonly CollectionName[] = [
  'conversations',
  'messages',
  'annotations',
  'anchors',
  'assets',
  'websites',
  'workstreamSummaries',
  'ranges',
  'models',
];
