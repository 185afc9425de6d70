import type { FileHandle } from 'node:fs/promises';

/** Writes every byte of `buffers` at the end of the file, or throws: a short write is retried, never ignored. */
export async function writeAll(handle: FileHandle, buffers: readonly Buffer[]): Promise<number> {
  let pending = buffers.filter((buffer) => buffer.length > 0);
  let total = 0;
  while (pending.length > 0) {
    const { bytesWritten } = await handle.writev(pending);
    if (bytesWritten === 0) throw Object.assign(new Error('The disk accepted no more bytes.'), { code: 'ENOSPC' });
    total += bytesWritten;
    // Drop what was written; the rest goes again.
    let skip = bytesWritten;
    while (pending.length > 0 && skip >= pending[0]!.length) skip -= pending.shift()!.length;
    if (skip > 0) pending = [pending[0]!.subarray(skip), ...pending.slice(1)];
  }
  return total;
}
