import { existsSync } from 'node:fs';
import { cp, mkdir, readdir, rename, rm, rmdir } from 'node:fs/promises';
import path from 'node:path';
import { isServiceError } from '../../src/errors.js';
import type { BackupReport, Repository } from '../../src/ports.js';
import { writeBackupFolder } from '../../src/stores/json-file/backup-folder.js';
import { type Command, PROGRAM } from './command.js';
import { CommandFailure, UsageError } from './failures.js';
import { clientFor, SERVER_ENVIRONMENT, SERVER_FLAGS } from './models/server-flags.js';
import { isDatabaseUrl, isFolderInUse } from './store-location.js';
import { formatBytes } from './units.js';

/** How long the server may take to write a backup: it copies the store at the disk's speed. */
const BACKUP_TIMEOUT_MS = 30 * 60_000;

/** What `POST /backup` answers (the fields the command reads). */
interface ServerBackup {
  readonly name: string;
  readonly folder: string;
  readonly files: number;
  readonly bytes: number;
}

/**
 * `backup --out DIR`: a consistent copy of a data folder while its server runs. The server holds
 * its folder's lock, so the command asks it (`POST /backup`, which writes into the data folder's
 * `backups/`, a folder the server names) and moves what it wrote to `--out`. With `--data-dir`
 * and no process holding that folder, the command opens it and backs it up itself.
 */
export const backup: Command = {
  path: ['backup'],
  summary: 'Writes a consistent copy of the data while the server runs and serves (or of a data folder nothing holds).',
  flags: {
    out: { type: 'string', value: 'DIR', description: 'where the backup goes: a new folder, or an empty one (required)' },
    'data-dir': {
      type: 'string',
      value: 'DIR',
      description: 'the data folder: backed up here when no server holds it, else by the server that does',
    },
    ...SERVER_FLAGS,
  },
  details: `The backup is a data folder: every write acknowledged before it began is in it, none in part.
To restore it, stop the server, move the data folder aside and put the backup in its place (or
serve --data-dir <backup>). See docs/backup-and-restore.md. On PostgreSQL, use pg_dump and pg_restore.
Without --data-dir, or when a server holds it, the running server writes the backup into its data
folder's backups/ and the command moves it to --out (the command must run on the server's machine).
${SERVER_ENVIRONMENT}
Examples:
  ${PROGRAM} backup --out ~/backups/conversations-2026-01-31
  ${PROGRAM} backup --data-dir ./data --out /mnt/usb/conversations`,
  async run(input) {
    const out = input.strings.out;
    if (out === undefined) throw new UsageError('backup needs --out');
    const target = path.resolve(out);
    // Said before any work: the server would write a backup the command could not put there.
    if (existsSync(target) && !(await isEmptyFolder(target))) {
      throw new CommandFailure(`${target} already exists and is not an empty folder: give --out a new folder.`);
    }
    const dataDir = input.strings['data-dir'];
    if (dataDir !== undefined) {
      if (isDatabaseUrl(dataDir)) {
        throw new CommandFailure(
          'backup is for a data folder: back up a PostgreSQL database with pg_dump (see docs/backup-and-restore.md).',
        );
      }
      const file = path.resolve(dataDir, 'db.json');
      if (!existsSync(dataDir)) throw new CommandFailure(`There is no data folder ${path.resolve(dataDir)}.`);
      const report = await backUpFolderNothingHolds(file, target);
      if (report) return said(report, `the data folder ${path.resolve(dataDir)}`);
    }
    const client = clientFor(input);
    const written = await client.call<ServerBackup>('POST', '/backup', undefined, BACKUP_TIMEOUT_MS);
    if (dataDir !== undefined && path.relative(path.resolve(dataDir), written.folder).startsWith('..')) {
      throw new CommandFailure(
        `The server at ${client.url} serves another data folder than ${path.resolve(dataDir)}: its backup is in ${written.folder}, left there.`,
      );
    }
    if (!existsSync(written.folder)) {
      throw new CommandFailure(
        `The server at ${client.url} wrote its backup to ${written.folder} on its own machine, which this one does not see: move it from there.`,
      );
    }
    await moveBackup(written.folder, target);
    said({ ...written, folder: target }, `the server at ${client.url}`);
  },
};

const isEmptyFolder = (folder: string) =>
  readdir(folder).then(
    (names) => names.length === 0,
    () => false,
  );

/** Backs up the store `file` in this process when no process holds its folder; undefined when one does. */
async function backUpFolderNothingHolds(file: string, target: string): Promise<BackupReport | undefined> {
  // Loaded only here: the other commands do not carry the store's code.
  const { createJsonFileRepository } = await import('../../src/stores/json-file/index.js');
  let store: Repository;
  try {
    store = await createJsonFileRepository({ file });
  } catch (error) {
    if (isFolderInUse(error)) return undefined;
    throw new CommandFailure(`Cannot open the data folder ${path.dirname(file)}: ${(error as Error).message}`);
  }
  try {
    return await store.backup!(target).catch(failed);
  } finally {
    await store.close();
  }
}

/**
 * Moves the server's backup to `target`: a rename on the same file system; else a copy (written as
 * any backup is: beside `target`, flushed, renamed into place), then the server's is removed. The
 * data folder's `backups/` is removed too once empty: the moved backup leaves nothing behind.
 */
async function moveBackup(from: string, target: string): Promise<void> {
  try {
    await mkdir(path.dirname(target), { recursive: true, mode: 0o700 });
    await rename(from, target);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EXDEV') {
      throw new CommandFailure(
        `Could not move the backup from ${from} to ${target} (${(error as Error).message}); it is still in ${from}.`,
      );
    }
    await writeBackupFolder(target, (temporary) => cp(from, temporary, { recursive: true, errorOnExist: true, force: false })).catch(
      (copyError: unknown) => {
        throw new CommandFailure(
          `Could not copy the backup from ${from} to ${target} (${(copyError as Error).message}); it is still in ${from}.`,
        );
      },
    );
    await rm(from, { recursive: true, force: true });
  }
  await rmdir(path.dirname(from)).catch(() => undefined);
}

/** A backup's failure in one line: a full disk and a folder in the way are the user's to fix. */
function failed(error: unknown): never {
  if (isServiceError(error)) throw new CommandFailure(error.message);
  throw error;
}

function said(report: BackupReport, source: string): void {
  console.log(`Backed up ${source} to ${report.folder} (${report.files} files, ${formatBytes(report.bytes)}).`);
}
