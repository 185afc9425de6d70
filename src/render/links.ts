import { LINK, type Link } from '../links.js';
import type { CollectionName, MessageRecord } from '../records.js';
import type { ReferenceList } from '../wire.js';
import { idList } from './lists.js';

/** A list field a collection's records answer generically: the record's field and its name on the wire. */
interface WireList {
  readonly field: string;
  readonly wire: string;
}

/** The links' ends that carry a wire name, by collection (a self-link's two ends are one field). */
const WIRE_LISTS: ReadonlyMap<CollectionName, readonly WireList[]> = (() => {
  const lists = new Map<CollectionName, WireList[]>();
  for (const link of Object.values(LINK) as Link[]) {
    for (const end of [link.a, link.b]) {
      if (!end.wire || !end.many) continue;
      const list = lists.get(end.collection) ?? [];
      if (!list.some((known) => known.field === end.field)) list.push({ field: end.field, wire: end.wire });
      lists.set(end.collection, list);
    }
  }
  return lists;
})();

const NONE: readonly WireList[] = [];

/** The generically answered lists of `collection` (see RelationEnd.wire). */
export const wireListsOf = (collection: CollectionName): readonly WireList[] => WIRE_LISTS.get(collection) ?? NONE;

/**
 * Whether a message has any generically answered link list: the hot path of every read, written
 * out field by field because a loop over the names (a keyed lookup each) costs ten times more per
 * message. test/kinds/registry.test.ts checks it names every list LINK gives messages.
 */
export function messageHasLinks(message: MessageRecord): boolean {
  return (
    message.messages !== undefined ||
    message.anchors !== undefined ||
    message.assets !== undefined ||
    message.persons !== undefined ||
    message.ranges !== undefined ||
    message.tags !== undefined ||
    message.websites !== undefined ||
    message.workstreamEvents !== undefined ||
    message.sources !== undefined ||
    message.summaries !== undefined
  );
}

/**
 * `rendered` with the record's generically answered link lists: each raw id list (copied there by a
 * spread of the record) replaced by its list wrapper under its wire name, and left out when empty,
 * so a record never linked answers as it did before such links existed.
 */
export function withLinks<T>(collection: CollectionName, record: object, rendered: object): T {
  const out = rendered as Record<string, unknown>;
  for (const { field, wire } of wireListsOf(collection)) {
    const ids = (record as Record<string, unknown>)[field];
    // Deleted only when there: a delete turns the object slow in V8, and most records have none.
    if (field !== wire && Object.hasOwn(out, field)) delete out[field];
    if (Array.isArray(ids) && ids.length > 0) out[wire] = idList(ids as string[]) satisfies ReferenceList;
    else if (Object.hasOwn(out, wire)) delete out[wire];
  }
  return rendered as T;
}

/** {@link withLinks} as JSON text to append to an object's text: `,"tags":{"iterable":[…]}` for each non-empty list. */
export function linksJson(collection: CollectionName, record: object): string {
  let out = '';
  for (const { field, wire } of wireListsOf(collection)) {
    const ids = (record as Record<string, unknown>)[field];
    if (!Array.isArray(ids) || ids.length === 0) continue;
    let items = '';
    for (let i = 0; i < ids.length; i++) items += `${i === 0 ? '' : ','}{"id":${JSON.stringify(ids[i])}}`;
    out += `,"${wire}":{"iterable":[${items}]}`;
  }
  return out;
}
