/**
 * A store has an id of its own, written in its snapshot when it is made, which files derived from
 * it (its search index) name: one copied in from another store is then told apart.
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createJsonFileRepository } from '../../src/index.js';
import { conversationRecord } from '../helpers/records.js';
import { tempDir } from '../helpers/temp-dir.js';

const quiet = { warn: () => undefined };
const storeIdOf = async (file: string) => /^"store": "([\w-]+)"/m.exec(await readFile(file, 'utf8'))?.[1];

describe('the store id', () => {
  it('is written when a store is made, kept across compactions and restarts, and differs between stores', async () => {
    const [one, two] = [path.join(await tempDir(), 'db.json'), path.join(await tempDir(), 'db.json')];
    for (const file of [one, two]) await (await createJsonFileRepository({ file, logger: quiet })).close();
    const id = await storeIdOf(one);
    expect(id).toMatch(/^[\w-]{8,}$/);
    expect(await storeIdOf(two)).not.toBe(id);

    const reopened = await createJsonFileRepository({ file: one, compactAfterBytes: 1, logger: quiet });
    await reopened.transact((tx) => tx.put('conversations', conversationRecord('a')));
    await reopened.close();
    expect(await storeIdOf(one)).toBe(id);
  });

  it('is given to a store made before ids were written, at its first start', async () => {
    const file = path.join(await tempDir(), 'db.json');
    const repository = await createJsonFileRepository({ file, logger: quiet });
    await repository.transact((tx) => tx.put('conversations', conversationRecord('a')));
    await repository.close();
    await writeFile(file, (await readFile(file, 'utf8')).replace(/^"store": .*\n/m, '').replace(/,\n"store": "[\w-]+"/, ''));
    expect(await storeIdOf(file)).toBeUndefined();

    // Read only: the id still reaches the disk, so the next start trusts what this one saved.
    const reopened = await createJsonFileRepository({ file, logger: quiet });
    expect((await reopened.read((view) => view.list('conversations'))).records.map((c) => c.id)).toEqual(['a']);
    await reopened.close();
    const id = await storeIdOf(file);
    expect(id).toMatch(/^[\w-]{8,}$/);
    await (await createJsonFileRepository({ file, logger: quiet })).close();
    expect(await storeIdOf(file)).toBe(id);
  });
});
