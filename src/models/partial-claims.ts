import { randomBytes } from 'node:crypto';
import { lstat, readdir, rename, rm, unlink } from 'node:fs/promises';
import path from 'node:path';
import { WRITER_HOST as HOST, processRuns as running } from '../files/writer-names.js';
import { asDownloadFailure } from './download-failure.js';
import { PARTIAL_SUFFIX } from './partial-file.js';

/**
 * Who may write which partial file, when several processes (instances of the service on one
 * database, sharing a `DATA_DIR`) download into one cache folder.
 *
 * A download writes only a partial file of its own, `<file>.<host>-<pid>-<random>.partial`, and
 * renames it to `<file>` once complete and checked: two processes pulling the same model at once
 * each write their own (the second costs bandwidth, never a torn file), and `<file>` only ever
 * appears whole. A download that stops (a cut, a stall, a cancel, the service closing) parks its
 * bytes as `<file>.partial`, which no one writes; the next download of the model, in any process,
 * claims it by renaming it to its own name (one rename wins), and resumes from it. A partial file
 * whose writer died without parking it (killed) is claimed the same way once it is known to be
 * abandoned: its writer's process is gone (same host), or it has not changed for longer than a
 * live download goes without writing (see {@link abandonedAfterMs}).
 */

/** The name of a partial file of this process for `fileName`, new at each call. */
export function ownPartialName(fileName: string): string {
  return `${fileName}.${HOST}-${process.pid}-${randomBytes(4).toString('hex')}${PARTIAL_SUFFIX}`;
}

/** The parked partial file of `fileName`: a stopped download's bytes, to resume from. */
export const parkedPartialName = (fileName: string): string => `${fileName}${PARTIAL_SUFFIX}`;

/**
 * How long a partial file of another process may go unchanged before it counts as abandoned: a live
 * download changes it at least every two stall windows (or fails), after at most two requests'
 * connect time; three times as long leaves room for a slow disk and the final checksum.
 */
export const abandonedAfterMs = (options: { connectTimeoutMs: number; stallTimeoutMs: number }): number =>
  3 * (options.connectTimeoutMs + options.stallTimeoutMs);

/** The writer of a partial file of `fileName` named `name`, or undefined when it is not one of a writer's own. */
function writerOf(fileName: string, name: string): { host: string; pid: number } | undefined {
  if (!name.startsWith(`${fileName}.`) || !name.endsWith(PARTIAL_SUFFIX)) return undefined;
  const match = /^([0-9a-f]{8})-(\d+)-[0-9a-f]+$/.exec(name.slice(fileName.length + 1, -PARTIAL_SUFFIX.length));
  return match ? { host: match[1]!, pid: Number(match[2]) } : undefined;
}

/**
 * Takes over the parked partial file of `fileName` in `folder`, or else the largest abandoned one
 * of another writer, by renaming it to `mine` (only one of several processes doing so wins), and
 * answers the bytes it holds; 0 when there is none to resume from. Other abandoned partial files
 * of `fileName` are removed; a partial file another process is writing is left alone. A parked
 * name that is not a regular file (a planted link) is removed, never followed.
 */
export async function claimPartial(folder: string, fileName: string, mine: string, abandonedMs: number): Promise<number> {
  const parked = path.join(folder, parkedPartialName(fileName));
  const stats = await lstat(parked).catch(() => undefined);
  if (stats && !stats.isFile()) await unlink(parked).catch(failUnlessGone);
  else if (stats && (await renamed(parked, mine))) return sizeOf(mine);

  const abandoned: { name: string; size: number }[] = [];
  for (const name of await readdir(folder).catch(() => [] as string[])) {
    const writer = writerOf(fileName, name);
    if (!writer || path.join(folder, name) === mine) continue;
    const found = await lstat(path.join(folder, name)).catch(() => undefined);
    if (!found?.isFile()) continue;
    const gone = writer.host === HOST && !running(writer.pid);
    if (gone || Date.now() - found.ctimeMs > abandonedMs) abandoned.push({ name, size: found.size });
  }
  abandoned.sort((a, b) => b.size - a.size);
  let have = 0;
  for (const { name } of abandoned) {
    // The largest one that can still be taken; the rest are removed (renamed away first by another
    // process, `rm` finds nothing under the old name).
    if (have === 0 && (await renamed(path.join(folder, name), mine))) have = await sizeOf(mine);
    else await rm(path.join(folder, name), { force: true });
  }
  return have;
}

/**
 * Parks `mine` as the parked partial file of `fileName`, to resume from, unless a larger one is
 * parked already (then `mine` is removed). Its handle must be closed: no one writes a parked file.
 */
export async function parkPartial(folder: string, fileName: string, mine: string): Promise<void> {
  const ours = await lstat(mine).catch(() => undefined);
  if (!ours?.isFile()) return;
  const parked = path.join(folder, parkedPartialName(fileName));
  const other = await lstat(parked).catch(() => undefined);
  if (other?.isFile() && other.size > ours.size) await rm(mine, { force: true });
  else await rename(mine, parked).catch(failUnlessGone);
}

/**
 * Removes the partial files of `folder` that no live download writes: parked ones, and those
 * abandoned (see {@link claimPartial}). Another process's download under way keeps its own.
 */
export async function removeIdlePartials(folder: string, abandonedMs: number): Promise<void> {
  for (const name of await readdir(folder).catch(() => [] as string[])) {
    if (!name.endsWith(PARTIAL_SUFFIX)) continue;
    const file = path.join(folder, name);
    const fileName = name.slice(0, -PARTIAL_SUFFIX.length);
    const writer = writerOf(fileName.slice(0, fileName.lastIndexOf('.')), name);
    if (writer) {
      const found = await lstat(file).catch(() => undefined);
      const gone = writer.host === HOST && !running(writer.pid);
      if (found && !gone && Date.now() - found.ctimeMs <= abandonedMs) continue;
    }
    await rm(file, { force: true });
  }
}

/** Renames `from` to `to`; false when `from` is gone (another process took it first). */
async function renamed(from: string, to: string): Promise<boolean> {
  try {
    await rename(from, to);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw asDownloadFailure(error);
  }
}

const sizeOf = async (file: string): Promise<number> => (await lstat(file)).size;

const failUnlessGone = (error: NodeJS.ErrnoException): void => {
  if (error.code !== 'ENOENT') throw asDownloadFailure(error);
};
