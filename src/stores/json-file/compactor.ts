import { rm, unlink } from 'node:fs/promises';
import { COLLECTION_NAMES, type CollectionName, type ConversationRecord } from '../../records.js';
import type { RecordTables } from '../record-tables.js';
import { Backoff } from './backoff.js';
import { writeMessageFiles } from './compaction.js';
import { CompactionGate } from './compaction-gate.js';
import { hintPath, journalPath, listNumbered, messageFilePath } from './message-files.js';
import type { MessageStore } from './message-store.js';
import { JSON_FILE_FORMAT_VERSION } from './migrations.js';
import { emptySnapshot, listJournals, type OpenedStore, type StoreFiles, sizeOf } from './open-store.js';
import { readSnapshotHint, type SnapshotData } from './snapshot.js';

/**
 * Folds the journal into a new snapshot (and the journal's messages into a new message file),
 * one compaction at a time, then deletes the files it made redundant. It owns {@link StoreFiles}:
 * which files the snapshot on disk names. A compaction that fails keeps every journal (nothing is
 * lost) and the next is tried after a growing pause ({@link Backoff}), so a full disk is not
 * filled with attempts; a start, a migration and a close try at once.
 */
export class Compactor {
  /** Holds compactions off while a backup copies the files they would rewrite or remove. */
  readonly gate = new CompactionGate();
  /** Compactions that succeeded: a migration is done once one has. */
  succeeded = 0;
  #running: Promise<void> | undefined;
  readonly #retry = new Backoff();
  /** The snapshot's and its hint's bytes: the journal may grow to this before it is folded. */
  #snapshotBytes = 0;

  private constructor(
    private readonly file: string,
    private readonly store: Pick<OpenedStore, 'tables' | 'messages' | 'snapshot' | 'writer' | 'searchFile' | 'storeId'>,
    readonly files: StoreFiles,
    /** The last journal entry committed (in memory; on disk once the writer's queue is). */
    private readonly committedSeq: () => number,
    private readonly compactAfterBytes: number,
    private readonly logger: { warn(message: string): void },
  ) {}

  static async create(
    file: string,
    store: OpenedStore,
    committedSeq: () => number,
    compactAfterBytes: number,
    logger: { warn(message: string): void },
  ): Promise<Compactor> {
    const compactor = new Compactor(file, store, store.files, committedSeq, compactAfterBytes, logger);
    const { hint } = store.files;
    compactor.#snapshotBytes = (await sizeOf(file)) + (hint === undefined ? 0 : await sizeOf(hintPath(file, hint)));
    return compactor;
  }

  /** The compaction under way, if any. */
  get running(): Promise<void> | undefined {
    return this.#running;
  }

  /** Writes a snapshot of everything committed so far and drops the files it makes redundant (joins one under way). */
  compact(): Promise<void> {
    this.#running ??= this.gate
      .run(() => this.#fold())
      .finally(() => {
        this.#running = undefined;
      });
    return this.#running;
  }

  /** Starts a compaction in the background once the journal outgrew its bound, unless the last failure asks to wait. */
  afterWrite(): void {
    if (this.store.writer.bytes > Math.max(this.compactAfterBytes, this.#snapshotBytes) && this.#retry.due()) void this.compact();
  }

  async #fold(): Promise<void> {
    const { file, files, logger } = this;
    const { tables, messages, snapshot, writer, searchFile, storeId } = this.store;
    const warn = (message: string) => logger.warn(message);
    // Files this compaction made, removed again if it fails before the snapshot names them.
    let made: string[] = [];
    try {
      const foldedSeq = this.committedSeq();
      const nextIndex = files.journalIndex + 1;
      const captured = captureSnapshot(tables, foldedSeq);
      snapshot.data = { ...captured, journal: nextIndex, hint: nextIndex, store: storeId };
      const conversations = (captured.conversations ?? []) as ConversationRecord[];
      const plan = messages.capture(conversations);
      // Queued behind every line appended so far: it resolves once they are all on disk, so the
      // snapshot captured above holds only what the disk holds (if one fails, this rejects).
      await writer.rotate(journalPath(file, nextIndex), nextIndex);
      files.journalIndex = nextIndex;
      made = [messageFilePath(file, nextIndex), hintPath(file, nextIndex)];
      // Places loaded from a hint of version 5 have no checksums: this compaction computes them.
      const computeChecksums = messages.needsChecksums;
      const written = await writeMessageFiles(
        file,
        nextIndex,
        plan,
        conversations,
        messages.reader,
        foldedSeq,
        files.messageFiles,
        warn,
        computeChecksums,
      );
      // The snapshot being replaced becomes the backup: the journals from the one it names on must stay.
      const backupJournal = files.snapshotJournal;
      const previousHint = files.hint;
      // Before the snapshot: an index that covers the journal entries the snapshot folds.
      await searchFile?.save(foldedSeq, logger);
      await snapshot.write().catch(async (error: unknown) => {
        // Renamed into place but not flushed (the folder's flush failed): the snapshot on disk names
        // the new files, which must then stay.
        if ((await readSnapshotHint(file)) === nextIndex) made = [];
        throw error;
      });
      made = [];
      this.#retry.succeeded();
      for (const [message, to] of written.moved) messages.moved(message, to);
      if (computeChecksums) messages.checksumsKnown();
      this.succeeded++;
      files.snapshotSeq = foldedSeq;
      files.snapshotJournal = nextIndex;
      files.backupMessageFiles = files.messageFiles;
      files.messageFiles = written.messageFiles;
      files.hint = nextIndex;
      this.#snapshotBytes = (await sizeOf(file)) + written.hintBytes;
      await removeUnneeded(file, messages, {
        journalsBefore: backupJournal,
        messageFiles: new Set([...files.messageFiles, ...files.backupMessageFiles]),
        hints: new Set([nextIndex, previousHint].filter((index) => index !== undefined)),
      });
    } catch (error) {
      // The journals are kept, so nothing is lost; a later compaction tries again.
      // (Not read yet: the keydir points into them only once the snapshot is written.)
      for (const partial of made) await rm(partial, { force: true }).catch(() => undefined);
      this.#retry.failed();
      logger.warn(`Could not write the snapshot ${file}: ${(error as Error).message} (tried again ${this.#retry.describe()}).`);
    } finally {
      // Let go of the captured records, written or not.
      snapshot.data = emptySnapshot();
    }
  }
}

/** The committed records (messages aside: they are on disk) as they are now; records are immutable, so references suffice. */
function captureSnapshot(tables: RecordTables, journalSeq: number): SnapshotData {
  const data: Record<string, unknown> = { version: JSON_FILE_FORMAT_VERSION, journalSeq };
  for (const name of COLLECTION_NAMES) {
    data[name] = name === 'messages' ? [] : Array.from(tables.rows(name as CollectionName).values(), (row) => row.record);
  }
  return data as SnapshotData;
}

/** Deletes the journals before `journalsBefore`, and the message and hint files neither snapshot needs. */
async function removeUnneeded(
  file: string,
  messages: MessageStore,
  keep: { journalsBefore: number | undefined; messageFiles: ReadonlySet<number>; hints: ReadonlySet<number> },
): Promise<void> {
  for (const journal of await listJournals(file)) {
    if (keep.journalsBefore !== undefined && journal.index < keep.journalsBefore) {
      messages.reader.close(journal.index);
      await unlink(journal.path);
    }
  }
  for (const messageFile of await listNumbered(file, 'messages')) {
    if (keep.messageFiles.has(messageFile.index)) continue;
    messages.reader.close(-messageFile.index);
    await unlink(messageFile.path);
  }
  for (const hintFile of await listNumbered(file, 'hint')) if (!keep.hints.has(hintFile.index)) await unlink(hintFile.path);
}
