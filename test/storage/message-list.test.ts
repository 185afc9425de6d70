/**
 * Paging the JSON-file store's messages while they change: the store keeps them listed by place
 * between pages (a scan sorts once), so a page after a write must still be what a fresh list says.
 */
import { afterEach, expect, it } from 'vitest';
import { createJsonFileRepository, type Repository } from '../../src/index.js';
import { conversationRecord, messageRecord } from '../../src/testing/records.js';
import { tempDir } from '../helpers/temp-dir.js';

let repository: Repository | undefined;
afterEach(async () => {
  await repository?.close();
  repository = undefined;
});

async function allIds(store: Repository, limit: number): Promise<string[]> {
  const ids: string[] = [];
  let after: string | undefined;
  do {
    const page = await store.read((view) => view.list('messages', { limit, ...(after === undefined ? {} : { after }) }));
    ids.push(...page.records.map((record) => record.id));
    after = page.next;
  } while (after !== undefined);
  return ids;
}

it('pages messages in insertion order across appends, deletions and an id written again', async () => {
  const dir = await tempDir();
  repository = await createJsonFileRepository({ file: `${dir}/db.json`, durability: 'unsafe-no-fsync' });
  const put = (ids: string[]) =>
    repository!.transact((tx) => {
      for (const id of ids) tx.put('messages', messageRecord(id, 'c'));
    });
  await repository.transact((tx) => tx.put('conversations', conversationRecord('c')));
  await put(['m1', 'm2', 'm3', 'm4', 'm5']);

  const first = await repository.read((view) => view.list('messages', { limit: 2 }));
  expect(first.records.map((record) => record.id)).toEqual(['m1', 'm2']);
  // Between pages: one appended, one of the next page deleted, one of the page read deleted and written again.
  await put(['m6']);
  await repository.transact((tx) => {
    tx.delete('messages', 'm3');
    tx.delete('messages', 'm2');
  });
  await put(['m2']);
  const rest = await repository.read((view) => view.list('messages', { after: first.next! }));
  expect(rest.records.map((record) => record.id)).toEqual(['m4', 'm5', 'm6', 'm2']);
  expect(rest.next).toBeUndefined();

  expect(await allIds(repository, 2)).toEqual(['m1', 'm4', 'm5', 'm6', 'm2']);
  expect((await repository.read((view) => view.list('messages', { offset: 1, limit: 2 }))).records.map((record) => record.id)).toEqual([
    'm4',
    'm5',
  ]);
  // Reopened (the places read back from the files): the same order.
  await repository.close();
  repository = await createJsonFileRepository({ file: `${dir}/db.json` });
  expect(await allIds(repository, 3)).toEqual(['m1', 'm4', 'm5', 'm6', 'm2']);
});
