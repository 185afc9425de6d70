import { RELATIONS, type Relation } from './relations.js';
import type { CollectionName } from './records.js';

/** The kinds of record a conversation links to. Each drives one associate and one disassociate. */
export type LinkKind = 'anchor' | 'asset' | 'website' | 'workstreamSummary' | 'groundingRange' | 'groundingMessage';

/** How one link kind is stored: the relation between the conversation and the other record. */
export interface LinkKindSpec {
  readonly kind: LinkKind;
  /** What the linked record is called in messages ("anchor", "range"). */
  readonly resource: string;
  /** The collection of the linked record. */
  readonly collection: CollectionName;
  /** The two fields that must agree: the conversation's list and the linked record's. */
  readonly relation: Relation;
}

const relationOf = (conversationField: string): Relation => {
  const relation = RELATIONS.find((r) => r.a.collection === 'conversations' && r.a.field === conversationField);
  if (!relation) throw new Error(`No relation for conversations.${conversationField}`);
  return relation;
};

const spec = (kind: LinkKind, resource: string, conversationField: string): LinkKindSpec => {
  const relation = relationOf(conversationField);
  return { kind, resource, collection: relation.b.collection, relation };
};

/** The one table behind all twelve associate/disassociate operations and their routes. */
export const LINK_KINDS: Readonly<Record<LinkKind, LinkKindSpec>> = {
  anchor: spec('anchor', 'anchor', 'anchors'),
  asset: spec('asset', 'asset', 'assets'),
  website: spec('website', 'website', 'websites'),
  workstreamSummary: spec('workstreamSummary', 'workstream summary', 'summaries'),
  groundingRange: spec('groundingRange', 'range', 'groundingRanges'),
  groundingMessage: spec('groundingMessage', 'message', 'groundingMessages'),
};
