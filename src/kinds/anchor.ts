import type { BaseRecord } from '../records.js';
import { renderAnchor } from '../render/records.js';
import { seededAnchorSchema } from '../schemas/seeds.js';
import { defineKind, FIELD, recordOperations, STAMPED, stamps } from './kind.js';

export interface AnchorRecord extends BaseRecord {
  readonly type: 'UNKNOWN' | 'FILE' | 'DIRECTORY';
  readonly name?: string;
  readonly watch?: boolean;
  readonly fullpath: string;
  readonly platform?: string;
  /** Id of the anchor's one point (where `fullpath` lives on the wire). */
  readonly point: string;
  readonly conversations: readonly string[];
  /** Links added by associate (src/links.ts): absent until the first. */
  readonly messages?: readonly string[];
  readonly annotations?: readonly string[];
}

export const anchorKind = defineKind<AnchorRecord>()({
  collection: 'anchors',
  resource: 'anchor',
  required: { ...STAMPED, type: FIELD.text, fullpath: FIELD.text, point: FIELD.text, conversations: FIELD.ids },
  records: recordOperations<AnchorRecord>()({
    seedName: 'SeededAnchor',
    seed: seededAnchorSchema,
    build: ({ conversation: _c, ...seed }, context) => ({ ...seed, ...stamps(context), point: context.newId(), conversations: [] }),
    render: (record) => renderAnchor(record),
    conversationOf: (seed) => seed.conversation,
    conversationLink: 'conversationAnchors',
  }),
  routes: {
    many: 'anchors',
    one: 'anchor',
    tag: 'Anchors',
    answer: { one: 'Anchor', many: 'Anchors' },
    operations: { create: 'anchorsCreateNewAnchor', list: 'anchorsSnapshot', delete: 'anchorsDeleteSpecificAnchor' },
  },
});
