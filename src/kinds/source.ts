import type { BaseRecord } from '../records.js';
import { withLinks } from '../render/links.js';
import { seededWorkstreamPatternEngineSourceSchema } from '../schemas/seeds.js';
import type { WorkstreamPatternEngineSource } from '../wire.js';
import { defineKind, FIELD, recordOperations, STAMPED, stamps } from './kind.js';

/** The client's IdentifiedWorkstreamPatternEngineSource: an application or website the workstream watches. */
export interface SourceRecord extends BaseRecord {
  /** The client's WorkstreamPatternEngineSource (name, window, url, application), kept as given. */
  readonly raw: Readonly<Record<string, unknown>>;
  readonly readable: string;
  readonly filter?: boolean;
  readonly messages: readonly string[];
  /** Conversations this source grounds. */
  readonly conversations: readonly string[];
}

export const sourceKind = defineKind<SourceRecord>()({
  collection: 'sources',
  resource: 'workstream pattern engine source',
  required: { ...STAMPED, raw: FIELD.object, readable: FIELD.text, messages: FIELD.ids, conversations: FIELD.ids },
  records: recordOperations<SourceRecord>()({
    seedName: 'SeededWorkstreamPatternEngineSource',
    seed: seededWorkstreamPatternEngineSourceSchema,
    build: (seed, context) => ({ ...seed, ...stamps(context), messages: [], conversations: [] }),
    render: (record): WorkstreamPatternEngineSource => withLinks<WorkstreamPatternEngineSource>('sources', record, { ...record }),
  }),
  routes: {
    many: 'workstream_pattern_engine/sources',
    one: 'workstream_pattern_engine/source',
    tag: 'Workstream pattern engine sources',
    answer: { one: 'WorkstreamPatternEngineSource', many: 'WorkstreamPatternEngineSources' },
    operations: {
      create: 'workstreamPatternEngineSourcesCreateNewSource',
      list: 'workstreamPatternEngineSourcesSnapshot',
      delete: 'workstreamPatternEngineSourcesDeleteSpecificSource',
      get: 'workstreamPatternEngineSourcesSpecificSourceSnapshot',
    },
  },
});
