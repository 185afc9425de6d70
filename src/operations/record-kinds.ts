import type { z } from 'zod';
import type { CollectionName, Collections, Timestamp } from '../records.js';
import { RELATION, type Relation } from '../relations.js';
import { renderAnnotation, renderMessage } from '../render/conversation.js';
import type { RenderOptions } from '../render/lists.js';
import { renderAnchor, renderAsset, renderRange, renderWebsite, renderWorkstreamSummary } from '../render/records.js';
import {
  seededAnchorSchema,
  seededAnnotationSchema,
  seededAssetSchema,
  seededConversationMessageSchema,
  seededRangeSchema,
  seededWebsiteSchema,
  seededWorkstreamSummarySchema,
} from '../schemas/seeds.js';

/** What building a record needs besides its seed. */
export interface BuildContext {
  readonly id: string;
  readonly now: Timestamp;
  newId(): string;
}

/**
 * How one kind of record is created, listed, rendered and deleted. `conversationOf` names the
 * conversation a seed asks to be linked to, through `relation` (for messages: appended to it).
 */
export interface RecordKind<C extends CollectionName, S extends z.ZodType> {
  readonly collection: C;
  readonly resource: string;
  /** The client's name of the seed, for error messages. */
  readonly seedName: string;
  readonly seed: S;
  build(seed: z.output<S>, context: BuildContext): Collections[C];
  render(record: Collections[C], options: RenderOptions): unknown;
  conversationOf?(seed: z.output<S>): string | undefined;
  readonly relation?: Relation;
}

const kind = <C extends CollectionName, S extends z.ZodType>(spec: RecordKind<C, S>) => spec;
const stamps = ({ id, now }: BuildContext) => ({ id, created: now, updated: now });

/** The records the spec's operations act on, besides conversations and models. */
export const RECORD_KINDS = {
  anchors: kind({
    collection: 'anchors',
    resource: 'anchor',
    seedName: 'SeededAnchor',
    seed: seededAnchorSchema,
    build: ({ conversation: _c, ...seed }, context) => ({ ...seed, ...stamps(context), point: context.newId(), conversations: [] }),
    render: (record) => renderAnchor(record),
    conversationOf: (seed) => seed.conversation,
    relation: RELATION.conversationAnchors,
  }),
  assets: kind({
    collection: 'assets',
    resource: 'asset',
    seedName: 'SeededAsset',
    seed: seededAssetSchema,
    build: (seed, context) => ({
      ...stamps(context),
      ...(seed.metadata?.name ? { name: seed.metadata.name } : {}),
      creator: 'local',
      mechanism: 'MANUAL',
      application: seed.application,
      ...(seed.format.fragment ? { content: seed.format.fragment } : {}),
      format: context.newId(),
      conversations: [],
    }),
    render: (record, options) => renderAsset(record, options),
  }),
  websites: kind({
    collection: 'websites',
    resource: 'website',
    seedName: 'SeededWebsite',
    seed: seededWebsiteSchema,
    build: ({ conversation: _c, ...seed }, context) => ({ ...seed, ...stamps(context), conversations: [] }),
    render: (record) => renderWebsite(record),
    conversationOf: (seed) => seed.conversation,
    relation: RELATION.conversationWebsites,
  }),
  ranges: kind({
    collection: 'ranges',
    resource: 'range',
    seedName: 'SeededRange',
    seed: seededRangeSchema,
    build: (seed, context) => ({ ...seed, ...stamps(context), conversations: [] }),
    render: (record) => renderRange(record),
  }),
  workstreamSummaries: kind({
    collection: 'workstreamSummaries',
    resource: 'workstream summary',
    seedName: 'SeededWorkstreamSummary',
    seed: seededWorkstreamSummarySchema,
    build: (seed, context) => ({ ...seed, ...stamps(context), conversations: [] }),
    render: (record) => renderWorkstreamSummary(record),
  }),
  annotations: kind({
    collection: 'annotations',
    resource: 'annotation',
    seedName: 'SeededAnnotation',
    seed: seededAnnotationSchema,
    build: ({ conversation: _c, model, ...seed }, context) => ({
      ...seed,
      ...(model ? { model: { id: model } } : {}),
      ...stamps(context),
      messages: [],
    }),
    render: (record) => renderAnnotation(record),
    conversationOf: (seed) => seed.conversation,
    relation: RELATION.conversationAnnotations,
  }),
  messages: kind({
    collection: 'messages',
    resource: 'message',
    seedName: 'SeededConversationMessage',
    seed: seededConversationMessageSchema,
    build: ({ conversation: _c, created, ...seed }, context) => ({
      ...seed,
      ...stamps(context),
      created: created ?? context.now,
      // Set by linking it to its conversation, which must exist.
      conversation: '',
      groundedConversations: [],
    }),
    render: (record, options) => renderMessage(record, options),
    conversationOf: (seed) => seed.conversation.id,
    relation: RELATION.conversationMessages,
  }),
} as const;

export type RecordKindName = keyof typeof RECORD_KINDS;
