import type { BaseRecord, Timestamp } from '../records.js';
import { renderRange } from '../render/records.js';
import { seededRangeSchema } from '../schemas/seeds.js';
import { defineKind, FIELD, recordOperations, STAMPED, stamps } from './kind.js';

export interface RangeRecord extends BaseRecord {
  readonly from?: Timestamp;
  readonly to?: Timestamp;
  readonly between?: boolean;
  readonly conversations: readonly string[];
  /** Links added by associate (src/links.ts): absent until the first. */
  readonly messages?: readonly string[];
}

export const rangeKind = defineKind<RangeRecord>()({
  collection: 'ranges',
  resource: 'range',
  required: { ...STAMPED, conversations: FIELD.ids },
  records: recordOperations<RangeRecord>()({
    seedName: 'SeededRange',
    seed: seededRangeSchema,
    build: (seed, context) => ({ ...seed, ...stamps(context), conversations: [] }),
    render: (record) => renderRange(record),
  }),
  routes: {
    many: 'ranges',
    one: 'range',
    tag: 'Ranges',
    answer: { one: 'Range', many: 'Ranges' },
    operations: { create: 'rangesCreateNewRange', list: 'rangesSnapshot', delete: 'rangesDeleteSpecificRange' },
  },
});
