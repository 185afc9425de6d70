/**
 * The link table (src/links.ts) on the PostgreSQL store: every link associated and disassociated
 * through the service, both sides checked as a second store instance on the same database reads
 * them (its lists are rows of `list_items`, derived from the table with no migration of their own),
 * and each kind of record deleted while linked to every kind it can be, leaving no id naming it.
 * The trash on the same server: a linked conversation deleted and restored (links, answers and the
 * database's search follow), and two instances purging the expired trash at once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createService, type Repository, type Service } from '../../src/index.js';
import type { LinkableName } from '../../src/links.js';
import { createPostgresRepository } from '../../src/stores/postgres/index.js';
import { createFakeSummarizer } from '../../src/summarizers/index.js';
import { sampleRecord } from '../../src/testing/records.js';
import { createOf, danglingIds, deleteOf, idsAt, LINKABLE, LINKED_KINDS } from '../helpers/links.js';
import { describeWithPostgres, freshSchema } from '../helpers/postgres.js';
import { steppingClock } from '../helpers/service.js';
import { DAY, linkedConversation, movableClock, START } from '../helpers/trash.js';

describeWithPostgres('links on PostgreSQL', (server) => {
  let service: Service;
  let other: Repository;
  const schema = freshSchema('links');

  beforeAll(async () => {
    const repository = await createPostgresRepository({ connectionString: server().url }, { schema });
    service = await createService({ repository, summarizer: createFakeSummarizer(), clock: steppingClock() });
    // A second instance: what it reads was stored, not kept in the first one's memory.
    other = await createPostgresRepository({ connectionString: server().url }, { schema });
  });
  afterAll(async () => {
    await service?.close();
    await other?.close();
  });

  it.each(LINKABLE.filter(([, link]) => !link.coverage))('%s: both sides after associate and after disassociate', async (name, link) => {
    const a = await createOf(service, link.a.collection);
    const b = await createOf(service, link.b.collection);
    await service.associate(name as LinkableName, a, b);
    expect(await idsAt(other, link.a, a)).toContain(b);
    expect(await idsAt(other, link.b, b)).toContain(a);
    await service.disassociate(name as LinkableName, a, b);
    expect(await idsAt(other, link.a, a)).not.toContain(b);
    expect(await idsAt(other, link.b, b)).not.toContain(a);
  });

  it('messageAnnotations: the annotation covers the message, then no longer', async () => {
    const message = await createOf(service, 'messages');
    const annotation = await createOf(service, 'annotations');
    await service.associate('messageAnnotations', message, annotation);
    expect(await idsAt(other, { collection: 'annotations', field: 'messages', many: true }, annotation)).toEqual([message]);
    await service.disassociate('messageAnnotations', message, annotation);
    expect(await idsAt(other, { collection: 'annotations', field: 'messages', many: true }, annotation)).toEqual([]);
  });

  describe('the trash', () => {
    it('keeps a deleted conversation out of every answer and of search, and restores the same answer, links and search included', async () => {
      const time = movableClock();
      const trashing = await createService({
        repository: await createPostgresRepository({ connectionString: server().url }, { schema }),
        summarizer: createFakeSummarizer(),
        clock: time.clock,
      });
      try {
        const linked = await linkedConversation(trashing);
        const before = await trashing.getConversationJson(linked.id);
        const messagesBefore = await trashing.listConversationMessagesJsonPieces(linked.id);
        const search = { engines: { iterable: [{ query: 'tomatoes' }] } };
        const found = async () => (await trashing.searchConversations(search)).iterable.map((hit) => hit.identifier);
        expect(await found()).toEqual([linked.id]);

        await trashing.deleteConversation(linked.id);
        await expect(trashing.getConversation(linked.id)).rejects.toMatchObject({ code: 'NOT_FOUND' });
        expect((await trashing.listConversationIdentifiers()).iterable.map((c) => c.id)).not.toContain(linked.id);
        expect(await found()).toEqual([]);
        expect(await danglingIds(other)).toEqual([]);
        // The second instance sees it in the trash: stored, not in the first one's memory.
        expect(await other.read((view) => view.get('trash', linked.id))).toMatchObject({ id: linked.id, messages: [{}, {}] });

        await trashing.restoreConversation(linked.id);
        expect(await trashing.getConversationJson(linked.id)).toBe(before);
        expect(await trashing.listConversationMessagesJsonPieces(linked.id)).toEqual(messagesBefore);
        expect(await found()).toEqual([linked.id]);
        expect(await danglingIds(other)).toEqual([]);
        expect(await other.read((view) => view.get('trash', linked.id))).toBeUndefined();
      } finally {
        await trashing.close();
      }
    });

    it('two instances purging the expired trash at once remove each entry once and touch nothing else', async () => {
      const purgeSchema = freshSchema('trash_purge');
      let now = START;
      const clock = () => new Date((now += 1000));
      const stores: Repository[] = [];
      const open = async () => {
        const repository = await createPostgresRepository({ connectionString: server().url }, { schema: purgeSchema });
        stores.push(repository);
        return createService({
          repository,
          summarizer: createFakeSummarizer(),
          clock,
          trash: { keepDays: 1, purgeIntervalMs: 2 ** 31 - 1 },
        });
      };
      const [a, b] = [await open(), await open()];
      try {
        const kept = await a.createConversation({ type: 'COPILOT', name: 'Kept' });
        // Forty entries deleted a day ago, written at once (more than one batch of the purge).
        const expired = { value: new Date(now).toISOString() };
        await stores[0]!.transact((tx) => {
          for (let i = 0; i < 40; i++) tx.put('trash', { ...sampleRecord('trash', `old-${i}`), expires: expired });
        });
        now += 2 * DAY;
        const recent = await a.createConversation({ type: 'COPILOT' });
        await a.deleteConversation(recent.id);
        const [fromA, fromB] = await Promise.all([a.purgeExpiredTrash(), b.purgeExpiredTrash()]);
        expect(fromA.removed + fromB.removed).toBe(40);
        expect((await b.listTrash()).iterable.map((entry) => entry.id)).toEqual([recent.id]);
        expect((await b.listConversations()).iterable.map((c) => c.id)).toEqual([kept.id]);
        expect(await b.emptyTrash()).toEqual({ removed: 1 });
      } finally {
        await a.close();
        await b.close();
      }
    });
  });

  describe('deleting a record of each kind leaves no id naming it', () => {
    it.each(LINKED_KINDS)('%s', async (collection) => {
      const id = await createOf(service, collection);
      for (const [name, link] of LINKABLE) {
        if (link.coverage) continue;
        for (const side of ['a', 'b'] as const) {
          if (link[side].collection !== collection) continue;
          const linked = await createOf(service, link[side === 'a' ? 'b' : 'a'].collection);
          await service.associate(name as LinkableName, side === 'a' ? id : linked, side === 'a' ? linked : id);
        }
      }
      await deleteOf(service, collection, id);
      expect(await danglingIds(other)).toEqual([]);
    });
  });
});
