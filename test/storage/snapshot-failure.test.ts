/**
 * A snapshot written on a disk that answers short writes, or fills up: short writes are completed,
 * and a snapshot that cannot be written leaves the previous snapshot and the journal as they were,
 * so reopening finds every acknowledged write.
 */
import { cp, readdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { createJsonFileRepository } from '../../src/index.js';
import { conversationRecord } from '../helpers/records.js';
import { tempDir } from '../helpers/temp-dir.js';

// The snapshot's temporary file: 'short' writes at most 1,000 bytes per call; 'full' fails with ENOSPC.
const disk = vi.hoisted(() => ({ snapshot: 'ok' as 'ok' | 'short' | 'full', shortWrites: 0 }));
vi.mock('node:fs/promises', async (importOriginal) => {
  const fs = await importOriginal<typeof import('node:fs/promises')>();
  return {
    ...fs,
    open: async (...args: Parameters<typeof fs.open>) => {
      const handle = await fs.open(...args);
      if (!String(args[0]).endsWith('.tmp')) return handle;
      const writev = handle.writev.bind(handle);
      (handle as unknown as Record<string, unknown>).writev = async (buffers: Buffer[], position?: number) => {
        if (disk.snapshot === 'full') throw Object.assign(new Error('no space left on device'), { code: 'ENOSPC' });
        if (disk.snapshot === 'short') {
          disk.shortWrites++;
          const first = Buffer.concat(buffers).subarray(0, 1_000);
          return writev([first], position);
        }
        return writev(buffers, position);
      };
      return handle;
    },
  };
});

describe('snapshot writes on a failing disk', () => {
  it('completes short writes: the snapshot holds everything', async () => {
    const file = path.join(await tempDir(), 'db.json');
    const repository = await createJsonFileRepository({ file, logger: { warn: () => undefined } });
    await repository.transact((tx) => {
      for (let i = 0; i < 50; i++) tx.put('conversations', { ...conversationRecord(`c${i}`), name: 'x'.repeat(200) });
    });
    disk.snapshot = 'short';
    await repository.close();
    disk.snapshot = 'ok';
    expect(disk.shortWrites).toBeGreaterThan(5);
    expect(JSON.parse(await readFile(file, 'utf8')).conversations).toHaveLength(50);
  });

  it('keeps the previous snapshot and the journal when the disk is full, and loses nothing', async () => {
    const file = path.join(await tempDir(), 'db.json');
    const warnings: string[] = [];
    const first = await createJsonFileRepository({ file, logger: { warn: (m) => warnings.push(m) } });
    await first.transact((tx) => tx.put('conversations', conversationRecord('in-the-snapshot')));
    await first.close();
    const before = await readFile(file, 'utf8');

    const second = await createJsonFileRepository({ file, logger: { warn: (m) => warnings.push(m) } });
    await second.transact((tx) => tx.put('conversations', conversationRecord('only-in-the-journal')));
    disk.snapshot = 'full';
    await second.close();
    disk.snapshot = 'ok';
    expect(warnings.join('\n')).toMatch(/Could not write the snapshot .*no space left/);
    expect(await readFile(file, 'utf8')).toBe(before);
    expect((await readdir(path.dirname(file))).some((name) => name.endsWith('.tmp'))).toBe(false);

    const reopened = await createJsonFileRepository({ file, logger: { warn: () => undefined } });
    expect((await reopened.read((view) => view.list('conversations'))).records.map((c) => c.id)).toEqual([
      'in-the-snapshot',
      'only-in-the-journal',
    ]);
    await reopened.close();
  });

  it('notices a deleted journal file that only the journal before it names (the snapshot that would have named it failed)', async () => {
    const file = path.join(await tempDir(), 'db.json');
    const first = await createJsonFileRepository({ file, logger: { warn: () => undefined } });
    await first.transact((tx) => tx.put('conversations', conversationRecord('in-journal-1')));
    disk.snapshot = 'full';
    // The compaction at close moves writes on to journal 2, then fails to write the snapshot that names it.
    await first.close();
    // Snapshots keep failing while the copy is made, so the one on disk still names journal 1.
    const second = await createJsonFileRepository({ file, logger: { warn: () => undefined } });
    await second.transact((tx) => tx.put('conversations', conversationRecord('in-journal-2')));
    const copy = path.join(await tempDir(), 'db.json');
    await cp(path.dirname(file), path.dirname(copy), { recursive: true, filter: (source) => !/\.(lock|tmp)$/.test(source) });
    await second.close();
    disk.snapshot = 'ok';

    await rm(`${copy}.journal-000002`);
    await expect(createJsonFileRepository({ file: copy, logger: { warn: () => undefined } })).rejects.toThrow(
      /journal-000002 is missing: the last line of .*journal-000001 says/,
    );
  });
});
