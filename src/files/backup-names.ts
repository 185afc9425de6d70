/**
 * How a backup's folder is named while it is written: beside its target, hidden, with a suffix a
 * clean-up recognises. Apart from the writer (stores/json-file/backup-folder.ts), so the service
 * can clear what a crash left without loading the JSON-file store.
 */
const TEMPORARY_PREFIX = '.';
const TEMPORARY_SUFFIX = '.backup-tmp';

/** The temporary folder's name for a backup into `target` (its base name), made unique by `unique`. */
export const temporaryBackupName = (target: string, unique: string): string => `${TEMPORARY_PREFIX}${target}-${unique}${TEMPORARY_SUFFIX}`;

/** Whether an entry's name is that of a backup's temporary folder (left by a crash when it is still there). */
export const isTemporaryBackup = (name: string): boolean => name.startsWith(TEMPORARY_PREFIX) && name.endsWith(TEMPORARY_SUFFIX);
