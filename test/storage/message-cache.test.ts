/**
 * The JSON-file store's cache of parsed messages: a message read from disk is kept on its second
 * read, so a conversation read again and again is served from memory, and a scan that reads each
 * message once (an export, a backup) neither takes its place nor is kept.
 */
import { afterEach, expect, it, vi } from 'vitest';
import { createJsonFileRepository, type Repository } from '../../src/index.js';
import { MessageReader } from '../../src/stores/json-file/message-reader.js';
import { conversationRecord, messageRecord } from '../../src/testing/records.js';
import { tempDir } from '../helpers/temp-dir.js';

let repository: Repository | undefined;
afterEach(async () => {
  await repository?.close();
  repository = undefined;
  vi.restoreAllMocks();
});

/** A store of conversation `hot` (20 messages) and `scanned` (5,000 messages), reopened: nothing is cached. */
async function reopenedStore(): Promise<{ hot: string[]; scanned: string[] }> {
  const file = `${await tempDir()}/db.json`;
  const hot = Array.from({ length: 20 }, (_, i) => `hot-${i}`);
  const scanned = Array.from({ length: 5_000 }, (_, i) => `scanned-${i}`);
  const writer = await createJsonFileRepository({ file, durability: 'unsafe-no-fsync' });
  await writer.transact((tx) => {
    tx.put('conversations', { ...conversationRecord('hot'), messages: hot });
    tx.put('conversations', { ...conversationRecord('scanned'), messages: scanned });
    for (const id of hot) tx.put('messages', messageRecord(id, 'hot'));
    for (const id of scanned) tx.put('messages', messageRecord(id, 'scanned'));
  });
  await writer.close();
  repository = await createJsonFileRepository({ file, durability: 'unsafe-no-fsync' });
  return { hot, scanned };
}

/** Messages of `ids` read from disk by one read of them (0: all from the cache). */
async function readFromDisk(ids: readonly string[]): Promise<number> {
  const reads = vi.spyOn(MessageReader.prototype, 'read');
  const records = await repository!.read((view) => view.getMany('messages', ids));
  expect(records.map((record) => record?.id)).toEqual(ids);
  const fromDisk = reads.mock.calls.reduce((sum, [locations]) => sum + locations.length, 0);
  reads.mockRestore();
  return fromDisk;
}

it('keeps a message on its second read from disk, and serves the third from memory', async () => {
  const { hot } = await reopenedStore();
  expect(await readFromDisk(hot)).toBe(20);
  expect(await readFromDisk(hot)).toBe(20);
  expect(await readFromDisk(hot)).toBe(0);
});

it('keeps what is read often through a scan that reads every message once, and keeps none of the scan', async () => {
  const { hot, scanned } = await reopenedStore();
  await readFromDisk(hot);
  await readFromDisk(hot);
  // More messages than the cache holds (4,096), each read once.
  for (let at = 0; at < scanned.length; at += 500) expect(await readFromDisk(scanned.slice(at, at + 500))).toBe(500);
  expect(await readFromDisk(hot)).toBe(0);
  expect(await readFromDisk(scanned.slice(-20))).toBe(20);
});
