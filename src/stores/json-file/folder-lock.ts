import { hostname } from 'node:os';
import { open, readFile, unlink } from 'node:fs/promises';

/** What the lock file says about its holder. */
interface LockHolder {
  readonly pid: number;
  readonly hostname: string;
  readonly since: string;
}

/** A held lock on a data folder; `release` removes it. */
export interface FolderLock {
  release(): Promise<void>;
}

/**
 * Takes the lock file `lockFile` for this process, so one writer at a time uses a data folder.
 * A lock left by a process that no longer runs (on this host) is taken over. A live holder makes
 * this fail with an error naming the folder and the holder's pid.
 */
export async function acquireFolderLock(lockFile: string, folder: string): Promise<FolderLock> {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const handle = await open(lockFile, 'wx');
      const holder: LockHolder = { pid: process.pid, hostname: hostname(), since: new Date().toISOString() };
      await handle.writeFile(JSON.stringify(holder));
      await handle.sync();
      await handle.close();
      return { release: () => unlink(lockFile).catch(() => undefined) };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const holder = await readHolder(lockFile);
    if (holder && isAlive(holder)) {
      throw new Error(
        `The data folder ${folder} is in use by process ${holder.pid} on ${holder.hostname} (since ${holder.since}). ` +
          `Stop that process, or use another folder.`,
      );
    }
    // The holder is gone (killed, crashed): the lock is stale.
    await unlink(lockFile).catch(() => undefined);
  }
  throw new Error(`Could not take the lock on the data folder ${folder}: another process keeps taking it.`);
}

async function readHolder(lockFile: string): Promise<LockHolder | undefined> {
  try {
    const holder = JSON.parse(await readFile(lockFile, 'utf8')) as LockHolder;
    return typeof holder.pid === 'number' ? holder : undefined;
  } catch {
    // Unreadable or half-written: its writer died before finishing, so it holds nothing.
    return undefined;
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
