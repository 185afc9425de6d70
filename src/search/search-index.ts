import { readSkippingDamaged } from '../damaged-records.js';
import type { ConversationHit, IndexedDocRef, QueryWord, ReadView, RecordChange, TextHit, TextQuery, TextSearch } from '../ports.js';
import type { ConversationRecord } from '../records.js';
import { runInSlices, Slices } from '../slices.js';
import { HeldWrites } from './held-writes.js';
import { INDEXED_COLLECTIONS, indexActions } from './record-docs.js';
import { TextIndex } from './text-index.js';

/** Records read at once while building an index from a store. */
const BUILD_PAGE = 1000;

/**
 * The full-text index a store keeps of its records: the store hands it every committed write
 * ({@link apply}), so it never drifts from the records.
 *
 * A search runs a slice at a time (`src/slices.ts`), giving other requests a turn every few
 * milliseconds. Searches run one at a time, in the order they came (they share the index's scratch
 * arrays), and a write that comes while one has paused is held, with those after it, and applied
 * in order when it ends, before the next search starts: a search reads the index as it was when it
 * started, and every write acknowledged before a search starts is in it.
 */
export class SearchIndex implements TextSearch {
  #index!: TextIndex;

  constructor(index: TextIndex = new TextIndex()) {
    this.index = index;
  }

  get index(): TextIndex {
    return this.#index;
  }

  /** The index searched; its work that no search may see half done (renumbering its documents) runs in a turn of its own, as a search does. */
  set index(index: TextIndex) {
    index.exclusive = (work) => this.#inTurn(async () => work());
    this.#index = index;
  }

  readonly #writes = new HeldWrites((changes) => this.#applyNow(changes));
  /** Settles when the last search (or other reader) queued is done. */
  #queue: Promise<void> = Promise.resolve();

  /** Applies committed writes, in commit order (once the search under way is done, if one is). */
  apply(changes: readonly RecordChange[]): void {
    this.#writes.apply(changes);
  }

  #applyNow(changes: readonly RecordChange[]): void {
    for (const change of changes) {
      if (!INDEXED_COLLECTIONS.has(change.collection)) continue;
      for (const action of indexActions(change)) {
        if ('put' in action) this.index.put(action.put);
        else this.index.remove(action.remove, action.id);
      }
    }
  }

  /**
   * Every document the index holds, once every write it was given before the call is applied (in
   * a turn of its own, as a search: writes held by a search under way are in).
   */
  async documents(): Promise<Iterable<IndexedDocRef>> {
    return this.#inTurn(async () => {
      await this.index.current();
      return this.index.documents();
    });
  }

  /** Applies committed writes as {@link apply} does, a slice at a time (a journal's worth of writes caught up at a start). */
  async applyInSlices(changes: readonly RecordChange[], slices = new Slices()): Promise<void> {
    for (const change of changes) {
      this.apply([change]);
      await this.#pace(slices);
    }
  }

  /**
   * Indexes every record of the store `view` reads (what is indexed already is replaced), a slice
   * at a time, waiting for the index's merges when it writes faster than they run (so the
   * mutable part of the index stays small): conversations and annotations a page at a time, and
   * messages through their conversations' lists, a batch of ids at a time, so the cost grows with
   * the records and not with their square (a store's `list` of messages may sort every id for
   * each page). Messages no conversation lists are not found (nor damaged ones).
   */
  async build(view: ReadView): Promise<void> {
    const slices = new Slices();
    const add = async <C extends 'conversations' | 'annotations' | 'messages'>(collection: C, id: string, record: object) => {
      this.apply([{ collection, id, record }]);
      await this.#pace(slices);
    };
    for (const collection of ['conversations', 'annotations'] as const) {
      let after: string | undefined;
      do {
        const page = await view.list(collection, { limit: BUILD_PAGE, ...(after === undefined ? {} : { after }) });
        for (const record of page.records) {
          await add(collection, record.id, record);
          if (collection !== 'conversations') continue;
          const conversation = record as ConversationRecord;
          for (let start = 0; start < conversation.messages.length; start += BUILD_PAGE) {
            const ids = conversation.messages.slice(start, start + BUILD_PAGE);
            // A message damaged on disk is not indexed (the store's health names it): the rest is.
            const messages = await readSkippingDamaged(view, 'messages', ids, []);
            for (const [i, message] of messages.entries()) if (message) await add('messages', ids[i]!, message);
          }
        }
        after = page.next;
      } while (after !== undefined);
    }
  }

  /** Gives the event loop a turn once the slice is used, and lets the index's merges catch up when it is behind. */
  async #pace(slices: Slices): Promise<void> {
    if (this.index.behind) await this.index.settled();
    if (slices.due) await slices.next();
  }

  async searchMessages(query: TextQuery): Promise<TextHit[]> {
    return this.#inTurn(() => runInSlices(this.index.messageSearch(query), query.slices ?? new Slices()));
  }

  async searchConversations(query: TextQuery): Promise<ConversationHit[]> {
    return this.#inTurn(() => runInSlices(this.index.conversationSearch(query), query.slices ?? new Slices()));
  }

  async searchAnnotations(query: TextQuery): Promise<TextHit[]> {
    return this.#inTurn(() => runInSlices(this.index.annotationSearch(query), query.slices ?? new Slices()));
  }

  /** Reads the lists' lengths alone, which no search changes: no need to wait for one. */
  async postings(words: readonly QueryWord[]): Promise<number> {
    return this.index.postingsOf(words);
  }

  /**
   * Runs `work` after every search queued before it, holding writes until it is done: a search, or
   * the index's own work no search may see half done (see `TextIndex.exclusive`).
   */
  async #inTurn<T>(work: () => Promise<T>): Promise<T> {
    const before = this.#queue;
    let done!: () => void;
    this.#queue = new Promise((resolve) => (done = resolve));
    await before;
    const release = this.#writes.hold();
    try {
      return await work();
    } finally {
      release();
      done();
    }
  }
}
