/**
 * Entries planted in the data folder by another process of the same user: symbolic links (and a
 * hard link, a FIFO) in the place of files the store writes. None is ever written through: a
 * temporary or next file in their place is removed, with one log line, and made anew; a link in
 * the place of the store's data refuses the start, naming it. The file outside stays as it was.
 */
import { execFileSync } from 'node:child_process';
import { link, lstat, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeBuffersAtomically } from '../../src/files/durable-fs.js';
import { createJsonFileRepository, createService, type Service } from '../../src/index.js';
import { createFakeSummarizer } from '../../src/summarizers/fake.js';
import { conversationWith, said } from '../helpers/service.js';
import { tempDir } from '../helpers/temp-dir.js';

const OUTSIDE_TEXT = 'a file outside the data folder\n';

/** A data folder with a few conversations, closed; and a file outside it that links will point to. */
async function setUp() {
  const dataDir = await tempDir();
  const outside = path.join(await tempDir(), 'outside.txt');
  await writeFile(outside, OUTSIDE_TEXT);
  const warnings: string[] = [];
  const open = () => createService({ dataDir, summarizer: createFakeSummarizer(), logger: { warn: (message) => warnings.push(message) } });
  const service = await open();
  for (let i = 0; i < 5; i++) await conversationWith(service, said('USER', `Why does the gradle build ${i} fail on CI?`));
  await service.close();
  return { dataDir, outside, warnings, open, file: (name: string) => path.join(dataDir, name) };
}

/** The number the store's next journal, message and hint files take: one past the last journal's. */
async function nextNumber(dataDir: string): Promise<string> {
  const numbers = (await readdir(dataDir)).flatMap((name) => /^db\.json\.journal-(\d+)$/.exec(name)?.[1] ?? []).map(Number);
  return String(Math.max(...numbers) + 1).padStart(6, '0');
}

const isLink = async (file: string) => (await lstat(file)).isSymbolicLink();

async function writeAndCompact(service: Service): Promise<void> {
  await conversationWith(service, said('USER', 'Planted links must never be written through'));
  await service.close(); // a compaction: snapshot, message file, hint and search index written
}

describe('entries planted in the data folder', () => {
  it('temporary and next files planted as links before a start: removed with a log line each, nothing written outside', async () => {
    const { outside, warnings, open, file } = await setUp();
    const planted = ['db.json.tmp', 'db.json.search.tmp'];
    for (const name of planted) await symlink(outside, file(name));

    await writeAndCompact(await open());

    expect(await readFile(outside, 'utf8')).toBe(OUTSIDE_TEXT);
    expect(await isLink(file('db.json'))).toBe(false);
    expect(await isLink(file('db.json.search'))).toBe(false);
    for (const name of planted) {
      expect(warnings.filter((w) => w.includes(file(name)) && w.includes(`a symbolic link to ${outside}`))).toHaveLength(1);
    }
    // Every write landed in the folder: the store opens again with all six conversations.
    const reopened = await open();
    expect((await reopened.listConversations()).iterable).toHaveLength(6);
    await reopened.close();
  });

  it('temporary and next files planted as links while it runs: removed with a log line each, nothing written outside', async () => {
    const { dataDir, outside, warnings, open, file } = await setUp();
    const service = await open();
    const next = await nextNumber(dataDir);
    const planted = ['db.json.tmp', 'db.json.search.tmp', `db.json.messages-${next}`, `db.json.hint-${next}`, `db.json.journal-${next}`];
    for (const name of planted) await symlink(outside, file(name));

    await writeAndCompact(service);

    expect(await readFile(outside, 'utf8')).toBe(OUTSIDE_TEXT);
    for (const name of ['db.json', 'db.json.search', ...planted.slice(2)]) expect(await isLink(file(name))).toBe(false);
    for (const name of planted) expect(warnings.filter((w) => w.includes(file(name)) && w.includes('symbolic link'))).toHaveLength(1);
    const reopened = await open();
    expect((await reopened.listConversations()).iterable).toHaveLength(6);
    await reopened.close();
  });

  it('the current journal replaced by a link: the start is refused naming it, and nothing is written outside', async () => {
    const { dataDir, outside, open, file } = await setUp();
    const journal = `db.json.journal-${String(Number(await nextNumber(dataDir)) - 1).padStart(6, '0')}`;
    await rm(file(journal));
    await symlink(outside, file(journal));

    await expect(open()).rejects.toThrow(new RegExp(`Refused ${file(journal).replaceAll('.', '\\.')}: it is a symbolic link to`));
    expect(await readFile(outside, 'utf8')).toBe(OUTSIDE_TEXT);
    // Refused before the lock was kept: put back, the folder opens as it was.
    await rm(file(journal));
    await writeFile(file(journal), '');
    const service = await open();
    expect((await service.listConversations()).iterable).toHaveLength(5);
    await service.close();
  });

  it('the snapshot, a message file or a hint file planted as links: the start is refused naming it', async () => {
    for (const name of ['db.json', 'db.json.bak', 'db.json.hint-000002']) {
      const { outside, open, file } = await setUp();
      await rm(file(name), { force: true });
      await symlink(outside, file(name));
      await expect(open(), name).rejects.toThrow(`Refused ${file(name)}: it is a symbolic link to ${outside}`);
      expect(await readFile(outside, 'utf8')).toBe(OUTSIDE_TEXT);
    }
  });

  it('the journal as a hard link to a file outside, or a FIFO: refused, not appended to', async () => {
    const { dataDir, outside, open, file } = await setUp();
    const journal = file(`db.json.journal-${String(Number(await nextNumber(dataDir)) - 1).padStart(6, '0')}`);
    await rm(journal);
    await writeFile(outside, '');
    await link(outside, journal);
    await expect(open()).rejects.toThrow(/a file with 2 names \(a hard link\)/);
    expect(await readFile(outside, 'utf8')).toBe('');

    await rm(journal);
    execFileSync('mkfifo', [journal]);
    // O_NONBLOCK: the open does not wait for a writer to come; the start is refused at once.
    await expect(open()).rejects.toThrow(/Refused .*: it is a FIFO/);
  });

  it('a planted temporary file of the search index or the vectors: removed, and the file written in the folder', async () => {
    const folder = await tempDir();
    const outside = path.join(await tempDir(), 'outside.bin');
    await writeFile(outside, OUTSIDE_TEXT);
    const target = path.join(folder, 'vectors-model.bin');
    await symlink(outside, `${target}.tmp`);
    const warnings: string[] = [];
    await writeBuffersAtomically(target, [Buffer.from('vectors')], (w) => warnings.push(w));
    expect(await readFile(outside, 'utf8')).toBe(OUTSIDE_TEXT);
    expect(await readFile(target, 'utf8')).toBe('vectors');
    expect(await isLink(target)).toBe(false);
    expect(warnings).toEqual([expect.stringContaining(`Removed ${target}.tmp, a symbolic link to ${outside}`)]);
  });

  it('a repository on its own refuses a data folder entry that is a link, and leaves the lock free', async () => {
    const dataDir = await tempDir();
    const outside = path.join(await tempDir(), 'outside.json');
    await writeFile(outside, '{}');
    await symlink(outside, path.join(dataDir, 'db.json'));
    const file = path.join(dataDir, 'db.json');
    await expect(createJsonFileRepository({ file, logger: { warn: () => undefined } })).rejects.toThrow(/symbolic link/);
    expect((await readdir(dataDir)).filter((name) => name.endsWith('.lock'))).toEqual([]);
  });
});
