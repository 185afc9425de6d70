/**
 * A journal on a disk that fails: a write that does not reach the disk fails its request and
 * changes nothing (memory is rolled back to what the disk holds), half-written lines are cut off,
 * and the store carries on by itself once the disk works again, with no restart. A failed
 * rotation (no file descriptor left, say) fails only the compaction that asked for it.
 */

import { constants } from 'node:fs';
import { cp, readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { createJsonFileRepository, createService, type MessageRecord } from '../../src/index.js';
import { createFakeSummarizer } from '../../src/summarizers/index.js';
import { conversationRecord, messageRecord } from '../helpers/records.js';
import { tempDir } from '../helpers/temp-dir.js';

// A disk that fails on demand: journal writes write half their bytes then fail (ENOSPC) while
// `failJournalWrites` is set; opening a new journal file fails (EMFILE) while `failOpens` is set.
// `failCuts`: cutting a journal file back (truncate) fails too; `failFlushes`: that many flushes fail.
const disk = vi.hoisted(() => ({ failJournalWrites: false, failOpens: false, failCuts: false, failFlushes: 0, opened: 0 }));
vi.mock('node:fs/promises', async (importOriginal) => {
  const fs = await importOriginal<typeof import('node:fs/promises')>();
  return {
    ...fs,
    open: async (...args: Parameters<typeof fs.open>) => {
      // Journal files opened for writing (created if missing), not those read at the start.
      const writing = typeof args[1] === 'number' ? (args[1] & constants.O_CREAT) !== 0 : /[wa]/.test(String(args[1]));
      if (!String(args[0]).includes('.journal-') || !writing) return fs.open(...args);
      if (disk.failOpens && disk.opened > 0) throw Object.assign(new Error('too many open files'), { code: 'EMFILE' });
      disk.opened++;
      const handle = await fs.open(...args);
      const writev = handle.writev.bind(handle);
      (handle as unknown as Record<string, unknown>).writev = async (buffers: Buffer[], position?: number) => {
        if (!disk.failJournalWrites) return writev(buffers, position);
        const all = Buffer.concat(buffers);
        await writev([all.subarray(0, Math.floor(all.length / 2))], position);
        throw Object.assign(new Error('no space left on device'), { code: 'ENOSPC' });
      };
      const datasync = handle.datasync.bind(handle);
      (handle as unknown as Record<string, unknown>).datasync = async () => {
        if (disk.failFlushes > 0 && disk.failFlushes--) throw Object.assign(new Error('input/output error'), { code: 'EIO' });
        return datasync();
      };
      const truncate = handle.truncate.bind(handle);
      (handle as unknown as Record<string, unknown>).truncate = async (length?: number) => {
        if (disk.failCuts) throw Object.assign(new Error('input/output error'), { code: 'EIO' });
        return truncate(length);
      };
      return handle;
    },
  };
});

const ids = (list: readonly { id: string }[]) => list.map((record) => record.id);

describe('JSON-file repository when the disk fails', () => {
  it('fails the write and keeps nothing of it, then carries on once space returns; a reopen has every acknowledged write', async () => {
    const file = path.join(await tempDir(), 'db.json');
    const repository = await createJsonFileRepository({ file, logger: { warn: () => {} } });
    await repository.transact((tx) => tx.put('conversations', conversationRecord('acknowledged')));

    disk.failJournalWrites = true;
    const failed = await Promise.allSettled(
      ['lost-1', 'lost-2'].map((id) => repository.transact((tx) => tx.put('conversations', conversationRecord(id)))),
    );
    expect(failed.map((result) => result.status)).toEqual(['rejected', 'rejected']);
    expect(String((failed[0] as PromiseRejectedResult).reason)).toMatch(
      /could not be written .*no space left.*nothing of this write was kept/,
    );
    // Reads go on, and show what the disk holds.
    expect(ids((await repository.read((view) => view.list('conversations'))).records)).toEqual(['acknowledged']);

    disk.failJournalWrites = false;
    await repository.transact((tx) => tx.put('conversations', conversationRecord('later')));
    expect(ids((await repository.read((view) => view.list('conversations'))).records)).toEqual(['acknowledged', 'later']);
    // The half-written line was cut off: every line of the journal is whole.
    const journal = await readFile(`${file}.journal-000001`, 'utf8');
    for (const line of journal.trim().split('\n')) expect(() => JSON.parse(line)).not.toThrow();
    await repository.close();

    const reopened = await createJsonFileRepository({ file });
    expect(ids((await reopened.read((view) => view.list('conversations'))).records)).toEqual(['acknowledged', 'later']);
    await reopened.close();
  });

  it('survives a failed rotation: the compaction is put off, reads and writes go on, nothing is lost', async () => {
    const file = path.join(await tempDir(), 'db.json');
    const warnings: string[] = [];
    disk.opened = 0;
    const repository = await createJsonFileRepository({
      file,
      compactAfterBytes: 1,
      logger: { warn: (message) => warnings.push(message) },
    });
    disk.failOpens = true;
    for (let i = 0; i < 5; i++) await repository.transact((tx) => tx.put('conversations', conversationRecord(`c${i}`)));
    // The rotation runs after the writes, in the background: its warning comes when it fails
    // (milliseconds; 10 s is for a busy machine).
    await vi.waitFor(() => expect(warnings.join('\n')).toMatch(/too many open files/), { timeout: 10_000 });
    expect(ids((await repository.read((view) => view.list('conversations'))).records)).toHaveLength(5);
    disk.failOpens = false;
    await repository.transact((tx) => tx.put('conversations', conversationRecord('after')));
    await repository.close();

    const reopened = await createJsonFileRepository({ file });
    expect(ids((await reopened.read((view) => view.list('conversations'))).records)).toEqual(['c0', 'c1', 'c2', 'c3', 'c4', 'after']);
    await reopened.close();
  });

  it('survives a rotation whose closing line cannot be written: the line is cut, the next file removed, nothing is lost', async () => {
    const file = path.join(await tempDir(), 'db.json');
    const warnings: string[] = [];
    const repository = await createJsonFileRepository({ file, compactAfterBytes: 1, logger: { warn: (m) => warnings.push(m) } });
    // This write asks for a compaction, whose rotation then meets the full disk.
    await repository.transact((tx) => tx.put('conversations', conversationRecord('acknowledged')));
    disk.failJournalWrites = true;
    await repository.close();
    disk.failJournalWrites = false;
    expect(warnings.join('\n')).toMatch(/Could not write the snapshot .*no space left/);
    // The journal ends with its last record, not with half a line naming a file that is not there.
    const lines = (await readFile(`${file}.journal-000001`, 'utf8')).trim().split('\n');
    expect(JSON.parse(lines.at(-1)!).seq).toBe(1);
    await expect(readFile(`${file}.journal-000002`)).rejects.toMatchObject({ code: 'ENOENT' });

    const reopened = await createJsonFileRepository({ file, logger: { warn: () => {} } });
    expect(ids((await reopened.read((view) => view.list('conversations'))).records)).toEqual(['acknowledged']);
    await reopened.close();
  });

  it('stops writing when a failed rotation cannot be undone, and opens again with every acknowledged write', async () => {
    const file = path.join(await tempDir(), 'db.json');
    const repository = await createJsonFileRepository({ file, compactAfterBytes: 1, logger: { warn: () => {} } });
    await repository.transact((tx) => tx.put('conversations', conversationRecord('acknowledged')));
    // The rotation's line naming the next file is written but not flushed, and cannot be cut off.
    disk.failFlushes = 1;
    disk.failCuts = true;
    const after = repository.transact((tx) => tx.put('conversations', conversationRecord('refused')));
    await expect(after).rejects.toThrow(/could not be written/);
    disk.failCuts = false;
    // Nothing may follow the half-written line that names the next file: writes stay refused.
    await expect(repository.transact((tx) => tx.put('conversations', conversationRecord('still-refused')))).rejects.toThrow(
      /cannot be written|could not be written/,
    );
    expect(ids((await repository.read((view) => view.list('conversations'))).records)).toEqual(['acknowledged']);
    await repository.close();

    const reopened = await createJsonFileRepository({ file, logger: { warn: () => {} } });
    expect(ids((await reopened.read((view) => view.list('conversations'))).records)).toEqual(['acknowledged']);
    await reopened.close();
  });

  it("answers a conversation's cached JSON as the disk holds it after a write that reads saw failed", async () => {
    const file = path.join(await tempDir(), 'db.json');
    const repository = await createJsonFileRepository({ file, logger: { warn: () => {} } });
    const service = await createService({ repository, summarizer: createFakeSummarizer() });
    await repository.transact((tx) => tx.put('conversations', conversationRecord('c', 'On disk')));
    const nameOf = async (transferables = false) => JSON.parse(await service.getConversationJson('c', { transferables })).name;
    expect(await nameOf()).toBe('On disk');

    disk.failJournalWrites = true;
    // Applied in memory before its journal line is written: reads see it meanwhile, and one of an
    // answer not cached yet renders (and caches) it, while the cached one still answers the old.
    const write = repository.transact((tx) => tx.put('conversations', conversationRecord('c', 'Never stored')));
    let seen = false;
    for (let i = 0; i < 100 && !seen; i++) seen = (await nameOf(true)) === 'Never stored';
    await expect(write).rejects.toThrow(/could not be written/);
    disk.failJournalWrites = false;
    expect(seen).toBe(true);
    expect(await nameOf(true)).toBe('On disk');
    expect(await nameOf()).toBe('On disk');
    await service.close();
  });
});

const text = (m: MessageRecord | undefined) => m?.fragment?.string?.raw;
const withText = (raw: string): MessageRecord => ({ ...messageRecord('m', 'c'), fragment: { string: { raw } } });

describe('JSON-file repository: a failed write over a message held since the start', () => {
  it('falls back to the version replayed at open when a write over it fails, and keeps it through a restart', async () => {
    const first = await tempDir('cms-held-');
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
    const second = await tempDir('cms-held-');
    for (const name of await readdir(first)) if (!name.endsWith('.lock')) await cp(path.join(first, name), path.join(second, name));
    await repo.close();

    // Restart on a disk that cannot take a new journal file: the compaction at open fails, v2 stays held.
    disk.failOpens = true;
    disk.opened = 0;
    const warnings: string[] = [];
    repo = await createJsonFileRepository({ file: path.join(second, 'db.json'), logger: { warn: (w) => warnings.push(w) } });
    // The compaction at open runs in the background (milliseconds; 10 s is for a busy machine).
    await vi.waitFor(() => expect(warnings.join()).toMatch(/Could not write the snapshot/), { timeout: 10_000 });
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
});
