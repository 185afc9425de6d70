/**
 * The data folder's lock knows its holder beyond the pid: a zombie holder, a pid reused by another
 * process, and a lock from before the last boot are taken over; a lock from another host is
 * refused, naming the override, which takes it (createService's `takeOverLock` too); a stale
 * unreadable lock goes to exactly one opener.
 */
import { spawn } from 'node:child_process';
import { readFile, utimes, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createService } from '../../src/index.js';
import { acquireFolderLock } from '../../src/stores/json-file/folder-lock.js';
import { currentProcess } from '../../src/stores/json-file/process-identity.js';
import { createMemoryRepository } from '../../src/stores/memory.js';
import { needs, PROC, unmet } from '../helpers/requirements.js';
import { tempDir } from '../helpers/temp-dir.js';

/** A lock file naming `holder`; answers its path. */
async function lockNaming(holder: Record<string, unknown>, name = 'db.json.lock') {
  const folder = await tempDir();
  const lockFile = path.join(folder, name);
  await writeFile(lockFile, JSON.stringify({ since: '2026-01-01T00:00:00.000Z', token: 'theirs', ...holder }));
  return { folder, lockFile };
}

/** A zombie: a child that exited, whose parent (`sleep`, which never waits) still runs. */
function zombie(): Promise<{ pid: number; stop(): void }> {
  return new Promise((resolve, reject) => {
    const parent = spawn('sh', ['-c', 'sleep 0 & echo $!; exec sleep 20'], { stdio: ['ignore', 'pipe', 'ignore'] });
    parent.stdout!.once('data', (chunk: Buffer) => resolve({ pid: Number(String(chunk).trim()), stop: () => parent.kill('SIGKILL') }));
    parent.once('error', reject);
  });
}

describe('folder lock: who holds it (Linux /proc)', needs(unmet(PROC)), () => {
  it('takes over a lock whose holder is a zombie', async () => {
    const held = await zombie();
    try {
      // Give the child time to exit and become a zombie (at once; up to 10 s on a busy machine).
      for (let i = 0; i < 500 && !/ Z /.test(await readFile(`/proc/${held.pid}/stat`, 'utf8').catch(() => ' Z ')); i++) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(() => process.kill(held.pid, 0)).not.toThrow();
      const { lockFile, folder } = await lockNaming({ pid: held.pid, hostname: hostname() });
      const lock = await acquireFolderLock(lockFile, folder);
      await lock.release();
    } finally {
      held.stop();
    }
  });

  it('takes over a lock whose pid now belongs to another process (another start time)', async () => {
    const me = await currentProcess();
    const { lockFile, folder } = await lockNaming({ pid: process.pid, hostname: hostname(), startTime: '1', bootId: me.bootId });
    const lock = await acquireFolderLock(lockFile, folder);
    expect(JSON.parse(await readFile(lockFile, 'utf8')).startTime).toBe(me.startTime);
    await lock.release();
  });

  it('takes over a lock written before the machine last booted', async () => {
    const me = await currentProcess();
    const { lockFile, folder } = await lockNaming({
      pid: process.pid,
      hostname: hostname(),
      startTime: me.startTime,
      bootId: 'an-earlier-boot',
    });
    await (await acquireFolderLock(lockFile, folder)).release();
  });

  it('refuses the lock of a live holder (this very process)', async () => {
    const me = await currentProcess();
    const { lockFile, folder } = await lockNaming({ ...me });
    await expect(acquireFolderLock(lockFile, folder)).rejects.toThrow(new RegExp(`in use by process ${process.pid}`));
  });
});

describe('folder lock: locks it cannot check', () => {
  it('refuses a lock from another host, naming the override; the override takes it', async () => {
    const { lockFile, folder } = await lockNaming({ pid: 4242, hostname: 'another-machine' });
    await expect(acquireFolderLock(lockFile, folder)).rejects.toThrow(/in use by process 4242 on another-machine.*takeOverLock: true/s);
    const lock = await acquireFolderLock(lockFile, folder, { takeOver: true });
    expect(JSON.parse(await readFile(lockFile, 'utf8')).hostname).toBe(hostname());
    await lock.release();
  });

  it('createService refuses a data folder another host holds, naming its takeOverLock option, which takes it', async () => {
    const { lockFile, folder } = await lockNaming({ pid: 4242, hostname: 'another-machine' });
    await expect(createService({ dataDir: folder })).rejects.toThrow(/in use by process 4242 on another-machine.*takeOverLock: true/s);
    const service = await createService({ dataDir: folder, takeOverLock: true });
    expect(JSON.parse(await readFile(lockFile, 'utf8')).hostname).toBe(hostname());
    await service.close();
  });

  it('createService refuses takeOverLock where there is no folder of its own to lock, and takes no lock', async () => {
    const { lockFile, folder } = await lockNaming({ pid: 4242, hostname: 'another-machine' });
    await expect(createService({ takeOverLock: true })).rejects.toThrow('takeOverLock needs a `dataDir`');
    await expect(createService({ dataDir: folder, repository: createMemoryRepository(), takeOverLock: true })).rejects.toThrow(
      'takeOverLock is for the data folder of `dataDir`: pass it to createJsonFileRepository',
    );
    expect(JSON.parse(await readFile(lockFile, 'utf8')).hostname).toBe('another-machine');
  });

  it('gives a stale, unreadable lock to exactly one of several openers', async () => {
    const folder = await tempDir();
    for (let trial = 0; trial < 20; trial++) {
      const lockFile = path.join(folder, `unreadable-${trial}.lock`);
      await writeFile(lockFile, '');
      const longAgo = new Date(Date.now() - 60_000);
      await utimes(lockFile, longAgo, longAgo);
      const attempts = await Promise.allSettled([1, 2, 3, 4].map(() => acquireFolderLock(lockFile, folder)));
      expect(
        attempts.filter((attempt) => attempt.status === 'fulfilled'),
        `trial ${trial}`,
      ).toHaveLength(1);
    }
  });
});
