/**
 * Damage done to the JSON-file store's files by another local process, each attack as the issue
 * found them: a message file truncated or with 4 bytes flipped, a hint line with 4 bytes flipped,
 * a hint offset edited (into another record, past the file's end, or with the line's checksum
 * forged to match), a journal line with 4 bytes flipped. For each: the store starts, the check
 * after the start reports the damage (one log line per damaged file, `service.health()`, `GET
 * /.well-known/health`), a read of the damaged record answers DATA_DAMAGED (503 over HTTP) naming
 * the file, the byte offset and the record, lists and searches answer the rest and name what they
 * left out, and nothing answers 500.
 */
import { cp, readdir, readFile, truncate, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { crc32 } from 'node:zlib';
import { describe, expect, it, vi } from 'vitest';
import { createHonoRouter } from '../../adapters/hono/index.js';
import { createJsonFileRepository, createService, isServiceError, type Service } from '../../src/index.js';
import { createFakeSummarizer } from '../../src/summarizers/index.js';
import { type Answer, expectError, expectJson, httpClient, path as url } from '../helpers/http.js';
import { conversationRecord, messageRecord } from '../helpers/records.js';
import { tempDir } from '../helpers/temp-dir.js';

/** Three conversations of three messages each, every message holding the word `kiwi`. */
const TEXTS = [
  ['alpha kiwi one', 'alpha kiwi two', 'alpha kiwi three'],
  ['bravo kiwi one', 'bravo kiwi two', 'bravo kiwi three'],
  ['charlie kiwi one', 'charlie kiwi two', 'charlie kiwi three'],
];

interface Written {
  readonly folder: string;
  /** The conversations' ids, and each one's message ids, in order. */
  readonly conversations: readonly { readonly id: string; readonly messages: readonly string[] }[];
}

const serviceOptions = (dataDir: string, warnings: string[] = []) => ({
  dataDir,
  summarizer: createFakeSummarizer(),
  logger: { warn: (message: string) => warnings.push(message) },
});

/** A data folder the service wrote and closed: the messages are in a message file, found through the hint file. */
async function writeStore(): Promise<Written> {
  const folder = await tempDir('cms-damage-');
  const service = await createService(serviceOptions(folder));
  const conversations = [];
  for (const texts of TEXTS) {
    const created = await service.createConversation({
      type: 'COPILOT',
      messages: texts.map((raw) => ({ role: 'USER' as const, fragment: { string: { raw } } })),
    });
    conversations.push({ id: created.id, messages: created.messages.iterable.map((message) => message.id) });
  }
  await service.close();
  return { folder, conversations };
}

const onlyFile = async (folder: string, kind: string) => {
  const names = (await readdir(folder)).filter((name) => name.startsWith(`db.json.${kind}-`));
  expect(names).toHaveLength(1);
  return names[0]!;
};

/** The hint file the snapshot names. */
const hintOf = async (folder: string) => {
  const { hint } = JSON.parse(await readFile(path.join(folder, 'db.json'), 'utf8')) as { hint: number };
  return `db.json.hint-${String(hint).padStart(6, '0')}`;
};

/** Where a line holding `needle` starts in `file`, and its text. */
async function lineOf(file: string, needle: string): Promise<{ offset: number; text: string }> {
  const bytes = await readFile(file);
  const at = bytes.indexOf(needle);
  expect(at, `${needle} in ${file}`).toBeGreaterThanOrEqual(0);
  const offset = bytes.lastIndexOf(0x0a, at) + 1;
  return { offset, text: bytes.toString('utf8', offset, bytes.indexOf(0x0a, at)) };
}

/** XORs the 4 bytes at `at` with 0xff. */
async function flip4(file: string, at: number): Promise<void> {
  const bytes = await readFile(file);
  for (let i = at; i < at + 4; i++) bytes[i] = bytes[i]! ^ 0xff;
  await writeFile(file, bytes);
}

/** Replaces line `offset` of `file` (without its newline) by `text`, keeping the rest. */
async function replaceLine(file: string, offset: number, text: string): Promise<void> {
  const bytes = await readFile(file);
  const end = bytes.indexOf(0x0a, offset);
  await writeFile(file, Buffer.concat([bytes.subarray(0, offset), Buffer.from(text), bytes.subarray(end)]));
}

/** A hint line's `[file, offset, length, order, crc]` per message, and the line rebuilt from them (checksum left as it was, or made to match). */
function hintEntries(text: string) {
  const line = JSON.parse(text) as { c: string; at: number[]; crc: number };
  const rebuild = (at: number[], forge = false) => {
    const body = JSON.stringify({ c: line.c, at });
    const open = body.slice(0, -1);
    return `${open},"crc":${forge ? crc32(open) : line.crc}}`;
  };
  return { at: line.at, rebuild };
}

/** What an attack left damaged, as the answers must name it. */
interface Expected {
  /** The damaged file, as named (its base name), and where its first damaged place is. */
  readonly file: string;
  readonly firstOffset: number;
  /** Damaged places in it. */
  readonly places: number;
  /** The damaged messages, each with the file and offset its error names. */
  readonly damaged: readonly { readonly conversation: string; readonly id: string; readonly offset: number }[];
}

/** Opens the damaged folder and checks everything the issue asks of the answers. */
async function expectContained(written: Written, expected: Expected): Promise<void> {
  const warnings: string[] = [];
  // The start works.
  const service = await createService(serviceOptions(written.folder, warnings));
  try {
    const http = httpClient(createHonoRouter(service, { logger: { error: (message) => warnings.push(`router: ${message}`) } }));
    await vi.waitFor(async () => expect((await service.health()).store?.check.state).toBe('done'), { timeout: 10_000 });

    // The check reports it: in-process, one log line for the file, and over HTTP.
    const health = await service.health();
    expect(health.status).toBe('damaged');
    expect(health.store!.damaged.map((file) => ({ ...file, ids: [...file.ids].sort() }))).toEqual([
      {
        file: expected.file,
        places: expected.places,
        firstOffset: expected.firstOffset,
        records: expected.damaged.length,
        ids: expected.damaged.map((message) => message.id).sort(),
      },
    ]);
    const logged = warnings.filter((warning) => warning.startsWith('Damaged data in'));
    expect(logged).toHaveLength(1);
    expect(logged[0]).toContain(`${written.folder}/${expected.file}: `);
    expect(logged[0]).toContain(`the first at byte ${expected.firstOffset}`);
    const healthAnswer = await http.get('/.well-known/health');
    expect(healthAnswer.status).toBe(200);
    expect(healthAnswer.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(healthAnswer.text).toMatch(/^ok, but stored data is damaged/);
    expect(healthAnswer.text).toContain(`\n${expected.file}: ${expected.places} damaged place`);
    expect(healthAnswer.text).toContain(`the first at byte ${expected.firstOffset}`);

    const statuses: number[] = [];
    const answered = (answer: Answer) => {
      statuses.push(answer.status);
      return answer;
    };
    const skippedOf = (message: Expected['damaged'][number]) => ({
      code: 'DATA_DAMAGED',
      message: expect.stringContaining(`"${message.id}"`),
      resource: 'message',
      id: message.id,
      file: expected.file,
      offset: message.offset,
    });

    // Each conversation answers the messages it can, and names the ones it left out.
    for (const conversation of written.conversations) {
      const lost = expected.damaged.filter((message) => message.conversation === conversation.id);
      const kept = conversation.messages.filter((id) => !lost.some((message) => message.id === id));
      for (const answer of [
        expectJson(answered(await http.get(url`/conversation/${conversation.id}`))),
        expectJson(answered(await http.get(url`/conversation/${conversation.id}?transferables=false`))),
      ]) {
        expect(answer.messages.iterable.map((message: { id: string }) => message.id)).toEqual(kept);
        if (lost.length === 0) expect(answer).not.toHaveProperty('skipped');
        else expect(answer.skipped).toEqual(lost.map(skippedOf));
      }
      const page = expectJson(answered(await http.get(url`/conversation/${conversation.id}/messages`)));
      expect(page.iterable.map((message: { id: string }) => message.id)).toEqual(kept);
      // A damaged message keeps its place: the others' positions are those of the whole conversation.
      for (const id of kept) expect(page.indices[id]).toBe(conversation.messages.indexOf(id));
      if (lost.length > 0) expect(page.skipped).toEqual(lost.map(skippedOf));
      // The same in-process.
      const read = await service.getConversation(conversation.id);
      expect(read.messages.iterable.map((message) => message.id)).toEqual(kept);
      expect(read.skipped ?? []).toEqual(lost.map(skippedOf));
    }

    // A page of the list answers every conversation, each naming what it left out.
    const list = expectJson(answered(await http.get('/conversations?limit=1000')));
    expect(list.iterable.map((conversation: { id: string }) => conversation.id)).toEqual(written.conversations.map((c) => c.id));
    for (const item of list.iterable as { id: string; skipped?: unknown[] }[]) {
      expect(item.skipped?.length ?? 0).toBe(expected.damaged.filter((message) => message.conversation === item.id).length);
    }

    // A search that meets the damaged messages answers the rest and names them.
    const all = written.conversations.flatMap((conversation) => conversation.messages);
    const sound = all.filter((id) => !expected.damaged.some((message) => message.id === id));
    const searched = expectJson(answered(await http.postJson('/messages/search', { engines: { iterable: [{ query: 'kiwi' }] } })));
    expect(searched.iterable.map((hit: { identifier: string }) => hit.identifier).sort()).toEqual([...sound].sort());
    expect(searched.skipped.map((skipped: { id: string }) => skipped.id).sort()).toEqual(expected.damaged.map((m) => m.id).sort());
    const exact = expectJson(
      answered(await http.postJson('/messages/search', { engines: { iterable: [{ query: 'kiwi', full_text: { exact: true } }] } })),
    );
    expect(exact.iterable).toHaveLength(sound.length);
    const conversations = expectJson(
      answered(await http.postJson('/conversations/search', { engines: { iterable: [{ query: 'kiwi' }] } })),
    );
    expect(conversations.iterable).toHaveLength(written.conversations.length);
    // Each conversation's best messages are read: those damaged among them are named.
    expect(conversations.skipped.length).toBeGreaterThan(0);
    for (const skipped of conversations.skipped) expect(expected.damaged.map((m) => m.id)).toContain(skipped.id);
    const inOne = expected.damaged[0]!.conversation;
    const searchedOne = expectJson(
      answered(await http.postJson(url`/conversation/${inOne}/search`, { engines: { iterable: [{ query: 'kiwi' }] } })),
    );
    expect(searchedOne.skipped.length).toBeGreaterThan(0);

    // A read of the damaged record answers DATA_DAMAGED, naming the file, the offset and the record.
    for (const message of expected.damaged) {
      const error = expectError(answered(await http.post(url`/messages/${message.id}/delete`)), 503, 'DATA_DAMAGED');
      expect(error).toMatchObject({ resource: 'message', id: message.id, file: expected.file, offset: message.offset });
    }
    const renamed = expectError(answered(await http.post(url`/conversation/${inOne}/rename`)), 503, 'DATA_DAMAGED');
    expect(renamed.file).toBe(expected.file);
    const thrown = await service.summarizeConversation(inOne).catch((error: unknown) => error);
    expect(isServiceError(thrown) && thrown.code).toBe('DATA_DAMAGED');
    expect(isServiceError(thrown) && thrown.details).toMatchObject({ file: expected.file, id: expected.damaged[0]!.id });

    // Nothing answered 500, nor logged an unexpected error.
    expect(statuses.filter((status) => status >= 500 && status !== 503)).toEqual([]);
    expect(warnings.filter((warning) => warning.startsWith('router:'))).toEqual([]);

    // A way out: deleting a conversation deletes its damaged messages too, and the damage is gone from what the store holds.
    await service.deleteConversation(inOne);
    const after = await service.health();
    expect(
      after
        .store!.damaged.flatMap((file) => file.ids)
        .filter((id) => expected.damaged.some((m) => m.id === id && m.conversation === inOne)),
    ).toEqual([]);
  } finally {
    await service.close();
  }
}

describe('JSON-file store: damage is detected, named and contained', () => {
  it('a message file cut short: the records past its end are damaged, the rest read', async () => {
    const written = await writeStore();
    const file = await onlyFile(written.folder, 'messages');
    const [c1, c2, c3] = written.conversations[2]!.messages;
    const second = await lineOf(path.join(written.folder, file), `"id":"${c2}"`);
    const third = await lineOf(path.join(written.folder, file), `"id":"${c3}"`);
    expect(c1).toBeDefined();
    await truncate(path.join(written.folder, file), second.offset + 10);
    await expectContained(written, {
      file,
      firstOffset: second.offset,
      places: 2,
      damaged: [
        { conversation: written.conversations[2]!.id, id: c2!, offset: second.offset },
        { conversation: written.conversations[2]!.id, id: c3!, offset: third.offset },
      ],
    });
  });

  it('4 bytes flipped in a record of a message file: that record is damaged', async () => {
    const written = await writeStore();
    const file = await onlyFile(written.folder, 'messages');
    const victim = written.conversations[1]!.messages[1]!;
    const line = await lineOf(path.join(written.folder, file), `"id":"${victim}"`);
    // In the message's text: the record still parses, only its checksum tells.
    const inText = line.text.indexOf('bravo kiwi two');
    await flip4(path.join(written.folder, file), line.offset + Buffer.byteLength(line.text.slice(0, inText)) + 1);
    await expectContained(written, {
      file,
      firstOffset: line.offset,
      places: 1,
      damaged: [{ conversation: written.conversations[1]!.id, id: victim, offset: line.offset }],
    });
  });

  it('4 bytes flipped in a hint line: the start goes on, and the messages whose places went with the line are damaged', async () => {
    const written = await writeStore();
    const hint = await hintOf(written.folder);
    const conversation = written.conversations[1]!;
    const line = await lineOf(path.join(written.folder, hint), `{"c":"${conversation.id}"`);
    await flip4(path.join(written.folder, hint), line.offset + line.text.indexOf('"at":[') + 8);
    await expectContained(written, {
      file: hint,
      firstOffset: line.offset,
      places: 1,
      damaged: conversation.messages.map((id) => ({ conversation: conversation.id, id, offset: line.offset })),
    });
  });

  it('a hint offset edited to point at another record: that message is damaged, named at its hint line', async () => {
    const written = await writeStore();
    const hint = await hintOf(written.folder);
    const conversation = written.conversations[1]!;
    const line = await lineOf(path.join(written.folder, hint), `{"c":"${conversation.id}"`);
    const { at, rebuild } = hintEntries(line.text);
    // The second message's offset, now the first one's.
    await replaceLine(path.join(written.folder, hint), line.offset, rebuild(at.map((value, i) => (i === 5 + 1 ? at[1]! : value))));
    await expectContained(written, {
      file: hint,
      firstOffset: line.offset,
      places: 1,
      damaged: [{ conversation: conversation.id, id: conversation.messages[1]!, offset: line.offset }],
    });
  });

  it('a hint offset edited to point past the end of its message file: the start goes on, the check finds it', async () => {
    const written = await writeStore();
    const hint = await hintOf(written.folder);
    const conversation = written.conversations[0]!;
    const line = await lineOf(path.join(written.folder, hint), `{"c":"${conversation.id}"`);
    const { at, rebuild } = hintEntries(line.text);
    await replaceLine(path.join(written.folder, hint), line.offset, rebuild(at.map((value, i) => (i === 10 + 1 ? 1e12 : value))));
    await expectContained(written, {
      file: hint,
      firstOffset: line.offset,
      places: 1,
      damaged: [{ conversation: conversation.id, id: conversation.messages[2]!, offset: line.offset }],
    });
  });

  it("a hint offset edited with the line's checksum forged to match: the message's own checksum finds it", async () => {
    const written = await writeStore();
    const hint = await hintOf(written.folder);
    const messages = await onlyFile(written.folder, 'messages');
    const conversation = written.conversations[1]!;
    const line = await lineOf(path.join(written.folder, hint), `{"c":"${conversation.id}"`);
    const { at, rebuild } = hintEntries(line.text);
    await replaceLine(
      path.join(written.folder, hint),
      line.offset,
      rebuild(
        at.map((value, i) => (i === 5 + 1 ? at[1]! : value)),
        true,
      ),
    );
    // Read where the hint now says: the first message's bytes, not its own.
    await expectContained(written, {
      file: messages,
      firstOffset: at[1]!,
      places: 1,
      damaged: [{ conversation: conversation.id, id: conversation.messages[1]!, offset: at[1]! }],
    });
  });

  it('a damaged journal line that is not the torn last one stops the start, naming the file, line and byte (the write-ahead log is not skipped)', async () => {
    const folder = await tempDir('cms-damage-journal-');
    const file = path.join(folder, 'db.json');
    const repository = await createJsonFileRepository({ file });
    for (const id of ['c1', 'c2', 'c3']) {
      await repository.transact((tx) => {
        tx.put('messages', { ...messageRecord(`${id}-m`, id), fragment: { string: { raw: `text of ${id}` } } });
        tx.put('conversations', { ...conversationRecord(id), messages: [`${id}-m`] });
      });
    }
    // A copy while it runs: the journal holds the writes, not folded yet (the lock is not copied).
    const copy = await tempDir('cms-damage-journal-copy-');
    for (const name of await readdir(folder)) if (name !== 'db.json.lock') await cp(path.join(folder, name), path.join(copy, name));
    await repository.close();
    const journal = await onlyFile(copy, 'journal');
    const second = await lineOf(path.join(copy, journal), '"c2-m"');
    await flip4(path.join(copy, journal), second.offset + second.text.indexOf('text of c2'));
    const before = await readFile(path.join(copy, journal));
    const refused = await createJsonFileRepository({ file: path.join(copy, 'db.json') }).catch((error: unknown) => error);
    expect(isServiceError(refused) && refused.code).toBe('DATA_DAMAGED');
    expect(isServiceError(refused) && refused.details).toMatchObject({ file: journal, offset: second.offset });
    expect(String((refused as Error).message)).toMatch(
      new RegExp(`${journal} is corrupt at line 2 \\(byte ${second.offset}\\): the line fails its checksum`),
    );
    // Nothing was changed.
    expect(await readFile(path.join(copy, journal))).toEqual(before);
  });
});

describe('JSON-file store: a damaged hint header', () => {
  it('does not stop the start: every message file on disk is kept, every message read, and the header named', async () => {
    const written = await writeStore();
    const hint = await hintOf(written.folder);
    await flip4(path.join(written.folder, hint), 2);
    const warnings: string[] = [];
    const service = await createService(serviceOptions(written.folder, warnings));
    await vi.waitFor(async () => expect((await service.health()).store?.check.state).toBe('done'), { timeout: 10_000 });
    for (const conversation of written.conversations) {
      const read = await service.getConversation(conversation.id);
      expect(read.messages.iterable.map((message) => message.id)).toEqual(conversation.messages);
      expect(read).not.toHaveProperty('skipped');
    }
    expect((await service.health()).store!.damaged).toEqual([{ file: hint, places: 1, firstOffset: 0, records: 0, ids: [] }]);
    expect(warnings.filter((warning) => warning.startsWith('Damaged data in'))).toHaveLength(1);
    // The next compaction writes a sound hint; the files the old one named stay until the one after.
    await service.createConversation({ type: 'COPILOT', messages: [{ role: 'USER', fragment: { string: { raw: 'after' } } }] });
    await service.close();
    const reopened = await createService(serviceOptions(written.folder));
    await vi.waitFor(async () => expect((await reopened.health()).store?.check.state).toBe('done'), { timeout: 10_000 });
    expect(await reopened.health()).toMatchObject({ status: 'ok' });
    expect((await reopened.listConversations()).iterable).toHaveLength(written.conversations.length + 1);
    await reopened.close();
  });
});

describe('JSON-file store: the start-up check', () => {
  it('finds nothing in a sound store, and says so in one word over HTTP', async () => {
    const written = await writeStore();
    const warnings: string[] = [];
    const service: Service = await createService(serviceOptions(written.folder, warnings));
    await vi.waitFor(async () => expect((await service.health()).store?.check.state).toBe('done'), { timeout: 10_000 });
    expect(await service.health()).toEqual({ status: 'ok', store: { check: { state: 'done', checked: 9, total: 9 }, damaged: [] } });
    const http = httpClient(createHonoRouter(service));
    expect((await http.get('/.well-known/health')).text).toBe('ok');
    expect(warnings).toEqual([]);
    await service.close();
  });

  it('summarizes the sound messages named, beside a damaged one', async () => {
    const written = await writeStore();
    const file = await onlyFile(written.folder, 'messages');
    const conversation = written.conversations[0]!;
    const line = await lineOf(path.join(written.folder, file), `"id":"${conversation.messages[2]}"`);
    await flip4(path.join(written.folder, file), line.offset + line.text.indexOf('alpha kiwi three'));
    const service = await createService(serviceOptions(written.folder));
    const named = { messages: { iterable: conversation.messages.slice(0, 2).map((id) => ({ id })) } };
    const summary = await service.summarizeConversation(conversation.id, named);
    expect(summary.conversation.id).toBe(conversation.id);
    await service.close();
  });
});

describe('JSON-file store: damage outlives compactions, never laundered', () => {
  /** The ids the store's health names, after its start-up check. */
  async function damagedIds(dataDir: string): Promise<string[]> {
    const service = await createService(serviceOptions(dataDir));
    await vi.waitFor(async () => expect((await service.health()).store?.check.state).toBe('done'), { timeout: 10_000 });
    const ids = (await service.health()).store!.damaged.flatMap((file) => file.ids);
    await service.close();
    return ids.sort();
  }

  it('a damaged record copied out of a mostly dead message file keeps the checksum it had, and is still found', async () => {
    const written = await writeStore();
    const file = await onlyFile(written.folder, 'messages');
    const victim = written.conversations[1]!.messages[1]!;
    const line = await lineOf(path.join(written.folder, file), `"id":"${victim}"`);
    await flip4(path.join(written.folder, file), line.offset + line.text.indexOf('bravo kiwi two'));
    const service = await createService(serviceOptions(written.folder));
    // Two thirds of the file dead: its live records, the damaged one among them, are copied to a new file.
    await service.deleteConversation(written.conversations[0]!.id);
    await service.deleteConversation(written.conversations[2]!.id);
    await service.close();
    // The hint now places it in the new file.
    const hint = await hintOf(written.folder);
    const { at } = hintEntries((await lineOf(path.join(written.folder, hint), `{"c":"${written.conversations[1]!.id}"`)).text);
    expect(`db.json.messages-${String(-at[5]!).padStart(6, '0')}`).not.toBe(file);
    expect(await damagedIds(written.folder)).toEqual([victim]);
  });

  it('messages whose places a damaged hint line lost stay lost through the next compaction', async () => {
    const written = await writeStore();
    const hint = await hintOf(written.folder);
    const conversation = written.conversations[1]!;
    const line = await lineOf(path.join(written.folder, hint), `{"c":"${conversation.id}"`);
    await flip4(path.join(written.folder, hint), line.offset + line.text.indexOf('"at":[') + 8);
    const service = await createService(serviceOptions(written.folder));
    await service.createConversation({
      type: 'COPILOT',
      messages: [{ role: 'USER', fragment: { string: { raw: 'a write, so close compacts' } } }],
    });
    await service.close();
    expect(await hintOf(written.folder)).not.toBe(hint);
    expect(await damagedIds(written.folder)).toEqual([...conversation.messages].sort());
  });
});
