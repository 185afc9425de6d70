import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createJsonFileRepository, JSON_FILE_FORMAT_VERSION } from '../../src/index.js';
import { describeRepositoryContract } from '../../src/testing/index.js';
import { conversationRecord } from '../helpers/records.js';
import { tempDir } from '../helpers/temp-dir.js';

let counter = 0;
const root = await tempDir();
const freshFile = () => path.join(root, `store-${++counter}`, 'db.json');

describeRepositoryContract('JSON file', () => createJsonFileRepository({ file: freshFile() }));

describe('JSON file repository on disk', () => {
  it('writes readable JSON that a new instance reads back', async () => {
    const file = freshFile();
    const first = await createJsonFileRepository({ file });
    await first.transact((tx) => tx.put('conversations', conversationRecord('c1', 'Persisted')));
    await first.close();

    const onDisk = JSON.parse(await readFile(file, 'utf8'));
    expect(onDisk.version).toBe(JSON_FILE_FORMAT_VERSION);
    expect(onDisk.conversations[0]).toMatchObject({ id: 'c1', name: 'Persisted' });

    const second = await createJsonFileRepository({ file });
    expect(await second.read((view) => view.get('conversations', 'c1'))).toEqual(conversationRecord('c1', 'Persisted'));
    expect((await second.read((view) => view.list('conversations'))).records).toEqual([conversationRecord('c1', 'Persisted')]);
    await second.close();
  });

  it('has a local change feed: this process alone writes, and knows of each write before it is acknowledged', async () => {
    const repository = await createJsonFileRepository({ file: freshFile() });
    expect(repository.changes?.local).toBeDefined();
    await repository.close();
  });

  it('refuses a file that is not a data file of this service, and leaves it as it was', async () => {
    const file = freshFile();
    await createJsonFileRepository({ file }).then((r) => r.close());
    await writeFile(file, '{"something":"else"}');
    await expect(createJsonFileRepository({ file })).rejects.toThrow(/version/);
    expect(await readFile(file, 'utf8')).toBe('{"something":"else"}');
  });
});
