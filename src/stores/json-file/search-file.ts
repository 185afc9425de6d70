import { lstat, readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import type { ReadView, RecordChange } from '../../ports.js';
import { DeferredSearchIndex } from '../../search/deferred-index.js';
import { readIndexFile, readIndexHeader, tooLarge, writeIndexFile } from '../../search/index-file.js';
import { SearchIndex } from '../../search/search-index.js';
import type { DocCounts } from '../../search/text-index.js';

/**
 * How large an index file may be for its store: twice the bytes of the store's own files (the
 * snapshot, its hint, the message files and the journals), plus 16 MiB. The index holds the
 * store's text and a few bytes per document, never more than the store itself (it stores each
 * text once, as JSON); a file past this is not an index of this store, and is refused from its
 * size alone, before a byte of it is read.
 */
const SIZE_FACTOR = 2;
const SIZE_MARGIN = 16 * 1024 * 1024;

/** What the store tells its search index about itself while it opens, writes and compacts. */
export interface SearchFileStore {
  /** Reads the records, for a build. */
  readonly view: ReadView;
  /** Counts the store's roll-backs (writes undone after a failed journal write). */
  rollBacks(): number;
  /** Whether the store is closing. */
  closed(): boolean;
  /** How many messages, conversations and annotations the store holds now. */
  counts(): DocCounts;
  readonly logger: { warn(message: string): void };
}

/**
 * The JSON-file store's search index on disk (`<file>.search`) and in memory: which journal entry
 * the file covers (read at open), the journal entries replayed after it, the index read or built
 * in the background once the store is open, saved before each snapshot, and fed every write once
 * it is on disk. The file belongs to its store: its checksum is keyed by the store's id, so a
 * file of another store (or one edited) is never taken; a file refused says why, in one line of
 * the log, and is built again from the records. A failure of the index is said and never fails a
 * write: the index is then built again at the next start.
 */
export class SearchFile {
  #covers: number | undefined;
  /** Why the file is not used, for the log (none when there is no file). */
  #problem: string | undefined;
  #catchUp: RecordChange[] = [];
  /**
   * Messages of the store the index lacks by design (damaged on disk when it was built): what the
   * check of its counts at the next start allows. Carried from the build, or from the file read.
   */
  #unindexed = 0;
  /** Set once a compaction saved the index: a build finishing later must not save an older one. */
  #saved = false;
  /** Set once the file read at open was found to match the store (so no build replaces it). */
  #trusted = false;
  #broken = false;
  #index: DeferredSearchIndex | undefined;

  private constructor(
    readonly path: string,
    /** The store's id: it keys the file's checksum. */
    readonly store: string,
    /** The largest file this store's index may be. */
    readonly maxBytes: number,
  ) {}

  /**
   * Reads which writes the file covers, trusted if it covers the snapshot (entry `snapshotSeq`)
   * and names this store: the journal entries after it are then kept as they are replayed
   * ({@link replayed}). A file larger than this store's index can be is not read at all.
   */
  static async prepare(path: string, snapshotSeq: number, store: string): Promise<SearchFile> {
    const size = await sizeOf(path);
    const file = new SearchFile(path, store, SIZE_FACTOR * (await storeBytes(path)) + SIZE_MARGIN);
    if (size === undefined) return file;
    if (size > file.maxBytes) {
      file.#problem = tooLarge(size, file.maxBytes);
      return file;
    }
    const read = await readIndexHeader(path);
    if ('problem' in read) file.#problem = read.problem;
    else if (read.header.store !== store) file.#problem = `belongs to another store (${JSON.stringify(read.header.store)})`;
    else if (read.header.covers < snapshotSeq)
      file.#problem = `covers journal entry ${read.header.covers}, before the snapshot's ${snapshotSeq} (left by a crash between two compactions)`;
    else file.#covers = read.header.covers;
    return file;
  }

  /** A journal entry replayed at open: kept if the file does not cover it. */
  replayed(seq: number, changes: readonly RecordChange[]): void {
    if (this.#covers !== undefined && seq > this.#covers) this.#catchUp.push(...changes);
  }

  /**
   * Starts reading (or building) the index in the background, once the journal is replayed up to
   * entry `seq`: a file that claims more than the journal holds is not trusted, nor one that,
   * brought up to date, holds other counts of messages, conversations or annotations than the
   * store does now.
   */
  open(seq: number, store: SearchFileStore): DeferredSearchIndex {
    if (this.#covers !== undefined && this.#covers > seq) {
      this.#problem = `covers journal entry ${this.#covers}, past the journal's last (${seq})`;
      this.#covers = undefined;
    }
    // Taken now, before the store takes any write: what the index must hold once caught up.
    const expected = store.counts();
    this.#index = new DeferredSearchIndex(async () => {
      const catchUp = this.#catchUp;
      this.#catchUp = [];
      if (this.#covers !== undefined) {
        const stored = await readIndexFile(this.path, this.store, this.maxBytes);
        if ('index' in stored && stored.covers === this.#covers) {
          const index = new SearchIndex(stored.index);
          await index.applyInSlices(catchUp);
          const held = index.index.counts;
          const lacking = expected.messages - held.messages;
          if (
            held.conversations === expected.conversations &&
            held.annotations === expected.annotations &&
            lacking >= 0 &&
            lacking <= stored.unindexed
          ) {
            this.#unindexed = stored.unindexed;
            this.#trusted = true;
            return index;
          }
          this.#problem =
            `holds ${held.messages} messages, ${held.conversations} conversations and ${held.annotations} annotations, ` +
            `where the store holds ${expected.messages}, ${expected.conversations} and ${expected.annotations}`;
        } else this.#problem = 'problem' in stored ? stored.problem : 'changed while the store opened';
      }
      if (this.#problem) store.logger.warn(`The search index ${this.path} ${this.#problem}: it is built again from the records.`);
      return this.#build(seq, store);
    });
    return this.#index;
  }

  /**
   * None, or one that cannot be trusted (written by an older release, damaged, another store's, or
   * left behind by a crash between two compactions): built again from the records, once, and saved.
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
    // Messages the build could not read (damaged on disk) or reach (listed by no conversation).
    // Writes since the open (held until the index is there) may count here too: a tolerance, not
    // a loss, which the next build measures again.
    this.#unindexed = Math.max(0, store.counts().messages - index.index.counts.messages);
    // A new store's index is written by its first compaction: there is nothing to save yet.
    if (index.index.size > 0 && !this.#saved && !store.closed()) {
      try {
        await writeIndexFile(this.path, await index.index.parts(), this.#fileFields(seq), (message) => store.logger.warn(message));
        // Undone writes since the build: the file may hold one; the next start builds again.
        if (store.rollBacks() !== started) await rm(this.path, { force: true });
      } catch (error) {
        store.logger.warn(`Could not write the search index ${this.path}: ${(error as Error).message}`);
      }
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
    try {
      await writeIndexFile(this.path, await index.index.parts(), this.#fileFields(seq), (message) => logger.warn(message));
      this.#saved = true;
    } catch (error) {
      logger.warn(`Could not write the search index ${this.path}: ${(error as Error).message}`);
    }
  }

  /**
   * Whether the file on disk holds no write that is not on disk in the journal, and will not be
   * replaced until the next compaction: a compaction of this process saved it (every write it
   * holds had been flushed before it was applied), or it was read at open and found to match the
   * store. What a backup asks before it copies the file. A file a build wrote is not: a build
   * reads what memory holds, where a write may be before its journal line is flushed.
   */
  get fileIsCurrent(): boolean {
    return this.#saved || this.#trusted;
  }

  #fileFields(covers: number) {
    return { covers, store: this.store, unindexed: this.#unindexed };
  }

  /** Settles once a read or build still running is done (it may be reading message files). */
  async settled(): Promise<void> {
    await this.#index?.ready.catch(() => undefined);
  }
}

async function sizeOf(file: string): Promise<number | undefined> {
  try {
    return (await lstat(file)).size;
  } catch {
    return undefined;
  }
}

/** The bytes of the store's own files beside `<file>.search`: its snapshot, hints, message files and journals. */
async function storeBytes(indexPath: string): Promise<number> {
  const snapshot = indexPath.slice(0, -'.search'.length);
  const base = path.basename(snapshot);
  const own = new RegExp(`^${base.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(\\.(journal|messages|hint)-\\d+)?$`);
  let total = 0;
  for (const name of await readdir(path.dirname(snapshot)).catch(() => [] as string[]))
    if (own.test(name)) total += (await sizeOf(path.join(path.dirname(snapshot), name))) ?? 0;
  return total;
}
