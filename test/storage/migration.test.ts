import { cp, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { crc32 } from 'node:zlib';
import { describe, expect, it, vi } from 'vitest';
import { COLLECTION_NAMES, createJsonFileRepository, JSON_FILE_FORMAT_VERSION, type Repository } from '../../src/index.js';
import { sampleRecord } from '../../src/testing/records.js';
import { tempDir } from '../helpers/temp-dir.js';

// Set by the test of a migration that cannot be written: writing a compaction's message file fails.
const failing = vi.hoisted(() => ({ messageFiles: false }));
vi.mock('../../src/stores/json-file/compaction.js', async (importOriginal) => {
  const compaction = await importOriginal<typeof import('../../src/stores/json-file/compaction.js')>();
  return {
    ...compaction,
    writeMessageFiles: (...args: Parameters<typeof compaction.writeMessageFiles>) =>
      failing.messageFiles ? Promise.reject(new Error('the disk failed')) : compaction.writeMessageFiles(...args),
  };
});

const FIXTURE = path.join(import.meta.dirname, '..', 'fixtures', 'format-4');
const FORMAT_5 = path.join(import.meta.dirname, '..', 'fixtures', 'format-5');

/** Every collection's records, as the fixture's expected.json holds them. */
const everything = (repository: Repository) =>
  repository.read(async (view) =>
    Object.fromEntries(await Promise.all(COLLECTION_NAMES.map(async (name) => [name, (await view.list(name)).records]))),
  );

/** A fixture's expected records, with the collections added since it was written (empty there). */
const withEveryCollection = (expected: Record<string, any>): Record<string, any> => ({
  ...Object.fromEntries(COLLECTION_NAMES.map((name) => [name, []])),
  ...expected,
});

/** A folder as release 7 wrote it (version 7, no trash collection), holding tag `t1`; answers its db.json. */
async function format7Folder(prefix: string): Promise<string> {
  const file = path.join(await tempDir(prefix), 'db.json');
  const store = await createJsonFileRepository({ file });
  await store.transact(async (tx) => tx.put('tags', sampleRecord('tags', 't1')));
  await store.close();
  const { trash: _trash, ...format7 } = JSON.parse(await readFile(file, 'utf8'));
  await writeFile(file, JSON.stringify({ ...format7, version: 7 }));
  return file;
}

describe('JSON-file repository: upgrading a data folder of format 7 (before the trash)', () => {
  it('opens it with the trash empty, keeps every record, and writes format 8', async () => {
    const file = await format7Folder('cms-migrate7-');

    const reopened = await createJsonFileRepository({ file });
    const records = await everything(reopened);
    expect(records.tags).toMatchObject([{ id: 't1' }]);
    expect(records.trash).toEqual([]);
    await reopened.transact(async (tx) => tx.put('trash', sampleRecord('trash', 'c1')));
    await reopened.close();
    expect(JSON.parse(await readFile(file, 'utf8')).version).toBe(8);
    const again = await createJsonFileRepository({ file });
    expect((await everything(again)).trash).toEqual([sampleRecord('trash', 'c1')]);
    await again.close();
  });
});

describe('JSON-file repository: upgrading a data folder of format 6 (before tags, persons, workstream events and sources)', () => {
  it('opens it with the four collections empty, keeps every record, and writes format 7', async () => {
    const folder = await tempDir('cms-migrate6-');
    const file = path.join(folder, 'db.json');
    const store = await createJsonFileRepository({ file });
    await store.transact(async (tx) =>
      tx.put('websites', {
        id: 'w1',
        created: { value: 'x' },
        updated: { value: 'x' },
        url: 'https://a.example',
        name: 'A',
        conversations: [],
      }),
    );
    await store.close();
    // What release 6 wrote: version 6, and no collection of the new kinds.
    const written = JSON.parse(await readFile(file, 'utf8'));
    const { tags: _t, persons: _p, workstreamEvents: _e, sources: _s, ...format6 } = written;
    await writeFile(file, JSON.stringify({ ...format6, version: 6 }));

    const reopened = await createJsonFileRepository({ file });
    const records = await everything(reopened);
    expect(records.websites).toMatchObject([{ id: 'w1', url: 'https://a.example' }]);
    for (const name of ['tags', 'persons', 'workstreamEvents', 'sources']) expect(records[name], name).toEqual([]);
    await reopened.transact(async (tx) =>
      tx.put('tags', {
        id: 't1',
        created: { value: 'x' },
        updated: { value: 'x' },
        text: 'ts',
        category: 'UNKNOWN',
        messages: [],
        annotations: [],
      }),
    );
    await reopened.close();
    expect(JSON.parse(await readFile(file, 'utf8')).version).toBe(JSON_FILE_FORMAT_VERSION);
    const again = await createJsonFileRepository({ file });
    expect((await everything(again)).tags).toMatchObject([{ id: 't1' }]);
    await again.close();
  });
});

describe('JSON-file repository: upgrading a data folder of format 4', () => {
  it('opens a folder the previous release wrote, migrates it once, keeps the old snapshot as the backup, and reads back the same records', async () => {
    const folder = await tempDir('cms-migrate-');
    await cp(path.join(FIXTURE, 'data'), folder, { recursive: true });
    const file = path.join(folder, 'db.json');
    const expected = withEveryCollection(JSON.parse(await readFile(path.join(FIXTURE, 'expected.json'), 'utf8')));
    const before = await readFile(file, 'utf8');
    expect(JSON.parse(before).version).toBe(4);

    const migrated = await createJsonFileRepository({ file });
    expect(await everything(migrated)).toEqual(expected);
    // Persisted at open: the snapshot is of this version, without its messages; the one it replaced is the backup.
    const snapshot = JSON.parse(await readFile(file, 'utf8'));
    expect(snapshot.version).toBe(JSON_FILE_FORMAT_VERSION);
    expect(snapshot.messages).toEqual([]);
    expect(await readFile(`${file}.bak`, 'utf8')).toBe(before);
    const files = await readdir(folder);
    expect(files.some((name) => name.startsWith('db.json.messages-'))).toBe(true);
    expect(files.some((name) => name.startsWith('db.json.hint-'))).toBe(true);
    await migrated.close();

    // The next start reads the new format as it is: nothing left to migrate, the same records.
    const afterMigration = await readFile(file, 'utf8');
    const reopened = await createJsonFileRepository({ file });
    expect(await everything(reopened)).toEqual(expected);
    await reopened.close();
    expect(await readFile(file, 'utf8')).toBe(afterMigration);
  });

  it('migrates from the backup when the snapshot is gone (a crash between the renames of a snapshot write)', async () => {
    const folder = await tempDir('cms-migrate-bak-');
    await cp(path.join(FIXTURE, 'data'), folder, { recursive: true });
    const file = path.join(folder, 'db.json');
    // The fixture's own snapshot made the backup: the journals hold everything since.
    const { rename } = await import('node:fs/promises');
    await rename(file, `${file}.bak`);
    const expected = withEveryCollection(JSON.parse(await readFile(path.join(FIXTURE, 'expected.json'), 'utf8')));
    const repository = await createJsonFileRepository({ file });
    expect(await everything(repository)).toEqual(expected);
    await repository.close();
  });
});

describe('JSON-file repository: upgrading a data folder of format 5 (no checksums)', () => {
  it('migrates once: every message gets its checksum, the hint and new journal lines have theirs, and the same records read back', async () => {
    const folder = await tempDir('cms-migrate5-');
    await cp(path.join(FORMAT_5, 'data'), folder, { recursive: true });
    const file = path.join(folder, 'db.json');
    const expected = withEveryCollection(JSON.parse(await readFile(path.join(FORMAT_5, 'expected.json'), 'utf8')));
    const before = await readFile(file, 'utf8');
    expect(JSON.parse(before).version).toBe(5);

    const warnings: string[] = [];
    const migrated = await createJsonFileRepository({ file, logger: { warn: (message) => warnings.push(message) } });
    expect(await everything(migrated)).toEqual(expected);
    const snapshot = JSON.parse(await readFile(file, 'utf8'));
    expect(snapshot.version).toBe(JSON_FILE_FORMAT_VERSION);
    expect(await readFile(`${file}.bak`, 'utf8')).toBe(before);
    // The hint of version 6: every line checksummed, every message with the CRC-32 of its bytes.
    const hint = (await readFile(`${file}.hint-${String(snapshot.hint).padStart(6, '0')}`, 'utf8')).trim().split('\n');
    const header = JSON.parse(hint[0]!);
    expect(header.version).toBe(JSON_FILE_FORMAT_VERSION);
    let messages = 0;
    for (const text of hint) {
      expect(JSON.parse(text).crc).toBe(crc32(text.slice(0, text.lastIndexOf(',"crc":'))));
      if (text === hint[0]) continue;
      const { at } = JSON.parse(text) as { at: number[] };
      for (let i = 0; i < at.length; i += 5) {
        const [number, offset, length, , crc] = at.slice(i, i + 5) as [number, number, number, number, number];
        const bytes = (await readFile(`${file}.messages-${String(-number).padStart(6, '0')}`)).subarray(offset, offset + length);
        expect(crc32(bytes)).toBe(crc);
        messages++;
      }
    }
    expect(messages).toBe(expected.messages.length);
    // Sound: the check after the start finds every message whole.
    await vi.waitFor(() => expect(migrated.health?.().check.state).toBe('done'));
    expect(migrated.health?.().damaged).toEqual([]);
    expect(warnings).toEqual([]);
    // A write now: its journal line has its checksum.
    await migrated.transact((tx) => tx.put('conversations', { ...expected.conversations[0], name: 'Renamed after the migration' }));
    const journal = (await readFile(`${file}.journal-${String(snapshot.journal).padStart(6, '0')}`, 'utf8')).trim();
    expect(JSON.parse(journal).crc).toBe(crc32(journal.slice(0, journal.lastIndexOf(',"crc":'))));
    await migrated.close();

    const reopened = await createJsonFileRepository({ file });
    const after = await everything(reopened);
    expect(after.messages).toEqual(expected.messages);
    expect((after.conversations as { name?: string }[])[0]!.name).toBe('Renamed after the migration');
    await reopened.close();
  });
});

describe('JSON-file repository: a migration that cannot be written', () => {
  it('refuses to open, names why, leaves the folder as it was and its lock released', async () => {
    const file = await format7Folder('cms-migrate-fails-');
    const folder = path.dirname(file);
    // The migration's compaction cannot write its message file (a disk error, say).
    failing.messageFiles = true;
    try {
      const warnings: string[] = [];
      await expect(createJsonFileRepository({ file, logger: { warn: (message) => warnings.push(message) } })).rejects.toThrow(
        /Could not migrate .* it was left as it was/,
      );
      expect(warnings.join('\n')).toMatch(/Could not write the snapshot .*the disk failed/);
    } finally {
      failing.messageFiles = false;
    }
    expect(JSON.parse(await readFile(file, 'utf8')).version).toBe(7);
    expect((await readdir(folder)).filter((name) => name.endsWith('.lock'))).toEqual([]);
    // Once the disk works, the next open migrates it.
    const reopened = await createJsonFileRepository({ file });
    expect((await everything(reopened)).tags).toMatchObject([{ id: 't1' }]);
    await reopened.close();
  });
});
