import { randomUUID } from 'node:crypto';
import { mkdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { Low } from 'lowdb';
import type { RecordChange } from '../../ports.js';
import { COLLECTION_NAMES, type MessageRecord } from '../../records.js';
import { recordProblem } from '../record-checks.js';
import { RecordTables } from '../record-tables.js';
import { checkFolderEntries } from './folder-entries.js';
import { acquireFolderLock, type FolderLock } from './folder-lock.js';
import { loadHint } from './hint-load.js';
import { type JournalChange, JournalWriter, readJournal } from './journal.js';
import { journalPath, listNumbered } from './message-files.js';
import { MessageStore } from './message-store.js';
import { JSON_FILE_FORMAT_VERSION, migrate, migrateRecord } from './migrations.js';
import { applyPatch, type RecordPatch } from './record-patch.js';
import { SearchFile } from './search-file.js';
import { type SnapshotData, SnapshotFile } from './snapshot.js';

/**
 * Which files hold the store, as the last snapshot on disk names them: what a compaction writes
 * anew and what it may delete. Changed only by a compaction (and by the open that reads them).
 */
export interface StoreFiles {
  /** The last journal entry the snapshot on disk holds. */
  snapshotSeq: number;
  /**
   * The journal file the snapshot on disk names as its continuation: files before it are all in
   * the snapshot. When that snapshot becomes the backup (`db.json.bak`), the files from here on
   * are what the backup needs to be whole, so only earlier ones are deleted.
   */
  snapshotJournal: number | undefined;
  /** The message files the snapshot's hint points into, and those of the backup's hint: both stay. */
  messageFiles: readonly number[];
  backupMessageFiles: readonly number[];
  /** The hint file of the snapshot on disk (none before the first compaction). */
  hint: number | undefined;
  /** The journal file writes go to now. */
  journalIndex: number;
}

/** A data folder opened: its lock held, its records in memory, its journal replayed and open for appends. */
export interface OpenedStore {
  readonly lock: FolderLock;
  readonly tables: RecordTables;
  readonly messages: MessageStore;
  /** Lowdb holds the snapshot: its adapter streams, flushes and renames it into place. */
  readonly snapshot: Low<SnapshotData>;
  readonly writer: JournalWriter;
  /** The full-text index as the last compaction left it, brought up to the journal's end as replayed. */
  readonly searchFile: SearchFile | undefined;
  /** The store's id (see SnapshotData.store): one of a store made before ids were written is made now. */
  readonly storeId: string;
  /** True when that id is new, and must reach the disk at the next compaction. */
  readonly idIsNew: boolean;
  /** The last journal entry applied. */
  readonly seq: number;
  readonly files: StoreFiles;
  /**
   * A store of an older version (messages still in the snapshot, or without checksums): migrated
   * by a compaction before open answers.
   */
  readonly migrating: boolean;
}

/**
 * Opens the data folder of `file`: takes its lock, checks its entries, loads the snapshot and the
 * hint into memory, replays the journals after the snapshot, and opens the last journal for
 * appends. Whatever fails leaves the folder as it was and its lock released.
 */
export async function openStore(
  file: string,
  options: { durable: boolean; logger: { warn(message: string): void }; takeOverLock: boolean; searchIndex: boolean },
): Promise<OpenedStore> {
  const folder = path.dirname(file);
  const { logger } = options;
  const warn = (message: string) => logger.warn(message);
  // Only its owner may enter: the folder holds people's conversations.
  await mkdir(folder, { recursive: true, mode: 0o700 });
  const lock = await acquireFolderLock(`${file}.lock`, folder, { takeOver: options.takeOverLock });
  try {
    await checkFolderEntries(file, warn);
  } catch (error) {
    await lock.release();
    throw error;
  }

  const tables = new RecordTables();
  const messages = new MessageStore(file, logger);
  const snapshot = new Low<SnapshotData>(new SnapshotFile(file, `${file}.bak`, warn), emptySnapshot());
  // The journal writer once open, so that a failure after it closes it again.
  let opened: JournalWriter | undefined;
  try {
    const loaded = await loadSnapshot(snapshot, file, tables, messages);
    let seq = loaded.journalSeq;
    const storeId = loaded.store ?? randomUUID();
    const files: StoreFiles = {
      snapshotSeq: loaded.journalSeq,
      snapshotJournal: loaded.journal,
      messageFiles: [],
      backupMessageFiles: [],
      hint: loaded.hint,
      journalIndex: 1,
    };
    if (loaded.hint !== undefined) {
      ({ messageFiles: files.messageFiles, backupMessageFiles: files.backupMessageFiles } = await loadHint(
        file,
        loaded.hint,
        loaded.version,
        loaded.journalSeq,
        tables.rows('conversations'),
        messages,
      ));
    }
    // The search index as the last compaction left it: read in the background once the store is
    // open, and brought up to date with the journal entries after what it covers, kept as replayed.
    const searchFile = options.searchIndex ? await SearchFile.prepare(`${file}.search`, files.snapshotSeq, storeId) : undefined;
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
      // Files before the one the snapshot names are all in it (kept for the backup): not read.
      if (loaded.journal !== undefined && journal.index < loaded.journal) continue;
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
        const changes = entry.changes.map((change) => replayed(tables, messages, change, entry.version ?? 2, journal.path, entry.seq));
        applyChanges(tables, messages, changes, entry.seq);
        searchFile?.replayed(entry.seq, changes);
        seq = entry.seq;
      }
    }
    // Writes go on in the last file (each file's lines are whole now), or a first one.
    files.journalIndex = journals.at(-1)?.index ?? 1;
    const writer = (opened = await JournalWriter.open(journalPath(file, files.journalIndex), options.durable, files.journalIndex, warn));
    // A new store names its first journal file in a snapshot at once: from then on, no journal
    // file can go missing unnoticed.
    if (loaded.source === undefined && journals.length === 0) {
      snapshot.data = { ...emptySnapshot(), journal: files.journalIndex, store: storeId };
      await snapshot.write();
      snapshot.data = emptySnapshot();
      files.snapshotJournal = files.journalIndex;
    }
    return {
      lock,
      tables,
      messages,
      snapshot,
      writer,
      searchFile,
      storeId,
      idIsNew: loaded.store === undefined && loaded.source !== undefined,
      seq,
      files,
      migrating: loaded.migrating,
    };
  } catch (error) {
    await opened?.close().catch(() => undefined);
    messages.reader.close();
    await lock.release();
    throw error;
  }
}

/** Applies committed changes: records to the tables, messages held until they are addressed on disk. */
export function applyChanges(tables: RecordTables, messages: MessageStore, changes: readonly RecordChange[], seq: number): void {
  for (const { collection, id, record } of changes) {
    if (collection === 'messages') messages.hold(id, record as MessageRecord | null, seq);
    else tables.set(collection, id, record);
  }
}

/** A journal change as a change of the store: a record migrated from its version, or a patch applied and checked. */
function replayed(
  tables: RecordTables,
  messages: MessageStore,
  change: JournalChange,
  version: number,
  journal: string,
  seq: number,
): RecordChange {
  const [collection, id, value] = change;
  if (change[3] !== 'patch') return { collection, id, record: value && migrateRecord(collection, value as object, version) };
  const current = collection === 'messages' ? messages.current(id) : tables.rows(collection).get(id)?.record;
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

/** A snapshot holding nothing, of this format. */
export const emptySnapshot = (): SnapshotData => ({ version: JSON_FILE_FORMAT_VERSION, journalSeq: 0 });

/**
 * Loads the snapshot's records into `tables` (and, from a store of version 4, its messages into
 * `messages`, until they are moved out). Answers the last journal entry it holds, the journal
 * file and the hint file it names, the file it came from (none for a new store), and whether it
 * still holds messages.
 */
async function loadSnapshot(
  snapshot: Low<SnapshotData>,
  file: string,
  tables: RecordTables,
  messages: MessageStore,
): Promise<{ version: number; journalSeq: number; journal?: number; hint?: number; store?: string; source?: string; migrating: boolean }> {
  const none = snapshot.data;
  let source = file;
  await snapshot.read();
  // No snapshot but a backup: a crash came between the two renames of a snapshot write.
  if (snapshot.data === none) {
    source = `${file}.bak`;
    snapshot.data = (await new SnapshotFile(source).read()) ?? none;
  }
  // No file at all: a new store, with nothing to check.
  if (snapshot.data === none) return { version: JSON_FILE_FORMAT_VERSION, journalSeq: 0, migrating: false };
  const from = snapshot.data.version;
  const data = migrate(snapshot.data, file);
  for (const name of COLLECTION_NAMES) {
    for (const record of data[name] ?? []) {
      const id = (record as { id: string }).id;
      if (name === 'messages') messages.hold(id, record as MessageRecord, 0);
      else tables.set(name, id, withSharedEmptyLists(record));
    }
  }
  snapshot.data = emptySnapshot();
  return {
    version: from,
    journalSeq: data.journalSeq,
    journal: data.journal,
    hint: data.hint,
    ...(typeof data.store === 'string' && STORE_ID.test(data.store) ? { store: data.store } : {}),
    source,
    migrating: from < JSON_FILE_FORMAT_VERSION,
  };
}

/** What a store id may be (a snapshot edited by hand may hold anything). */
const STORE_ID = /^[\w-]{1,64}$/;

const EMPTY_LIST: readonly never[] = Object.freeze([]);

/**
 * The record with its empty lists replaced by one shared frozen list: a conversation has up to
 * seven link lists, mostly empty, and at 50,000 conversations their separate empty arrays would
 * cost 10 MiB. Records are immutable, so sharing is safe.
 */
function withSharedEmptyLists(record: object): object {
  const fields = record as Record<string, unknown>;
  for (const key in fields) {
    const value = fields[key];
    if (Array.isArray(value) && value.length === 0) fields[key] = EMPTY_LIST;
  }
  return record;
}

/** The journal files of `file`, by index. */
export function listJournals(file: string): Promise<{ path: string; index: number }[]> {
  return listNumbered(file, 'journal');
}

/** The size of `file`, or `missing` when it is not there. */
export const sizeOf = (file: string, missing = 0): Promise<number> =>
  stat(file).then(
    (stats) => stats.size,
    () => missing,
  );
