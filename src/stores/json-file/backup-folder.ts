import { randomBytes } from 'node:crypto';
import { lstat, mkdir, open, readdir, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { isNoSpaceError, ServiceError } from '../../errors.js';
import { temporaryBackupName } from '../../files/backup-names.js';
import { syncFolder } from '../../files/durable-fs.js';
import type { BackupReport } from '../../ports.js';

/**
 * Writes a backup folder all or nothing: `fill` writes the files into a temporary folder beside
 * `folder` (same file system, so the rename below is atomic), every file and the folder are then
 * flushed, and the folder is renamed into place (the parent flushed too). Until that rename nothing
 * stands at `folder`; a failure removes the temporary folder, so no half backup is left to be taken
 * for a whole one. `folder` must not exist, or be an empty folder (a rename replaces an empty
 * folder): anything else is refused with `CONFLICT` before a byte is written. A full disk is
 * `INSUFFICIENT_STORAGE`.
 */
export async function writeBackupFolder(folder: string, fill: (temporary: string) => Promise<void>): Promise<BackupReport> {
  const target = path.resolve(folder);
  await refuseUnlessEmpty(target);
  const parent = path.dirname(target);
  let temporary: string | undefined;
  try {
    // Only its owner may enter: a backup holds people's conversations, as the data folder does.
    await mkdir(parent, { recursive: true, mode: 0o700 });
    temporary = path.join(parent, temporaryBackupName(path.basename(target), randomBytes(4).toString('hex')));
    await mkdir(temporary, { mode: 0o700 });
    await fill(temporary);
    const { files, bytes } = await syncFiles(temporary);
    await syncFolder(temporary);
    await rename(temporary, target).catch((error: NodeJS.ErrnoException) => {
      // Filled by someone else while the backup was written.
      if (error.code === 'ENOTEMPTY' || error.code === 'EEXIST' || error.code === 'ENOTDIR') throw notEmpty(target);
      throw error;
    });
    temporary = undefined;
    await syncFolder(parent);
    return { folder: target, files, bytes };
  } catch (error) {
    if (temporary) await rm(temporary, { recursive: true, force: true }).catch(() => undefined);
    if (isNoSpaceError(error)) {
      throw new ServiceError(
        'INSUFFICIENT_STORAGE',
        `The disk is full: the backup into ${target} was not written, and nothing of it was left. The store goes on as it was; free some space and back up again.`,
        {},
        { cause: error },
      );
    }
    throw error;
  }
}

/** How the temporary folder of a backup is named: `.<name>-<random>.backup-tmp`, beside the backup. */
async function refuseUnlessEmpty(target: string): Promise<void> {
  const stats = await lstat(target).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    throw error;
  });
  if (!stats) return;
  if (!stats.isDirectory() || (await readdir(target)).length > 0) throw notEmpty(target);
}

const notEmpty = (target: string) =>
  new ServiceError(
    'CONFLICT',
    `${target} already exists and is not an empty folder: a backup goes into a new folder (or an empty one). Nothing was written.`,
  );

/** Flushes every file of `folder` (none of its own are folders) to disk; answers how many and their bytes. */
async function syncFiles(folder: string): Promise<{ files: number; bytes: number }> {
  let files = 0;
  let bytes = 0;
  for (const name of await readdir(folder)) {
    const handle = await open(path.join(folder, name), 'r');
    try {
      await handle.sync();
      bytes += (await handle.stat()).size;
      files++;
    } finally {
      await handle.close();
    }
  }
  return { files, bytes };
}
