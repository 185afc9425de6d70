import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  COLLECTION_NAMES,
  copyRepository,
  createJsonFileRepository,
  createMemoryRepository,
  createService,
  type Repository,
  type Service,
} from '../../src/index.js';
import { createFakeSummarizer } from '../../src/summarizers/index.js';
import { said, seededModel, seeds, steppingClock } from '../helpers/service.js';
import { tempDir } from '../helpers/temp-dir.js';

const serviceOver = (repository: Repository) => createService({ repository, summarizer: createFakeSummarizer(), clock: steppingClock() });

/** A store with one of everything: conversations with messages, a summary, a link of every kind, a custom model. */
async function filledStore(): Promise<{ repository: Repository; service: Service; conversations: string[] }> {
  const repository = createMemoryRepository();
  const service = await serviceOver(repository);
  const first = await service.createConversation({
    type: 'COPILOT',
    name: 'Retries',
    messages: [said('USER', 'How do I retry?'), said('ASSISTANT', 'With backoff.')],
  });
  const second = await service.createConversation({ type: 'COPILOT', messages: [said('USER', 'Nul \u0000 and emoji 🦀 survive')] });
  await service.summarizeConversation(first.id);
  await service.associate('anchor', first.id, (await service.createAnchor(seeds.anchor)).id);
  await service.associate('asset', first.id, (await service.createAsset(seeds.asset)).id);
  await service.associate('website', second.id, (await service.createWebsite(seeds.website)).id);
  await service.associate('workstreamSummary', first.id, (await service.createWorkstreamSummary(seeds.workstreamSummary)).id);
  await service.associate('groundingRange', first.id, (await service.createRange(seeds.range)).id);
  await service.associate('groundingMessage', second.id, Object.keys(first.messages!.indices)[0]!);
  await service.incrementConversationScores(first.id, { conversation: { reuse: true } });
  await service.createModel(seededModel());
  return { repository, service, conversations: [first.id, second.id] };
}

/** What a reader of `service` sees: every conversation's JSON answer, and every list. */
async function answers(service: Service, conversations: readonly string[]) {
  return {
    conversations: await Promise.all(conversations.map((id) => service.getConversationJson(id))),
    lists: await Promise.all([
      service.listConversations(),
      service.listAnchors(),
      service.listAssets(),
      service.listWebsites(),
      service.listRanges(),
      service.listWorkstreamSummaries(),
      service.listAnnotations(),
    ]),
    models: (await service.listModels()).iterable.filter((model) => model.custom),
  };
}

describe('copyRepository', () => {
  it('moves every record and link into a JSON-file store, where every answer is the same', async () => {
    const source = await filledStore();
    const folder = await tempDir();
    const target = await createJsonFileRepository({ file: path.join(folder, 'db.json') });
    const report = await copyRepository(source.repository, target);
    expect(report.conversations).toEqual({ written: 2, unchanged: 0 });
    expect(report.messages.written).toBe(3);
    await target.close();

    // Reopened from disk: nothing lives only in memory.
    const reopened = await createJsonFileRepository({ file: path.join(folder, 'db.json') });
    const copy = await serviceOver(reopened);
    expect(await answers(copy, source.conversations)).toEqual(await answers(source.service, source.conversations));
    await copy.close();
  });

  it('writes nothing the second time, and replaces only what differs', async () => {
    const source = await filledStore();
    const target = createMemoryRepository();
    await copyRepository(source.repository, target);
    const again = await copyRepository(source.repository, target);
    for (const collection of COLLECTION_NAMES) expect(again[collection].written, collection).toBe(0);
    expect(again.conversations.unchanged).toBe(2);

    await source.service.updateConversation({ id: source.conversations[1]!, name: 'Renamed at the source' } as never);
    const third = await copyRepository(source.repository, target);
    expect(third.conversations).toEqual({ written: 1, unchanged: 1 });
    const copy = await serviceOver(target);
    expect((await copy.getConversation(source.conversations[1]!)).name).toBe('Renamed at the source');
  });

  it('keeps records only the target holds, and pages through a large store in batches', async () => {
    const source = createMemoryRepository();
    const from = await serviceOver(source);
    for (let i = 0; i < 25; i++) await from.createConversation({ type: 'COPILOT', name: `c${i}` });
    const target = createMemoryRepository();
    const mine = await (await serviceOver(target)).createConversation({ type: 'COPILOT', name: 'only in the target' });
    const seen: number[] = [];
    await copyRepository(source, target, {
      batch: 10,
      onProgress: ({ collection, seen: n }) => collection === 'conversations' && seen.push(n),
    });
    expect(seen).toEqual([10, 20, 25]);
    const names = (await (await serviceOver(target)).listConversations()).iterable.map((c) => c.name);
    expect(names).toEqual(['only in the target', ...Array.from({ length: 25 }, (_, i) => `c${i}`)]);
    expect(names).toContain(mine.name);
  });

  it('refuses a batch size that is not a positive integer', async () => {
    await expect(copyRepository(createMemoryRepository(), createMemoryRepository(), { batch: 0 })).rejects.toThrow(RangeError);
  });
});
