import { readSkippingDamaged } from '../damaged-records.js';
import type { IndexedDocRef, ReadView, TextSearch } from '../ports.js';
import { INDEXED_COLLECTIONS, indexActions, type RecordChange } from './record-docs.js';
import { TextIndex } from './text-index.js';

/** Records read at once while building an index from a store. */
const BUILD_PAGE = 1000;

/**
 * The full-text index a store keeps of its records: the store hands it every committed write
 * ({@link apply}), so it never drifts from the records; queries run against it synchronously.
 */
export class SearchIndex implements TextSearch {
  constructor(public index: TextIndex = new TextIndex()) {}

  readonly #listeners = new Set<(changes: readonly RecordChange[]) => void>();

  /** Applies committed writes, in commit order, and tells the watchers. */
  apply(changes: readonly RecordChange[]): void {
    for (const change of changes) {
      if (!INDEXED_COLLECTIONS.has(change.collection)) continue;
      for (const action of indexActions(change)) {
        if ('put' in action) this.index.put(action.put);
        else this.index.remove(action.remove, action.id);
      }
    }
    for (const listener of this.#listeners) listener(changes);
  }

  watch(listener: (changes: readonly RecordChange[]) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  async documents(): Promise<Iterable<IndexedDocRef>> {
    return this.index.documents();
  }

  /**
   * Indexes every record of the store `view` reads (what is indexed already is replaced):
   * conversations and annotations a page at a time, and messages through their conversations'
   * lists, a batch of ids at a time, so the cost grows with the records and not with their square
   * (a store's `list` of messages may sort every id for each page).
   */
  async build(view: ReadView): Promise<void> {
    for (const collection of ['conversations', 'annotations'] as const) {
      let after: string | undefined;
      do {
        const page = await view.list(collection, { limit: BUILD_PAGE, ...(after === undefined ? {} : { after }) });
        this.apply(page.records.map((record) => ({ collection, id: record.id, record })));
        if (collection === 'conversations') {
          for (const conversation of page.records) {
            for (let start = 0; start < conversation.messages.length; start += BUILD_PAGE) {
              const ids = conversation.messages.slice(start, start + BUILD_PAGE);
              // A message damaged on disk is not indexed (the store's health names it): the rest is.
              const messages = await readSkippingDamaged(view, 'messages', ids, []);
              this.apply(messages.flatMap((record, i) => (record ? [{ collection: 'messages' as const, id: ids[i]!, record }] : [])));
            }
          }
        }
        after = page.next;
      } while (after !== undefined);
    }
  }

  async searchMessages(query: Parameters<TextSearch['searchMessages']>[0]) {
    return this.index.searchMessages(query);
  }

  async searchConversations(query: Parameters<TextSearch['searchConversations']>[0]) {
    return this.index.searchConversations(query);
  }
}
