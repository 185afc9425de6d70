import path from 'node:path';
import type { ReadView, Repository } from '../../ports.js';
import { ChangeEmitter } from '../change-emitter.js';
import { pageOfRows } from '../record-tables.js';
import { backupStoreFiles } from './backup.js';
import { Committer } from './committer.js';
import { Compactor } from './compactor.js';
import { JSON_FILE_FORMAT_VERSION } from './migrations.js';
import { openStore } from './open-store.js';
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
   * `'fsync'` (default): a write resolves once it is flushed to disk (the journal is opened with
   * O_DSYNC; fdatasync after each write where the platform lacks the flag), shared by all
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
  const logger = options.logger ?? console;
  const store = await openStore(file, {
    durable: (options.durability ?? 'fsync') === 'fsync',
    logger,
    takeOverLock: options.takeOverLock ?? false,
    searchIndex: options.searchIndex ?? true,
  });
  const { tables, messages, writer, searchFile } = store;

  let closed = false;
  const usable = () => {
    if (writer.failed) {
      throw new Error(`The journal of ${file} cannot be written (${(writer.failed as Error).message}); restart to reopen the data.`, {
        cause: writer.failed,
      });
    }
    if (closed) throw new Error(`The repository ${file} is closed.`);
  };
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
  // Every write, once on disk: what indexes beside the records follow (Repository.changes). Local:
  // this process alone writes, and delivers each write before its transact resolves.
  const feed = new ChangeEmitter((error) => logger.warn(`A change feed listener failed: ${(error as Error)?.message ?? error}`), {
    local: true,
  });
  // Each needs the other: a compaction folds what was committed; a write may make one due.
  const compactor = await Compactor.create(file, store, () => committer.seq, options.compactAfterBytes ?? 64 * 1024 * 1024, logger);
  const committer = new Committer(file, store, view, feed, logger, usable, () => compactor.afterWrite());
  const files = store.files;

  // The search index, read or built in the background: the store answers meanwhile (searches wait).
  const search = searchFile?.open(committer.seq, {
    view,
    rollBacks: () => committer.rollBacks,
    closed: () => closed,
    counts: () => ({
      messages: messages.count(),
      conversations: tables.rows('conversations').size,
      annotations: tables.rows('annotations').size,
    }),
    logger,
  });

  // Every message read and held to its checksum, in the background: damage is found and said now,
  // not when someone reads it. Started once a migration is done (a failed one closes without it).
  let check: StoreCheck | undefined;

  // A store of an older version is migrated now, once, by a compaction: the messages of version 4
  // go to a message file; those of version 5 get their checksums (every one is read); its
  // snapshot stays as the backup until the next compaction.
  if (store.migrating) {
    await compactor.compact();
    if (compactor.succeeded === 0) {
      await close();
      throw new Error(`Could not migrate ${file} to version ${JSON_FILE_FORMAT_VERSION} (see the warning above); it was left as it was.`);
    }
  }
  // Journals left by a crash are folded now, so they do not pile up; a store made before ids
  // were written gets its id on disk at once, or its search index would not be trusted next time.
  else if (committer.seq > files.snapshotSeq || store.idIsNew) void compactor.compact();

  const storeCheck = (check = new StoreCheck(messages, logger));

  async function close(): Promise<void> {
    if (closed) return;
    closed = true;
    // A backup under way copies the files to the end before they close (and before a compaction).
    await compactor.gate.idle();
    await compactor.running;
    // After the writer stopped for good, what is on disk stays as it is.
    if (!writer.failed && committer.seq > files.snapshotSeq) await compactor.compact();
    // The last journal file stays, even empty: the snapshot names it, and the next start writes to it.
    await writer.close();
    // A build of the index still reading messages finishes before their files close, and so does the check.
    await searchFile?.settled();
    await check?.stop();
    messages.reader.close();
    await store.lock.release();
  }

  return {
    async read(fn) {
      return fn(view);
    },
    ...(search ? { search } : {}),
    changes: feed,
    health: () => ({ check: storeCheck.progress, damaged: messages.damage.files() }),
    transact: (fn) => committer.transact(fn),
    async backup(folder) {
      usable();
      return backupStoreFiles(
        {
          file,
          hold: () => compactor.gate.hold(),
          journal: () => ({ index: writer.index, bytes: writer.bytes }),
          searchIndexCurrent: () => searchFile?.fileIsCurrent ?? false,
        },
        folder,
      );
    },
    close,
  };
}
