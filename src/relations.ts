import { readSkippingDamaged, type SkippedRecord } from './damaged-records.js';
import { appendId } from './id-lists.js';
import { LINK, type Link, type LinkName, type RelationEnd } from './links.js';
import type { ReadView, Transaction } from './ports.js';
import type { AnnotationRecord, CollectionName } from './records.js';

export type { RelationEnd } from './links.js';

/**
 * Two record fields that must always agree: if A names B, B names A. When `owned` is set, the
 * records on side `b` belong to side `a` and are deleted with it. Every entry of LINK (src/links.ts).
 */
export type Relation = Link;

/** The links both of whose sides are stored: every link of LINK but a message's annotations (see COVERAGE). */
type StoredLinkName = { [N in LinkName]: (typeof LINK)[N] extends { readonly coverage: true } ? never : N }[LinkName];

/** Every two-sided reference in the store, by name (src/links.ts), the ownership of messages and annotations among them. */
export const RELATION = Object.fromEntries(Object.entries(LINK).filter(([, link]) => !(link as Link).coverage)) as {
  readonly [N in StoredLinkName]: (typeof LINK)[N];
};

/** {@link RELATION}'s links as a list: what deleteRecord and the stores walk. */
export const RELATIONS: readonly Relation[] = Object.values(RELATION);

/**
 * The messages a summary covers: kept on the annotation only (`messages`), one record however long
 * the conversation, so summarizing 20,000 messages writes one record, not 20,001. A message's
 * `annotations` on the wire are derived from its conversation's annotations when it is rendered.
 */
export const COVERAGE: RelationEnd = LINK.messageAnnotations.b;

/** The annotations of `conversationId` whose coverage names `messageId`. */
export async function coveringAnnotations(view: ReadView, conversationId: string, messageId: string): Promise<string[]> {
  const ids = (await view.get('conversations', conversationId))?.annotations ?? [];
  const annotations = await view.getMany('annotations', ids);
  return ids.filter((_, i) => covers(annotations[i], messageId));
}

// An annotation's coverage as a set, made once per (immutable) annotation record.
const coverageSets = new WeakMap<AnnotationRecord, ReadonlySet<string>>();

/** Whether `annotation` covers `messageId`: a set lookup, not a scan of its list. */
export function covers(annotation: AnnotationRecord | undefined, messageId: string): boolean {
  if (!annotation || annotation.messages.length === 0) return false;
  let set = coverageSets.get(annotation);
  if (!set) coverageSets.set(annotation, (set = new Set(annotation.messages)));
  return set.has(messageId);
}

// Relations are generic over field names, so records are handled here as plain objects.
type Fields = Record<string, unknown>;

/** The ids `record`'s side of a link names (none when the field is absent). */
export const idsOf = (record: Fields, end: RelationEnd): string[] => {
  const value = record[end.field];
  if (end.many) return Array.isArray(value) ? (value as string[]) : [];
  return typeof value === 'string' ? [value] : [];
};

/**
 * The conversations `record` (of `collection`) names through any relation: a message's or an
 * annotation's own, the conversations an anchor or a website is linked to, and so on.
 */
export function conversationsNamedBy(collection: CollectionName, record: object): string[] {
  const ids = new Set<string>();
  for (const relation of RELATIONS) {
    if (relation.a.collection === 'conversations' && relation.b.collection === collection) {
      for (const id of idsOf(record as Fields, relation.b)) ids.add(id);
    }
  }
  return [...ids];
}

/**
 * Links two records through `relation` (`aId` on side a, `bId` on side b), updating both records.
 * Linking twice changes nothing the second time. Returns false when nothing changed.
 */
export function link(tx: Transaction, relation: Relation, aId: string, bId: string, updated: object): Promise<boolean> {
  return setLinked(tx, relation, aId, bId, updated, true);
}

/** Unlinks two records through `relation`, updating both. Unlinking twice is harmless. */
export function unlink(tx: Transaction, relation: Relation, aId: string, bId: string, updated: object): Promise<boolean> {
  return setLinked(tx, relation, aId, bId, updated, false);
}

/** Makes each side name the other (`linked`) or not, rewriting only the sides that change. */
async function setLinked(
  tx: Transaction,
  relation: Relation,
  aId: string,
  bId: string,
  updated: object,
  linked: boolean,
): Promise<boolean> {
  const a = (await tx.get(relation.a.collection, aId)) as Fields | undefined;
  const b = (await tx.get(relation.b.collection, bId)) as Fields | undefined;
  // Both sides always agree, so when side b holds one id, it answers for side a too: appending a
  // message to a conversation of 20,000 does not search the conversation's list for it.
  const bNames = b !== undefined && idsOf(b, relation.b).includes(aId);
  const aNames = a !== undefined && (!relation.b.many && b !== undefined ? bNames : idsOf(a, relation.a).includes(bId));
  let changed = false;
  // A record holding one id (an annotation's conversation) that names another record leaves it
  // first: that record's list stops naming it, so both sides still agree.
  if (linked) {
    for (const [end, otherEnd, record, otherId] of [
      [relation.a, relation.b, a, bId],
      [relation.b, relation.a, b, aId],
    ] as const) {
      const previous = record && !end.many ? idsOf(record, end)[0] : undefined;
      if (!previous || previous === otherId) continue;
      const left = (await tx.get(otherEnd.collection, previous)) as Fields | undefined;
      if (left) tx.put(otherEnd.collection, { ...without(left, otherEnd, new Set([record!.id as string])), updated } as never);
    }
  }
  for (const [end, record, otherId, names] of [
    [relation.a, a, bId, aNames],
    [relation.b, b, aId, bNames],
  ] as const) {
    if (!record || names === linked) continue;
    const next = linked ? withId(record, end, otherId) : without(record, end, new Set([otherId]));
    tx.put(end.collection, { ...next, updated } as never);
    changed = true;
  }
  return changed;
}

/** The record with `end.field` also naming `id`, which it does not name yet. */
function withId(record: Fields, end: RelationEnd, id: string): Fields {
  return { ...record, [end.field]: end.many ? appendId(idsOf(record, end), id) : id };
}

/** The record with `end.field` no longer naming any of `ids`. */
export function without(record: Fields, end: RelationEnd, ids: ReadonlySet<string>): Fields {
  if (end.many) return { ...record, [end.field]: idsOf(record, end).filter((other) => !ids.has(other)) };
  const { [end.field]: _removed, ...rest } = record;
  return rest;
}

/** The records a {@link deleteRecord} deleted, as they were, by collection and id. */
export type DeletedRecords = ReadonlyMap<CollectionName, ReadonlyMap<string, object>>;

/**
 * Deletes a record and keeps every relation whole: records that named it stop naming it, and
 * records it owns (a conversation's messages and annotations) are deleted the same way. Each
 * record that survives is rewritten once, however many of the deleted records it named, and
 * records deleted together are never rewritten, so deleting n records costs O(n). A message
 * deleted on its own also leaves the summaries that cover it (see {@link coveringAnnotations}).
 *
 * Answers the records it deleted, as they were (what the trash keeps of a conversation), but for
 * those damaged on disk, which could not be read.
 */
export async function deleteRecord(tx: Transaction, collection: CollectionName, id: string, updated: object): Promise<DeletedRecords> {
  // The record and, recursively, what it owns, by collection; read a collection's worth at a time.
  const doomed = new Map<CollectionName, Map<string, Fields>>();
  const unreadable = new Set<Fields>();
  const isDoomed = (c: CollectionName, i: string) => doomed.get(c)?.has(i) === true;
  const pending: [CollectionName, readonly string[]][] = [[collection, [id]]];
  while (pending.length > 0) {
    const [c, ids] = pending.pop()!;
    const fresh = ids.filter((i) => !isDoomed(c, i));
    const skipped: SkippedRecord[] = [];
    const found = (await readSkippingDamaged(tx, c, fresh, skipped)) as (Fields | undefined)[];
    // A record damaged on disk (a message of a conversation being deleted) goes too: what it
    // linked to cannot be read, and what links to it is being deleted with it.
    for (const { id: damagedId } of skipped) {
      const placeholder = { id: damagedId };
      unreadable.add(placeholder);
      found[fresh.indexOf(damagedId)] = placeholder;
    }
    let records = doomed.get(c);
    if (!records) doomed.set(c, (records = new Map()));
    for (const [index, record] of found.entries()) {
      if (!record || records.has(fresh[index]!)) continue;
      records.set(fresh[index]!, record);
      for (const relation of RELATIONS) {
        if (relation.owned && relation.a.collection === c) pending.push([relation.b.collection, idsOf(record, relation.a)]);
      }
    }
  }
  // What each surviving record must stop naming: by collection, record, then field.
  const removals = new Map<CollectionName, Map<string, Map<RelationEnd, Set<string>>>>();
  const remove = (end: RelationEnd, recordId: string, removedId: string) => {
    let byRecord = removals.get(end.collection);
    if (!byRecord) removals.set(end.collection, (byRecord = new Map()));
    let ends = byRecord.get(recordId);
    if (!ends) byRecord.set(recordId, (ends = new Map()));
    let ids = ends.get(end);
    if (!ids) ends.set(end, (ids = new Set()));
    ids.add(removedId);
  };
  for (const [c, records] of doomed) {
    for (const relation of RELATIONS) {
      for (const [end, other] of [
        [relation.a, relation.b],
        [relation.b, relation.a],
      ] as const) {
        if (end.collection !== c) continue;
        for (const [recordId, record] of records) {
          for (const otherId of idsOf(record, end)) {
            if (!isDoomed(other.collection, otherId)) remove(other, otherId, recordId);
          }
        }
      }
    }
  }
  for (const [messageId, message] of doomed.get('messages') ?? []) {
    const conversation = message.conversation as string | undefined;
    if (conversation === undefined || isDoomed('conversations', conversation)) continue;
    for (const annotationId of await coveringAnnotations(tx, conversation, messageId)) {
      if (!isDoomed('annotations', annotationId)) remove(COVERAGE, annotationId, messageId);
    }
  }
  for (const [c, records] of doomed) for (const recordId of records.keys()) tx.delete(c, recordId);
  for (const [c, byRecord] of removals) {
    const ids = [...byRecord.keys()];
    // One that is damaged on disk cannot be rewritten: it keeps naming what goes (a dangling id).
    const records = (await readSkippingDamaged(tx, c, ids, [])) as (Fields | undefined)[];
    for (const [index, otherId] of ids.entries()) {
      let record = records[index];
      if (!record) continue;
      for (const [end, removed] of byRecord.get(otherId)!) record = without(record, end, removed);
      tx.put(c, { ...record, updated } as never);
    }
  }
  if (unreadable.size > 0) {
    for (const records of doomed.values()) for (const [recordId, record] of records) if (unreadable.has(record)) records.delete(recordId);
  }
  return doomed;
}
