import { readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { ServiceError } from '../errors.js';
import { isTemporaryBackup } from '../files/backup-names.js';
import type { BackupReport, Repository } from '../ports.js';

/** The folder inside the data folder where backups asked for without a folder (`POST /backup`) go. */
export const BACKUPS_FOLDER = 'backups';

/** What the service's backups work with. */
export interface BackupContext {
  /** The store itself (not its search wrapper): whether it can back itself up. */
  readonly store: Repository;
  /** The data folder, where backups without a folder go; none for a service kept in memory alone. */
  readonly dataDir: string | undefined;
  readonly now: () => Date;
}

/**
 * The service's backups, one at a time: `backup(folder)` writes the store's backup into `folder`;
 * `backup()` into a new folder `<dataDir>/backups/<time>` that the service names (what `POST
 * /backup` asks for: a request never names a path). A second backup while one runs is refused
 * with `CONFLICT`; a store that cannot back itself up (PostgreSQL) with `NOT_SUPPORTED`, saying
 * what to use instead.
 */
export function createBackups(ctx: BackupContext): { backup(folder?: string): Promise<BackupReport> } {
  let running = false;
  return {
    async backup(folder) {
      if (folder !== undefined && (typeof folder !== 'string' || folder.trim() === '')) {
        throw new ServiceError('INVALID_INPUT', 'A backup needs a folder to write into: a path, or none for one in the data folder.');
      }
      const store = ctx.store;
      if (!store.backup) {
        throw new ServiceError(
          'NOT_SUPPORTED',
          'This store has no backup of its own: back up a PostgreSQL database with its own tools (`pg_dump --format=custom`, restored with `pg_restore`), ' +
            'or write every record to a file with `export --format json`.',
        );
      }
      if (running) throw new ServiceError('CONFLICT', 'A backup is being written already: wait for it to finish, then ask again.');
      running = true;
      try {
        return await store.backup(folder ?? (await newBackupFolder(ctx)));
      } finally {
        running = false;
      }
    },
  };
}

/**
 * A new folder for a backup in `<dataDir>/backups/`, named by the time (`2026-01-31T12-00-00.000Z`);
 * the temporary folders of backups cut short by a crash are removed first (no backup runs now).
 */
async function newBackupFolder(ctx: BackupContext): Promise<string> {
  if (ctx.dataDir === undefined) {
    throw new ServiceError(
      'INVALID_INPUT',
      'This service keeps its data in memory, with no data folder to write a backup into: name a folder.',
    );
  }
  const backups = path.resolve(ctx.dataDir, BACKUPS_FOLDER);
  const names = await readdir(backups).catch(() => [] as string[]);
  for (const name of names) if (isTemporaryBackup(name)) await rm(path.join(backups, name), { recursive: true, force: true });
  const stamp = ctx.now().toISOString().replace(/:/g, '-');
  let name = stamp;
  for (let n = 2; names.includes(name); n++) name = `${stamp}-${n}`;
  return path.join(backups, name);
}
