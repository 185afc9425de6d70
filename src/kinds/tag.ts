import type { BaseRecord } from '../records.js';
import { withLinks } from '../render/links.js';
import { seededTagSchema } from '../schemas/seeds.js';
import type { Tag } from '../wire.js';
import { defineKind, FIELD, recordOperations, STAMPED, stamps } from './kind.js';

export interface TagRecord extends BaseRecord {
  readonly text: string;
  /** The client's TagCategoryEnum: `UNKNOWN`, `HANDLE`, `EMAIL`. */
  readonly category: string;
  readonly mechanism?: string;
  readonly messages: readonly string[];
  readonly annotations: readonly string[];
}

export const tagKind = defineKind<TagRecord>()({
  collection: 'tags',
  resource: 'tag',
  required: { ...STAMPED, text: FIELD.text, category: FIELD.text, messages: FIELD.ids, annotations: FIELD.ids },
  records: recordOperations<TagRecord>()({
    seedName: 'SeededTag',
    seed: seededTagSchema,
    build: ({ category, ...seed }, context) => ({
      ...seed,
      ...stamps(context),
      category: category ?? 'UNKNOWN',
      messages: [],
      annotations: [],
    }),
    render: (record): Tag => withLinks<Tag>('tags', record, { ...record }),
  }),
  routes: {
    many: 'tags',
    one: 'tag',
    tag: 'Tags',
    answer: { one: 'Tag', many: 'Tags' },
    operations: { create: 'tagsCreateNewTag', list: 'tagsSnapshot', delete: 'tagsDeleteSpecificTag', get: 'tagsSpecificTagSnapshot' },
  },
});
