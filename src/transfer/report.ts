import type { CollectionName } from '../records.js';
import type { ImportFormat, ImportReport } from './format.js';

/** Records written and unchanged by collection, as an import goes: what its report says. */
export class ImportCounts {
  readonly #counts = new Map<CollectionName, { written: number; unchanged: number }>();

  add(collection: CollectionName, outcome: 'written' | 'unchanged', count = 1): void {
    let counts = this.#counts.get(collection);
    if (!counts) this.#counts.set(collection, (counts = { written: 0, unchanged: 0 }));
    counts[outcome] += count;
  }

  report(format: ImportFormat): ImportReport {
    const none = { written: 0, unchanged: 0 };
    return {
      format,
      conversations: { ...(this.#counts.get('conversations') ?? none) },
      messages: { ...(this.#counts.get('messages') ?? none) },
      collections: Object.fromEntries([...this.#counts].map(([collection, counts]) => [collection, { ...counts }])),
    };
  }
}
