import { stat } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createJsonFileRepository } from '../../src/index.js';
import { conversationRecord } from '../helpers/records.js';
import { tempDir } from '../helpers/temp-dir.js';

const modeOf = async (file: string) => (await stat(file)).mode & 0o777;

describe('permissions of a new data folder', () => {
  it('creates the folder for its owner alone (0700) and every file readable by its owner alone (0600)', async () => {
    const folder = path.join(await tempDir(), 'data');
    const file = path.join(folder, 'db.json');
    const repository = await createJsonFileRepository({ file });
    await repository.transact((tx) => tx.put('conversations', conversationRecord('c1')));
    expect(await modeOf(folder)).toBe(0o700);
    expect(await modeOf(`${file}.lock`)).toBe(0o600);
    expect(await modeOf(`${file}.journal-000001`)).toBe(0o600);
    await repository.close();
    expect(await modeOf(file)).toBe(0o600);
  });
});
