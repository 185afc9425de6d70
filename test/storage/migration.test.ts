import { cp, readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { COLLECTION_NAMES, createJsonFileRepository, JSON_FILE_FORMAT_VERSION, type Repository } from '../../src/index.js';
import { tempDir } from '../helpers/temp-dir.js';

const FIXTURE = path.join(import.meta.dirname, '..', 'fixtures', 'format-4');

/** Every collection's records, as the fixture's expected.json holds them. */
const everything = (repository: Repository) =>
  repository.read(async (view) =>
    Object.fromEntries(await Promise.all(COLLECTION_NAMES.map(async (name) => [name, (await view.list(name)).records]))),
  );

describe('JSON-file repository: upgrading a data folder of format 4', () => {
  it('opens a folder the previous release wrote, migrates it once, keeps the old snapshot as the backup, and reads back the same records', async () => {
    const folder = await tempDir('cms-migrate-');
    await cp(path.join(FIXTURE, 'data'), folder, { recursive: true });
    const file = path.join(folder, 'db.json');
    const expected = JSON.parse(await readFile(path.join(FIXTURE, 'expected.json'), 'utf8'));
    const before = await readFile(file, 'utf8');
    expect(JSON.parse(before).version).toBe(4);

    const migrated = await createJsonFileRepository({ file });
    expect(await everything(migrated)).toEqual(expected);
    // Persisted at open: the snapshot is version 5, without its messages; the one it replaced is the backup.
    const snapshot = JSON.parse(await readFile(file, 'utf8'));
    expect(snapshot.version).toBe(JSON_FILE_FORMAT_VERSION);
    expect(snapshot.messages).toEqual([]);
    expect(await readFile(`${file}.bak`, 'utf8')).toBe(before);
    const files = await readdir(folder);
    expect(files.some((name) => name.startsWith('db.json.messages-'))).toBe(true);
    expect(files.some((name) => name.startsWith('db.json.hint-'))).toBe(true);
    await migrated.close();

    // The next start reads format 5 as it is: nothing left to migrate, the same records.
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
    const expected = JSON.parse(await readFile(path.join(FIXTURE, 'expected.json'), 'utf8'));
    const repository = await createJsonFileRepository({ file });
    expect(await everything(repository)).toEqual(expected);
    await repository.close();
  });
});
