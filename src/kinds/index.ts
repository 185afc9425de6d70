import { anchorKind } from './anchor.js';
import { annotationKind } from './annotation.js';
import { assetKind } from './asset.js';
import { conversationKind } from './conversation.js';
import type { KindSpec, RecordOf } from './kind.js';
import { messageKind } from './message.js';
import { modelKind } from './model.js';
import { personKind } from './person.js';
import { rangeKind } from './range.js';
import { sourceKind } from './source.js';
import { tagKind } from './tag.js';
import { trashKind } from './trash.js';
import { websiteKind } from './website.js';
import { workstreamEventKind } from './workstream-event.js';
import { workstreamSummaryKind } from './workstream-summary.js';

export type { AnchorRecord } from './anchor.js';
export type { AnnotationRecord } from './annotation.js';
export type { AssetRecord } from './asset.js';
export type { ConversationRecord } from './conversation.js';
export type { BuildContext, FieldCheck, KindRoutes, KindSpec, RecordOperations } from './kind.js';
export type { MessageRecord } from './message.js';
export type { ModelRecord } from './model.js';
export type { PersonRecord } from './person.js';
export type { RangeRecord } from './range.js';
export type { SourceRecord } from './source.js';
export type { TagRecord } from './tag.js';
export type { TrashRecord } from './trash.js';
export type { WebsiteRecord } from './website.js';
export type { WorkstreamEventRecord } from './workstream-event.js';
export type { WorkstreamSummaryRecord } from './workstream-summary.js';

/**
 * Every record kind, by collection: the one table the rest derives from (the collections and their
 * record types, the checks of stored records, the generic record operations and routes). A kind is
 * one file in this folder and one entry here. The order is the collections' order everywhere (the
 * PostgreSQL store numbers its per-collection locks by it): a new kind goes at the end.
 */
export const KINDS = {
  conversations: conversationKind,
  messages: messageKind,
  annotations: annotationKind,
  anchors: anchorKind,
  assets: assetKind,
  websites: websiteKind,
  workstreamSummaries: workstreamSummaryKind,
  ranges: rangeKind,
  models: modelKind,
  tags: tagKind,
  persons: personKind,
  workstreamEvents: workstreamEventKind,
  sources: sourceKind,
  trash: trashKind,
} as const;

/** Every collection the repository holds, by name, with its record type. */
export type Collections = { [C in keyof typeof KINDS]: RecordOf<(typeof KINDS)[C]> };

/** A collection's name: a key of {@link KINDS}. */
export type CollectionName = keyof Collections;

// Each entry is filed under its own collection's name: a kind filed under another's fails here.
KINDS satisfies { readonly [C in CollectionName]: KindSpec<C, Collections[C]> };

/** Every collection's name, in the order of {@link KINDS}. */
export const COLLECTION_NAMES = Object.keys(KINDS) as readonly CollectionName[];

/** The kinds the generic record operations create, list and delete (src/operations/records.ts). */
export type RecordKindName = {
  [C in CollectionName]: (typeof KINDS)[C] extends { readonly records: object } ? C : never;
}[CollectionName];
