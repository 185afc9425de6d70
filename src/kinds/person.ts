import type { BaseRecord } from '../records.js';
import { withLinks } from '../render/links.js';
import { seededPersonSchema } from '../schemas/seeds.js';
import type { Person } from '../wire.js';
import { defineKind, FIELD, recordOperations, STAMPED, stamps } from './kind.js';

export interface PersonRecord extends BaseRecord {
  /** The client's PersonType (`basic` or `platform` details), kept as given. */
  readonly type: Readonly<Record<string, unknown>>;
  readonly mechanism?: string;
  readonly messages: readonly string[];
  readonly annotations: readonly string[];
}

export const personKind = defineKind<PersonRecord>()({
  collection: 'persons',
  resource: 'person',
  required: { ...STAMPED, type: FIELD.object, messages: FIELD.ids, annotations: FIELD.ids },
  records: recordOperations<PersonRecord>()({
    seedName: 'SeededPerson',
    seed: seededPersonSchema,
    build: (seed, context) => ({ ...seed, ...stamps(context), messages: [], annotations: [] }),
    render: (record): Person => withLinks<Person>('persons', record, { ...record }),
  }),
  routes: {
    many: 'persons',
    one: 'person',
    tag: 'Persons',
    answer: { one: 'Person', many: 'Persons' },
    operations: { create: 'personsCreateNewPerson', list: 'personsSnapshot', delete: 'personsDeletePerson', get: 'personSnapshot' },
  },
});
