/**
 * The search index file belongs to its store and costs what the text costs: a file from another
 * store (whatever its header claims), an edited one, or one that disagrees with the store is built
 * again with one line in the log; a file larger than the store could need is refused from its size
 * alone, unread; a store of made-up words (nearly every word a term of its own) gets an index file
 * no larger than its text, which answers exactly as before a restart, and as a rebuilt one does.
 */
import { createHmac } from 'node:crypto';
import { readdir, readFile, rm, stat, truncate, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { createService, type SearchInput, type Service } from '../../src/index.js';
import * as indexFile from '../../src/search/index-file.js';
import { createFakeSummarizer } from '../../src/summarizers/fake.js';
import { said } from '../helpers/service.js';
import { tempDir } from '../helpers/temp-dir.js';

// The file's readers, watched: a file refused for its size must never reach them.
vi.mock('../../src/search/index-file.js', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../src/search/index-file.js')>();
  return { ...actual, readIndexFile: vi.fn(actual.readIndexFile), readIndexHeader: vi.fn(actual.readIndexHeader) };
});

const MAGIC = 'conversation-model-service search index\n';
const query = (text: string): SearchInput => ({ engines: { iterable: [{ query: text }] } });

async function open(dataDir: string, warnings: string[] = []) {
  return createService({ dataDir, summarizer: createFakeSummarizer(), logger: { warn: (message) => warnings.push(message) } });
}

/** A seeded generator of made-up words: letters at random, 5 to 11 of them. */
function madeUpWords(seed: number): () => string {
  return () => {
    const length = 5 + ((seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) % 7);
    let word = '';
    for (let i = 0; i < length; i++)
      word += String.fromCharCode(97 + (((seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) >>> 27) % 26));
    return word;
  };
}

/** `conversations` conversations of `perConversation` messages of `words` made-up words; answers each message's id and text. */
async function fill(service: Service, conversations: number, perConversation: number, words: number, seed: number) {
  const word = madeUpWords(seed);
  const messages: { id: string; text: string }[] = [];
  for (let c = 0; c < conversations; c++) {
    const texts = Array.from({ length: perConversation }, () => Array.from({ length: words }, word).join(' '));
    const conversation = await service.createConversation({ type: 'COPILOT', messages: texts.map((text) => said('USER', text)) });
    conversation.messages.iterable.forEach((message, i) => messages.push({ id: message.id, text: texts[i]! }));
  }
  return messages;
}

/** The index file's header line, and where its body starts. */
async function headerOf(file: string): Promise<{ header: Record<string, unknown>; bytes: Buffer; bodyStart: number }> {
  const bytes = await readFile(file);
  const end = bytes.indexOf(10, MAGIC.length);
  return { header: JSON.parse(bytes.subarray(MAGIC.length, end).toString()), bytes, bodyStart: end + 1 };
}

/** The file with its header changed by `edit`, its checksum recomputed with `key` when given (someone who read that store's id). */
async function withHeader(file: string, edit: (header: Record<string, unknown>) => void, key?: string): Promise<Buffer> {
  const { header, bytes, bodyStart } = await headerOf(file);
  edit(header);
  if (key !== undefined) {
    const { mac: _, ...fields } = header;
    header.mac = createHmac('sha256', key).update(JSON.stringify(fields)).update(bytes.subarray(bodyStart)).digest('hex');
  }
  return Buffer.concat([Buffer.from(`${MAGIC}${JSON.stringify(header)}\n`), bytes.subarray(bodyStart)]);
}

const storeIdOf = async (dataDir: string) => /^"store": "([\w-]+)"/m.exec(await readFile(path.join(dataDir, 'db.json'), 'utf8'))![1]!;

/** Each message is found by the first of its words, alone. */
async function expectEachFound(service: Service, messages: readonly { id: string; text: string }[]) {
  for (const message of messages) {
    const hits = await service.searchMessages(query(message.text.split(' ')[0]!), { transferables: false });
    expect(hits.iterable.map((hit) => hit.identifier)).toContain(message.id);
  }
}

describe('the search index file', () => {
  it('of another store, its position rewritten to match, is built again with one line in the log: every message found', async () => {
    const [mine, theirs] = [await tempDir(), await tempDir()];
    const first = await open(mine);
    const messages = await fill(first, 6, 10, 12, 1);
    await first.close();
    const other = await open(theirs);
    await fill(other, 3, 10, 12, 2);
    await other.close();
    const { header } = await headerOf(path.join(mine, 'db.json.search'));

    // Their file, claiming our position; then also our id (the checksum cannot follow without the id as its key).
    const forgeries = [
      await withHeader(path.join(theirs, 'db.json.search'), (h) => (h.covers = header.covers)),
      await withHeader(path.join(theirs, 'db.json.search'), (h) => Object.assign(h, { covers: header.covers, store: header.store })),
      // Their file re-keyed with their own id, then named ours: the store in it is not ours.
      await withHeader(path.join(theirs, 'db.json.search'), (h) => (h.covers = header.covers), await storeIdOf(theirs)),
    ];
    for (const forged of forgeries) {
      await writeFile(path.join(mine, 'db.json.search'), forged);
      const warnings: string[] = [];
      const service = await open(mine, warnings);
      await expectEachFound(service, messages);
      await service.close();
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatch(
        /^The search index .*db\.json\.search (belongs to another store|does not match its checksum).*: it is built again from the records\.$/,
      );
    }
    // Built again and saved: the next start takes it without a word, and finds the same.
    const warnings: string[] = [];
    const again = await open(mine, warnings);
    await expectEachFound(again, messages);
    await again.close();
    expect(warnings).toEqual([]);
  });

  it('of this store, but older, moved forward by someone who read the store’s id: refused for its counts, built again', async () => {
    const dataDir = await tempDir();
    const first = await open(dataDir);
    const early = await fill(first, 2, 5, 8, 3);
    await first.close();
    const old = path.join(dataDir, 'db.json.search');
    const kept = await readFile(old);
    const second = await open(dataDir);
    const late = await fill(second, 2, 5, 8, 4);
    await second.close();
    const { header } = await headerOf(old);
    await writeFile(old, kept);
    await writeFile(old, await withHeader(old, (h) => (h.covers = header.covers), await storeIdOf(dataDir)));

    const warnings: string[] = [];
    const third = await open(dataDir, warnings);
    await expectEachFound(third, [...early, ...late]);
    await third.close();
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(
      /holds 10 messages, 2 conversations and 0 annotations, where the store holds 20, 4 and 0: it is built again/,
    );
  });

  it('built while a message is damaged on disk lacks it, and is taken at the next start (no rebuild at every start)', async () => {
    const dataDir = await tempDir();
    const first = await open(dataDir);
    const messages = await fill(first, 2, 5, 8, 7);
    await first.close();
    // One message's text flipped in its message file; the index file gone: the next start builds it, without that message.
    const [messageFile] = (await readdir(dataDir)).filter((name) => name.startsWith('db.json.messages-'));
    const bytes = await readFile(path.join(dataDir, messageFile!));
    const at = bytes.indexOf(messages[3]!.text.split(' ')[1]!);
    bytes[at] = bytes[at]! ^ 0x01;
    await writeFile(path.join(dataDir, messageFile!), bytes);
    await rm(path.join(dataDir, 'db.json.search'));

    const second = await open(dataDir);
    await expectEachFound(second, [...messages.slice(0, 3), ...messages.slice(4)]);
    await second.close();
    const warnings: string[] = [];
    const third = await open(dataDir, warnings);
    await expectEachFound(third, [...messages.slice(0, 3), ...messages.slice(4)]);
    await third.close();
    expect(warnings.filter((warning) => warning.includes('search index'))).toEqual([]);
  });

  it('past the size the store could need is refused from its size alone, never read, and built again', async () => {
    const dataDir = await tempDir();
    const first = await open(dataDir);
    const messages = await fill(first, 2, 10, 12, 5);
    await first.close();
    const file = path.join(dataDir, 'db.json.search');
    // Padded to 1 GiB (sparse: it takes no room).
    await truncate(file, 2 ** 30);
    vi.mocked(indexFile.readIndexFile).mockClear();
    vi.mocked(indexFile.readIndexHeader).mockClear();

    const warnings: string[] = [];
    const second = await open(dataDir, warnings);
    await expectEachFound(second, messages);
    await second.close();
    expect(indexFile.readIndexHeader).not.toHaveBeenCalled();
    expect(indexFile.readIndexFile).not.toHaveBeenCalled();
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/is 1073741824 bytes, more than an index of this store can take \(\d+ bytes\): refused without reading it/);
    // Replaced by the one built.
    expect((await stat(file)).size).toBeLessThan(1 << 20);
  });

  it('of made-up words (a term per word) is no larger than the text, and answers as before a restart and as one built again', async () => {
    const dataDir = await tempDir();
    const first = await open(dataDir);
    const messages = await fill(first, 150, 10, 300, 6);
    const textBytes = messages.reduce((sum, message) => sum + Buffer.byteLength(message.text), 0);
    const word = (i: number, at: number) => messages[i]!.text.split(' ')[at]!;
    const queries = [
      word(0, 0),
      `${word(17, 5)} ${word(900, 299)}`,
      // A prefix of a word (the query ends in it), and a word one letter off.
      word(333, 7).slice(0, 4),
      `${word(1200, 3).slice(0, -1)}q`,
      `${word(5, 1)} ${word(5, 2)} ${word(6, 1)}`,
    ];
    const answers = async (service: Service) =>
      Promise.all(
        queries.map(async (text) => {
          const limits = { transferables: false, limit: 1000 };
          const found = await service.searchMessages(query(text), limits);
          const conversations = await service.searchConversations(query(text), limits);
          // Equal scores tie in the order documents were indexed, which a rebuild does not keep: ties sorted by id.
          const sorted = (hits: { identifier: string; similarity?: number }[]) =>
            hits.map((hit) => [hit.similarity, hit.identifier] as const).sort((a, b) => b[0]! - a[0]! || a[1].localeCompare(b[1]));
          return {
            messages: found.iterable.map((hit) => [hit.similarity, hit.identifier]),
            sorted: sorted(found.iterable),
            conversations: sorted(conversations.iterable),
          };
        }),
      );
    const before = await answers(first);
    expect(before.every((answer) => answer.messages.length > 0)).toBe(true);
    await first.close();

    const file = path.join(dataDir, 'db.json.search');
    expect((await stat(file)).size).toBeLessThanOrEqual(textBytes);
    const warnings: string[] = [];
    const loaded = await open(dataDir, warnings);
    expect(await answers(loaded)).toEqual(before);
    await loaded.close();

    await writeFile(file, '');
    const rebuilt = await open(dataDir, warnings);
    const again = await answers(rebuilt);
    await rebuilt.close();
    expect(again.map(({ sorted, conversations }) => ({ sorted, conversations }))).toEqual(
      before.map(({ sorted, conversations }) => ({ sorted, conversations })),
    );
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/is not a search index file: it is built again/);
  }, 90_000); // 1,500 messages of made-up words indexed three times: slow on a busy 2-core machine
});
