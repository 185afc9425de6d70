/**
 * A journal file deleted by hand (or by a cleaning tool) is noticed at the next start instead of
 * silently losing the writes it held: the snapshot names the journal file that continues it, and a
 * rotated journal file names the next one in its last line.
 */
import { appendFile, cp, readdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createJsonFileRepository } from '../../src/index.js';
import type { Repository } from '../../src/ports.js';
import { conversationRecord } from '../helpers/records.js';
import { tempDir } from '../helpers/temp-dir.js';

const quiet = { warn: () => undefined };
const ids = (repository: Repository) => repository.read(async (view) => (await view.list('conversations')).records.map((c) => c.id));

/** The folder as a crash would leave it: every file as it is now, and no lock holder alive. */
async function crashImage(file: string): Promise<string> {
  const copy = path.join(await tempDir(), 'db.json');
  await cp(path.dirname(file), path.dirname(copy), { recursive: true, filter: (source) => !source.endsWith('.lock') });
  return copy;
}

describe('a deleted journal file', () => {
  it('stops the start naming the missing file, when the only journal of a new store is gone', async () => {
    const file = path.join(await tempDir(), 'db.json');
    const repository = await createJsonFileRepository({ file, logger: quiet });
    await repository.transact((tx) => tx.put('conversations', conversationRecord('only-in-the-journal')));
    const image = await crashImage(file);
    await repository.close();

    await rm(`${image}.journal-000001`);
    await expect(createJsonFileRepository({ file: image, logger: quiet })).rejects.toThrow(
      /journal .*db\.json\.journal-000001 is missing: the snapshot .*db\.json says the writes after it go on there/,
    );
    // Nothing was changed: the folder is as it was left.
    expect((await readdir(path.dirname(image))).sort()).toEqual(['db.json']);

    // The way forward the error gives, when the file is gone for good: create it empty.
    await writeFile(`${image}.journal-000001`, '');
    const reopened = await createJsonFileRepository({ file: image, logger: quiet });
    expect(await ids(reopened)).toEqual([]);
    await reopened.close();
  });

  it('stops the start when the journal the snapshot names is gone after a clean close and more writes', async () => {
    const file = path.join(await tempDir(), 'db.json');
    const first = await createJsonFileRepository({ file, logger: quiet });
    await first.transact((tx) => tx.put('conversations', conversationRecord('in-the-snapshot')));
    await first.close();
    const second = await createJsonFileRepository({ file, logger: quiet });
    await second.transact((tx) => tx.put('conversations', conversationRecord('in-the-journal')));
    const image = await crashImage(file);
    await second.close();

    await rm(`${image}.journal-000002`);
    await expect(createJsonFileRepository({ file: image, logger: quiet })).rejects.toThrow(/journal-000002 is missing/);
  });

  it('opens after a crash in the middle of a rotation: the half-written line naming the next file is cut off', async () => {
    const file = path.join(await tempDir(), 'db.json');
    const repository = await createJsonFileRepository({ file, logger: quiet });
    await repository.transact((tx) => tx.put('conversations', conversationRecord('before-the-rotation')));
    const image = await crashImage(file);
    await repository.close();
    // The next file was created, then the crash came while its name was being written.
    await appendFile(`${image}.journal-000001`, '{"continuedI');
    await writeFile(`${image}.journal-000002`, '');
    const warnings: string[] = [];
    const reopened = await createJsonFileRepository({ file: image, logger: { warn: (message) => warnings.push(message) } });
    expect(await ids(reopened)).toEqual(['before-the-rotation']);
    expect(warnings.join('\n')).toMatch(/torn record at the end of .*journal-000001/);
    await reopened.transact((tx) => tx.put('conversations', conversationRecord('after')));
    await reopened.close();
    const again = await createJsonFileRepository({ file: image, logger: quiet });
    expect(await ids(again)).toEqual(['before-the-rotation', 'after']);
    await again.close();
  });

  it('keeps no more than two journal files over many sessions, and reopens every time without complaint', async () => {
    const file = path.join(await tempDir(), 'db.json');
    for (let session = 0; session < 6; session++) {
      const repository = await createJsonFileRepository({ file, logger: quiet });
      // Every other session writes nothing: opening and closing alone must not leave files behind.
      if (session % 2 === 0) await repository.transact((tx) => tx.put('conversations', conversationRecord(`c${session}`)));
      expect(await ids(repository)).toEqual(['c0', 'c2', 'c4'].filter((id) => Number(id.slice(1)) <= session));
      await repository.close();
    }
    const journals = (await readdir(path.dirname(file))).filter((name) => name.includes('.journal-'));
    expect(journals.length).toBeLessThanOrEqual(2);
  });
});
