import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { createJsonFileRepository } from '../../src/index.js';
import { conversationRecord } from '../helpers/records.js';
import { tempDir } from '../helpers/temp-dir.js';

// A disk that fails on demand: journal writes reject while `failJournalWrites` is set.
const disk = vi.hoisted(() => ({ failJournalWrites: false }));
vi.mock('node:fs/promises', async (importOriginal) => {
  const fs = await importOriginal<typeof import('node:fs/promises')>();
  return {
    ...fs,
    open: async (...args: Parameters<typeof fs.open>) => {
      const handle = await fs.open(...args);
      if (!String(args[0]).includes('.journal-')) return handle;
      for (const method of ['write', 'writev'] as const) {
        const original = handle[method].bind(handle) as (...a: unknown[]) => Promise<unknown>;
        (handle as unknown as Record<string, unknown>)[method] = (...a: unknown[]) =>
          disk.failJournalWrites ? Promise.reject(Object.assign(new Error('no space left on device'), { code: 'ENOSPC' })) : original(...a);
      }
      return handle;
    },
  };
});

describe('JSON-file repository when the disk fails', () => {
  it('rejects the write, then refuses to serve memory the disk lacks; a reopen has every acknowledged write', async () => {
    const file = path.join(await tempDir(), 'db.json');
    const repository = await createJsonFileRepository({ file, logger: { warn: () => {} } });
    await repository.transact((tx) => tx.put('conversations', conversationRecord('acknowledged')));

    disk.failJournalWrites = true;
    await expect(repository.transact((tx) => tx.put('conversations', conversationRecord('lost')))).rejects.toThrow(/could not be written .*no space left/);
    disk.failJournalWrites = false;
    await expect(repository.read((view) => view.list('conversations'))).rejects.toThrow(/restart/);
    await expect(repository.transact((tx) => tx.put('conversations', conversationRecord('later')))).rejects.toThrow(/restart/);
    await repository.close();

    const reopened = await createJsonFileRepository({ file });
    expect((await reopened.read((view) => view.list('conversations'))).map((c) => c.id)).toEqual(['acknowledged']);
    await reopened.close();
  });
});
