import type { CollectionName } from './records.js';
import { RELATION, type Relation } from './relations.js';

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

const spec = (kind: LinkKind, resource: string, relation: Relation): LinkKindSpec => ({
  kind,
  resource,
  collection: relation.b.collection,
  relation,
});

/** The one table behind all twelve associate/disassociate operations and their routes. */
export const LINK_KINDS: Readonly<Record<LinkKind, LinkKindSpec>> = {
  anchor: spec('anchor', 'anchor', RELATION.conversationAnchors),
  asset: spec('asset', 'asset', RELATION.conversationAssets),
  website: spec('website', 'website', RELATION.conversationWebsites),
  workstreamSummary: spec('workstreamSummary', 'workstream summary', RELATION.conversationSummaries),
  groundingRange: spec('groundingRange', 'range', RELATION.conversationRanges),
  groundingMessage: spec('groundingMessage', 'message', RELATION.conversationGroundingMessages),
};
