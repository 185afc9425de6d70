import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, readdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
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
export async function spool(source: Readable | AsyncIterable<Uint8Array>, folder: string, maxBytes: number): Promise<string> {
  const dir = path.join(folder, SPOOL_FOLDER);
  await mkdir(dir, { recursive: true });
  await removeStale(dir);
  const file = path.join(dir, `${randomUUID()}.json`);
  let size = 0;
  try {
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
      createWriteStream(file, { flags: 'wx' }),
    );
    return file;
  } catch (error) {
    await rm(file, { force: true });
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
