import { constants } from 'node:fs';
import { type FileHandle, lstat, mkdir, open } from 'node:fs/promises';
import { asDownloadFailure, DownloadFailure } from './download-failure.js';

/** The suffix of a file being downloaded: never loaded, kept to resume from. */
export const PARTIAL_SUFFIX = '.partial';

const fail = (error: unknown): never => {
  throw asDownloadFailure(error);
};

/**
 * Creates the model's cache folder if needed and checks it is a folder of its own: a symbolic link
 * planted in its place would send the download, and the removal of a bad partial file, elsewhere.
 */
export async function prepareFolder(folder: string): Promise<void> {
  await mkdir(folder, { recursive: true, mode: 0o700 }).catch(fail);
  if (!(await isRealFolder(folder))) {
    throw new DownloadFailure(`refused: the cache folder ${folder} is a link or a file, not a folder; remove it to download`, true);
  }
}

/** Whether `folder` is a directory, not a symbolic link to one. */
export async function isRealFolder(folder: string): Promise<boolean> {
  return lstat(folder).then(
    (stats) => stats.isDirectory(),
    () => false,
  );
}

/** The bytes a partial file holds to resume from: 0 when there is none, or when it is not a regular file. */
export async function partialBytes(partial: string): Promise<number> {
  const stats = await lstat(partial).catch(() => undefined);
  return stats?.isFile() ? stats.size : 0;
}

/**
 * Opens the partial file for writing: appending to resume, emptied to start over. Never follows a
 * link (`O_NOFOLLOW`), so one planted between the check and the open fails instead of being
 * written through. (Windows has no `O_NOFOLLOW`; creating a link there needs privileges.)
 */
export async function openPartial(partial: string, append: boolean): Promise<FileHandle> {
  const flags = constants.O_WRONLY | constants.O_CREAT | (constants.O_NOFOLLOW ?? 0) | (append ? constants.O_APPEND : constants.O_TRUNC);
  return open(partial, flags, 0o600).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ELOOP') throw new DownloadFailure(`refused: ${partial} is a symbolic link`, true, { cause: error });
    return fail(error);
  });
}

/** Writes all of `chunk` at the end of the file; a full disk is a `disk full` failure. */
export async function writeAll(handle: FileHandle, chunk: Uint8Array): Promise<void> {
  try {
    for (let written = 0; written < chunk.byteLength; ) written += (await handle.write(chunk, written)).bytesWritten;
  } catch (error) {
    fail(error);
  }
}
