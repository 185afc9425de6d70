import type { CollectionName } from '../../records.js';
import { COVERAGE, RELATIONS, type RelationEnd } from '../../relations.js';

/**
 * The id-list fields of each collection, stored as rows of `list_items` rather than inside the
 * record's body: every `many` end of a relation, and the messages a summary covers. Derived from
 * RELATIONS and COVERAGE, so a relation added there is stored as rows here with no other change.
 */
export const LIST_FIELDS: ReadonlyMap<CollectionName, readonly string[]> = (() => {
  const ends: RelationEnd[] = [...RELATIONS.flatMap((relation) => [relation.a, relation.b]), COVERAGE];
  const fields = new Map<CollectionName, string[]>();
  for (const end of ends) {
    if (!end.many) continue;
    const list = fields.get(end.collection) ?? [];
    if (!list.includes(end.field)) list.push(end.field);
    fields.set(end.collection, list);
  }
  return fields;
})();

/** The id-list fields of `collection` (none for most collections). */
export const listFieldsOf = (collection: CollectionName): readonly string[] => LIST_FIELDS.get(collection) ?? [];
