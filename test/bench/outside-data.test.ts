/**
 * Where the benchmarks look for the data kept outside the repository, and the one line they print
 * in place of a section when it is absent (bench/outside-data.ts).
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { expect, it } from 'vitest';
import { devChats, dialogSum, skippedForData } from '../../bench/outside-data.js';
import { tempDir } from '../helpers/temp-dir.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

it('looks for the developer chats beside the repository, or where SEARCH_DEVCHATS says', () => {
  expect(devChats({}).file).toBe(path.resolve(ROOT, '../shared/data/devchats/dev.jsonl'));
  expect(devChats({ SEARCH_DEVCHATS: '/data/chats.jsonl' }).file).toBe('/data/chats.jsonl');
  // A relative path is the user's, from the folder they run in.
  expect(devChats({ SEARCH_DEVCHATS: 'chats.jsonl' }).file).toBe(path.resolve('chats.jsonl'));
});

it('says, in one line, which file is missing and what to provide', async () => {
  const missing = path.join(await tempDir(), 'nowhere', 'dev.jsonl');
  const line = skippedForData('bench:search', devChats({ SEARCH_DEVCHATS: missing }));
  expect(line).toMatch(/^bench:search: skipped, no developer chats at /);
  expect(line).toContain(missing);
  expect(line).toContain('../shared/data/devchats/dev.jsonl');
  expect(line).toContain('SEARCH_DEVCHATS=<file>');
  expect(line).not.toContain('\n');

  const dialogues = skippedForData('--file', dialogSum(missing));
  expect(dialogues).toContain(`no DialogSum dialogues at ${missing}`);
  expect(dialogues).toContain('github.com/cylnlp/dialogsum');
});

it('says nothing when the file is there', async () => {
  const file = path.join(await tempDir(), 'chats.jsonl');
  await writeFile(file, '');
  expect(skippedForData('bench:search', devChats({ SEARCH_DEVCHATS: file }))).toBeUndefined();
  expect(skippedForData(undefined, dialogSum(file))).toBeUndefined();
});
