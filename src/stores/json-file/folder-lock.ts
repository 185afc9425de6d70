import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { open, readFile, stat, unlink } from 'node:fs/promises';

/** What the lock file says about its holder. */
interface LockHolder {
  readonly pid: number;
  readonly hostname: string;
  readonly since: string;
  /** Unique to one acquisition, so a holder releases only its own lock. */
  readonly token: string;
}

/** A held lock on a data folder; `release` removes it. */
export interface FolderLock {
  release(): Promise<void>;
}

/** How long a lock (or takeover) file may stay unreadable before it counts as left by a writer that died. */
const UNREADABLE_GRACE_MS = 5_000;

/**
 * Takes the lock file `lockFile` for this process, so one writer at a time uses a data folder.
 * A lock left by a process that no longer runs (on this host) is taken over. A live holder makes
 * this fail with an error naming the folder and the holder's pid.
 */
export async function acquireFolderLock(lockFile: string, folder: string): Promise<FolderLock> {
  const me: LockHolder = { pid: process.pid, hostname: hostname(), since: new Date().toISOString(), token: randomUUID() };
  const deadline = Date.now() + 2 * UNREADABLE_GRACE_MS;
  while (Date.now() < deadline) {
    if (await createLockFile(lockFile, me)) {
      return {
        async release() {
          // Only our own lock: if it was taken over, the file now belongs to someone else.
          if ((await readHolder(lockFile))?.token === me.token) await unlink(lockFile).catch(() => undefined);
        },
      };
    }
    const holder = await readHolder(lockFile);
    if (holder === undefined && !(await unreadableForLong(lockFile))) {
      // Its writer is between creating the file and writing it: a live holder.
      throw inUse(folder, 'another process (starting up)');
    }
    if (holder && isAlive(holder)) throw inUse(folder, `process ${holder.pid} on ${holder.hostname} (since ${holder.since})`);
    if (!(await removeStale(lockFile, holder))) await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`Could not take the lock on the data folder ${folder}: other processes keep taking it.`);
}

/**
 * Removes a stale lock. Several processes may find the same stale lock at once, so removing it is
 * itself guarded by a second lock file: only its creator removes the stale lock, and only if the
 * lock is still the stale one it read. Answers false when another process is doing it.
 */
async function removeStale(lockFile: string, stale: LockHolder | undefined): Promise<boolean> {
  const guard = `${lockFile}.takeover`;
  let handle;
  try {
    handle = await open(guard, 'wx');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    // A guard left by a process that died while taking over.
    if (await unreadableForLong(guard)) await unlink(guard).catch(() => undefined);
    return false;
  }
  try {
    await handle.close();
    const current = await readHolder(lockFile);
    if (current?.token === stale?.token) await unlink(lockFile).catch(() => undefined);
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

async function readHolder(lockFile: string): Promise<LockHolder | undefined> {
  try {
    const holder = JSON.parse(await readFile(lockFile, 'utf8')) as LockHolder;
    return typeof holder.pid === 'number' ? holder : undefined;
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

function isAlive(holder: LockHolder): boolean {
  // A process on another host sharing the folder cannot be checked: assume it is alive.
  if (holder.hostname !== hostname()) return true;
  try {
    process.kill(holder.pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

const inUse = (folder: string, holder: string) =>
  new Error(`The data folder ${folder} is in use by ${holder}. Stop that process, or use another folder.`);
