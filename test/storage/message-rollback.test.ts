import { cp, mkdtemp, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, it, vi } from 'vitest';
import { createJsonFileRepository, type MessageRecord } from '../../src/index.js';
import { conversationRecord, messageRecord } from '../helpers/records.js';

// Same disk double as test/storage/write-failure.test.ts: journal writes fail (ENOSPC), opening a
// second journal file (a rotation) fails (EMFILE).
const disk = vi.hoisted(() => ({ failJournalWrites: false, failOpens: false, opened: 0 }));
vi.mock('node:fs/promises', async (importOriginal) => {
  const fs = await importOriginal<typeof import('node:fs/promises')>();
  return {
    ...fs,
    open: async (...args: Parameters<typeof fs.open>) => {
      if (!String(args[0]).includes('.journal-')) return fs.open(...args);
      if (disk.failOpens && disk.opened > 0) throw Object.assign(new Error('too many open files'), { code: 'EMFILE' });
      disk.opened++;
      const handle = await fs.open(...args);
      const writev = handle.writev.bind(handle);
      (handle as unknown as Record<string, unknown>).writev = async (buffers: Buffer[], position?: number) => {
        if (!disk.failJournalWrites) return writev(buffers, position);
        throw Object.assign(new Error('no space left on device'), { code: 'ENOSPC' });
      };
      return handle;
    },
  };
});

const text = (m: MessageRecord | undefined) => m?.fragment?.string?.raw;
const withText = (raw: string): MessageRecord => ({ ...messageRecord('m', 'c'), fragment: { string: { raw } } });

it('a failed write over a message replayed from the journal leaves the replayed (acknowledged) version', async () => {
  const first = await mkdtemp(path.join(tmpdir(), 'rev-'));
  const file = path.join(first, 'db.json');
  let repo = await createJsonFileRepository({ file });
  await repo.transact((tx) => {
    tx.put('conversations', { ...conversationRecord('c'), messages: ['m'] });
    tx.put('messages', withText('v1'));
  });
  await repo.close(); // v1 now in a message file + hint
  repo = await createJsonFileRepository({ file });
  await repo.transact((tx) => tx.put('messages', withText('v2'))); // acknowledged: in the journal
  // "kill -9" here: copy the folder as it is now (no compaction ran).
  const second = await mkdtemp(path.join(tmpdir(), 'rev-'));
  for (const name of await readdir(first)) if (!name.endsWith('.lock')) await cp(path.join(first, name), path.join(second, name));
  await repo.close();

  // Restart on a disk that cannot take a new journal file: the compaction at open fails, v2 stays held.
  disk.failOpens = true;
  disk.opened = 0;
  const warnings: string[] = [];
  repo = await createJsonFileRepository({ file: path.join(second, 'db.json'), logger: { warn: (w) => warnings.push(w) } });
  await new Promise((r) => setTimeout(r, 200));
  expect(warnings.join()).toMatch(/Could not write the snapshot/);
  expect(text(await repo.read((v) => v.get('messages', 'm')))).toBe('v2');

  disk.failJournalWrites = true;
  await expect(repo.transact((tx) => tx.put('messages', withText('v3')))).rejects.toThrow(/nothing of this write was kept/);
  disk.failJournalWrites = false;
  disk.failOpens = false;
  const now = text(await repo.read((v) => v.get('messages', 'm')));
  await repo.close(); // compacts: snapshot past v2's entry, hint from the keydir
  repo = await createJsonFileRepository({ file: path.join(second, 'db.json') });
  const afterRestart = text(await repo.read((v) => v.get('messages', 'm')));
  await repo.close();
  expect({ now, afterRestart }).toEqual({ now: 'v2', afterRestart: 'v2' });
});
