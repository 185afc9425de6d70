import { spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { acquireFolderLock } from '../../src/stores/json-file/folder-lock.js';
import { tempDir } from '../helpers/temp-dir.js';

const deadPid = () =>
  new Promise<number>((resolve) => {
    const child = spawn(process.execPath, ['-e', '']);
    child.on('exit', () => resolve(child.pid!));
  });

describe('folder lock', () => {
  it('lets exactly one of several openers take over a stale lock', async () => {
    const folder = await tempDir();
    const pid = await deadPid();
    for (let trial = 0; trial < 30; trial++) {
      const lockFile = path.join(folder, `trial-${trial}.lock`);
      await writeFile(lockFile, JSON.stringify({ pid, hostname: hostname(), since: '2026-01-01T00:00:00.000Z', token: 'stale' }));
      const attempts = await Promise.allSettled([1, 2, 3].map(() => acquireFolderLock(lockFile, folder)));
      const winners = attempts.filter((a) => a.status === 'fulfilled');
      expect(winners, `trial ${trial}`).toHaveLength(1);
      for (const loser of attempts.filter((a) => a.status === 'rejected')) {
        expect(String((loser as PromiseRejectedResult).reason)).toMatch(/in use by/);
      }
    }
  });

  it('treats a lock file still being written as held, and releases only its own lock', async () => {
    const folder = await tempDir();
    const lockFile = path.join(folder, 'db.json.lock');
    await writeFile(lockFile, '');
    await expect(acquireFolderLock(lockFile, folder)).rejects.toThrow(/in use by another process \(starting up\)/);

    const other = path.join(folder, 'other.lock');
    const first = await acquireFolderLock(other, folder);
    // Someone else's lock now stands in its place: releasing must not remove it.
    await writeFile(other, JSON.stringify({ pid: process.pid, hostname: hostname(), since: 'now', token: 'someone-else' }));
    await first.release();
    await expect(acquireFolderLock(other, folder)).rejects.toThrow(/in use by process/);
  });
});
