import path from 'node:path';
import { copyRepository } from '../../copy-repository.js';
import type { BackupReport, ReadView, Repository } from '../../ports.js';
import { writeBackupFolder } from './backup-folder.js';
import { createJsonFileRepository } from './index.js';

/**
 * Backs up a store that has no files of its own (the memory store) as a JSON-file store's data
 * folder: `view` must be a consistent view of the records (one that no write changes while it is
 * read: the memory store's records as one instant left them), which is copied into a new store in
 * a temporary folder, closed (its journal folded into a snapshot), flushed, and renamed into place
 * (see writeBackupFolder). The copy opens with `createJsonFileRepository` like any data folder.
 */
export async function backupRecords(view: ReadView, folder: string): Promise<BackupReport> {
  return writeBackupFolder(folder, async (temporary) => {
    // Unflushed writes, each flushed once at the end by writeBackupFolder: nothing is acknowledged
    // to anyone before the folder is whole.
    const target = await createJsonFileRepository({ file: path.join(temporary, 'db.json'), durability: 'unsafe-no-fsync' });
    try {
      await copyRepository(readOnly(view), target);
    } finally {
      await target.close();
    }
  });
}

/** A repository that only reads `view`: what copyRepository reads from. */
const readOnly = (view: ReadView): Repository => ({
  read: async (fn) => fn(view),
  transact: () => Promise.reject(new Error('A backup only reads its source.')),
  close: async () => undefined,
});
