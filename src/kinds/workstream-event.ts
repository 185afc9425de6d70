import type { BaseRecord } from '../records.js';
import { withLinks } from '../render/links.js';
import { seededWorkstreamEventSchema } from '../schemas/seeds.js';
import type { WorkstreamEvent } from '../wire.js';
import { defineKind, FIELD, recordOperations, STAMPED, stamps } from './kind.js';

export interface WorkstreamEventRecord extends BaseRecord {
  /** The application the event happened in, and what triggered it: kept as given. */
  readonly application: Readonly<Record<string, unknown>>;
  readonly trigger: Readonly<Record<string, unknown>>;
  readonly context?: Readonly<Record<string, unknown>>;
  readonly readable?: string;
  readonly messages: readonly string[];
  readonly annotations: readonly string[];
}

export const workstreamEventKind = defineKind<WorkstreamEventRecord>()({
  collection: 'workstreamEvents',
  resource: 'workstream event',
  required: { ...STAMPED, application: FIELD.object, trigger: FIELD.object, messages: FIELD.ids, annotations: FIELD.ids },
  records: recordOperations<WorkstreamEventRecord>()({
    seedName: 'SeededWorkstreamEvent',
    seed: seededWorkstreamEventSchema,
    build: (seed, context) => ({ ...seed, ...stamps(context), messages: [], annotations: [] }),
    render: (record): WorkstreamEvent => withLinks<WorkstreamEvent>('workstreamEvents', record, { ...record }),
  }),
  routes: {
    many: 'workstream_events',
    one: 'workstream_event',
    tag: 'Workstream events',
    answer: { one: 'WorkstreamEvent', many: 'WorkstreamEvents' },
    operations: {
      create: 'workstreamEventsCreateNewWorkstreamEvent',
      list: 'workstreamEventsSnapshot',
      delete: 'workstreamEventsDeleteSpecificWorkstreamEvent',
      get: 'workstreamEventsSpecificWorkstreamEventSnapshot',
    },
  },
});
