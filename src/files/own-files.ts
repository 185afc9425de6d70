import { closeSync, constants, fstatSync, openSync } from 'node:fs';
import { type FileHandle, lstat, open, readlink, unlink } from 'node:fs/promises';

// Every file of the data folder is opened so that an entry someone else put there (a symbolic link
// to a file outside, a hard link, a FIFO) is never written, or read, through: the folder is
// the service's, but any process of its user can plant entries in it. Windows has no O_NOFOLLOW
// (and creating a link there needs privileges): there the flag is 0.
const { O_RDONLY, O_WRONLY, O_CREAT, O_EXCL, O_APPEND } = constants;
const O_NOFOLLOW = constants.O_NOFOLLOW ?? 0;
// A FIFO planted in a file's place would block its open forever; with O_NONBLOCK the open returns
// and the check below refuses it. On a regular file the flag changes nothing.
const O_NONBLOCK = constants.O_NONBLOCK ?? 0;

/**
 * The flag that makes each write return only once its data is on disk (as a write then an
 * fdatasync would, in one call), where the platform has it (not Windows): 0 elsewhere.
 */
export const SYNCED_WRITES: number = constants.O_DSYNC ?? 0;

/** Where a store says what it did about an entry it found in its folder. */
export type Warn = (message: string) => void;

/**
 * Creates `file` for writing, as a new file of the store's own: never an entry that was there. One
 * found in its place (left by a crash, or planted) is removed first, with one log line; only the
 * entry goes (`unlink` removes a link, never its target). `flags` are added to the open's (e.g.
 * {@link SYNCED_WRITES}).
 */
export async function createOwnFile(file: string, warn: Warn, flags = 0): Promise<FileHandle> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await open(file, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | flags, 0o600);
    } catch (error) {
      // Twice in a row: something keeps putting it back; refused.
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || attempt === 2) throw error;
    }
    await removeEntry(file, warn);
  }
}

/**
 * Opens a file of the store's to append to, creating it if missing. A link, or anything but a
 * regular file of one name, is refused with an error naming it: appending would write elsewhere.
 * `flags` are added to the open's (e.g. {@link SYNCED_WRITES}).
 */
export async function openOwnFileToAppend(file: string, flags = 0): Promise<FileHandle> {
  const handle = await open(file, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_NONBLOCK | flags, 0o600).catch((error: unknown) => {
    throw refusedIfLink(file, error);
  });
  return checked(handle, file, { oneName: true });
}

/** Opens a file of the store's to read; a link or anything but a regular file is refused with an error naming it. */
export async function openOwnFileToRead(file: string): Promise<FileHandle> {
  const handle = await open(file, O_RDONLY | O_NOFOLLOW | O_NONBLOCK).catch((error: unknown) => {
    throw refusedIfLink(file, error);
  });
  return checked(handle, file, { oneName: false });
}

/** The whole of a file of the store's (see {@link openOwnFileToRead}). */
export async function readOwnFile(file: string): Promise<Buffer> {
  const handle = await openOwnFileToRead(file);
  try {
    return await handle.readFile();
  } finally {
    await handle.close();
  }
}

/** Cuts a file of the store's to `size` bytes (a torn journal record), refusing a link as {@link openOwnFileToAppend} does. */
export async function truncateOwnFile(file: string, size: number): Promise<void> {
  const handle = await open(file, O_WRONLY | O_NOFOLLOW | O_NONBLOCK).catch((error: unknown) => {
    throw refusedIfLink(file, error);
  });
  try {
    await checked(handle, file, { oneName: true });
    await handle.truncate(size);
  } finally {
    await handle.close();
  }
}

/** {@link openOwnFileToRead}, synchronously, for a file descriptor (the message reader's `pread`s). */
export function openOwnFileToReadSync(file: string): number {
  let fd: number;
  try {
    fd = openSync(file, O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
  } catch (error) {
    throw refusedIfLink(file, error);
  }
  if (!fstatSync(fd).isFile()) {
    closeSync(fd);
    throw notOwn(file, 'not a regular file');
  }
  return fd;
}

/** Answers `handle` if it is a regular file (of one name, with `oneName`); else closes it and throws. */
async function checked(handle: FileHandle, file: string, { oneName }: { oneName: boolean }): Promise<FileHandle> {
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) throw notOwn(file, 'not a regular file');
    if (oneName && stats.nlink > 1)
      throw notOwn(file, `a file with ${stats.nlink} names (a hard link): writing it would change the others`);
    return handle;
  } catch (error) {
    await handle.close().catch(() => undefined);
    throw error;
  }
}

/** ELOOP from O_NOFOLLOW: the entry is a symbolic link. */
function refusedIfLink(file: string, error: unknown): unknown {
  return (error as NodeJS.ErrnoException).code === 'ELOOP' ? notOwn(file, 'a symbolic link', error) : error;
}

/** The error that refuses an entry of the folder the service did not make: it names it and says what it is. */
export const notOwn = (file: string, what: string, cause?: unknown): Error =>
  Object.assign(
    new Error(
      `Refused ${file}: it is ${what}, which the service never makes; nothing was read or written through it. ` +
        'Remove it (or put the file it stands for in its place) and start again.',
      cause === undefined ? undefined : { cause },
    ),
    { code: 'EFOREIGN' },
  );

/** What an entry of the folder is, for a log line: `a symbolic link to /x`, `a regular file`, … */
export async function describeEntry(file: string): Promise<string> {
  const stats = await lstat(file).catch(() => undefined);
  if (!stats) return 'gone';
  if (stats.isSymbolicLink()) return `a symbolic link to ${await readlink(file).catch(() => 'somewhere')}`;
  if (stats.isFile()) return stats.nlink > 1 ? `a file with ${stats.nlink} names (a hard link)` : 'a regular file';
  if (stats.isDirectory()) return 'a folder';
  return stats.isFIFO() ? 'a FIFO' : stats.isSocket() ? 'a socket' : 'a device';
}

/** Removes an entry of the folder the store is about to make, saying what it was; a folder there is refused. */
export async function removeEntry(file: string, warn: Warn): Promise<void> {
  const what = await describeEntry(file);
  if (what === 'gone') return;
  if (what === 'a folder') throw notOwn(file, 'a folder where the service makes a file');
  await unlink(file).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'ENOENT') throw error;
  });
  warn(
    `Removed ${file}, ${what} in the place of a file the service makes (left by a crash, or put there); nothing was written through it.`,
  );
}
