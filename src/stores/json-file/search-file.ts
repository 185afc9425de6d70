import { rm } from 'node:fs/promises';
import type { ReadView } from '../../ports.js';
import { DeferredSearchIndex } from '../../search/deferred-index.js';
import { readIndexCovers, readIndexFile, writeIndexFile } from '../../search/index-file.js';
import type { RecordChange } from '../../search/record-docs.js';
import { SearchIndex } from '../../search/search-index.js';

/** What the store tells its search index about itself while it opens, writes and compacts. */
export interface SearchFileStore {
  /** Reads the records, for a build. */
  readonly view: ReadView;
  /** Counts the store's roll-backs (writes undone after a failed journal write). */
  rollBacks(): number;
  /** Whether the store is closing. */
  closed(): boolean;
  readonly logger: { warn(message: string): void };
}

/**
 * The JSON-file store's search index on disk (`<file>.search`) and in memory: which journal entry
 * the file covers (read at open), the journal entries replayed after it, the index read or built
 * in the background once the store is open, saved before each snapshot, and fed every write once
 * it is on disk. A failure of the index is said and never fails a write: the index is then built
 * again at the next start.
 */
export class SearchFile {
  #covers: number | undefined;
  #catchUp: RecordChange[] = [];
  /** Set once a compaction saved the index: a build finishing later must not save an older one. */
  #saved = false;
  #broken = false;
  #index: DeferredSearchIndex | undefined;

  private constructor(
    readonly path: string,
    /** The store's id (SnapshotData.store): the file must name it. */
    readonly storeId: string,
  ) {}

  /**
   * Reads which writes the file covers, trusted if it covers the snapshot (entry `snapshotSeq`):
   * the journal entries after it are then kept as they are replayed ({@link replayed}).
   */
  static async prepare(path: string, snapshotSeq: number, storeId: string): Promise<SearchFile> {
    const file = new SearchFile(path, storeId);
    const covers = await readIndexCovers(path);
    file.#covers = covers !== undefined && covers >= snapshotSeq ? covers : undefined;
    return file;
  }

  /** A journal entry replayed at open: kept if the file does not cover it. */
  replayed(seq: number, changes: readonly RecordChange[]): void {
    if (this.#covers !== undefined && seq > this.#covers) this.#catchUp.push(...changes);
  }

  /**
   * Starts reading (or building) the index in the background, once the journal is replayed up to
   * entry `seq`: a file that claims more than the journal holds is not trusted.
   */
  open(seq: number, store: SearchFileStore): DeferredSearchIndex {
    if (this.#covers !== undefined && this.#covers > seq) this.#covers = undefined;
    this.#index = new DeferredSearchIndex(async () => {
      const stored = this.#covers === undefined ? undefined : await readIndexFile(this.path);
      const catchUp = this.#catchUp;
      this.#catchUp = [];
      if (stored && stored.covers === this.#covers) {
        const index = new SearchIndex(stored.index);
        index.apply(catchUp);
        return index;
      }
      return this.#build(seq, store);
    });
    return this.#index;
  }

  /**
   * None, or one that cannot be trusted (written by an older release, damaged, or left behind by a
   * crash between two compactions): built again from the records, once, and saved.
   */
  async #build(seq: number, store: SearchFileStore): Promise<SearchIndex> {
    // The build reads what memory holds, writes not yet on disk included: if one of them is
    // undone (a failed write) meanwhile, the build may hold it, and starts again.
    let index: SearchIndex;
    let started: number;
    do {
      started = store.rollBacks();
      index = new SearchIndex();
      await index.build(store.view);
    } while (store.rollBacks() !== started);
    // A new store's index is written by its first compaction: there is nothing to save yet.
    if (index.index.size > 0 && !this.#saved && !store.closed()) {
      await writeIndexFile(this.path, index.index, seq, (message) => store.logger.warn(message)).then(
        // Undone writes since the build: the file may hold one; the next start builds again.
        () => (store.rollBacks() !== started ? rm(this.path, { force: true }) : undefined),
        (error: Error) => store.logger.warn(`Could not write the search index ${this.path}: ${error.message}`),
      );
    }
    return index;
  }

  /** A write on disk, about to be acknowledged: searchable from now on. */
  apply(changes: readonly RecordChange[], logger: { warn(message: string): void }): void {
    if (!this.#index || this.#broken) return;
    try {
      this.#index.apply(changes);
    } catch (error) {
      // The write is stored: it is not reported as failed. The index is not saved from now on.
      this.#broken = true;
      logger.warn(`The search index failed to take a write (${(error as Error).message}); it is built again at the next start.`);
    }
  }

  /**
   * Saves the index, as it is once read or built (writes held meanwhile applied), as covering
   * journal entry `seq`: it holds every write up to it, and perhaps later ones, which the next
   * start applies again. Before the snapshot: without it the next start builds the index again from
   * the records, so a failure only costs time.
   */
  async save(seq: number, logger: { warn(message: string): void }): Promise<void> {
    if (this.#broken) return;
    const index = await this.#index?.ready.catch(() => undefined);
    if (!index) return;
    // Dumped (and perhaps compacted) while no search has paused in it.
    await index
      .whenIdle((text) => writeIndexFile(this.path, text, seq, (message) => logger.warn(message)))
      .then(
        () => {
          this.#saved = true;
        },
        (error: Error) => logger.warn(`Could not write the search index ${this.path}: ${error.message}`),
      );
  }

  /** Settles once a read or build still running is done (it may be reading message files). */
  async settled(): Promise<void> {
    await this.#index?.ready.catch(() => undefined);
  }
}
