import { mkdir, readdir, stat, unlink } from 'node:fs/promises';
import path from 'node:path';
import { Low } from 'lowdb';
import { isNoSpaceError, ServiceError } from '../../errors.js';
import type { Repository } from '../../ports.js';
import { COLLECTION_NAMES } from '../../records.js';
import { Slices } from '../../slices.js';
import { recordProblem } from '../record-checks.js';
import { applyChanges, type Change, createReadView, createRecordTables, type RecordTables, runBuffered } from '../record-tables.js';
import { acquireFolderLock } from './folder-lock.js';
import { encodeEntryInSlices, type JournalChange, JournalWriter, readJournal } from './journal.js';
import { JSON_FILE_FORMAT_VERSION, migrate, migrateRecord } from './migrations.js';
import { applyPatch, diffRecord, type RecordPatch } from './record-patch.js';
import { type SnapshotData, SnapshotFile } from './snapshot.js';

export { JSON_FILE_FORMAT_VERSION };

export interface JsonFileRepositoryOptions {
  /**
   * Path of the snapshot, a JSON file a person can read. Beside it live the journal
   * (`<file>.journal-<n>`), the previous snapshot (`<file>.bak`) and the lock (`<file>.lock`).
   * The folder is created if missing.
   */
  readonly file: string;
  /**
   * `'fsync'` (default): a write resolves once it is flushed to disk (fdatasync), shared by all
   * writes waiting at that moment. `'unsafe-no-fsync'`: resolves once the OS has the data; faster,
   * but a power cut (not a process crash) can lose the last acknowledged writes.
   */
  readonly durability?: 'fsync' | 'unsafe-no-fsync';
  /**
   * Fold the journal into a new snapshot once it grows past this many bytes, or past the size of
   * the snapshot itself when that is larger, so that rewriting the snapshot costs a fixed share
   * of the writes at any size. Default 64 MiB.
   */
  readonly compactAfterBytes?: number;
  /** Where warnings go (a torn journal record discarded, a failed background snapshot). */
  readonly logger?: { warn(message: string): void };
  /**
   * Take the folder's lock even from a holder that seems to run (a lock written by another
   * machine sharing the folder, which cannot be checked from here). Only when you know no other
   * service uses the folder: two writers would corrupt it. Default false.
   */
  readonly takeOverLock?: boolean;
}

/**
 * A Repository kept in a JSON snapshot plus an append-only journal. Reads are served from memory.
 * A transaction appends one journal line (group-committed with concurrent ones), so its cost does
 * not grow with the data; the journal is folded into the snapshot in the background and at close.
 * One process at a time may open a data file: a second one fails naming the holder.
 */
export async function createJsonFileRepository(options: JsonFileRepositoryOptions): Promise<Repository> {
  const file = path.resolve(options.file);
  const folder = path.dirname(file);
  const logger = options.logger ?? console;
  const durable = (options.durability ?? 'fsync') === 'fsync';
  const compactAfterBytes = options.compactAfterBytes ?? 64 * 1024 * 1024;
  // Only its owner may enter: the folder holds people's conversations.
  await mkdir(folder, { recursive: true, mode: 0o700 });
  const lock = await acquireFolderLock(`${file}.lock`, folder, { takeOver: options.takeOverLock ?? false });

  let tables: RecordTables;
  let seq: number;
  let snapshotSeq: number;
  // The journal file the snapshot on disk names as its continuation: files before it are all in
  // the snapshot. When that snapshot becomes the backup (`db.json.bak`), the files from here on
  // are what the backup needs to be whole, so only earlier ones are deleted.
  let snapshotJournal: number | undefined;
  let journalIndex: number;
  let writer: JournalWriter;
  // The journal writer once open, so that a failure after it closes it again.
  let opened: JournalWriter | undefined;
  // Lowdb holds the snapshot: its adapter streams, flushes and renames it into place.
  const snapshot = new Low<SnapshotData>(new SnapshotFile(file, `${file}.bak`), emptySnapshot());
  try {
    const loaded = await loadSnapshot(snapshot, file);
    tables = loaded.tables;
    seq = snapshotSeq = loaded.journalSeq;
    snapshotJournal = loaded.journal;
    const journals = await listJournals(file);
    const present = new Set(journals.map((journal) => journal.index));
    const requireJournal = (index: number, namedBy: string) => {
      if (present.has(index)) return;
      const missing = journalPath(file, index);
      throw new Error(
        `The journal ${missing} is missing: ${namedBy} says the writes after it go on there. Nothing was changed. ` +
          'If it was deleted by mistake, put it back (from a backup of this folder) and start again; if it is gone for good, ' +
          'create it as an empty file to start from what is left, without the writes it held.',
      );
    };
    if (loaded.journal !== undefined) requireJournal(loaded.journal, `the snapshot ${loaded.source}`);
    // A torn record can end only the last file with records in it: the files after it are empty.
    const sizes = await Promise.all(journals.map((journal) => sizeOf(journal.path)));
    const lastWithRecords = sizes.findLastIndex((size) => size > 0);
    for (const [i, journal] of journals.entries()) {
      const contents = await readJournal(journal.path, i >= lastWithRecords);
      if (contents.tornAt) {
        logger.warn(
          `Discarded a torn record at the end of ${journal.path} (line ${contents.tornAt.line}, byte ${contents.tornAt.offset}): ` +
            'a write cut short by a crash, never acknowledged.',
        );
      }
      if (contents.continuedIn !== undefined) requireJournal(contents.continuedIn, `the last line of ${journal.path}`);
      for (const entry of contents.entries) {
        if (entry.seq <= seq) continue;
        if (entry.seq !== seq + 1) {
          throw new Error(`The journal ${journal.path} skips from entry ${seq} to ${entry.seq}: entries are missing. Nothing was changed.`);
        }
        applyChanges(
          tables,
          entry.changes.map((change) => replayed(tables, change, entry.version ?? 2, journal.path, entry.seq)),
        );
        seq = entry.seq;
      }
    }
    // Writes go on in the last file (each file's lines are whole now), or a first one.
    journalIndex = journals.at(-1)?.index ?? 1;
    writer = opened = await JournalWriter.open(journalPath(file, journalIndex), durable);
    // A new store names its first journal file in a snapshot at once: from then on, no journal
    // file can go missing unnoticed.
    if (loaded.source === undefined && journals.length === 0) {
      snapshot.data = { ...emptySnapshot(), journal: journalIndex };
      await snapshot.write();
      snapshot.data = emptySnapshot();
      snapshotJournal = journalIndex;
    }
  } catch (error) {
    await opened?.close().catch(() => undefined);
    await lock.release();
    throw error;
  }

  let compaction: Promise<void> | undefined;
  let closed = false;
  const usable = () => {
    if (writer.failed) {
      throw new Error(`The journal of ${file} cannot be written (${(writer.failed as Error).message}); restart to reopen the data.`, {
        cause: writer.failed,
      });
    }
    if (closed) throw new Error(`The repository ${file} is closed.`);
  };
  // Transactions applied in memory whose journal lines are not on disk yet, oldest first, with
  // the records they replaced: a failed write undoes them, so memory holds what the disk holds.
  const unsettled: { seq: number; before: Change[] }[] = [];
  const rollBack = () => {
    for (const { before } of unsettled.toReversed()) applyChanges(tables, before);
    if (unsettled[0]) seq = unsettled[0].seq - 1;
    unsettled.length = 0;
  };
  writer.onFailure = rollBack;
  let snapshotBytes = await sizeOf(file);

  /** Writes a snapshot of everything committed so far and drops the journals it makes redundant. */
  function compact(): Promise<void> {
    compaction ??= foldJournal();
    return compaction;
  }

  async function foldJournal(): Promise<void> {
    try {
      const foldedSeq = seq;
      const nextIndex = journalIndex + 1;
      snapshot.data = { ...captureSnapshot(tables, foldedSeq), journal: nextIndex };
      // Queued behind every line appended so far: it resolves once they are all on disk, so the
      // snapshot captured above holds only what the disk holds (if one fails, this rejects).
      await writer.rotate(journalPath(file, nextIndex), nextIndex);
      journalIndex = nextIndex;
      // The snapshot being replaced becomes the backup: the journals from the one it names on must stay.
      const backupJournal = snapshotJournal;
      await snapshot.write();
      snapshotSeq = foldedSeq;
      snapshotJournal = nextIndex;
      snapshotBytes = await sizeOf(file);
      for (const journal of await listJournals(file)) {
        if (backupJournal !== undefined && journal.index < backupJournal) await unlink(journal.path);
      }
    } catch (error) {
      // The journals are kept, so nothing is lost; the next compaction tries again.
      logger.warn(`Could not write the snapshot ${file}: ${(error as Error).message}`);
    } finally {
      // Let go of the captured records, written or not.
      snapshot.data = emptySnapshot();
      compaction = undefined;
    }
  }

  // Journals left by a crash are folded now, so they do not pile up.
  if (seq > snapshotSeq) void compact();

  return {
    async read(fn) {
      return fn(createReadView(tables));
    },
    async transact(fn) {
      usable();
      // The transaction's own time counts in the first slice of encoding its journal line.
      const slices = new Slices();
      const { result, changes } = runBuffered(tables, fn);
      if (changes.length === 0) return result;
      const before = changes.map(({ collection, id }) => ({
        collection,
        id,
        record: (tables[collection].get(id) as object | undefined) ?? null,
      }));
      applyChanges(tables, changes);
      const entrySeq = (seq += 1);
      unsettled.push({ seq: entrySeq, before });
      try {
        // Encoded a slice at a time, the changes turned into journal changes as they are taken.
        await writer.append(
          encodeEntryInSlices({ seq: entrySeq, version: JSON_FILE_FORMAT_VERSION, changes: journalChanges(changes, before) }, slices),
        );
      } catch (error) {
        // Undone already if the writer failed mid-batch; if it had stopped before, undone here.
        rollBack();
        const message = `The journal of ${file} could not be written (${(error as Error).message}); nothing of this write was kept.`;
        // A full disk is the user's to fix, not a bug: it has a code of its own (507 over HTTP).
        if (isNoSpaceError(error)) throw new ServiceError('INSUFFICIENT_STORAGE', `The disk is full. ${message}`, {}, { cause: error });
        throw new Error(message, { cause: error });
      }
      const settled = unsettled.findIndex((entry) => entry.seq === entrySeq);
      if (settled !== -1) unsettled.splice(0, settled + 1);
      if (writer.bytes > Math.max(compactAfterBytes, snapshotBytes)) void compact();
      return result;
    },
    async close() {
      if (closed) return;
      closed = true;
      await compaction;
      // After the writer stopped for good, what is on disk stays as it is.
      if (!writer.failed && seq > snapshotSeq) await compact();
      // The last journal file stays, even empty: the snapshot names it, and the next start writes to it.
      await writer.close();
      await lock.release();
    },
  };
}

/** The journal's form of a transaction's changes, one at a time: a patch where a record was changed, else the record. */
function* journalChanges(changes: readonly Change[], before: readonly Change[]): Generator<JournalChange> {
  for (let i = 0; i < changes.length; i++) {
    const change = changes[i]!;
    const previous = before[i]!.record;
    if (change.record === null || previous === null) yield [change.collection, change.id, change.record];
    else
      yield [
        change.collection,
        change.id,
        diffRecord(previous as Record<string, unknown>, change.record as Record<string, unknown>),
        'patch',
      ];
  }
}

/** A journal change as a change of the tables: a record migrated from its version, or a patch applied and checked. */
function replayed(tables: RecordTables, change: JournalChange, version: number, journal: string, seq: number): Change {
  const [collection, id, value] = change;
  if (change[3] !== 'patch') return { collection, id, record: value && migrateRecord(collection, value as object, version) };
  const current = tables[collection].get(id);
  if (!current)
    throw new Error(
      `The journal ${journal} (entry ${seq}) changes the ${collection} record "${id}", which does not exist. Nothing was changed; see the README on recovery.`,
    );
  const record = applyPatch(current as unknown as Record<string, unknown>, value as RecordPatch);
  const problem = recordProblem(collection, record);
  if (problem)
    throw new Error(`The journal ${journal} (entry ${seq}): once changed, ${problem}. Nothing was changed; see the README on recovery.`);
  return { collection, id, record };
}

const sizeOf = (file: string) =>
  stat(file).then(
    (stats) => stats.size,
    () => 0,
  );

const emptySnapshot = (): SnapshotData => ({ version: JSON_FILE_FORMAT_VERSION, journalSeq: 0 });

/**
 * The snapshot's records, the last journal entry it holds, the journal file that continues it, and
 * the file it came from (none for a new store).
 */
async function loadSnapshot(
  snapshot: Low<SnapshotData>,
  file: string,
): Promise<{ tables: RecordTables; journalSeq: number; journal?: number; source?: string }> {
  const none = snapshot.data;
  let source = file;
  await snapshot.read();
  // No snapshot but a backup: a crash came between the two renames of a snapshot write.
  if (snapshot.data === none) {
    source = `${file}.bak`;
    snapshot.data = (await new SnapshotFile(source).read()) ?? none;
  }
  // No file at all: a new store, with nothing to check.
  if (snapshot.data === none) return { tables: createRecordTables(), journalSeq: 0 };
  const data = migrate(snapshot.data, file);
  const tables = createRecordTables();
  for (const name of COLLECTION_NAMES) {
    const table = tables[name] as Map<string, object>;
    for (const record of data[name] ?? []) table.set((record as { id: string }).id, record);
  }
  snapshot.data = emptySnapshot();
  return { tables, journalSeq: data.journalSeq, journal: data.journal, source };
}

/** The committed records as they are now; records are immutable, so references suffice. */
function captureSnapshot(tables: RecordTables, journalSeq: number): SnapshotData {
  const data: Record<string, unknown> = { version: JSON_FILE_FORMAT_VERSION, journalSeq };
  for (const name of COLLECTION_NAMES) data[name] = [...tables[name].values()];
  return data as SnapshotData;
}

const journalPath = (file: string, index: number) => `${file}.journal-${String(index).padStart(6, '0')}`;

async function listJournals(file: string): Promise<{ path: string; index: number }[]> {
  const prefix = `${path.basename(file)}.journal-`;
  const names = await readdir(path.dirname(file));
  return names
    .filter((name) => name.startsWith(prefix) && /^\d+$/.test(name.slice(prefix.length)))
    .map((name) => ({ path: path.join(path.dirname(file), name), index: Number(name.slice(prefix.length)) }))
    .sort((a, b) => a.index - b.index);
}
