/**
 * The README's recovery steps, followed as written: when `db.json` is damaged, replace it with
 * `db.json.bak` and start again. The journals the backup needs are kept, so nothing is lost.
 */
import { copyFile, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createJsonFileRepository } from '../../src/index.js';
import { conversationRecord } from '../helpers/records.js';
import { tempDir } from '../helpers/temp-dir.js';

describe('recovery from the backup snapshot', () => {
  it('replacing a damaged db.json with db.json.bak brings back every write, across several compactions', async () => {
    const file = path.join(await tempDir(), 'db.json');
    // Several sessions, each closing with a compaction, and one compacting often while open.
    for (const [session, ids] of [
      ['one', ['a', 'b']],
      ['two', ['c']],
      ['three', ['d', 'e', 'f']],
    ] as const) {
      const repository = await createJsonFileRepository({
        file,
        compactAfterBytes: session === 'three' ? 1 : 64 * 1024 * 1024,
        logger: { warn: () => undefined },
      });
      for (const id of ids) await repository.transact((tx) => tx.put('conversations', conversationRecord(id)));
      await repository.close();
    }
    // The damage: db.json cannot be read any more.
    await writeFile(file, (await readFile(file, 'utf8')).slice(0, 40));
    await expect(createJsonFileRepository({ file })).rejects.toThrow(/snapshot/);

    // The README's step: replace db.json with db.json.bak, and start again.
    await copyFile(`${file}.bak`, file);
    const recovered = await createJsonFileRepository({ file, logger: { warn: () => undefined } });
    expect((await recovered.read((view) => view.list('conversations'))).records.map((c) => c.id)).toEqual(['a', 'b', 'c', 'd', 'e', 'f']);
    await recovered.close();
  });
});
