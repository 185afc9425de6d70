import type { BaseRecord } from '../records.js';
import { renderWorkstreamSummary } from '../render/records.js';
import { seededWorkstreamSummarySchema } from '../schemas/seeds.js';
import { defineKind, FIELD, recordOperations, STAMPED, stamps } from './kind.js';

export interface WorkstreamSummaryRecord extends BaseRecord {
  readonly name: string;
  readonly model: Readonly<Record<string, unknown>>;
  readonly favorited?: boolean;
  readonly conversations: readonly string[];
  /** Links added by associate (src/links.ts): absent until the first. */
  readonly messages?: readonly string[];
  readonly annotations?: readonly string[];
}

export const workstreamSummaryKind = defineKind<WorkstreamSummaryRecord>()({
  collection: 'workstreamSummaries',
  resource: 'workstream summary',
  required: { ...STAMPED, name: FIELD.text, model: FIELD.object, conversations: FIELD.ids },
  records: recordOperations<WorkstreamSummaryRecord>()({
    seedName: 'SeededWorkstreamSummary',
    seed: seededWorkstreamSummarySchema,
    build: (seed, context) => ({ ...seed, ...stamps(context), conversations: [] }),
    render: (record) => renderWorkstreamSummary(record),
  }),
  routes: {
    many: 'workstream_summaries',
    one: 'workstream_summary',
    tag: 'Workstream summaries',
    answer: { one: 'WorkstreamSummary', many: 'WorkstreamSummaries' },
    operations: {
      create: 'workstreamSummariesCreateNewWorkstreamSummary',
      list: 'workstreamSummariesSnapshot',
      delete: 'workstreamSummariesDeleteSpecificWorkstreamSummary',
    },
  },
});
