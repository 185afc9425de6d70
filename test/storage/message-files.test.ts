import { readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createJsonFileRepository, type MessageRecord, type Repository } from '../../src/index.js';
import { conversationRecord, messageRecord } from '../helpers/records.js';
import { tempDir } from '../helpers/temp-dir.js';

const text = (message: MessageRecord | undefined) => message?.fragment?.string?.raw;
const withText = (id: string, conversation: string, raw: string): MessageRecord => ({
  ...messageRecord(id, conversation),
  fragment: { string: { raw } },
});

/** Every message of the store, by id, with its text. */
async function allMessages(repository: Repository): Promise<Map<string, string | undefined>> {
  return repository.read(async (view) => {
    const conversations = (await view.list('conversations')).records;
    const ids = conversations.flatMap((c) => c.messages);
    const messages = await view.getMany('messages', ids);
    return new Map(ids.map((id, i) => [id, text(messages[i])]));
  });
}

const filesOf = async (folder: string, kind: string) => (await readdir(folder)).filter((name) => name.startsWith(`db.json.${kind}-`));

describe('JSON-file repository: messages on disk', () => {
  it('keeps every message through writes, rewrites, deletions, compactions and restarts, and drops dead records from disk', async () => {
    const folder = await tempDir('cms-messages-');
    const file = path.join(folder, 'db.json');
    // A tiny threshold: a compaction (and a new message file) every few transactions.
    const open = () => createJsonFileRepository({ file, compactAfterBytes: 2048 });
    let repository = await open();
    const expected = new Map<string, string>();
    const conversations = ['c0', 'c1', 'c2'];
    await repository.transact((tx) => conversations.forEach((id) => tx.put('conversations', conversationRecord(id))));
    // A fixed pseudo-random sequence, so a failure replays.
    let seed = 7;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    for (let step = 0; step < 400; step++) {
      const conversation = conversations[random(3)]!;
      const kind = random(10);
      await repository.transact(async (tx) => {
        const record = (await tx.get('conversations', conversation))!;
        if (kind < 5 || record.messages.length === 0) {
          const id = `m${step}`;
          tx.put('messages', withText(id, conversation, `written at ${step} ${'x'.repeat(random(300))}`));
          tx.put('conversations', { ...record, messages: [...record.messages, id] });
          expected.set(id, `written at ${step}`);
        } else if (kind < 8) {
          const id = record.messages[random(record.messages.length)]!;
          tx.put('messages', withText(id, conversation, `rewritten at ${step}`));
          expected.set(id, `rewritten at ${step}`);
        } else {
          const id = record.messages[random(record.messages.length)]!;
          tx.delete('messages', id);
          tx.put('conversations', { ...record, messages: record.messages.filter((other) => other !== id) });
          expected.delete(id);
        }
      });
      if (step % 97 === 96) {
        await repository.close();
        repository = await open();
      }
    }
    const check = async () => {
      const stored = await allMessages(repository);
      expect([...stored.keys()].sort()).toEqual([...expected.keys()].sort());
      for (const [id, prefix] of expected) expect(stored.get(id)?.startsWith(prefix), id).toBe(true);
      expect(await repository.read((view) => view.count('messages'))).toBe(expected.size);
    };
    await check();
    await repository.close();
    repository = await open();
    await check();
    await repository.close();

    // What is on disk: message files a person can read, one record per line, and not ever more of them.
    const messageFiles = await filesOf(folder, 'messages');
    expect(messageFiles.length).toBeGreaterThan(0);
    let bytes = 0;
    for (const name of messageFiles) {
      const contents = await readFile(path.join(folder, name), 'utf8');
      bytes += contents.length;
      for (const line of contents.split('\n').filter(Boolean)) expect(JSON.parse(line)).toHaveProperty('id');
    }
    const liveBytes = [...expected.keys()].length * 200;
    // Files mostly dead are copied out at compaction; the current and the backup's stay.
    expect(bytes).toBeLessThan(Math.max(liveBytes * 6, 64 * 1024));
    expect((await filesOf(folder, 'hint')).length).toBeLessThanOrEqual(2);
    // The snapshot holds no message: they live in message files.
    expect(JSON.parse(await readFile(file, 'utf8')).messages).toEqual([]);
  });

  it('opens without reading the messages: a damaged message is found when read, naming its file', async () => {
    const folder = await tempDir('cms-messages-lazy-');
    const file = path.join(folder, 'db.json');
    const first = await createJsonFileRepository({ file });
    await first.transact((tx) => {
      tx.put('conversations', { ...conversationRecord('c'), messages: ['m1', 'm2'] });
      tx.put('messages', withText('m1', 'c', 'first message'));
      tx.put('messages', withText('m2', 'c', 'second message'));
    });
    await first.close();
    const [messageFile] = await filesOf(folder, 'messages');
    const target = path.join(folder, messageFile!);
    await writeFile(target, (await readFile(target, 'utf8')).replace('second message', 'second_messag"'));

    const reopened = await createJsonFileRepository({ file });
    expect(text(await reopened.read((view) => view.get('messages', 'm1')))).toBe('first message');
    await expect(reopened.read((view) => view.get('messages', 'm2'))).rejects.toThrow(new RegExp(`${messageFile}.*damaged`));
    await reopened.close();
  });

  it.each(['hint', 'messages'])('stops the start, naming it, when a %s file the snapshot needs is gone', async (kind) => {
    const folder = await tempDir('cms-messages-missing-');
    const file = path.join(folder, 'db.json');
    const first = await createJsonFileRepository({ file });
    await first.transact((tx) => {
      tx.put('conversations', { ...conversationRecord('c'), messages: ['m1'] });
      tx.put('messages', withText('m1', 'c', 'kept'));
    });
    await first.close();
    const [gone] = await filesOf(folder, kind);
    await rm(path.join(folder, gone!));
    const before = await stat(file);
    await expect(createJsonFileRepository({ file })).rejects.toThrow(new RegExp(`${gone}.*missing`));
    expect((await stat(file)).mtimeMs).toBe(before.mtimeMs);
  });

  it('appends a message without rewriting the conversation: the journal grows by the message, not the list', async () => {
    const folder = await tempDir('cms-messages-append-');
    const file = path.join(folder, 'db.json');
    const repository = await createJsonFileRepository({ file, compactAfterBytes: 1024 ** 3 });
    const ids = Array.from({ length: 2000 }, (_, i) => `message-${i}`);
    await repository.transact((tx) => {
      tx.put('conversations', { ...conversationRecord('c'), messages: ids });
      for (const id of ids) tx.put('messages', withText(id, 'c', 'hello'));
    });
    const journal = path.join(folder, (await filesOf(folder, 'journal')).at(-1)!);
    const size = (await stat(journal)).size;
    await repository.transact(async (tx) => {
      const record = (await tx.get('conversations', 'c'))!;
      tx.put('messages', withText('one-more', 'c', 'hello'));
      tx.put('conversations', { ...record, messages: [...record.messages, 'one-more'] });
    });
    expect((await stat(journal)).size - size).toBeLessThan(600);
    await repository.close();
  });
});

describe('JSON-file repository: messages no conversation lists', () => {
  // Only a Repository used directly stores them (the service links every message); the memory
  // store keeps them, and so must this one.
  it('keeps them through a restart', async () => {
    const file = path.join(await tempDir('cms-unlisted-'), 'db.json');
    let repository = await createJsonFileRepository({ file });
    await repository.transact((tx) => {
      tx.put('conversations', conversationRecord('c'));
      tx.put('messages', messageRecord('m', 'c'));
    });
    await repository.close();
    repository = await createJsonFileRepository({ file });
    const after = await repository.read(async (view) => ({ m: await view.get('messages', 'm'), count: await view.count('messages') }));
    await repository.close();
    expect(after).toEqual({ m: messageRecord('m', 'c'), count: 1 });
  });

  it('keeps them readable through compactions that delete the journal they were written in', async () => {
    const file = path.join(await tempDir('cms-unlisted-'), 'db.json');
    const repository = await createJsonFileRepository({ file, compactAfterBytes: 512 });
    await repository.transact((tx) => {
      tx.put('conversations', conversationRecord('c'));
      tx.put('messages', messageRecord('m', 'c'));
    });
    for (let i = 0; i < 40; i++) {
      await repository.transact((tx) => tx.put('conversations', conversationRecord(`c${i}`, 'x'.repeat(200))));
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    // More messages than the cache of parsed records holds, so `m` is read from disk.
    await repository.transact((tx) => {
      const ids = Array.from({ length: 4200 }, (_, i) => `big${i}`);
      for (const id of ids) tx.put('messages', messageRecord(id, 'big'));
      tx.put('conversations', { ...conversationRecord('big'), messages: ids });
    });
    expect(await repository.read((view) => view.get('messages', 'm'))).toEqual(messageRecord('m', 'c'));
    await repository.close();
  });
});
