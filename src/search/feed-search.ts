import type {
  ChangeBatch,
  ChangeFeed,
  ConversationHit,
  IndexedDocRef,
  QueryWord,
  Repository,
  TextHit,
  TextQuery,
  TextSearch,
} from '../ports.js';
import { HeldWrites } from './held-writes.js';
import { SearchIndex } from './search-index.js';

/**
 * The full-text index of a store that keeps none: built in memory by reading every record once,
 * at the first search, and kept up to date from the store's change feed, so that it holds the
 * writes of every process sharing the store, not only this one's. Each search first waits for
 * the feed to catch up (`ChangeFeed.caughtUp`): every write acknowledged before it started, here
 * or elsewhere, is in what it searches.
 *
 * The feed is followed from the start; batches are dropped until a build starts (the build reads
 * the records they wrote), held while it reads, and applied once it is done. A change states what
 * a record is now, so a batch the build read already is applied again without harm, and one it
 * read before a later write is corrected by that write's batch, held behind it.
 */
export class FeedSearch implements TextSearch {
  #index = new SearchIndex();
  /** Settles once the index is built; undefined until the first search, and again after a failure. */
  #built: Promise<void> | undefined;
  readonly #writes = new HeldWrites((changes) => this.#index.apply(changes));

  /**
   * @param repository The store read by a build.
   * @param feed Its change feed, subscribed to at once.
   * @param onBatch Called with each batch once the index has taken it (held or applied): what
   *   follows the store beside this index (vectors of meaning) sees no write before it does.
   */
  constructor(
    private readonly repository: Repository,
    private readonly feed: ChangeFeed,
    onBatch: (batch: ChangeBatch) => void,
    private readonly logger: { warn(message: string): void },
  ) {
    this.close = feed.subscribe((batch) => {
      this.#take(batch);
      onBatch(batch);
    });
  }

  /** Stops following the feed (the service is closing). */
  readonly close: () => void;

  #take(batch: ChangeBatch): void {
    if (!this.#built) return;
    try {
      this.#writes.apply(batch.changes);
    } catch (error) {
      // The index no longer matches the records: built again at the next search.
      this.logger.warn(`The search index failed to take a write (${(error as Error).message}); it is built again at the next search.`);
      this.#built = undefined;
      this.#index = new SearchIndex();
    }
  }

  /** Builds the index, once, and answers when the feed has delivered every write committed before the call. */
  async #current(): Promise<SearchIndex> {
    this.#built ??= this.#build();
    await this.#built;
    await this.feed.caughtUp();
    return this.#index;
  }

  async #build(): Promise<void> {
    const index = new SearchIndex();
    this.#index = index;
    const release = this.#writes.hold();
    try {
      await this.repository.read((view) => index.build(view));
    } catch (error) {
      // Tried again at the next search, from scratch; the writes held meanwhile go to an index no one reads.
      this.#built = undefined;
      this.#index = new SearchIndex();
      throw error;
    } finally {
      release();
    }
  }

  async searchMessages(query: TextQuery): Promise<TextHit[]> {
    return (await this.#current()).searchMessages(query);
  }

  async searchConversations(query: TextQuery): Promise<ConversationHit[]> {
    return (await this.#current()).searchConversations(query);
  }

  async searchAnnotations(query: TextQuery): Promise<TextHit[]> {
    return (await this.#current()).searchAnnotations(query);
  }

  async documents(): Promise<Iterable<IndexedDocRef>> {
    return (await this.#current()).documents();
  }

  /** A lower bound known before a search runs: no need to wait for the feed. */
  async postings(words: readonly QueryWord[]): Promise<number> {
    this.#built ??= this.#build();
    await this.#built;
    return this.#index.postings(words);
  }
}
