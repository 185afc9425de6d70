/**
 * What the PostgreSQL store adds to the Repository contract (test/contracts/postgres.test.ts):
 * strings stored exactly, an append that writes one row, migrations that many instances start
 * together, a schema from a newer release refused, and two instances (two stores, each with its
 * own pool and record cache, as two processes would have) on one database keeping every guarantee
 * one process gives; no backup of its own (pg_dump is said instead).
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, expect, it, onTestFinished } from 'vitest';
import { createHonoRouter } from '../../adapters/hono/index.js';
import { createService, isServiceError, type Repository, type Service } from '../../src/index.js';
import type { ConversationRecord, MessageRecord } from '../../src/records.js';
import { createPostgresRepository, SCHEMA_VERSION } from '../../src/stores/postgres/index.js';
import { createFakeSummarizer } from '../../src/summarizers/index.js';
import { conversationRecord, messageRecord } from '../../src/testing/records.js';
import { describeWithPostgres, freshSchema } from '../helpers/postgres.js';
import { seeds } from '../helpers/service.js';
import { tempDir } from '../helpers/temp-dir.js';
import { storedRelationProblems } from '../security/fuzz-helpers.js';
import { answers, exportTo, populate } from '../transfer/populate.js';

describeWithPostgres('PostgreSQL store', (server) => {
  /** The tests' own connection, to look at the tables as `psql` would. */
  let admin: pg.Pool;
  beforeAll(() => {
    admin = new pg.Pool({ connectionString: server().url, max: 2 });
  });
  afterAll(() => admin?.end());

  /** A store on `schema` (a fresh one by default), closed after the test. */
  const open = async (schema = freshSchema()): Promise<Repository> => {
    const repository = await createPostgresRepository({ connectionString: server().url }, { schema });
    onTestFinished(() => repository.close());
    return repository;
  };

  /** A service over `repository`, closed after the test (which closes the store too). */
  const serviceOn = async (repository: Repository): Promise<Service> => {
    const service = await createService({ repository, summarizer: createFakeSummarizer() });
    onTestFinished(() => service.close());
    return service;
  };

  /** Two instances on one schema: two stores, each with its own pool and cache, each under a service. */
  const twoInstances = async () => {
    const schema = freshSchema();
    const a = await createPostgresRepository({ connectionString: server().url }, { schema });
    const b = await createPostgresRepository({ connectionString: server().url }, { schema });
    return { schema, a: await serviceOn(a), b: await serviceOn(b), repositories: [a, b] as const };
  };

  it('has no backup of its own: service.backup says to use pg_dump (or the JSON export), and writes nothing', async () => {
    const service = await serviceOn(await open());
    await service.createConversation({ type: 'COPILOT', name: 'kept in the database' });
    const folder = path.join(await tempDir('cms-pg-backup-'), 'backup');
    const error = await service.backup(folder).catch((e: unknown) => e);
    expect(isServiceError(error) && error.code).toBe('NOT_SUPPORTED');
    expect((error as Error).message).toMatch(/pg_dump.*export --format json/);
    expect(existsSync(folder)).toBe(false);
  });

  it('stores every string exactly: U+0000, lone surrogates, the escape character, in ids, lists and fields', async () => {
    const schema = freshSchema();
    const writer = await open(schema);
    const odd = [
      'nul\u0000inside',
      '\ud800',
      'x\udc00y',
      '\u0001starts with the escape',
      '\u0001',
      'ünï 🙂',
      'quote " and \\ backslash',
      '',
      '[]',
    ];
    const conversations = odd.map((id, i) => ({
      ...conversationRecord(id, `name ${odd[(i + 1) % odd.length]}`),
      messages: odd.map((other) => `m-${other}`),
      anchors: [...odd],
      application: { nested: odd, [odd[i]!]: odd[i] },
    }));
    const message: MessageRecord = { ...messageRecord('nul\u0000message', odd[0]!), groundedConversations: [...odd] };
    // Not what the service writes, but what a store must keep: a list field that is not a list of ids, and one left out.
    const unusual = {
      ...conversationRecord('unusual'),
      messages: [1, 'two', { three: 3 }],
      anchors: undefined,
    } as unknown as ConversationRecord;
    await writer.transact((tx) => {
      for (const conversation of conversations) tx.put('conversations', conversation);
      tx.put('messages', message);
      tx.put('conversations', unusual);
    });
    // Read by another store: nothing comes from the writer's cache.
    const reader = await open(schema);
    const read = await reader.read(async (view) => ({
      many: await view.getMany('conversations', odd),
      listed: (await view.list('conversations')).records,
      message: await view.get('messages', 'nul\u0000message'),
      unusual: await view.get('conversations', 'unusual'),
    }));
    expect(read.many).toEqual(conversations);
    expect(read.listed).toEqual([...conversations, JSON.parse(JSON.stringify(unusual))]);
    expect(read.message).toEqual(message);
    expect(read.unusual).toEqual(JSON.parse(JSON.stringify(unusual)));
    expect(Object.keys(read.unusual!)).not.toContain('anchors');
    // What psql shows: plain ids as they are, bodies as JSON text (lists as rows).
    const { rows } = await admin.query(`SELECT id, body FROM "${schema}".records WHERE collection = 'conversations' AND id = 'ünï 🙂'`);
    expect(rows).toHaveLength(1);
    expect(JSON.parse(rows[0].body)).toMatchObject({ id: 'ünï 🙂', messages: [] });
  });

  it('appends the 20,000th message to a conversation by writing one list row, and removes one by deleting one', async () => {
    const schema = freshSchema();
    const repository = await open(schema);
    const ids = Array.from({ length: 19_999 }, (_, i) => `m${i}`);
    await repository.transact((tx) => {
      tx.put('conversations', { ...conversationRecord('long'), messages: ids });
      for (const id of ids) tx.put('messages', messageRecord(id, 'long'));
    });
    await countWrites(admin, schema);
    const service = await serviceOn(repository);

    const added = await service.createMessage({ role: 'USER', fragment: { string: { raw: 'one more' } }, conversation: { id: 'long' } });
    // The new message's row and the conversation's body; of the 20,000 ids, the new one alone.
    expect(await writesSince(admin, schema)).toEqual({ list_items: { insert: 1 }, records: { insert: 1, update: 1 } });

    await service.deleteMessage('m10000');
    expect(await writesSince(admin, schema)).toEqual({ list_items: { delete: 1 }, records: { delete: 1, update: 1 } });

    const other = await open(schema);
    const stored = await other.read((view) => view.get('conversations', 'long'));
    expect(stored!.messages).toHaveLength(19_999);
    expect(stored!.messages.at(-1)).toBe(added.id);
    expect(stored!.messages).not.toContain('m10000');
    expect(stored!.messages.slice(0, 3)).toEqual(['m0', 'm1', 'm2']);
  });

  it('runs the migrations once when four stores open the same empty schema together', async () => {
    const schema = freshSchema();
    const stores = await Promise.all(Array.from({ length: 4 }, () => open(schema)));
    const { rows } = await admin.query(
      `SELECT version, count(*)::int AS runs FROM "${schema}".migrations GROUP BY version ORDER BY version`,
    );
    expect(rows).toEqual(Array.from({ length: SCHEMA_VERSION }, (_, i) => ({ version: i + 1, runs: 1 })));
    // And each of them works.
    await Promise.all(stores.map((store, i) => store.transact((tx) => tx.put('conversations', conversationRecord(`c${i}`)))));
    expect(await stores[0]!.read((view) => view.count('conversations'))).toBe(4);
  });

  it('refuses a schema a newer release migrated, with STORE_TOO_NEW, and changes nothing in it', async () => {
    const schema = freshSchema();
    const first = await open(schema);
    await first.transact((tx) => tx.put('conversations', conversationRecord('kept')));
    await admin.query(`INSERT INTO "${schema}".migrations (version, name) VALUES ($1, 'from the future')`, [SCHEMA_VERSION + 1]);
    const before = await admin.query(`SELECT * FROM "${schema}".records`);
    await expect(createPostgresRepository({ connectionString: server().url }, { schema })).rejects.toMatchObject({
      code: 'STORE_TOO_NEW',
      message: expect.stringContaining(`migration ${SCHEMA_VERSION + 1}, newer than this release knows (${SCHEMA_VERSION})`),
    });
    expect((await admin.query(`SELECT * FROM "${schema}".records`)).rows).toEqual(before.rows);
    expect((await admin.query(`SELECT count(*)::int AS n FROM "${schema}".migrations`)).rows[0].n).toBe(SCHEMA_VERSION + 1);
  });

  it('adds up 400 concurrent increments of one conversation split across two instances, none failing', async () => {
    const { a, b } = await twoInstances();
    const { id } = await a.createConversation({ type: 'COPILOT', name: 'Counted' });
    const outcomes = await Promise.allSettled(
      Array.from({ length: 400 }, (_, i) => (i % 2 === 0 ? a : b).incrementConversationScores(id, { conversation: { reuse: true } })),
    );
    expect(outcomes.filter((outcome) => outcome.status === 'rejected')).toEqual([]);
    expect((await b.getConversation(id)).score).toMatchObject({ reuse: 400 });
    expect((await a.getConversation(id)).score).toMatchObject({ reuse: 400 });
  });

  it('leaves no dangling id after concurrent associate, disassociate and delete from two instances', async () => {
    const { a, b, repositories } = await twoInstances();
    const conversations = await Promise.all([0, 1, 2].map((i) => a.createConversation({ type: 'COPILOT', name: `c${i}` })));
    const anchors = await Promise.all([0, 1, 2, 3, 4, 5].map((i) => b.createAnchor({ ...seeds.anchor, fullpath: `/src/${i}.ts` })));
    const websites = await Promise.all([0, 1, 2].map((i) => a.createWebsite({ ...seeds.website, url: `https://example.com/${i}` })));
    const operations: (() => Promise<unknown>)[] = [];
    for (let round = 0; round < 6; round++) {
      for (const [i, conversation] of conversations.entries()) {
        for (const [j, anchor] of anchors.entries()) {
          const service = (i + j + round) % 2 === 0 ? a : b;
          operations.push(() =>
            round % 2 === 0 ? service.associateAnchor(conversation.id, anchor.id) : service.disassociateAnchor(conversation.id, anchor.id),
          );
        }
        for (const website of websites) operations.push(() => (round % 2 === 0 ? b : a).associateWebsite(conversation.id, website.id));
      }
    }
    // Deleted while they are being linked and unlinked, from both sides.
    operations.splice(20, 0, () => a.deleteAnchor(anchors[0]!.id));
    operations.splice(60, 0, () => b.deleteAnchor(anchors[1]!.id));
    operations.splice(90, 0, () => b.deleteConversation(conversations[0]!.id));
    operations.splice(130, 0, () => a.deleteWebsite(websites[0]!.id));
    const outcomes = await Promise.allSettled(operations.map((operation) => operation()));
    // A link to what is gone is refused as NOT_FOUND; nothing else may fail.
    const failures = outcomes.flatMap((outcome) => (outcome.status === 'rejected' ? [outcome.reason as { code?: string }] : []));
    expect(failures.filter((error) => error.code !== 'NOT_FOUND')).toEqual([]);
    expect(await storedRelationProblems(repositories[0])).toEqual([]);
    expect(await storedRelationProblems(repositories[1])).toEqual([]);
    expect((await b.listAnchors()).iterable).toHaveLength(4);
  });

  it('answers, through one instance, what another acknowledged a moment before: no stale read from the record cache', async () => {
    const { a, b, repositories } = await twoInstances();
    // Its feed is not local: the answer cache checks stamps at each hit instead of following it.
    expect(repositories[0].changes?.local).toBeUndefined();
    const pageOf = async (service: typeof a) => {
      const { text } = await service.listConversationMessagesJsonPieces(id, { limit: 100 });
      return JSON.parse(Buffer.from(text as string | Uint8Array).toString()).iterable.length;
    };
    const { id } = await a.createConversation({ type: 'COPILOT', name: 'Start' });
    for (let i = 0; i < 10; i++) {
      // Both caches hold the conversation as it is before each write.
      expect((await b.getConversation(id)).name).toBe(i === 0 ? 'Start' : `Name ${i - 1}`);
      expect((await a.getConversation(id)).name).toBe(i === 0 ? 'Start' : `Name ${i - 1}`);
      await (i % 2 === 0 ? a : b).updateConversation({ id, name: `Name ${i}` });
      const reader = i % 2 === 0 ? b : a;
      expect((await reader.getConversation(id)).name).toBe(`Name ${i}`);
      expect(JSON.parse(await reader.getConversationJson(id)).name).toBe(`Name ${i}`);
      // A message appended through one is in the other's next answer.
      await (i % 2 === 0 ? a : b).createMessage({ role: 'USER', fragment: { string: { raw: `message ${i}` } }, conversation: { id } });
      expect(Object.keys((await reader.getConversation(id)).messages?.indices ?? {})).toHaveLength(i + 1);
      // A page of its messages (cached by both at the last turn) too.
      expect(await pageOf(reader)).toBe(i + 1);
      expect(await pageOf(i % 2 === 0 ? a : b)).toBe(i + 1);
    }
  });

  it('loses neither a rename nor a summary written while another instance updates the conversation', async () => {
    const schema = freshSchema();
    // The summarizer of A answers only once both of its calls are under way and B has written.
    let release!: () => void;
    const written = new Promise<void>((resolve) => (release = resolve));
    let calls = 0;
    let bothCalled!: () => void;
    const called = new Promise<void>((resolve) => (bothCalled = resolve));
    const slow = (answer: string) => async () => {
      if (++calls === 2) bothCalled();
      await written;
      return answer;
    };
    const a = await createService({
      repository: await createPostgresRepository({ connectionString: server().url }, { schema }),
      summarizer: createFakeSummarizer({ title: slow('Title by the summarizer'), summary: slow('Summary by the summarizer.') }),
    });
    onTestFinished(() => a.close());
    const b = await serviceOn(await createPostgresRepository({ connectionString: server().url }, { schema }));
    const { id } = await a.createConversation({ type: 'COPILOT', name: 'Before' });
    await a.createMessage({ role: 'USER', fragment: { string: { raw: 'why does my build fail' } }, conversation: { id } });
    const renaming = a.renameConversation(id);
    const summarizing = a.summarizeConversation(id);
    await called;
    await b.updateConversation({ id, favorited: true, pipeline: { set: 'by B' } });
    const appended = await b.createMessage({ role: 'ASSISTANT', fragment: { string: { raw: 'a missing import' } }, conversation: { id } });
    await b.incrementConversationScores(id, { conversation: { reuse: true } });
    release();
    const [, { annotation }] = await Promise.all([renaming, summarizing]);
    for (const reader of [a, b]) {
      const conversation = await reader.getConversation(id);
      expect(conversation).toMatchObject({ name: 'Title by the summarizer', favorited: true, pipeline: { set: 'by B' } });
      expect(conversation.score).toMatchObject({ reuse: 1 });
      expect(Object.keys(conversation.messages?.indices ?? {})).toHaveLength(2);
      expect(Object.keys(conversation.messages?.indices ?? {})).toContain(appended.id);
      // Linked both ways: the conversation names the summary, and the summary its conversation.
      expect(conversation.annotations?.iterable.map((item) => item.reference)).toEqual([
        expect.objectContaining({ id: annotation.id, text: 'Summary by the summarizer.', conversation: { id } }),
      ]);
    }
  });

  it('fails a statement stuck behind a lock after the statement timeout with STORE_UNAVAILABLE, and the store goes on', async () => {
    const schema = freshSchema();
    const writer = await open(schema);
    await writer.transact((tx) => tx.put('conversations', conversationRecord('held')));
    const stuck = await createPostgresRepository({ connectionString: `${server().url}?statement_timeout=300` }, { schema });
    onTestFinished(() => stuck.close());
    const holder = await admin.connect();
    try {
      await holder.query('BEGIN');
      await holder.query(`SELECT * FROM "${schema}".records WHERE id = 'held' FOR UPDATE`);
      const started = Date.now();
      // 503 over HTTP, not a bug's 500: the database's error is its cause.
      await expect(stuck.transact(async (tx) => tx.get('conversations', 'held'))).rejects.toMatchObject({
        code: 'STORE_UNAVAILABLE',
        message: expect.stringContaining('statement timeout'),
        cause: expect.objectContaining({ code: '57014' }),
      });
      expect(Date.now() - started).toBeLessThan(5_000);
      // Over HTTP, a write stuck the same way answers 503 with the code, and changes nothing.
      const router = createHonoRouter(await serviceOn(stuck), { logger: { error: () => undefined } });
      const answer = await router.request('/conversation/held/scores/increment', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ conversation: { reuse: true } }),
      });
      expect(answer.status).toBe(503);
      expect(await answer.json()).toMatchObject({ error: { code: 'STORE_UNAVAILABLE' } });
    } finally {
      await holder.query('ROLLBACK');
      holder.release();
    }
    expect(await stuck.transact(async (tx) => (await tx.get('conversations', 'held'))?.id)).toBe('held');
    expect((await writer.read((view) => view.get('conversations', 'held')))?.score).toEqual(conversationRecord('held').score);
  });

  it('runs a transaction again when PostgreSQL gives it up in a deadlock, so both writers succeed', async () => {
    const schema = freshSchema();
    const [one, two] = [await open(schema), await open(schema)];
    await one.transact((tx) => {
      tx.put('conversations', conversationRecord('x'));
      tx.put('conversations', conversationRecord('y'));
    });
    // Each locks one record, waits for the other to have locked its own, then reads the other's.
    let runs = 0;
    let locked = 0;
    let bothLocked!: () => void;
    const barrier = new Promise<void>((resolve) => (bothLocked = resolve));
    const crossing = (repository: Repository, first: string, second: string) =>
      repository.transact(async (tx) => {
        runs++;
        const mine = await tx.get('conversations', first);
        if (++locked === 2) bothLocked();
        await barrier;
        const theirs = await tx.get('conversations', second);
        tx.put('conversations', { ...mine!, name: `${mine!.name} by ${first}` });
        tx.put('conversations', { ...theirs!, name: `${theirs!.name} by ${first}` });
      });
    await Promise.all([crossing(one, 'x', 'y'), crossing(two, 'y', 'x')]);
    // One of them ran twice: its first run was the deadlock's victim.
    expect(runs).toBe(3);
    const names = await one.read(async (view) => [
      (await view.get('conversations', 'x'))!.name,
      (await view.get('conversations', 'y'))!.name,
    ]);
    for (const name of names) expect(name).toMatch(/^Conversation [xy] by [xy] by [xy]$/);
  });
  it('imports a JSON export of the JSON-file store: every conversation answers the same bytes; a second import writes nothing; a conflict writes nothing', async () => {
    const folder = await tempDir();
    const from = await createService({ dataDir: folder, summarizer: createFakeSummarizer() });
    onTestFinished(() => from.close());
    const ids = await populate(from, 3);
    const file = path.join(folder, 'export.json');
    await exportTo(from, file);
    const to = await serviceOn(await open());
    expect((await to.importConversations(file)).conversations).toEqual({ written: 3, unchanged: 0 });
    expect(await answers(to)).toEqual(await answers(from));
    expect([...(await answers(to)).keys()]).toEqual(ids);
    const again = await to.importConversations(file);
    expect(Object.values(again.collections).every((counts) => counts!.written === 0)).toBe(true);
    // Renamed here: the file's version of it is now a conflict, and nothing of the file is written.
    await to.updateConversation({ id: ids[1]!, name: 'Renamed' } as never);
    await to.deleteConversation(ids[2]!);
    const before = await answers(to);
    await expect(to.importConversations(file)).rejects.toMatchObject({ code: 'CONFLICT', details: { id: ids[1] } });
    expect(await answers(to)).toEqual(before);
  });
});

/** Counts every row written to the schema's tables from now on, by table and kind (a trigger per table). */
async function countWrites(admin: pg.Pool, schema: string): Promise<void> {
  await admin.query(`
    CREATE TABLE "${schema}".written (tab text, op text);
    CREATE FUNCTION "${schema}".count_write() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN INSERT INTO "${schema}".written VALUES (TG_TABLE_NAME, lower(TG_OP)); RETURN NULL; END $$;
    CREATE TRIGGER counted AFTER INSERT OR UPDATE OR DELETE ON "${schema}".records FOR EACH ROW EXECUTE FUNCTION "${schema}".count_write();
    CREATE TRIGGER counted AFTER INSERT OR UPDATE OR DELETE ON "${schema}".list_items FOR EACH ROW EXECUTE FUNCTION "${schema}".count_write();
  `);
}

/** The rows written since the last call, by table and kind; forgets them. */
async function writesSince(admin: pg.Pool, schema: string): Promise<Record<string, Record<string, number>>> {
  const { rows } = await admin.query(`DELETE FROM "${schema}".written RETURNING tab, op`);
  const counts: Record<string, Record<string, number>> = {};
  for (const { tab, op } of rows as { tab: string; op: string }[]) {
    counts[tab] ??= {};
    counts[tab][op] = (counts[tab][op] ?? 0) + 1;
  }
  return counts;
}
