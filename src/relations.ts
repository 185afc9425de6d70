import type { Transaction } from './ports.js';
import type { CollectionName } from './records.js';

/** One end of a relation: a field of a collection's records holding one id or a list of ids. */
export interface RelationEnd {
  readonly collection: CollectionName;
  readonly field: string;
  readonly many: boolean;
}

/**
 * Two record fields that must always agree: if A names B, B names A. When `owned` is set, the
 * records on side `b` belong to side `a` and are deleted with it.
 */
export interface Relation {
  readonly a: RelationEnd;
  readonly b: RelationEnd;
  readonly owned?: boolean;
}

const many = (collection: CollectionName, field: string): RelationEnd => ({ collection, field, many: true });
const one = (collection: CollectionName, field: string): RelationEnd => ({ collection, field, many: false });

/** Every two-sided reference in the store, by name: the link kinds, plus ownership of messages and annotations. */
export const RELATION = {
  conversationMessages: { a: many('conversations', 'messages'), b: one('messages', 'conversation'), owned: true },
  conversationAnnotations: { a: many('conversations', 'annotations'), b: one('annotations', 'conversation'), owned: true },
  messageAnnotations: { a: many('messages', 'annotations'), b: many('annotations', 'messages') },
  conversationAnchors: { a: many('conversations', 'anchors'), b: many('anchors', 'conversations') },
  conversationAssets: { a: many('conversations', 'assets'), b: many('assets', 'conversations') },
  conversationWebsites: { a: many('conversations', 'websites'), b: many('websites', 'conversations') },
  conversationSummaries: { a: many('conversations', 'summaries'), b: many('workstreamSummaries', 'conversations') },
  conversationRanges: { a: many('conversations', 'groundingRanges'), b: many('ranges', 'conversations') },
  conversationGroundingMessages: { a: many('conversations', 'groundingMessages'), b: many('messages', 'groundedConversations') },
} as const satisfies Record<string, Relation>;

export const RELATIONS: readonly Relation[] = Object.values(RELATION);

// Relations are generic over field names, so records are handled here as plain objects.
type Fields = Record<string, unknown>;

const idsOf = (record: Fields, end: RelationEnd): string[] => {
  const value = record[end.field];
  if (end.many) return Array.isArray(value) ? (value as string[]) : [];
  return typeof value === 'string' ? [value] : [];
};

/** The record with `end.field` no longer naming `id`. */
function without(record: Fields, end: RelationEnd, id: string): Fields {
  if (end.many) return { ...record, [end.field]: idsOf(record, end).filter((other) => other !== id) };
  const { [end.field]: _removed, ...rest } = record;
  return rest;
}

/** The record with `end.field` naming `id` (once). */
function withId(record: Fields, end: RelationEnd, id: string): Fields {
  if (!end.many) return { ...record, [end.field]: id };
  const ids = idsOf(record, end);
  return ids.includes(id) ? record : { ...record, [end.field]: [...ids, id] };
}

/**
 * Links two records through `relation` (`aId` on side a, `bId` on side b), updating both records.
 * Linking twice changes nothing the second time. Returns false when nothing changed.
 */
export function link(tx: Transaction, relation: Relation, aId: string, bId: string, updated: object): boolean {
  return setLink(tx, relation, aId, bId, updated, withId);
}

/** Unlinks two records through `relation`, updating both. Unlinking twice is harmless. */
export function unlink(tx: Transaction, relation: Relation, aId: string, bId: string, updated: object): boolean {
  return setLink(tx, relation, aId, bId, updated, without);
}

function setLink(
  tx: Transaction,
  relation: Relation,
  aId: string,
  bId: string,
  updated: object,
  change: (record: Fields, end: RelationEnd, id: string) => Fields,
): boolean {
  let changed = false;
  for (const [end, id, otherId] of [
    [relation.a, aId, bId],
    [relation.b, bId, aId],
  ] as const) {
    const record = tx.get(end.collection, id) as Fields | undefined;
    if (!record) continue;
    const next = change(record, end, otherId);
    if (next === record || sameIds(record, next, end)) continue;
    tx.put(end.collection, { ...next, updated } as never);
    changed = true;
  }
  return changed;
}

const sameIds = (before: Fields, after: Fields, end: RelationEnd): boolean => {
  const a = idsOf(before, end);
  const b = idsOf(after, end);
  return a.length === b.length && a.every((id, i) => id === b[i]);
};

/**
 * Deletes a record and keeps every relation whole: records that named it stop naming it, and
 * records it owns (a conversation's messages and annotations) are deleted the same way.
 */
export function deleteRecord(tx: Transaction, collection: CollectionName, id: string, updated: object): void {
  const record = tx.get(collection, id) as Fields | undefined;
  if (!record) return;
  tx.delete(collection, id);
  for (const relation of RELATIONS) {
    for (const [end, other] of [
      [relation.a, relation.b],
      [relation.b, relation.a],
    ] as const) {
      if (end.collection !== collection) continue;
      for (const otherId of idsOf(record, end)) {
        if (relation.owned && end === relation.a) {
          deleteRecord(tx, other.collection, otherId, updated);
          continue;
        }
        const otherRecord = tx.get(other.collection, otherId) as Fields | undefined;
        if (otherRecord) tx.put(other.collection, { ...without(otherRecord, other, id), updated } as never);
      }
    }
  }
}
