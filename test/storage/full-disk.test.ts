/**
 * A real full disk: the store on a small tmpfs, written until the disk is full. Writes the disk
 * cannot hold fail cleanly and change nothing, reads go on, writing works again once space is
 * freed (no restart), and reopening finds every acknowledged write; a compaction the disk cannot
 * hold leaves no partial file and is not tried on every write. Needs root to mount a tmpfs;
 * elsewhere the test is skipped, saying so.
 */
import { execFileSync } from 'node:child_process';
import { appendFile, mkdir, readdir, rm, stat, truncate, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { createHonoRouter } from '../../adapters/hono/index.js';
import { createJsonFileRepository, createService, isServiceError } from '../../src/index.js';
import { conversationRecord, messageRecord } from '../helpers/records.js';
import { mountTmpfs, needs } from '../helpers/requirements.js';
import { tempDir } from '../helpers/temp-dir.js';

const mountPoint = path.join(await tempDir('cms-full-disk-'), 'disk');
await mkdir(mountPoint);
const cannotMount = mountTmpfs(mountPoint, '768k');
afterAll(() => {
  if (cannotMount === undefined) execFileSync('umount', ['-l', mountPoint], { stdio: 'pipe' });
});

describe('on a real full disk (a 768 KiB tmpfs)', needs(cannotMount), () => {
  it('fails the writes the disk cannot hold, carries on once space is freed, and loses no acknowledged write', async () => {
    const file = path.join(mountPoint, 'data', 'db.json');
    const filler = path.join(mountPoint, 'filler');
    await mkdir(path.dirname(file));
    await writeFile(filler, Buffer.alloc(256 * 1024));
    const repository = await createJsonFileRepository({ file, logger: { warn: () => undefined } });
    const acknowledged: string[] = [];
    let failure: unknown;
    for (let i = 0; i < 400 && failure === undefined; i++) {
      const record = { ...conversationRecord(`c${i}`), application: { notes: 'x'.repeat(8_000) } };
      try {
        await repository.transact((tx) => tx.put('conversations', record));
        acknowledged.push(record.id);
      } catch (error) {
        failure = error;
      }
    }
    expect(String(failure)).toMatch(/no space left|ENOSPC/i);
    // A full disk is not a bug: it has its own code (507 over HTTP), and says so.
    expect(isServiceError(failure) && failure.code).toBe('INSUFFICIENT_STORAGE');
    expect((failure as Error).message).toMatch(/^The disk is full\./);
    expect((await repository.read((view) => view.list('conversations'))).records.map((c) => c.id)).toEqual(acknowledged);

    await rm(filler);
    await repository.transact((tx) => tx.put('conversations', conversationRecord('after-space-returned')));
    acknowledged.push('after-space-returned');
    await repository.close();

    const reopened = await createJsonFileRepository({ file, logger: { warn: () => undefined } });
    expect((await reopened.read((view) => view.list('conversations'))).records.map((c) => c.id)).toEqual(acknowledged);
    await reopened.close();
    await rm(path.dirname(file), { recursive: true });
  });

  it('answers 507 INSUFFICIENT_STORAGE over HTTP while the disk is full, and goes on serving reads', async () => {
    const dataDir = path.join(mountPoint, 'service');
    const filler = path.join(mountPoint, 'filler');
    const service = await createService({ dataDir, logger: { warn: () => undefined } });
    const router = createHonoRouter(service, { logger: { error: () => undefined } });
    try {
      const create = (name: string) =>
        router.request('/conversations/create', {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ type: 'COPILOT', name }),
        });
      const first = await create('written before the disk filled');
      expect(first.status).toBe(200);
      const { id } = (await first.json()) as { id: string };
      // Fill what is left of the disk, to the last block.
      await writeFile(filler, Buffer.alloc(0));
      for (let size = 512 * 1024; size >= 512; size /= 2) {
        for (;;) {
          try {
            await appendFile(filler, Buffer.alloc(size));
          } catch {
            break;
          }
        }
      }
      // The journal's last page may still hold a few lines: write until the disk refuses (bounded).
      let refused = await create('x'.repeat(1_000));
      for (let i = 0; i < 20 && refused.status === 200; i++) refused = await create('x'.repeat(1_000));
      expect(refused.status).toBe(507);
      expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('INSUFFICIENT_STORAGE');
      const read = await router.request(`/conversation/${id}`);
      expect(read.status).toBe(200);
      expect(((await read.json()) as { name: string }).name).toBe('written before the disk filled');
      await rm(filler);
      expect((await create('after the space returned')).status).toBe(200);
    } finally {
      await service.close();
    }
  });

  it('a compaction the disk cannot hold (at a close, at a start, then on writes) leaves no partial file, and waits to try again', async () => {
    const file = path.join(mountPoint, 'compacting', 'db.json');
    const filler = path.join(mountPoint, 'filler');
    await mkdir(path.dirname(file));
    const warnings: string[] = [];
    const logger = { warn: (warning: string) => warnings.push(warning) };
    const tries = () => warnings.filter((warning) => /Could not write the snapshot/.test(warning));
    const partials = async () => (await readdir(path.dirname(file))).filter((name) => /\.(messages|hint)-\d+$|\.tmp$/.test(name));
    // ~240 KiB of messages in the journal, not folded yet (the threshold is far off).
    const first = await createJsonFileRepository({ file, logger });
    const ids = Array.from({ length: 60 }, (_, i) => `m${i}`);
    await first.transact((tx) => tx.put('conversations', { ...conversationRecord('c'), messages: ids }));
    for (const id of ids)
      await first.transact((tx) => tx.put('messages', { ...messageRecord(id, 'c'), fragment: { string: { raw: 'x'.repeat(4_000) } } }));
    // The disk keeps 48 KiB free: room for journal lines, not for a message file of ~240 KiB.
    await writeFile(filler, Buffer.alloc(0));
    for (let size = 256 * 1024; size >= 4096; size /= 2) {
      for (;;) {
        try {
          await appendFile(filler, Buffer.alloc(size));
        } catch {
          break;
        }
      }
    }
    await truncate(filler, Math.max(0, (await stat(filler)).size - 48 * 1024));

    // The close folds the journal: the message file does not fit; what was written is removed.
    await first.close();
    expect(tries()).toHaveLength(1);
    expect(await partials()).toEqual([]);

    // The clock stands still: whatever the machine's speed, no wait is over during the writes below.
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      const second = await createJsonFileRepository({ file, compactAfterBytes: 1, logger });
      // The start folds the journal too, in the background: it fails the same way.
      await vi.waitFor(() => expect(tries()).toHaveLength(2), { timeout: 10_000, interval: 20 });
      expect(await partials()).toEqual([]);
      expect(tries()[1]).toMatch(/tried again in 1 s at the earliest/);
      // Each small write (they fit) would start a compaction; after a failure they wait instead.
      for (let i = 0; i < 20; i++) await second.transact((tx) => tx.put('conversations', conversationRecord(`after-${i}`)));
      expect(tries()).toHaveLength(2);
      expect(await partials()).toEqual([]);

      // Space returns: the close folds the journal, and every write is there after a restart.
      await rm(filler);
      await second.close();
    } finally {
      vi.useRealTimers();
    }
    expect(tries()).toHaveLength(2);
    const third = await createJsonFileRepository({ file, logger });
    expect((await third.read((view) => view.getMany('messages', ids))).filter(Boolean)).toHaveLength(60);
    expect(await third.read((view) => view.count('conversations'))).toBe(21);
    await third.close();
    await rm(path.dirname(file), { recursive: true });
  });

  it('a backup the disk cannot hold fails with INSUFFICIENT_STORAGE, leaves no half folder, and the store serves on', async () => {
    // The store on the ordinary disk, its backup aimed at the small one: about 1.2 MB into 768 KiB.
    const file = path.join(await tempDir('cms-full-disk-backup-'), 'db.json');
    const store = await createJsonFileRepository({ file, logger: { warn: () => undefined } });
    try {
      await store.transact((tx) => {
        for (let i = 0; i < 150; i++)
          tx.put('conversations', { ...conversationRecord(`c${i}`), application: { notes: 'x'.repeat(8_000) } });
      });
      const before = (await readdir(mountPoint)).sort();
      const error = await store.backup!(path.join(mountPoint, 'backup')).catch((e: unknown) => e);
      expect(isServiceError(error) && error.code).toBe('INSUFFICIENT_STORAGE');
      expect((error as Error).message).toMatch(/^The disk is full: the backup into .* was not written, and nothing of it was left/);
      // No half folder, nor its temporary one.
      expect((await readdir(mountPoint)).sort()).toEqual(before);
      // The store serves on, and a backup where there is room works.
      await store.transact((tx) => tx.put('conversations', conversationRecord('after')));
      const report = await store.backup!(path.join(path.dirname(file), 'backup'));
      expect(report.files).toBeGreaterThan(0);
    } finally {
      await store.close();
    }
  });
});
