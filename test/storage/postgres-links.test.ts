/**
 * The link table (src/links.ts) on the PostgreSQL store: every link associated and disassociated
 * through the service, both sides checked as a second store instance on the same database reads
 * them (its lists are rows of `list_items`, derived from the table with no migration of their own),
 * and each kind of record deleted while linked to every kind it can be, leaving no id naming it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createService, type Repository, type Service } from '../../src/index.js';
import type { LinkableName } from '../../src/links.js';
import { createPostgresRepository } from '../../src/stores/postgres/index.js';
import { createFakeSummarizer } from '../../src/summarizers/index.js';
import { createOf, danglingIds, deleteOf, idsAt, LINKABLE, LINKED_KINDS } from '../helpers/links.js';
import { describeWithPostgres, freshSchema } from '../helpers/postgres.js';
import { steppingClock } from '../helpers/service.js';

describeWithPostgres('links on PostgreSQL', (server) => {
  let service: Service;
  let other: Repository;

  beforeAll(async () => {
    const schema = freshSchema('links');
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
