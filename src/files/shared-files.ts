import { randomBytes } from 'node:crypto';
import { lstat, readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { writeBuffersAtomically } from './durable-fs.js';
import type { Warn } from './own-files.js';
import { processRuns, WRITER_HOST } from './writer-names.js';

/**
 * Files that several processes replace in one folder (the vectors of meaning, when instances of
 * the service on one database share a `DATA_DIR`). Each write goes through a temporary file of
 * the writer's own, `<file>.<host>-<pid>-<random>.tmp`, renamed into place once whole and flushed:
 * two processes saving at once never write into one temporary file, nor remove the other's, and
 * a reader finds the old file or one writer's whole new one, never a mix (the last rename wins).
 */

const SUFFIX = '.tmp';

/** A temporary file's name for a new version of `file`, this process's own, new at each call. */
export function ownTemporaryName(file: string): string {
  return `${file}.${WRITER_HOST}-${process.pid}-${randomBytes(4).toString('hex')}${SUFFIX}`;
}

/**
 * Replaces `file` atomically with `buffers` through a temporary file of this process's own (see
 * writeBuffersAtomically), then removes the temporary files of `file` that writers which died
 * left behind (see {@link removeAbandonedTemporaries}).
 */
export async function writeSharedFileAtomically(
  file: string,
  buffers: readonly Uint8Array[],
  warn: Warn,
  abandonedMs = ABANDONED_MS,
): Promise<void> {
  await writeBuffersAtomically(file, buffers, warn, ownTemporaryName(file));
  await removeAbandonedTemporaries(file, abandonedMs);
}

/**
 * How long another process's temporary file may go unchanged before it counts as abandoned: a
 * live save writes it a MiB at a time, and takes seconds even for a file of gigabytes.
 */
export const ABANDONED_MS = 10 * 60_000;

/**
 * Removes the temporary files of `file` (see {@link ownTemporaryName}) whose writer is gone: its
 * process no longer runs (same host), or the file has not changed for `abandonedMs` (another
 * host's, or a process that hangs). A live writer's is left alone; so is anything else in the folder.
 */
export async function removeAbandonedTemporaries(file: string, abandonedMs = ABANDONED_MS): Promise<void> {
  const folder = path.dirname(file);
  const prefix = `${path.basename(file)}.`;
  for (const name of await readdir(folder).catch(() => [] as string[])) {
    if (!name.startsWith(prefix) || !name.endsWith(SUFFIX)) continue;
    const match = /^([0-9a-f]{8})-(\d+)-[0-9a-f]+$/.exec(name.slice(prefix.length, -SUFFIX.length));
    if (!match) continue;
    const found = await lstat(path.join(folder, name)).catch(() => undefined);
    if (!found?.isFile()) continue;
    const gone = match[1] === WRITER_HOST && !processRuns(Number(match[2]));
    // Another process may remove it first: `rm` then finds nothing.
    if (gone || Date.now() - found.mtimeMs > abandonedMs) await rm(path.join(folder, name), { force: true });
  }
}
