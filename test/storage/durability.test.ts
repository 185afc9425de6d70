import { spawn } from 'node:child_process';
import { constants } from 'node:fs';
import { mkdir, readdir, readFile, readlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { crc32 } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { COLLECTION_NAMES, createJsonFileRepository, createService, JSON_FILE_FORMAT_VERSION, type Repository } from '../../src/index.js';
import { conversationRecord, messageRecord } from '../helpers/records.js';
import { needs, PROC, unmet } from '../helpers/requirements.js';
import { said, seeds, steppingClock } from '../helpers/service.js';
import { tempDir } from '../helpers/temp-dir.js';

const root = await tempDir('cms-durability-');
let counter = 0;
const freshFile = () => path.join(root, `case-${++counter}`, 'db.json');
const quietLogger = () => {
  const warnings: string[] = [];
  return { warnings, warn: (message: string) => warnings.push(message) };
};

/** Every record of every collection, for comparing two states record for record. */
const everything = (repository: Repository) =>
  repository.read(async (view) =>
    Object.fromEntries(await Promise.all(COLLECTION_NAMES.map(async (name) => [name, (await view.list(name)).records]))),
  );

describe('JSON-file repository: locking', () => {
  it('refuses a second opener of the same data, naming the folder and the holder', async () => {
    const file = freshFile();
    const first = await createJsonFileRepository({ file });
    await expect(createJsonFileRepository({ file })).rejects.toThrow(new RegExp(`${path.dirname(file)}.*in use by process ${process.pid}`));
    await first.close();
    const again = await createJsonFileRepository({ file });
    await again.close();
  });

  it('takes over a lock left by a process that died', async () => {
    const file = freshFile();
    const dead = spawn(process.execPath, ['-e', '']);
    const deadPid = await new Promise<number>((resolve) => dead.on('exit', () => resolve(dead.pid!)));
    await createJsonFileRepository({ file }).then((r) => r.close());
    const { hostname } = await import('node:os');
    await writeFile(`${file}.lock`, JSON.stringify({ pid: deadPid, hostname: hostname(), since: '2026-01-01T00:00:00.000Z' }));
    const repository = await createJsonFileRepository({ file });
    await repository.transact((tx) => tx.put('conversations', conversationRecord('after-takeover')));
    await repository.close();
  });
});

describe('JSON-file repository: journal and snapshot', () => {
  it('keeps changes in the journal and folds them into the snapshot at close', async () => {
    const file = freshFile();
    const repository = await createJsonFileRepository({ file });
    await repository.transact((tx) => tx.put('conversations', conversationRecord('c1')));
    const journals = (await readdir(path.dirname(file))).filter((name) => name.includes('.journal-'));
    expect(journals).toHaveLength(1);
    expect(await readFile(path.join(path.dirname(file), journals[0]!), 'utf8')).toContain('"c1"');
    await repository.close();

    const snapshot = JSON.parse(await readFile(file, 'utf8'));
    expect(snapshot).toMatchObject({ version: JSON_FILE_FORMAT_VERSION, journalSeq: 1, conversations: [{ id: 'c1' }] });
    // What journal is left holds only what the snapshot holds (kept for the backup's sake), then
    // names the file writes go on in: the empty one the snapshot names.
    const left = (await readdir(path.dirname(file))).filter((name) => name.includes('.journal-')).sort();
    expect(left).toEqual(['db.json.journal-000001', 'db.json.journal-000002']);
    expect(snapshot.journal).toBe(2);
    const lines = (await readFile(path.join(path.dirname(file), left[0]!), 'utf8')).trim().split('\n');
    expect(lines.map((line) => JSON.parse(line).seq)).toEqual([1, undefined]);
    expect(JSON.parse(lines[1]!)).toEqual({ continuedIn: 2, crc: crc32(lines[1]!.slice(0, lines[1]!.lastIndexOf(',"crc":'))) });
    expect(await readFile(path.join(path.dirname(file), left[1]!), 'utf8')).toBe('');
  });

  it('reopens to the same state, record for record, after compactions and without', async () => {
    const file = freshFile();
    const service = await createService({
      repository: await createJsonFileRepository({ file, compactAfterBytes: 2_000 }),
      clock: steppingClock(),
    });
    const conversation = await service.createConversation({
      type: 'COPILOT',
      messages: [said('USER', 'How do I retry?'), said('ASSISTANT', 'Use backoff.')],
    });
    const website = await service.createWebsite(seeds.website);
    const anchor = await service.createAnchor(seeds.anchor);
    for (let i = 0; i < 30; i++) {
      await service.associateWebsite(conversation.id, website.id);
      await service.associateAnchor(conversation.id, anchor.id);
      await service.incrementConversationScores(conversation.id, { conversation: { reuse: true } });
      await service.disassociateAnchor(conversation.id, anchor.id);
    }
    await service.summarizeConversation(conversation.id);
    await service.createModel({
      version: '1',
      created: { value: '2026-01-01T00:00:00.000Z' },
      name: 'm',
      cloud: false,
      type: 'SPEED',
      usage: 'CODE_CONVERSATION',
    });
    const before = await service.getConversation(conversation.id);
    await service.close();

    const repository = await createJsonFileRepository({ file });
    const reopened = await everything(repository);
    await repository.close();
    const again = await createJsonFileRepository({ file });
    expect(await everything(again)).toEqual(reopened);
    const service2 = await createService({ repository: again });
    expect(await service2.getConversation(conversation.id)).toEqual(before);
    expect(before.score?.reuse).toBe(30);
    await service2.close();
  });

  it('discards a torn last journal record with a warning, keeping everything before it', async () => {
    const file = freshFile();
    const repository = await createJsonFileRepository({ file, compactAfterBytes: Number.MAX_SAFE_INTEGER });
    await repository.transact((tx) => tx.put('conversations', conversationRecord('kept')));
    await repository.close();
    // A crash mid-append: a journal whose last line is cut short.
    const journal = `${file}.journal-000099`;
    await writeFile(
      journal,
      `${JSON.stringify({ seq: 2, changes: [['conversations', 'also-kept', conversationRecord('also-kept')]] })}\n{"seq":3,"changes":[["conversations","to`,
    );

    const logger = quietLogger();
    const reopened = await createJsonFileRepository({ file, logger });
    expect((await reopened.read((view) => view.list('conversations'))).records.map((c) => c.id)).toEqual(['kept', 'also-kept']);
    expect(logger.warnings.join('\n')).toMatch(/torn record at the end of .*journal-000099 \(line 2/);
    await reopened.transact((tx) => tx.put('conversations', conversationRecord('after')));
    await reopened.close();
    const last = await createJsonFileRepository({ file });
    expect((await last.read((view) => view.list('conversations'))).records.map((c) => c.id)).toEqual(['kept', 'also-kept', 'after']);
    await last.close();
  });

  it('stops at a corrupt journal record that is not the last, naming the file and line', async () => {
    const file = freshFile();
    await createJsonFileRepository({ file }).then((r) => r.close());
    const journal = `${file}.journal-000007`;
    const good = JSON.stringify({ seq: 1, changes: [['conversations', 'c1', conversationRecord('c1')]] });
    await writeFile(journal, `${good}\nnot json at all\n${good.replace('"seq":1', '"seq":2')}\n`);
    await expect(createJsonFileRepository({ file })).rejects.toThrow(/journal-000007 is corrupt at line 2 \(byte \d+\)/);
    expect(await readFile(journal, 'utf8')).toContain('not json at all');
  });

  it('stops at a corrupt snapshot, naming the file and position, changing nothing and keeping the backup', async () => {
    const file = freshFile();
    for (const id of ['first', 'second']) {
      const repository = await createJsonFileRepository({ file });
      await repository.transact((tx) => tx.put('conversations', conversationRecord(id)));
      await repository.close();
    }
    const backup = await readFile(`${file}.bak`, 'utf8');
    expect(JSON.parse(backup).conversations.map((c: { id: string }) => c.id)).toEqual(['first']);
    const corrupt = (await readFile(file, 'utf8')).replace('"second"', '"second');
    await writeFile(file, corrupt);

    await expect(createJsonFileRepository({ file })).rejects.toThrow(
      new RegExp(`snapshot ${file} is corrupt at line \\d+: the record does not parse`),
    );
    expect(await readFile(file, 'utf8')).toBe(corrupt);
    expect(await readFile(`${file}.bak`, 'utf8')).toBe(backup);
    // The lock is released, so the user can open again once the file is repaired.
    await writeFile(file, backup);
    const repaired = await createJsonFileRepository({ file });
    await repaired.close();
  });

  it('migrates a version 1 file (the first release) to the current format', async () => {
    const file = freshFile();
    await createJsonFileRepository({ file }).then((r) => r.close());
    await writeFile(file, JSON.stringify({ version: 1, conversations: [conversationRecord('from-v1')], models: [] }));
    const repository = await createJsonFileRepository({ file });
    expect(await repository.read((view) => view.get('conversations', 'from-v1'))).toEqual(conversationRecord('from-v1'));
    await repository.transact((tx) => tx.put('conversations', conversationRecord('new')));
    await repository.close();
    const migrated = JSON.parse(await readFile(file, 'utf8'));
    expect(migrated.version).toBe(JSON_FILE_FORMAT_VERSION);
    expect(migrated.conversations.map((c: { id: string }) => c.id)).toEqual(['from-v1', 'new']);
  });

  it('migrates a version 2 file: messages no longer carry the summaries that cover them', async () => {
    const file = freshFile();
    await createJsonFileRepository({ file }).then((r) => r.close());
    const message = messageRecord('m1', 'c1');
    const empty = Object.fromEntries(COLLECTION_NAMES.map((name) => [name, []]));
    await writeFile(file, JSON.stringify({ ...empty, version: 2, journalSeq: 0, messages: [{ ...message, annotations: ['a1'] }] }));
    const repository = await createJsonFileRepository({ file });
    expect(await repository.read((view) => view.get('messages', 'm1'))).toEqual(message);
    await repository.close();
  });

  it('migrates a version 3 store (whose snapshot names no journal file) and names its journal from then on', async () => {
    const file = freshFile();
    await mkdir(path.dirname(file), { recursive: true });
    const empty = Object.fromEntries(COLLECTION_NAMES.map((name) => [name, []]));
    await writeFile(file, JSON.stringify({ ...empty, version: 3, journalSeq: 1, conversations: [conversationRecord('c1')] }));
    await writeFile(
      `${file}.journal-000004`,
      `${JSON.stringify({ seq: 2, version: 3, changes: [['conversations', 'c2', conversationRecord('c2')]] })}\n`,
    );
    const repository = await createJsonFileRepository({ file });
    await repository.transact((tx) => tx.put('conversations', conversationRecord('c3')));
    await repository.close();
    const snapshot = JSON.parse(await readFile(file, 'utf8'));
    expect(snapshot).toMatchObject({ version: JSON_FILE_FORMAT_VERSION, journalSeq: 3 });
    // The file it names is there (empty: the snapshot holds everything), after the version 3 file.
    expect(snapshot.journal).toBeGreaterThan(4);
    expect(await readFile(`${file}.journal-${String(snapshot.journal).padStart(6, '0')}`, 'utf8')).toBe('');
    const reopened = await createJsonFileRepository({ file });
    expect((await reopened.read((view) => view.list('conversations'))).records.map((c) => c.id)).toEqual(['c1', 'c2', 'c3']);
    await reopened.close();
  });

  it('refuses a file from a newer release', async () => {
    const file = freshFile();
    await createJsonFileRepository({ file }).then((r) => r.close());
    await writeFile(file, JSON.stringify({ version: JSON_FILE_FORMAT_VERSION + 1, journalSeq: 0 }));
    await expect(createJsonFileRepository({ file })).rejects.toThrow(/reads up to/);
  });

  it('shares one flush between concurrent writes and acknowledges every one', async () => {
    const file = freshFile();
    const repository = await createJsonFileRepository({ file });
    await Promise.all(
      Array.from({ length: 200 }, (_, i) => repository.transact((tx) => tx.put('conversations', conversationRecord(`c${i}`)))),
    );
    await repository.close();
    const reopened = await createJsonFileRepository({ file });
    expect(await reopened.read((view) => view.count('conversations'))).toBe(200);
    await reopened.close();
  });

  it('closes promptly when the last write started a compaction', async () => {
    const file = freshFile();
    const repository = await createJsonFileRepository({ file, compactAfterBytes: 10 });
    await repository.transact((tx) => tx.put('conversations', conversationRecord('c1')));
    await repository.close();
    const reopened = await createJsonFileRepository({ file });
    expect(await reopened.read((view) => view.get('conversations', 'c1'))).toEqual(conversationRecord('c1'));
    await reopened.close();
  });

  it('stops at a journal with missing entries, or an entry that is not one of ours', async () => {
    const file = freshFile();
    await createJsonFileRepository({ file }).then((r) => r.close());
    const entry = (seq: number, id: string) => JSON.stringify({ seq, changes: [['conversations', id, conversationRecord(id)]] });
    await writeFile(`${file}.journal-000003`, `${entry(1, 'a')}\n${entry(3, 'c')}\n`);
    await expect(createJsonFileRepository({ file })).rejects.toThrow(/skips from entry 1 to 3/);
    await writeFile(
      `${file}.journal-000003`,
      `${JSON.stringify({ seq: 1, changes: [['secrets', 'x', { id: 'x' }]] })}\n${entry(2, 'b')}\n`,
    );
    await expect(createJsonFileRepository({ file })).rejects.toThrow(/corrupt at line 1/);
  });

  it('writes journal lines a person can read', async () => {
    const file = freshFile();
    const repository = await createJsonFileRepository({ file });
    await repository.transact((tx) => tx.put('conversations', conversationRecord('c1')));
    const [journal] = (await readdir(path.dirname(file))).filter((name) => name.includes('.journal-'));
    const text = (await readFile(path.join(path.dirname(file), journal!), 'utf8')).trim();
    // JSON, its last field the CRC-32 of the bytes before that field.
    expect(JSON.parse(text)).toEqual({
      seq: 1,
      version: JSON_FILE_FORMAT_VERSION,
      changes: [['conversations', 'c1', conversationRecord('c1')]],
      crc: crc32(text.slice(0, text.lastIndexOf(',"crc":'))),
    });
    await repository.close();
  });
});

describe('JSON-file repository: how writes reach the disk', () => {
  /** The open flags of this process's descriptors of `file` (Linux's /proc), by descriptor. */
  async function openFlags(file: string): Promise<number[]> {
    const flags: number[] = [];
    for (const fd of await readdir('/proc/self/fd')) {
      const target = await readlink(`/proc/self/fd/${fd}`).catch(() => '');
      if (target !== file) continue;
      const info = await readFile(`/proc/self/fdinfo/${fd}`, 'utf8').catch(() => '');
      const match = /^flags:\s+(\d+)/m.exec(info);
      if (match) flags.push(Number.parseInt(match[1]!, 8));
    }
    return flags;
  }
  // The flag is how a durable write is on disk when the write returns; without it, an fdatasync
  // follows each write (Windows). The open flags are read from Linux's /proc.
  it(
    'writes the journal of a durable store through O_DSYNC, and of an unsafe-no-fsync one without it, across a rotation',
    needs(unmet(PROC)),
    async () => {
      for (const durability of ['fsync', 'unsafe-no-fsync'] as const) {
        const file = freshFile();
        const repository = await createJsonFileRepository({ file, durability, compactAfterBytes: 1 });
        await repository.transact((tx) => tx.put('conversations', conversationRecord('a')));
        // compactAfterBytes 1: that write rotated the journal to its second file.
        await repository.transact((tx) => tx.put('conversations', conversationRecord('b')));
        const journals = (await readdir(path.dirname(file))).filter((name) => name.includes('.journal-')).sort();
        const current = path.join(path.dirname(file), journals.at(-1)!);
        const flags = await openFlags(current);
        expect(flags).toHaveLength(1);
        expect((flags[0]! & constants.O_DSYNC) !== 0).toBe(durability === 'fsync');
        await repository.close();
        const reopened = await createJsonFileRepository({ file });
        expect((await reopened.read((view) => view.list('conversations'))).records.map((r) => r.id)).toEqual(['a', 'b']);
        await reopened.close();
      }
    },
  );
});
