import { appendId } from './id-lists.js';
import { LINK, type Link } from './links.js';
import type { Transaction } from './ports.js';
import type { CollectionName } from './records.js';
import { idsOf, without } from './relations.js';

// Records are handled here as plain objects: links are generic over field names.
type Fields = Record<string, unknown>;

/** Records by collection, each whole, as a store held it: what {@link putLinked} stores. */
export type ArrivingRecords = ReadonlyMap<CollectionName, readonly { readonly id: string }[]>;

/** How {@link putLinked} stores records that arrive in parts. */
export interface PutLinkedOptions {
  /** Whether a record neither arriving nor stored arrives in a later part (links to it are kept as stated). */
  readonly pending?: (collection: CollectionName, id: string) => boolean;
}

/**
 * Stores records that arrive whole, with their links, from outside the store's present state (a
 * conversation restored from the trash, records imported from a file), and keeps every link
 * two-sided (src/links.ts), whatever the store holds now:
 * - a link between two arriving records is kept as they state it; where only one of them names the
 *   other, the other is made to name it back;
 * - a link to a record the store holds is made on both sides: the stored record is made to name the
 *   arriving one (and gets `updated`), unless its field holds one id that names another record, in
 *   which case the stored record wins and the arriving one drops the link;
 * - a link to a record neither arriving nor stored is dropped (its record was deleted meanwhile, or
 *   left out of an export), and so is a summary's coverage of such a message.
 *
 * Records that arrive in parts (an import written a batch per transaction) name the records of
 * later parts through `options.pending`: a link to a pending record is kept as stated, neither
 * dropped nor made two-sided here (the pending record states its side when it arrives).
 *
 * Arriving records keep their own stamps (`created`, `updated`): they come back as they were. One
 * that replaces a stored record of its id replaces it whole: a caller that must not overwrite checks
 * first. Reads every stored record named, a collection at a time: O(records + links).
 */
export async function putLinked(
  tx: Transaction,
  arriving: ArrivingRecords,
  updated: object,
  options: PutLinkedOptions = {},
): Promise<void> {
  const pending = options.pending ?? (() => false);
  const records = new Map<CollectionName, Map<string, Fields>>();
  for (const [collection, list] of arriving) records.set(collection, new Map(list.map((record) => [record.id, record as Fields])));
  const arrives = (collection: CollectionName, id: string) => records.get(collection)?.has(id) === true;
  const ends = Object.values(LINK as Record<string, Link>).flatMap((link) =>
    link.coverage
      ? [{ end: link.b, other: link.a, stored: false }]
      : [
          { end: link.a, other: link.b, stored: true },
          { end: link.b, other: link.a, stored: true },
        ],
  );

  // Which ids outside the arriving records are named, by collection: the store says which exist.
  const named = new Map<CollectionName, Set<string>>();
  for (const { end, other } of ends) {
    for (const record of records.get(end.collection)?.values() ?? []) {
      for (const id of idsOf(record, end)) {
        if (arrives(other.collection, id) || pending(other.collection, id)) continue;
        let ids = named.get(other.collection);
        if (!ids) named.set(other.collection, (ids = new Set()));
        ids.add(id);
      }
    }
  }
  const stored = new Map<CollectionName, Map<string, Fields>>();
  for (const [collection, ids] of named) {
    const list = [...ids];
    const found = (await tx.getMany(collection, list)) as (Fields | undefined)[];
    const byId = new Map<string, Fields>();
    found.forEach((record, i) => record && byId.set(list[i]!, record));
    stored.set(collection, byId);
  }

  // Each side of each link, settled: arriving records first (they are put once, at the end).
  const changedStored = new Map<CollectionName, Map<string, Fields>>();
  for (const { end, other, stored: twoSided } of ends) {
    const side = records.get(end.collection);
    if (!side) continue;
    for (const [id, record] of side) {
      let next = record;
      for (const otherId of idsOf(record, end)) {
        const arrivingOther = records.get(other.collection)?.get(otherId);
        const storedOther = arrivingOther
          ? undefined
          : (changedStored.get(other.collection)?.get(otherId) ?? stored.get(other.collection)?.get(otherId));
        const target = arrivingOther ?? storedOther;
        if (!target) {
          if (pending(other.collection, otherId)) continue;
          next = without(next, end, new Set([otherId]));
          continue;
        }
        if (!twoSided) continue;
        const names = idsOf(target, other);
        if (names.includes(id)) continue;
        if (!other.many && names.length > 0) {
          // The other record belongs elsewhere already (one id per field): it keeps its link.
          next = without(next, end, new Set([otherId]));
          continue;
        }
        const namingBack = { ...target, [other.field]: other.many ? appendId(names, id) : id };
        if (arrivingOther) records.get(other.collection)!.set(otherId, namingBack);
        else {
          let changed = changedStored.get(other.collection);
          if (!changed) changedStored.set(other.collection, (changed = new Map()));
          changed.set(otherId, { ...namingBack, updated });
        }
      }
      if (next !== record) side.set(id, next);
    }
  }
  for (const [collection, byId] of records) for (const record of byId.values()) tx.put(collection, record as never);
  for (const [collection, byId] of changedStored) for (const record of byId.values()) tx.put(collection, record as never);
}
