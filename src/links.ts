import type { CollectionName } from './records.js';

/** One end of a link: a field of a collection's records holding one id or a list of ids. */
export interface RelationEnd {
  readonly collection: CollectionName;
  readonly field: string;
  readonly many: boolean;
  /**
   * The list's name in the client's answers (`workstream_events`), for ends the record renderers
   * show generically (src/render/links.ts); without it, the kind's renderer shows the field itself.
   */
  readonly wire?: string;
}

/**
 * A link route of the official client: `{verb}` stands for `associate` and `disassociate`, the
 * first parameter is the record on the route's side, the second the record it links to; `operation`
 * is the client's associate operation (its disassociate one is the same with `Disassociate`).
 */
export interface LinkRoute {
  readonly path: string;
  readonly operation: string;
  /** The spec's older name of `disassociate` on this path, with its operation id. */
  readonly deleteOperation?: string;
}

/**
 * Two record fields that must always agree: if A names B, B names A. When `owned` is set, the
 * records on side `b` belong to side `a` and are deleted with it. `routes.a` are the client's routes
 * from side a's record (`/message/{message}/tags/{verb}/{tag}`), `routes.b` those from side b's.
 */
export interface Link {
  readonly a: RelationEnd;
  readonly b: RelationEnd;
  readonly owned?: boolean;
  /**
   * Not linked through associate: a message belongs to the conversation it was created in (its
   * place in the conversation's order is what that link keeps).
   */
  readonly fixed?: boolean;
  /**
   * Side a is not stored: a message's annotations are the summaries of its conversation whose
   * coverage (side b, the annotation's `messages`) names it. One record is written however many
   * messages a summary covers.
   */
  readonly coverage?: boolean;
  readonly routes?: { readonly a?: readonly LinkRoute[]; readonly b?: readonly LinkRoute[] };
}

const many = (collection: CollectionName, field: string, wire?: string): RelationEnd =>
  wire ? { collection, field, many: true, wire } : { collection, field, many: true };
const one = (collection: CollectionName, field: string): RelationEnd => ({ collection, field, many: false });
const on = (path: string, operation: string, deleteOperation?: string): LinkRoute =>
  deleteOperation ? { path, operation, deleteOperation } : { path, operation };

/**
 * Every link between two kinds of record, described once: the associate and disassociate
 * operations, their routes (both directions where the client has both), and how each store keeps
 * both sides (src/relations.ts; PostgreSQL keeps every `many` end as rows) derive from this table.
 */
export const LINK = {
  conversationMessages: { a: many('conversations', 'messages'), b: one('messages', 'conversation'), owned: true, fixed: true },
  conversationAnnotations: {
    a: many('conversations', 'annotations'),
    b: one('annotations', 'conversation'),
    owned: true,
    routes: {
      a: [on('/conversation/{conversation}/annotations/{verb}/{annotation}', 'conversationAssociateAnnotation')],
      b: [on('/annotation/{annotation}/conversations/{verb}/{conversation}', 'annotationAssociateConversation')],
    },
  },
  conversationAnchors: {
    a: many('conversations', 'anchors'),
    b: many('anchors', 'conversations'),
    routes: {
      a: [on('/conversation/{conversation}/anchors/{verb}/{anchor}', 'conversationAssociateAnchor', 'conversationDeleteAnchor')],
      b: [on('/anchor/{anchor}/conversations/{verb}/{conversation}', 'anchorAssociateConversation')],
    },
  },
  conversationAssets: {
    a: many('conversations', 'assets'),
    b: many('assets', 'conversations'),
    routes: {
      a: [on('/conversation/{conversation}/assets/{verb}/{asset}', 'conversationAssociateAsset', 'conversationDeleteAsset')],
      b: [on('/asset/{asset}/conversations/{verb}/{conversation}', 'assetAssociateConversation')],
    },
  },
  conversationWebsites: {
    a: many('conversations', 'websites'),
    b: many('websites', 'conversations'),
    routes: {
      a: [on('/conversation/{conversation}/websites/{verb}/{website}', 'conversationAssociateWebsite')],
      b: [on('/website/{website}/conversations/{verb}/{conversation}', 'websiteAssociateConversation')],
    },
  },
  conversationSummaries: {
    a: many('conversations', 'summaries'),
    b: many('workstreamSummaries', 'conversations'),
    routes: {
      a: [on('/conversation/{conversation}/workstream_summaries/{verb}/{workstream_summary}', 'conversationAssociateWorkstreamSummary')],
      b: [on('/workstream_summary/{workstream_summary}/conversations/{verb}/{conversation}', 'workstreamSummaryAssociateConversation')],
    },
  },
  conversationRanges: {
    a: many('conversations', 'groundingRanges'),
    b: many('ranges', 'conversations'),
    routes: {
      a: [
        on(
          '/conversation/{conversation}/grounding/temporal_range/workstreams/{verb}/{range}',
          'conversationAssociateGroundingTemporalRangeWorkstream',
        ),
      ],
      b: [
        on(
          '/range/{range}/conversations/grounding/temporal_range/workstreams/{verb}/{conversation}',
          'rangeAssociateConversationGroundingTemporalRangeWorkstreams',
        ),
      ],
    },
  },
  conversationGroundingMessages: {
    a: many('conversations', 'groundingMessages'),
    b: many('messages', 'groundedConversations'),
    routes: {
      a: [on('/conversation/{conversation}/grounding/messages/{verb}/{message}', 'conversationGroundingMessagesAssociateMessage')],
    },
  },
  conversationSources: {
    a: many('conversations', 'groundingSources'),
    b: many('sources', 'conversations', 'conversations'),
    routes: {
      a: [
        on(
          '/conversation/{conversation}/grounding/workstream_pattern_engine/sources/{verb}/{source}',
          'conversationAssociateGroundingWorkstreamPatternEngineSource',
        ),
      ],
      b: [
        on(
          '/workstream_pattern_engine/source/{source}/conversations/grounding/sources/{verb}/{conversation}',
          'workstreamPatternEngineSourceAssociateConversation',
        ),
      ],
    },
  },
  messageAnnotations: {
    a: many('messages', 'annotations'),
    b: many('annotations', 'messages'),
    coverage: true,
    routes: {
      a: [on('/message/{message}/annotations/{verb}/{annotation}', 'messageAssociateAnnotation')],
      b: [on('/annotation/{annotation}/messages/{verb}/{message}', 'annotationAssociateConversationMessage')],
    },
  },
  messageMessages: {
    a: many('messages', 'messages', 'messages'),
    b: many('messages', 'messages', 'messages'),
    routes: { a: [on('/message/{message}/messages/{verb}/{additional_message}', 'conversationMessageAssociateConversationMessage')] },
  },
  messageAnchors: {
    a: many('messages', 'anchors', 'anchors'),
    b: many('anchors', 'messages', 'messages'),
    routes: {
      a: [on('/message/{message}/anchors/{verb}/{anchor}', 'messageAssociateAnchor')],
      b: [on('/anchor/{anchor}/messages/{verb}/{message}', 'anchorAssociateMessage')],
    },
  },
  messageAssets: {
    a: many('messages', 'assets', 'assets'),
    b: many('assets', 'messages', 'messages'),
    routes: {
      a: [on('/message/{message}/assets/{verb}/{asset}', 'conversationMessageAssociateAsset')],
      b: [on('/asset/{asset}/messages/{verb}/{message}', 'assetAssociateConversationMessage')],
    },
  },
  messagePersons: {
    a: many('messages', 'persons', 'persons'),
    b: many('persons', 'messages', 'messages'),
    routes: {
      a: [on('/message/{message}/persons/{verb}/{person}', 'messageAssociatePerson')],
      b: [on('/person/{person}/messages/{verb}/{message}', 'personAssociateMessage')],
    },
  },
  messageRanges: {
    a: many('messages', 'ranges', 'ranges'),
    b: many('ranges', 'messages', 'messages'),
    routes: {
      a: [on('/message/{message}/ranges/{verb}/{range}', 'conversationMessageAssociateRange')],
      b: [on('/range/{range}/messages/{verb}/{message}', 'rangeAssociateConversationMessage')],
    },
  },
  messageTags: {
    a: many('messages', 'tags', 'tags'),
    b: many('tags', 'messages', 'messages'),
    routes: {
      a: [on('/message/{message}/tags/{verb}/{tag}', 'conversationMessageAssociateTag')],
      b: [on('/tag/{tag}/messages/{verb}/{message}', 'tagAssociateConversationMessage')],
    },
  },
  messageWebsites: {
    a: many('messages', 'websites', 'websites'),
    b: many('websites', 'messages', 'messages'),
    routes: {
      a: [on('/message/{message}/websites/{verb}/{website}', 'messageAssociateWebsite')],
      b: [on('/website/{website}/messages/{verb}/{message}', 'websiteAssociateMessage')],
    },
  },
  messageWorkstreamEvents: {
    a: many('messages', 'workstreamEvents', 'workstream_events'),
    b: many('workstreamEvents', 'messages', 'messages'),
    routes: {
      a: [on('/message/{message}/workstream_events/{verb}/{workstream_event}', 'conversationMessageAssociateWorkstreamEvent')],
      b: [on('/workstream_event/{workstream_event}/messages/{verb}/{message}', 'workstreamEventAssociateConversationMessage')],
    },
  },
  messageSources: {
    a: many('messages', 'sources', 'sources'),
    b: many('sources', 'messages', 'messages'),
    routes: {
      a: [
        on(
          '/message/{message}/workstream_pattern_engine/sources/{verb}/{source}',
          'conversationMessageAssociateWorkstreamPatternEngineSource',
        ),
      ],
      b: [
        on(
          '/workstream_pattern_engine/source/{source}/messages/{verb}/{message}',
          'workstreamPatternEngineSourceAssociateConversationMessage',
        ),
      ],
    },
  },
  messageSummaries: {
    a: many('messages', 'summaries', 'summaries'),
    b: many('workstreamSummaries', 'messages', 'messages'),
    routes: {
      a: [on('/message/{message}/workstream_summaries/{verb}/{workstream_summary}', 'conversationMessageAssociateWorkstreamSummary')],
      b: [on('/workstream_summary/{workstream_summary}/messages/{verb}/{message}', 'workstreamSummaryAssociateConversationMessage')],
    },
  },
  annotationAnchors: {
    a: many('annotations', 'anchors', 'anchors'),
    b: many('anchors', 'annotations', 'annotations'),
    routes: {
      a: [on('/annotation/{annotation}/anchors/{verb}/{anchor}', 'annotationAssociateAnchor')],
      b: [on('/anchor/{anchor}/annotations/{verb}/{annotation}', 'anchorAssociateAnnotation')],
    },
  },
  annotationAssets: {
    a: many('annotations', 'assets', 'assets'),
    b: many('assets', 'annotations', 'annotations'),
    routes: {
      a: [on('/annotation/{annotation}/assets/{verb}/{asset}', 'annotationAssociateAsset')],
      b: [on('/asset/{asset}/annotations/{verb}/{annotation}', 'assetAssociateAnnotation')],
    },
  },
  annotationPersons: {
    a: many('annotations', 'persons', 'persons'),
    b: many('persons', 'annotations', 'annotations'),
    routes: {
      a: [on('/annotation/{annotation}/persons/{verb}/{person}', 'annotationAssociatePerson')],
      b: [on('/person/{person}/annotations/{verb}/{annotation}', 'personAssociateAnnotation')],
    },
  },
  annotationTags: {
    a: many('annotations', 'tags', 'tags'),
    b: many('tags', 'annotations', 'annotations'),
    routes: {
      a: [on('/annotation/{annotation}/tags/{verb}/{tag}', 'annotationAssociateTag')],
      b: [on('/tag/{tag}/annotations/{verb}/{annotation}', 'tagAssociateAnnotation')],
    },
  },
  annotationWebsites: {
    a: many('annotations', 'websites', 'websites'),
    b: many('websites', 'annotations', 'annotations'),
    routes: {
      a: [on('/annotation/{annotation}/websites/{verb}/{website}', 'annotationAssociateWebsite')],
      b: [on('/website/{website}/annotations/{verb}/{annotation}', 'websiteAssociateAnnotation')],
    },
  },
  annotationWorkstreamEvents: {
    a: many('annotations', 'workstreamEvents', 'workstream_events'),
    b: many('workstreamEvents', 'annotations', 'annotations'),
    routes: {
      a: [on('/annotation/{annotation}/workstream_events/{verb}/{workstream_event}', 'annotationAssociateWorkstreamEvent')],
      b: [on('/workstream_event/{workstream_event}/annotations/{verb}/{annotation}', 'workstreamEventAssociateAnnotation')],
    },
  },
  annotationSummaries: {
    a: many('annotations', 'summaries', 'summaries'),
    b: many('workstreamSummaries', 'annotations', 'annotations'),
    routes: {
      a: [on('/annotation/{annotation}/workstream_summaries/{verb}/{workstream_summary}', 'annotationAssociateWorkstreamSummary')],
      b: [on('/workstream_summary/{workstream_summary}/annotations/{verb}/{annotation}', 'workstreamSummaryAssociateAnnotation')],
    },
  },
} as const satisfies Record<string, Link>;

/** A link's name in {@link LINK}: what `service.associate(name, a, b)` takes. */
export type LinkName = keyof typeof LINK;

/** The links associate and disassociate may change (every one but a message's conversation). */
export type LinkableName = { [N in LinkName]: (typeof LINK)[N] extends { readonly fixed: true } ? never : N }[LinkName];

/** The kinds of record a conversation links to, by their older short names. Each drives one associate and one disassociate. */
export type LinkKind = 'anchor' | 'asset' | 'website' | 'workstreamSummary' | 'groundingRange' | 'groundingMessage';

/** How one link kind is stored: the link between the conversation and the other record. */
export interface LinkKindSpec {
  readonly kind: LinkKind;
  /** The link's name in {@link LINK}. */
  readonly link: LinkableName;
  /** What the linked record is called in messages ("anchor", "range"). */
  readonly resource: string;
  /** The collection of the linked record. */
  readonly collection: CollectionName;
  /** The two fields that must agree: the conversation's list and the linked record's. */
  readonly relation: Link;
}

const spec = (kind: LinkKind, resource: string, link: LinkableName): LinkKindSpec => ({
  kind,
  link,
  resource,
  collection: LINK[link].b.collection,
  relation: LINK[link],
});

/** The conversation's links by their older short names (`service.associateAnchor(conversation, anchor)`). */
export const LINK_KINDS: Readonly<Record<LinkKind, LinkKindSpec>> = {
  anchor: spec('anchor', 'anchor', 'conversationAnchors'),
  asset: spec('asset', 'asset', 'conversationAssets'),
  website: spec('website', 'website', 'conversationWebsites'),
  workstreamSummary: spec('workstreamSummary', 'workstream summary', 'conversationSummaries'),
  groundingRange: spec('groundingRange', 'range', 'conversationRanges'),
  groundingMessage: spec('groundingMessage', 'message', 'conversationGroundingMessages'),
};
