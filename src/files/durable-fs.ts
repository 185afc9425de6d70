import { type FileHandle, open, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { createOwnFile, type Warn } from './own-files.js';
import { writeAll } from './write-all.js';

/**
 * Flushes a folder's entry table, so a rename or a new file inside it survives a power cut.
 * Some platforms cannot open folders for syncing; there the rename is as durable as the OS makes it.
 */
export async function syncFolder(folder: string): Promise<void> {
  let handle;
  try {
    handle = await open(folder, 'r');
    await handle.sync();
  } catch (error) {
    if (!isUnsupported(error)) throw error;
  } finally {
    await handle?.close();
  }
}

const isUnsupported = (error: unknown) => ['EISDIR', 'EPERM', 'EINVAL', 'EBADF'].includes((error as NodeJS.ErrnoException).code ?? '');

/**
 * Replaces `file` atomically with what `write` puts in a temporary sibling: write, flush, keep the
 * old file as `backup` (when given), rename into place, flush the folder. A crash at any point
 * leaves either the old file or the new one, never a mix. The temporary file is made anew (an
 * entry in its place is removed, said through `warn`, never written through).
 */
export async function replaceFileAtomically(
  file: string,
  write: (append: (chunk: string) => Promise<void>) => Promise<void>,
  warn: Warn,
  backup?: string,
): Promise<void> {
  const temporary = `${file}.tmp`;
  // The previous snapshot stays until the rename; a half-written one is removed (writeNewFile).
  await writeNewFile(temporary, warn, async (handle) => {
    let buffered: string[] = [];
    let size = 0;
    const drain = async () => {
      if (size === 0) return;
      const text = buffered.join('');
      buffered = [];
      size = 0;
      // Every byte, or an error: a full disk answers short writes, which must not pass for a snapshot.
      await writeAll(handle, [Buffer.from(text)]);
    };
    await write(async (chunk) => {
      buffered.push(chunk);
      size += chunk.length;
      if (size >= 1 << 20) await drain();
    });
    await drain();
  });
  if (backup)
    await rename(file, backup).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'ENOENT') throw error;
    });
  await rename(temporary, file);
  await syncFolder(path.dirname(file));
}

/**
 * Replaces `file` atomically with `buffers` (a temporary sibling made anew, readable by its owner
 * alone, written a MiB at a time, flushed, renamed into place, the folder flushed): a crash leaves
 * the old file or the new one. For derived files such as the search index and its vectors. The
 * temporary file is `<file>.tmp` unless named: in a folder several processes write, each must
 * name its own (see shared-files.ts).
 */
export async function writeBuffersAtomically(
  file: string,
  buffers: readonly Uint8Array[],
  warn: Warn,
  temporary = `${file}.tmp`,
): Promise<void> {
  await writeNewFile(temporary, warn, async (handle) => {
    for (const buffer of buffers)
      for (let at = 0; at < buffer.length; at += CHUNK)
        await writeAll(handle, [Buffer.from(buffer.buffer, buffer.byteOffset + at, Math.min(CHUNK, buffer.length - at))]);
  });
  await rename(temporary, file);
  await syncFolder(path.dirname(file));
}

/**
 * Writes `target`, a new file readable by its owner alone (see own-files.ts: an entry in its place
 * is removed, never written through), with `write`, and flushes it. A failure (a full disk, say)
 * removes what was written: nothing partial is left to pile up, or to be taken for a whole file.
 * The caller flushes the folder once the file has its final name.
 */
export async function writeNewFile(target: string, warn: Warn, write: (handle: FileHandle) => Promise<void>): Promise<void> {
  const handle = await createOwnFile(target, warn);
  try {
    await write(handle);
    await handle.datasync();
  } catch (error) {
    await handle.close().catch(() => undefined);
    await rm(target, { force: true });
    throw error;
  }
  await handle.close();
}

/** Bytes written at once: the event loop gets a turn between them. */
const CHUNK = 1 << 20;
