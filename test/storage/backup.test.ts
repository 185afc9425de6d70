/**
 * Online backups (issue 29): a JSON-file store backed up by its files while 50 writers write holds
 * every write acknowledged before the backup began, none in part, and opens as a store of its own;
 * the store serves on; a folder that holds anything is refused; the memory store's backup opens as
 * a JSON-file store with the same answers; `POST /backup` writes only inside the data folder, one
 * at a time, and goes through the Host/Origin/token guards.
 */
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createHonoRouter } from '../../adapters/hono/index.js';
import { type ConversationRecord, createJsonFileRepository, createService, isServiceError, type Repository } from '../../src/index.js';
import { CompactionGate } from '../../src/stores/json-file/compaction-gate.js';
import { conversationRecord, messageRecord } from '../helpers/records.js';
import { conversationWith, said } from '../helpers/service.js';
import { tempDir } from '../helpers/temp-dir.js';

const quiet = { warn: () => undefined };

/** Whether every conversation's messages are there, each naming it, and every message's conversation lists it: no transaction is there in part. */
async function wholeTransactions(store: Repository): Promise<{ conversations: Map<string, ConversationRecord>; messages: Set<string> }> {
  const conversations = new Map(
    (await store.read((view) => view.list('conversations'))).records.map((record) => [record.id, record as ConversationRecord]),
  );
  const messages = (await store.read((view) => view.list('messages'))).records;
  for (const conversation of conversations.values()) {
    const listed = await store.read((view) => view.getMany('messages', conversation.messages));
    for (const [i, message] of listed.entries())
      expect(message?.conversation, `${conversation.messages[i]} of ${conversation.id}`).toBe(conversation.id);
  }
  for (const message of messages) expect(conversations.get(message.conversation)?.messages).toContain(message.id);
  return { conversations, messages: new Set(messages.map((message) => message.id)) };
}

describe('a backup of the JSON-file store', () => {
  it('taken while 50 writers write, holds every write acknowledged before it began, none in part, and the store serves on', async () => {
    const dir = await tempDir('cms-backup-');
    const file = path.join(dir, 'data', 'db.json');
    // Small compactions, so journals are folded (and files removed) while the writers write: the backup holds them off.
    const store = await createJsonFileRepository({ file, compactAfterBytes: 32 * 1024, logger: quiet });
    // Per conversation, the last state acknowledged: its name and its messages.
    const acknowledged = new Map<string, { name: string; messages: readonly string[] }>();
    let stop = false;
    let backupBegan: Map<string, { name: string; messages: readonly string[] }> | undefined;
    let writtenDuring = 0;
    let backupRunning = false;
    const writer = async (w: number) => {
      for (let i = 0; i < 30 && !stop; i++) {
        const id = `w${w}-c${i}`;
        // A conversation and its first message in one transaction, then a second message and a new name in another.
        const first = { ...messageRecord(`${id}-m1`, id) };
        const created = { ...conversationRecord(id), application: { notes: 'x'.repeat(400) }, messages: [first.id] } as ConversationRecord;
        await store.transact((tx) => {
          tx.put('conversations', created);
          tx.put('messages', first);
        });
        acknowledged.set(id, { name: created.name!, messages: created.messages });
        if (backupRunning) writtenDuring++;
        const second = messageRecord(`${id}-m2`, id);
        const renamed = { ...created, name: `${created.name} (renamed)`, messages: [first.id, second.id] };
        await store.transact((tx) => {
          tx.put('conversations', renamed);
          tx.put('messages', second);
        });
        acknowledged.set(id, { name: renamed.name!, messages: renamed.messages });
        if (backupRunning) writtenDuring++;
      }
    };
    const writers = Array.from({ length: 50 }, (_, w) => writer(w));
    // Once a few hundred writes are in (compactions among them), the backup begins.
    for (let waited = 0; acknowledged.size < 400 && waited < 10_000; waited += 5) await new Promise((resolve) => setTimeout(resolve, 5));
    backupBegan = new Map(acknowledged);
    backupRunning = true;
    const started = performance.now();
    const report = await store.backup!(path.join(dir, 'backup'));
    const took = performance.now() - started;
    backupRunning = false;
    stop = true;
    await Promise.all(writers);
    // Serving after: a write and a read.
    await store.transact((tx) => tx.put('conversations', conversationRecord('after')));
    expect(await store.read((view) => view.get('conversations', 'after'))).toBeDefined();
    await store.close();
    console.log(
      `backup of ${backupBegan.size} conversations: ${took.toFixed(0)} ms, ${report.files} files, ${report.bytes} bytes; ${writtenDuring} writes acknowledged meanwhile`,
    );

    expect(report.folder).toBe(path.join(dir, 'backup'));
    const names = await readdir(report.folder);
    expect(names).toContain('db.json');
    expect(names.filter((name) => name.endsWith('.lock') || name.endsWith('.bak') || name.endsWith('.tmp'))).toEqual([]);
    // Nothing left beside it.
    expect((await readdir(dir)).sort()).toEqual(['backup', 'data']);

    const warnings: string[] = [];
    const copy = await createJsonFileRepository({ file: path.join(report.folder, 'db.json'), logger: { warn: (m) => warnings.push(m) } });
    try {
      const { conversations } = await wholeTransactions(copy);
      for (const [id, state] of backupBegan) {
        const conversation = conversations.get(id);
        expect(conversation, id).toBeDefined();
        // As acknowledged before the backup began, or a state acknowledged after it.
        if (conversation!.messages.length < state.messages.length) expect.fail(`${id} lost a write acknowledged before the backup`);
        expect(conversation!.name === state.name || conversation!.name === acknowledged.get(id)!.name).toBe(true);
      }
      for (const id of conversations.keys()) expect(acknowledged.has(id), id).toBe(true);
      // A search index copied with it was trusted as it was (not built again); one left out is built.
      if (names.includes('db.json.search')) expect(warnings.filter((m) => /search index/.test(m))).toEqual([]);
      // The copy is a store of its own: it takes writes.
      await copy.transact((tx) => tx.put('conversations', conversationRecord('restored')));
    } finally {
      await copy.close();
    }
  });

  it('into a folder that holds anything is refused with CONFLICT, and changes nothing', async () => {
    const dir = await tempDir('cms-backup-');
    const store = await createJsonFileRepository({ file: path.join(dir, 'data', 'db.json'), logger: quiet });
    try {
      await store.transact((tx) => tx.put('conversations', conversationRecord('c1')));
      const target = path.join(dir, 'full');
      await mkdir(target);
      await writeFile(path.join(target, 'keep.txt'), 'mine');
      const error = await store.backup!(target).catch((e: unknown) => e);
      expect(isServiceError(error) && error.code).toBe('CONFLICT');
      expect(await readdir(target)).toEqual(['keep.txt']);
      expect(await readFile(path.join(target, 'keep.txt'), 'utf8')).toBe('mine');
      // A file in its place likewise; an empty folder is taken.
      await writeFile(path.join(dir, 'a-file'), 'x');
      expect(await store.backup!(path.join(dir, 'a-file')).catch((e: unknown) => isServiceError(e) && e.code)).toBe('CONFLICT');
      await mkdir(path.join(dir, 'empty'));
      await store.backup!(path.join(dir, 'empty'));
      expect((await readdir(dir)).sort()).toEqual(['a-file', 'data', 'empty', 'full']);
    } finally {
      await store.close();
    }
  });
});

describe('the compaction gate', () => {
  it('grants a hold once the running compaction ends, and starts none until the hold is released', async () => {
    const gate = new CompactionGate();
    const events: string[] = [];
    let finish!: () => void;
    const first = gate.run(async () => {
      events.push('compaction 1 starts');
      await new Promise<void>((resolve) => (finish = resolve));
      events.push('compaction 1 ends');
    });
    const held = gate.hold().then((release) => {
      events.push('held');
      return release;
    });
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(events).toEqual(['compaction 1 starts']);
    finish();
    const release = await held;
    await first;
    const second = gate.run(async () => void events.push('compaction 2'));
    const idle = gate.idle().then(() => events.push('idle'));
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(events).toEqual(['compaction 1 starts', 'compaction 1 ends', 'held']);
    release();
    release();
    await Promise.all([second, idle]);
    expect(events.slice(3).sort()).toEqual(['compaction 2', 'idle']);
  });
});

describe('service.backup', () => {
  it('of the memory store writes a data folder that opens with the same answers', async () => {
    const dir = await tempDir('cms-backup-');
    const service = await createService({ logger: quiet });
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const conversation = await conversationWith(service, said('USER', `garden plan number ${i}`), said('ASSISTANT', `answer ${i}`));
      ids.push(conversation.id);
    }
    const report = await service.backup(path.join(dir, 'backup'));
    const restored = await createService({ dataDir: report.folder, logger: quiet });
    try {
      for (const id of ids) expect(await restored.getConversationJson(id)).toBe(await service.getConversationJson(id));
      expect(JSON.stringify(await restored.listConversations())).toBe(JSON.stringify(await service.listConversations()));
      expect(JSON.stringify(await restored.listMessages())).toBe(JSON.stringify(await service.listMessages()));
      const search = { engines: { iterable: [{ query: 'garden' }] } };
      expect((await service.searchMessages(search)).iterable).toHaveLength(5);
      expect(JSON.stringify(await restored.searchMessages(search))).toBe(JSON.stringify(await service.searchMessages(search)));
    } finally {
      await restored.close();
      await service.close();
    }
  });

  it('without a folder writes into <data>/backups/, one at a time', async () => {
    const dataDir = await tempDir('cms-backup-');
    const service = await createService({ dataDir, logger: quiet });
    try {
      await service.createConversation({ type: 'COPILOT', name: 'kept' });
      const [first, second] = await Promise.allSettled([service.backup(), service.backup()]);
      expect(first.status).toBe('fulfilled');
      expect(second.status === 'rejected' && isServiceError(second.reason) && second.reason.code).toBe('CONFLICT');
      const { folder } = (first as PromiseFulfilledResult<{ folder: string }>).value;
      expect(path.dirname(folder)).toBe(path.join(dataDir, 'backups'));
      expect(await readdir(path.join(dataDir, 'backups'))).toEqual([path.basename(folder)]);
    } finally {
      await service.close();
    }
  });
});

describe('POST /backup', () => {
  it("writes into the data folder's backups/, and is refused to a hostile origin, a wrong host and a missing token", async () => {
    const dataDir = await tempDir('cms-backup-');
    const service = await createService({ dataDir, logger: quiet });
    const router = createHonoRouter(service, { token: 'secret', logger: { error: () => undefined } });
    try {
      await service.createConversation({ type: 'COPILOT', name: 'kept' });
      const ask = (headers: Record<string, string>) =>
        router.request('http://127.0.0.1/backup', { method: 'POST', headers: { Host: '127.0.0.1', ...headers } });
      const refused = [
        await ask({ Authorization: 'Bearer secret', Origin: 'https://evil.example' }),
        await ask({ Authorization: 'Bearer secret', Host: 'evil.example' }),
        await ask({}),
      ];
      expect(refused.map((answer) => answer.status)).toEqual([403, 403, 401]);
      expect(await readdir(dataDir)).not.toContain('backups');

      const answer = await ask({ Authorization: 'Bearer secret', 'Content-Type': 'application/json' });
      expect(answer.status).toBe(200);
      const body = (await answer.json()) as { name: string; folder: string; files: number; bytes: number };
      expect(body.folder).toBe(path.join(dataDir, 'backups', body.name));
      expect(body.files).toBeGreaterThan(0);
      const copy = await createService({ dataDir: body.folder, logger: quiet });
      expect((await copy.listConversations()).iterable.map((c) => c.name)).toEqual(['kept']);
      await copy.close();
    } finally {
      await service.close();
    }
  });
});
