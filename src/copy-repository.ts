import { isDeepStrictEqual } from 'node:util';
import type { Repository } from './ports.js';
import { COLLECTION_NAMES, type CollectionName } from './records.js';

/** How {@link copyRepository} runs. */
export interface CopyOptions {
  /** Records read and written per transaction. Default 500. */
  readonly batch?: number;
  /** Called after each batch is stored: the collection, and the records of it seen so far. */
  readonly onProgress?: (progress: { collection: CollectionName; seen: number }) => void;
}

/** What {@link copyRepository} did, by collection. */
export type CopyReport = Record<CollectionName, { readonly written: number; readonly unchanged: number }>;

/**
 * Copies every record of `from` into `to`: conversations, messages, annotations, links (both sides
 * are fields of the records, so they arrive whole) and custom models, in each collection's order, ids
 * kept. A record `to` already holds exactly is left alone, so a second run writes nothing; one that
 * differs is replaced by `from`'s. Records only `to` holds stay: this is a copy, not a mirror.
 *
 * Each batch is one transaction of `to`, so a copy stopped half-way leaves whole records, and running
 * it again finishes it. `from` is read a page at a time: copy from a store nothing else writes (a
 * stopped service's folder), or the copy may hold a link whose other side was written after its page
 * was read.
 */
export async function copyRepository(from: Repository, to: Repository, options: CopyOptions = {}): Promise<CopyReport> {
  const batch = options.batch ?? 500;
  if (!Number.isInteger(batch) || batch < 1) throw new RangeError(`batch must be a positive integer, not ${batch}`);
  const report = {} as Record<CollectionName, { written: number; unchanged: number }>;
  for (const collection of COLLECTION_NAMES) {
    const counts = (report[collection] = { written: 0, unchanged: 0 });
    let after: string | undefined;
    do {
      const page = await from.read((view) => view.list(collection, { ...(after === undefined ? {} : { after }), limit: batch }));
      if (page.records.length > 0) {
        const written = await to.transact(async (tx) => {
          const records = page.records as readonly { id: string }[];
          const stored = await tx.getMany(
            collection,
            records.map((record) => record.id),
          );
          let puts = 0;
          records.forEach((record, i) => {
            if (isDeepStrictEqual(stored[i], record)) return;
            tx.put(collection, record as never);
            puts++;
          });
          // Answered, not added up here: a store may run this function more than once.
          return puts;
        });
        counts.written += written;
        counts.unchanged += page.records.length - written;
        options.onProgress?.({ collection, seen: counts.written + counts.unchanged });
      }
      after = page.next;
    } while (after !== undefined);
  }
  return report;
}
