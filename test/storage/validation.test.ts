/**
 * A damaged data file stops the start with an error that names the file, the line and the record,
 * and changes nothing, rather than failing later reads; records from an older release are
 * migrated wherever they are read from, the journal included.
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createJsonFileRepository } from '../../src/index.js';
import { conversationRecord, messageRecord } from '../helpers/records.js';
import { tempDir } from '../helpers/temp-dir.js';

/** A closed store holding conversations `ids`; answers its snapshot's path. */
async function storeWith(...ids: string[]) {
  const file = path.join(await tempDir(), 'db.json');
  const repository = await createJsonFileRepository({ file });
  await repository.transact((tx) => ids.forEach((id) => tx.put('conversations', conversationRecord(id))));
  await repository.close();
  return file;
}

describe('records checked when a store opens', () => {
  it('refuses a snapshot record that lacks a field, naming the file, line and record; nothing is changed', async () => {
    const file = await storeWith('good', 'broken');
    const damaged = (await readFile(file, 'utf8')).replace(/("id":"broken".*?),"messages":\[\]/, '$1');
    await writeFile(file, damaged);
    await expect(createJsonFileRepository({ file })).rejects.toThrow(
      new RegExp(`snapshot ${file}, line \\d+: the conversations record "broken" lacks "messages" \\(a list of ids\\)`),
    );
    expect(await readFile(file, 'utf8')).toBe(damaged);
  });

  it('refuses a snapshot that lost its collections instead of opening it empty', async () => {
    const file = await storeWith('c1');
    await writeFile(file, JSON.stringify({ version: 3, journalSeq: 1 }));
    await expect(createJsonFileRepository({ file })).rejects.toThrow(/has no "conversations" collection/);
  });

  it('refuses a complete journal line that is damaged, even the last one: only a line cut short is a tear', async () => {
    const file = await storeWith('c1');
    const damagedLine = '{"seq":2,"changes":[["conversations","c2",{"id":"c2"';
    // Complete (it ends with its newline) but damaged: refused, naming the file and line.
    await writeFile(`${file}.journal-000005`, `${damagedLine}\n`);
    await expect(createJsonFileRepository({ file })).rejects.toThrow(/journal .*journal-000005 is corrupt at line 1/);
    // Cut short (no newline): a write a crash interrupted, never acknowledged, dropped with a warning.
    await writeFile(`${file}.journal-000005`, damagedLine);
    const warnings: string[] = [];
    const repository = await createJsonFileRepository({ file, logger: { warn: (message) => warnings.push(message) } });
    expect(warnings.join('\n')).toMatch(/torn record at the end of .*journal-000005/);
    expect((await repository.read((view) => view.list('conversations'))).records.map((c) => c.id)).toEqual(['c1']);
    await repository.close();
  });

  it('migrates records of an older release replayed from the journal', async () => {
    const file = await storeWith();
    const message = messageRecord('m1', 'c1');
    // An entry written by version 2, which kept summaries on messages too.
    await writeFile(
      `${file}.journal-000007`,
      `${JSON.stringify({ seq: 1, changes: [['messages', 'm1', { ...message, annotations: ['a1'] }]] })}\n`,
    );
    const repository = await createJsonFileRepository({ file, logger: { warn: () => undefined } });
    expect(await repository.read((view) => view.get('messages', 'm1'))).toEqual(message);
    await repository.close();
  });
});
