import type { ConversationHit, IndexedDocRef, QueryWord, RecordChange, TextHit, TextQuery, TextSearch } from '../ports.js';
import { HeldWrites } from './held-writes.js';
import type { SearchIndex } from './search-index.js';

/**
 * A store's search index while it is read from its file (or built from the records) in the
 * background: the store opens without waiting for it. Writes committed meanwhile are held, in
 * commit order, and applied once it is there; searches wait for it. A build that read a record
 * before a held write changed it is corrected by that write, applied after it.
 */
export class DeferredSearchIndex implements TextSearch {
  #index: SearchIndex | undefined;
  readonly #writes = new HeldWrites((changes) => this.#index!.apply(changes));
  /** Settles once the index is there (rejects if it could be neither read nor built). */
  readonly ready: Promise<SearchIndex>;

  constructor(open: () => Promise<SearchIndex>) {
    const release = this.#writes.hold();
    this.ready = open().then((index) => {
      this.#index = index;
      release();
      return index;
    });
    // Reported to whoever waits for it (a search, a compaction); never an unhandled rejection.
    this.ready.catch(() => undefined);
  }

  /** Applies committed writes, or holds them until the index is there. */
  apply(changes: readonly RecordChange[]): void {
    this.#writes.apply(changes);
  }

  async searchMessages(query: TextQuery): Promise<TextHit[]> {
    return (await this.ready).searchMessages(query);
  }

  async searchConversations(query: TextQuery): Promise<ConversationHit[]> {
    return (await this.ready).searchConversations(query);
  }

  async searchAnnotations(query: TextQuery): Promise<TextHit[]> {
    return (await this.ready).searchAnnotations(query);
  }

  async documents(): Promise<Iterable<IndexedDocRef>> {
    return (await this.ready).documents();
  }

  async postings(words: readonly QueryWord[]): Promise<number> {
    return (await this.ready).postings(words);
  }
}
