import { randomUUID } from 'node:crypto';
import { mkdir, rm, stat, unlink } from 'node:fs/promises';
import path from 'node:path';
import { Low } from 'lowdb';
import { isNoSpaceError, ServiceError } from '../../errors.js';
import type { ReadView, RecordChange, Repository } from '../../ports.js';
import { COLLECTION_NAMES, type CollectionName, type ConversationRecord, type MessageRecord } from '../../records.js';
import { Slices } from '../../slices.js';
import { bufferedTransaction, TransactionQueue } from '../buffered-transaction.js';
import { ChangeEmitter } from '../change-emitter.js';
import { recordProblem } from '../record-checks.js';
import { pageOfRows, RecordTables } from '../record-tables.js';
import { Backoff } from './backoff.js';
import { backupStoreFiles } from './backup.js';
import { writeMessageFiles } from './compaction.js';
import { CompactionGate } from './compaction-gate.js';
import { checkFolderEntries } from './folder-entries.js';
import { acquireFolderLock } from './folder-lock.js';
import { loadHint } from './hint-load.js';
import { encodeEntryInSlices, type JournalChange, JournalWriter, type RecordSpan, readJournal } from './journal.js';
import { hintPath, journalPath, listNumbered, messageFilePath } from './message-files.js';
import { MessageStore } from './message-store.js';
import { JSON_FILE_FORMAT_VERSION, migrate, migrateRecord } from './migrations.js';
import { applyPatch, diffRecord, type RecordPatch } from './record-patch.js';
import { SearchFile } from './search-file.js';
import { readSnapshotHint, type SnapshotData, SnapshotFile } from './snapshot.js';
import { StoreCheck } from './store-check.js';

export { JSON_FILE_FORMAT_VERSION };

export interface JsonFileRepositoryOptions {
  /**
   * Path of the snapshot, a JSON file a person can read. Beside it live the journal
   * (`<file>.journal-<n>`), the message files (`<file>.messages-<n>`) and the hint files that
   * say where each message is (`<file>.hint-<n>`), the previous snapshot (`<file>.bak`) and the
   * lock (`<file>.lock`).
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
  /**
   * Keep a full-text index of messages, names and annotations (`<file>.search`), updated in every
   * write and saved at each compaction. Default true. Without it the service builds one in memory
   * at the first search, by reading every record.
   */
  readonly searchIndex?: boolean;
}

/**
 * A Repository kept in a JSON snapshot, an append-only journal and message files. Conversations,
 * their links and the other small records are held in memory; messages stay on disk, found
 * through an index of where each one is (the keydir), and are read when asked for. A transaction
 * appends one journal line (group-committed with concurrent ones), so its cost does not grow with
 * the data; the journal is folded into the snapshot, and its messages copied into a message file,
 * in the background and at close. One process at a time may open a data file: a second one fails
 * naming the holder.
 */
export async function createJsonFileRepository(options: JsonFileRepositoryOptions): Promise<Repository> {
  const file = path.resolve(options.file);
  const folder = path.dirname(file);
  const logger = options.logger ?? console;
  const warn = (message: string) => logger.warn(message);
  const durable = (options.durability ?? 'fsync') === 'fsync';
  const compactAfterBytes = options.compactAfterBytes ?? 64 * 1024 * 1024;
  // Only its owner may enter: the folder holds people's conversations.
  await mkdir(folder, { recursive: true, mode: 0o700 });
  const lock = await acquireFolderLock(`${file}.lock`, folder, { takeOver: options.takeOverLock ?? false });
  try {
    await checkFolderEntries(file, warn);
  } catch (error) {
    await lock.release();
    throw error;
  }

  const tables = new RecordTables();
  // The full-text index of messages, names and annotations, saved beside the snapshot at each compaction.
  let searchFile: SearchFile | undefined;
  const messages = new MessageStore(file, logger);
  let seq: number;
  let snapshotSeq: number;
  // The store's id (see SnapshotData.store): one of a store made before ids were written is made now.
  let storeId: string;
  let idIsNew = false;
  // The journal file the snapshot on disk names as its continuation: files before it are all in
  // the snapshot. When that snapshot becomes the backup (`db.json.bak`), the files from here on
  // are what the backup needs to be whole, so only earlier ones are deleted.
  let snapshotJournal: number | undefined;
  // The message files the snapshot's hint points into, and those of the backup's hint: both stay.
  let messageFiles: readonly number[] = [];
  let backupMessageFiles: readonly number[] = [];
  let hint: number | undefined;
  let journalIndex: number;
  let writer: JournalWriter;
  // The journal writer once open, so that a failure after it closes it again.
  let opened: JournalWriter | undefined;
  // A store of an older version (messages still in the snapshot, or without checksums): migrated by
  // a compaction before open answers.
  let migrating = false;
  // Lowdb holds the snapshot: its adapter streams, flushes and renames it into place.
  const snapshot = new Low<SnapshotData>(new SnapshotFile(file, `${file}.bak`, warn), emptySnapshot());
  try {
    const loaded = await loadSnapshot(snapshot, file, tables, messages);
    migrating = loaded.migrating;
    seq = snapshotSeq = loaded.journalSeq;
    storeId = loaded.store ?? randomUUID();
    idIsNew = loaded.store === undefined && loaded.source !== undefined;
    snapshotJournal = loaded.journal;
    hint = loaded.hint;
    if (hint !== undefined) {
      ({ messageFiles, backupMessageFiles } = await loadHint(
        file,
        hint,
        loaded.version,
        loaded.journalSeq,
        tables.rows('conversations'),
        messages,
      ));
    }
    // The search index as the last compaction left it: read in the background once the store is
    // open, and brought up to date with the journal entries after what it covers, kept as replayed.
    if (options.searchIndex ?? true) searchFile = await SearchFile.prepare(`${file}.search`, snapshotSeq, storeId);
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
        apply(tables, messages, changes, entry.seq);
        searchFile?.replayed(entry.seq, changes);
        seq = entry.seq;
      }
    }
    // Writes go on in the last file (each file's lines are whole now), or a first one.
    journalIndex = journals.at(-1)?.index ?? 1;
    writer = opened = await JournalWriter.open(journalPath(file, journalIndex), durable, journalIndex, warn);
    // A new store names its first journal file in a snapshot at once: from then on, no journal
    // file can go missing unnoticed.
    if (loaded.source === undefined && journals.length === 0) {
      snapshot.data = { ...emptySnapshot(), journal: journalIndex, store: storeId };
      await snapshot.write();
      snapshot.data = emptySnapshot();
      snapshotJournal = journalIndex;
    }
  } catch (error) {
    await opened?.close().catch(() => undefined);
    messages.reader.close();
    await lock.release();
    throw error;
  }

  let compaction: Promise<void> | undefined;
  // Holds compactions off while a backup copies the files they would rewrite or remove.
  const gate = new CompactionGate();
  // Compactions that succeeded: a migration is done once one has.
  let compactions = 0;
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
  const unsettled: { seq: number; before: RecordChange[] }[] = [];
  // Counts roll-backs: a transaction whose function was running when one came may have read what
  // was undone, so it runs again.
  // Every write, once on disk: what indexes beside the records follow (Repository.changes). Local:
  // this process alone writes, and delivers each write before its transact resolves.
  const feed = new ChangeEmitter((error) => logger.warn(`A change feed listener failed: ${(error as Error)?.message ?? error}`), {
    local: true,
  });
  let rollBacks = 0;
  const rollBack = () => {
    rollBacks++;
    for (const { before } of unsettled.toReversed()) for (const { collection, id, record } of before) tables.set(collection, id, record);
    if (unsettled[0]) {
      messages.rollBack(unsettled[0].seq);
      seq = unsettled[0].seq - 1;
    }
    unsettled.length = 0;
    // Reads saw those writes (they are applied before their journal line is on disk).
    feed.undone();
  };
  writer.onFailure = rollBack;
  let snapshotBytes = (await sizeOf(file)) + (hint === undefined ? 0 : await sizeOf(hintPath(file, hint)));

  // After a failed compaction (a full disk, say), the writes that would start another wait a while,
  // longer after each failure: one try per write would fill the disk with attempts and the log with
  // their warnings. A start, a migration and a close try at once.
  const retry = new Backoff();

  /** Writes a snapshot of everything committed so far and drops the files it makes redundant. */
  function compact(): Promise<void> {
    compaction ??= gate.run(foldJournal).finally(() => {
      compaction = undefined;
    });
    return compaction;
  }

  async function foldJournal(): Promise<void> {
    // Files this compaction made, removed again if it fails before the snapshot names them.
    let made: string[] = [];
    try {
      const foldedSeq = seq;
      const nextIndex = journalIndex + 1;
      const captured = captureSnapshot(tables, foldedSeq);
      snapshot.data = { ...captured, journal: nextIndex, hint: nextIndex, store: storeId };
      const conversations = (captured.conversations ?? []) as ConversationRecord[];
      const plan = messages.capture(conversations);
      // Queued behind every line appended so far: it resolves once they are all on disk, so the
      // snapshot captured above holds only what the disk holds (if one fails, this rejects).
      await writer.rotate(journalPath(file, nextIndex), nextIndex);
      journalIndex = nextIndex;
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
        messageFiles,
        warn,
        computeChecksums,
      );
      // The snapshot being replaced becomes the backup: the journals from the one it names on must stay.
      const backupJournal = snapshotJournal;
      const previousHint = hint;
      // Before the snapshot: an index that covers the journal entries the snapshot folds.
      await searchFile?.save(foldedSeq, logger);
      await snapshot.write().catch(async (error: unknown) => {
        // Renamed into place but not flushed (the folder's flush failed): the snapshot on disk names
        // the new files, which must then stay.
        if ((await readSnapshotHint(file)) === nextIndex) made = [];
        throw error;
      });
      made = [];
      retry.succeeded();
      for (const [message, to] of written.moved) messages.moved(message, to);
      if (computeChecksums) messages.checksumsKnown();
      compactions++;
      snapshotSeq = foldedSeq;
      snapshotJournal = nextIndex;
      backupMessageFiles = messageFiles;
      messageFiles = written.messageFiles;
      hint = nextIndex;
      snapshotBytes = (await sizeOf(file)) + written.hintBytes;
      await removeUnneeded(file, messages, {
        journalsBefore: backupJournal,
        messageFiles: new Set([...messageFiles, ...backupMessageFiles]),
        hints: new Set([nextIndex, previousHint].filter((index) => index !== undefined)),
      });
    } catch (error) {
      // The journals are kept, so nothing is lost; a later compaction tries again.
      // (Not read yet: the keydir points into them only once the snapshot is written.)
      for (const partial of made) await rm(partial, { force: true }).catch(() => undefined);
      retry.failed();
      logger.warn(`Could not write the snapshot ${file}: ${(error as Error).message} (tried again ${retry.describe()}).`);
    } finally {
      // Let go of the captured records, written or not.
      snapshot.data = emptySnapshot();
    }
  }

  const view: ReadView = {
    get: async (collection, id) => (collection === 'messages' ? messages.getMany([id])[0] : tables.get(collection, id)) as never,
    getMany: async (collection, ids) =>
      (collection === 'messages' ? messages.getManyInSlices(ids) : ids.map((id) => tables.get(collection, id))) as never,
    list: async (collection, page) =>
      (collection === 'messages' ? messages.list(page) : pageOfRows(tables.rows(collection), page)) as never,
    count: async (collection) => (collection === 'messages' ? messages.count() : tables.rows(collection).size),
    versions: async (collection, ids) => {
      if (collection === 'messages') return messages.versions(ids);
      const rows = tables.rows(collection);
      return ids.map((id) => rows.get(id)?.version);
    },
  };
  // The search index, read or built in the background: the store answers meanwhile (searches wait).
  const search = searchFile?.open(seq, {
    view,
    rollBacks: () => rollBacks,
    closed: () => closed,
    counts: () => ({
      messages: messages.count(),
      conversations: tables.rows('conversations').size,
      annotations: tables.rows('annotations').size,
    }),
    logger,
  });

  // A store of an older version is migrated now, once, by a compaction: the messages of version 4
  // go to a message file; those of version 5 get their checksums (every one is read); its
  // snapshot stays as the backup until the next compaction.
  if (migrating) {
    await compact();
    if (compactions === 0) {
      await close();
      throw new Error(`Could not migrate ${file} to version ${JSON_FILE_FORMAT_VERSION} (see the warning above); it was left as it was.`);
    }
  }
  // Journals left by a crash are folded now, so they do not pile up; a store made before ids
  // were written gets its id on disk at once, or its search index would not be trusted next time.
  else if (seq > snapshotSeq || idIsNew) void compact();

  // Every message read and held to its checksum, in the background: damage is found and said now,
  // not when someone reads it.
  const check = new StoreCheck(messages, logger);

  const queue = new TransactionQueue();

  async function close(): Promise<void> {
    if (closed) return;
    closed = true;
    // A backup under way copies the files to the end before they close (and before a compaction).
    await gate.idle();
    await compaction;
    // After the writer stopped for good, what is on disk stays as it is.
    if (!writer.failed && seq > snapshotSeq) await compact();
    // The last journal file stays, even empty: the snapshot names it, and the next start writes to it.
    await writer.close();
    // A build of the index still reading messages finishes before their files close, and so does the check.
    await searchFile?.settled();
    await check.stop();
    messages.reader.close();
    await lock.release();
  }

  return {
    async read(fn) {
      return fn(view);
    },
    ...(search ? { search } : {}),
    changes: feed,
    health: () => ({ check: check.progress, damaged: messages.damage.files() }),
    async transact(fn) {
      const applied = await queue.run(async () => {
        usable();
        // The transaction's own time counts in the first slice of encoding its journal line.
        const slices = new Slices();
        let { tx, changes: written } = bufferedTransaction(view);
        let started = rollBacks;
        let result = await fn(tx);
        for (let attempt = 1; rollBacks !== started; attempt++) {
          if (attempt === 3) throw new Error(`Writes to ${file} keep failing; this transaction was not stored.`);
          ({ tx, changes: written } = bufferedTransaction(view));
          started = rollBacks;
          result = await fn(tx);
        }
        usable();
        const changes = written();
        if (changes.length === 0) return { result };
        const entrySeq = (seq += 1);
        const before = changes.map(({ collection, id }) => ({
          collection,
          id,
          record: collection === 'messages' ? null : ((tables.rows(collection).get(id)?.record as object | undefined) ?? null),
        }));
        apply(tables, messages, changes, entrySeq);
        unsettled.push({ seq: entrySeq, before: before.filter((change) => change.collection !== 'messages') });
        const spans: RecordSpan[] = [];
        // Encoded a slice at a time, the changes turned into journal changes as they are taken.
        const line = encodeEntryInSlices(
          { seq: entrySeq, version: JSON_FILE_FORMAT_VERSION, changes: journalChanges(changes, before) },
          slices,
          spans,
        );
        return { result, entrySeq, changes, spans, stored: writer.append(line) };
      });
      if (!applied.stored) return applied.result;
      const { entrySeq, changes, spans } = applied;
      let at;
      try {
        at = await applied.stored;
      } catch (error) {
        // Undone already if the writer failed mid-batch; if it had stopped before, undone here.
        rollBack();
        const message = `The journal of ${file} could not be written (${(error as Error).message}); nothing of this write was kept.`;
        // A full disk is the user's to fix, not a bug: it has a code of its own (507 over HTTP).
        if (isNoSpaceError(error)) throw new ServiceError('INSUFFICIENT_STORAGE', `The disk is full. ${message}`, {}, { cause: error });
        throw new Error(message, { cause: error });
      }
      // On disk: nothing of it may be undone by a later write's failure.
      const settled = unsettled.findIndex((entry) => entry.seq === entrySeq);
      if (settled !== -1) unsettled.splice(0, settled + 1);
      // Searchable from the moment the write is acknowledged, never before it is on disk.
      searchFile?.apply(changes, logger);
      feed.emit(changes);
      const messageIds = changes.filter((change) => change.collection === 'messages').map((change) => change.id);
      if (messageIds.length > 0) await messages.settle(entrySeq, messageIds, at, spans);
      if (writer.bytes > Math.max(compactAfterBytes, snapshotBytes) && retry.due()) void compact();
      return applied.result;
    },
    async backup(folder) {
      usable();
      return backupStoreFiles(
        {
          file,
          hold: () => gate.hold(),
          journal: () => ({ index: writer.index, bytes: writer.bytes }),
          searchIndexCurrent: () => searchFile?.fileIsCurrent ?? false,
        },
        folder,
      );
    },
    close,
  };
}

/** Applies committed changes: records to the tables, messages held until they are addressed on disk. */
function apply(tables: RecordTables, messages: MessageStore, changes: readonly RecordChange[], seq: number): void {
  for (const { collection, id, record } of changes) {
    if (collection === 'messages') messages.hold(id, record as MessageRecord | null, seq);
    else tables.set(collection, id, record);
  }
}

/**
 * The journal's form of a transaction's changes, one at a time: a patch where a record was
 * changed, else the record. Messages are always written whole, so the keydir can address them in
 * the journal line.
 */
function* journalChanges(changes: readonly RecordChange[], before: readonly RecordChange[]): Generator<JournalChange> {
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

const sizeOf = (file: string, missing = 0) =>
  stat(file).then(
    (stats) => stats.size,
    () => missing,
  );

const emptySnapshot = (): SnapshotData => ({ version: JSON_FILE_FORMAT_VERSION, journalSeq: 0 });

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

/** The committed records (messages aside: they are on disk) as they are now; records are immutable, so references suffice. */
function captureSnapshot(tables: RecordTables, journalSeq: number): SnapshotData {
  const data: Record<string, unknown> = { version: JSON_FILE_FORMAT_VERSION, journalSeq };
  for (const name of COLLECTION_NAMES) {
    data[name] = name === 'messages' ? [] : Array.from(tables.rows(name as CollectionName).values(), (row) => row.record);
  }
  return data as SnapshotData;
}

async function listJournals(file: string): Promise<{ path: string; index: number }[]> {
  return listNumbered(file, 'journal');
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
