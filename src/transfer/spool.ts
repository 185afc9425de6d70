import { randomUUID } from 'node:crypto';
import { type FileHandle, mkdir, open, readdir, rm, rmdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { isNoSpaceError, ServiceError } from '../errors.js';

/** The folder, inside the data folder (or the system's temporary folder), where streams are spooled. */
export const SPOOL_FOLDER = '.import-spool';
/** Spooled files older than this are left over from a stopped process: the next import removes them. */
const STALE_MS = 24 * 60 * 60 * 1000;

/**
 * Writes `source` to a new file in `folder/.import-spool/` and answers its path, so it can be read
 * more than once (an import checks the whole file before it writes). More than `maxBytes` is
 * refused with PAYLOAD_TOO_LARGE, a full disk with INSUFFICIENT_STORAGE; either way the partial
 * file is removed. The name is made here: nothing a caller sends names a path.
 */
export async function spool(source: AsyncIterable<Uint8Array>, folder: string, maxBytes: number): Promise<string> {
  const dir = path.join(folder, SPOOL_FOLDER);
  const file = path.join(dir, `${randomUUID()}.json`);
  let handle: FileHandle | undefined;
  let size = 0;
  try {
    // The folder goes when its last import ends (removeSpooled): made again if one ends meanwhile.
    for (let tries = 1; !handle; tries++) {
      await mkdir(dir, { recursive: true });
      await removeStale(dir);
      handle = await open(file, 'wx').catch((error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT' && tries < 3) return undefined;
        throw error;
      });
    }
    await pipeline(
      source,
      async function* (chunks: AsyncIterable<Uint8Array>) {
        for await (const chunk of chunks) {
          size += chunk.byteLength;
          if (size > maxBytes) {
            throw new ServiceError('PAYLOAD_TOO_LARGE', `The import is larger than this service accepts (${maxBytes} bytes).`, {
              limit: maxBytes,
            });
          }
          yield chunk;
        }
      },
      handle.createWriteStream(),
    );
    return file;
  } catch (error) {
    await handle?.close().catch(() => {});
    await removeSpooled(file);
    if (isNoSpaceError(error)) {
      throw new ServiceError(
        'INSUFFICIENT_STORAGE',
        'The disk is full: the import could not be received, and nothing was imported.',
        {},
        { cause: error },
      );
    }
    throw error;
  }
}

async function removeStale(dir: string): Promise<void> {
  const now = Date.now();
  for (const name of await readdir(dir).catch(() => [] as string[])) {
    const entry = path.join(dir, name);
    const stats = await stat(entry).catch(() => undefined);
    if (stats && now - stats.mtimeMs > STALE_MS) await rm(entry, { force: true, recursive: true });
  }
}

/** Removes a spooled file, and its folder once no other import's file is in it. */
export async function removeSpooled(file: string): Promise<void> {
  await rm(file, { force: true });
  // Fails while another import's file is there (ENOTEMPTY), or once another removed it: both leave it as it should be.
  await rmdir(path.dirname(file)).catch(() => {});
}
