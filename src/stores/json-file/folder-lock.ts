import { randomUUID } from 'node:crypto';
import { open, readFile, stat, unlink } from 'node:fs/promises';
import { currentProcess, isRunning, type ProcessIdentity } from './process-identity.js';

/** What the lock file says about its holder. */
interface LockHolder extends ProcessIdentity {
  readonly since: string;
  /** Unique to one acquisition, so a holder releases only its own lock. */
  readonly token: string;
}

/** A held lock on a data folder; `release` removes it. */
export interface FolderLock {
  release(): Promise<void>;
}

/** Options of {@link acquireFolderLock}. */
export interface FolderLockOptions {
  /**
   * Take the lock even from a holder that seems to run: a process on another host sharing the
   * folder (which cannot be checked from here), or one this host cannot tell is gone. Only when
   * you know no other service uses the folder: two writers would corrupt it.
   */
  readonly takeOver?: boolean;
}

/** How long a lock (or takeover) file may stay unreadable before it counts as left by a writer that died. */
const UNREADABLE_GRACE_MS = 5_000;

/**
 * Takes the lock file `lockFile` for this process, so one writer at a time uses a data folder.
 * A lock left by a process that no longer runs (dead, a zombie, its pid reused by another
 * process, or from before the machine's last boot) is taken over. A live holder makes this fail
 * with an error naming the folder, the holder, and the override.
 */
export async function acquireFolderLock(lockFile: string, folder: string, options: FolderLockOptions = {}): Promise<FolderLock> {
  const me: LockHolder = { ...(await currentProcess()), since: new Date().toISOString(), token: randomUUID() };
  const deadline = Date.now() + 2 * UNREADABLE_GRACE_MS;
  while (Date.now() < deadline) {
    if (await createLockFile(lockFile, me)) {
      return {
        async release() {
          // Only our own lock: if it was taken over, the file now belongs to someone else.
          if ((await readLock(lockFile))?.holder?.token === me.token) await unlink(lockFile).catch(() => undefined);
        },
      };
    }
    const found = await readLock(lockFile);
    if (!found) continue;
    const { holder } = found;
    if (!options.takeOver) {
      if (holder === undefined && !(await unreadableForLong(lockFile))) {
        // Its writer is between creating the file and writing it: a live holder.
        throw inUse(folder, 'another process (starting up)');
      }
      if (holder && (await isRunning(holder))) throw inUse(folder, `process ${holder.pid} on ${holder.hostname} (since ${holder.since})`);
    }
    if (!(await removeStale(lockFile, found))) await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`Could not take the lock on the data folder ${folder}: other processes keep taking it.`);
}

/** A lock file as read: its text, which file it is (inode and time), and the holder it names. */
interface ReadLock {
  readonly text: string;
  readonly ino: number;
  readonly mtimeMs: number;
  readonly holder: LockHolder | undefined;
}

/**
 * Removes a stale lock. Several processes may find the same stale lock at once, so removing it is
 * itself guarded by a second lock file: only its creator removes the stale lock, and only if the
 * lock is still the very file it read (same inode, time and text: an unreadable lock just
 * recreated by a starting process is another file). Answers false when another process is doing it.
 */
async function removeStale(lockFile: string, stale: ReadLock): Promise<boolean> {
  const guard = `${lockFile}.takeover`;
  let handle;
  try {
    handle = await open(guard, 'wx', 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    // A guard left by a process that died while taking over.
    if (await unreadableForLong(guard)) await unlink(guard).catch(() => undefined);
    return false;
  }
  try {
    await handle.close();
    const current = await readLock(lockFile);
    if (current && current.ino === stale.ino && current.mtimeMs === stale.mtimeMs && current.text === stale.text) {
      await unlink(lockFile).catch(() => undefined);
    }
    return true;
  } finally {
    await unlink(guard).catch(() => undefined);
  }
}

/** Creates the lock file with our details; false when it already exists. */
async function createLockFile(lockFile: string, me: LockHolder): Promise<boolean> {
  let handle;
  try {
    handle = await open(lockFile, 'wx', 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
  try {
    await handle.writeFile(JSON.stringify(me));
    await handle.sync();
  } finally {
    await handle.close();
  }
  return true;
}

/** The lock file, or undefined when there is none (any more). */
async function readLock(lockFile: string): Promise<ReadLock | undefined> {
  try {
    const [text, stats] = await Promise.all([readFile(lockFile, 'utf8'), stat(lockFile)]);
    return { text, ino: stats.ino, mtimeMs: stats.mtimeMs, holder: parseHolder(text) };
  } catch {
    return undefined;
  }
}

function parseHolder(text: string): LockHolder | undefined {
  try {
    const holder = JSON.parse(text) as LockHolder;
    return typeof holder.pid === 'number' && typeof holder.hostname === 'string' ? holder : undefined;
  } catch {
    return undefined;
  }
}

async function unreadableForLong(lockFile: string): Promise<boolean> {
  try {
    return Date.now() - (await stat(lockFile)).mtimeMs > UNREADABLE_GRACE_MS;
  } catch {
    return true;
  }
}

/**
 * The error of a data folder another process holds: `folder` and `holder` say which and whose, and
 * `code` tells it from other failures to open a folder, so a caller that offers the override under
 * another name (the command's `--take-over-lock`) can say so in its own words.
 */
export class FolderInUseError extends Error {
  readonly code = 'DATA_FOLDER_IN_USE';

  constructor(
    /** The data folder. */
    readonly folder: string,
    /** Who holds it: `process 4242 on build-box (since 2026-01-31T…)`, or `another process (starting up)`. */
    readonly holder: string,
  ) {
    super(
      `The data folder ${folder} is in use by ${holder}. Stop that process, or use another folder. ` +
        'If you know nothing else uses it (a lock left by another machine, say), open it with `takeOverLock: true`.',
    );
    this.name = 'FolderInUseError';
  }
}

const inUse = (folder: string, holder: string) => new FolderInUseError(folder, holder);
