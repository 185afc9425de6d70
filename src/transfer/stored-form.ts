import { LINK, type Link, type RelationEnd } from '../links.js';
import type { CollectionName } from '../records.js';
import { idsOf, without } from '../relations.js';

type Fields = Record<string, unknown>;

/** Each collection's link fields, with the collection at their other end (a summary's coverage included). */
const ENDS = new Map<CollectionName, { end: RelationEnd; other: CollectionName }[]>();
for (const link of Object.values(LINK as Record<string, Link>)) {
  const pairs = link.coverage
    ? [[link.b, link.a] as const]
    : ([
        [link.a, link.b],
        [link.b, link.a],
      ] as const);
  for (const [end, other] of pairs) {
    let list = ENDS.get(end.collection);
    if (!list) ENDS.set(end.collection, (list = []));
    list.push({ end, other: other.collection });
  }
}

/** The ids `record` names through its links, with their collections. */
export function namedIds(collection: CollectionName, record: Fields): { collection: CollectionName; id: string }[] {
  const named: { collection: CollectionName; id: string }[] = [];
  for (const { end, other } of ENDS.get(collection) ?? []) {
    for (const id of idsOf(record, end)) if (typeof id === 'string') named.push({ collection: other, id });
  }
  return named;
}

/**
 * `record` as an import stores it (see putLinked): without the links to records that `exists`
 * says are neither in the file nor in the store. What a stored record is compared with, so that a
 * file whose records name records left out of it imports a second time as unchanged.
 */
export function storedForm(
  collection: CollectionName,
  record: Fields,
  exists: (collection: CollectionName, id: string) => boolean,
): Fields {
  let next = record;
  for (const { end, other } of ENDS.get(collection) ?? []) {
    const gone = idsOf(next, end).filter((id) => !exists(other, id));
    if (gone.length > 0) next = without(next, end, new Set(gone));
  }
  return next;
}
