import { mkdir, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { seededModel, serviceForTest } from '../helpers/service.js';
import { tempDir } from '../helpers/temp-dir.js';

describe('models', () => {
  it('lists the built-in summarizer model, not custom', async () => {
    const { service, summarizer } = await serviceForTest();
    const { iterable } = await service.listModels();
    expect(iterable).toHaveLength(1);
    expect(iterable[0]).toMatchObject({ id: summarizer.model.id, custom: false, cloud: false, downloaded: true });
    expect(iterable[0]).toHaveProperty('created.value');
  });

  it('creates a custom model and lists it', async () => {
    const { service } = await serviceForTest();
    const model = await service.createModel(seededModel());
    expect(model).toMatchObject({ name: 'My Llama', custom: true, loaded: false, downloaded: false, usage: 'CODE_CONVERSATION' });
    expect((await service.listModels()).iterable.map((m) => m.id)).toContain(model.id);
  });

  it("refuses a seed carrying a Model's own fields (the id is the service's to give), creating nothing", async () => {
    const { service } = await serviceForTest();
    const before = (await service.listModels()).iterable.length;
    await expect(service.createModel({ ...seededModel(), loaded: true, id: 'chosen-by-caller' } as never)).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      details: { issues: expect.arrayContaining([expect.objectContaining({ path: ['id'], message: 'unknown field' })]) },
    });
    expect((await service.listModels()).iterable).toHaveLength(before);
  });

  it('answers CONFLICT naming the existing model for a duplicate', async () => {
    const { service } = await serviceForTest();
    const first = await service.createModel(seededModel());
    await expect(service.createModel(seededModel({ name: 'Another name' }))).rejects.toMatchObject({
      code: 'CONFLICT',
      details: { existingId: first.id },
    });
    const { unique: _u, ...withoutUnique } = seededModel();
    await expect(service.createModel({ ...withoutUnique, name: '  my llama ' })).rejects.toMatchObject({ code: 'CONFLICT' });
    await expect(service.createModel(seededModel({ unique: 'other', version: '2.0' }))).resolves.toMatchObject({ custom: true });
  });

  it('rejects a missing or invalid SeededModel and creates nothing', async () => {
    const { service } = await serviceForTest();
    await expect(service.createModel(undefined as never)).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await expect(service.createModel(seededModel({ usage: 'TELEPATHY' as never }))).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      details: { issues: [{ path: ['usage'] }] },
    });
    await expect(service.createModel({ name: 'x' } as never)).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    expect((await service.listModels()).iterable).toHaveLength(1);
  });

  it('deletes custom models only', async () => {
    const { service, summarizer } = await serviceForTest();
    const model = await service.createModel(seededModel());
    await service.deleteModel(model.id);
    expect((await service.listModels()).iterable.map((m) => m.id)).not.toContain(model.id);
    await expect(service.deleteModel(model.id)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(service.deleteModel(summarizer.model.id)).rejects.toMatchObject({ code: 'FORBIDDEN' });
    expect((await service.listModels()).iterable).toHaveLength(1);
  });

  it("deletes an LLM's cache folder, keeps the model and marks it not downloaded", async () => {
    const dataDir = await tempDir();
    const { service } = await serviceForTest({ dataDir });
    const model = await service.createModel(seededModel({ downloaded: true }));
    const folder = path.join(dataDir, 'models', encodeURIComponent(model.id));
    await mkdir(path.join(folder, 'weights'), { recursive: true });
    await writeFile(path.join(folder, 'weights', 'model.gguf'), 'weights');
    await mkdir(path.join(dataDir, 'models', 'neighbour'), { recursive: true });

    expect(await service.deleteModelCache(model.id, {})).toEqual({ model: { id: model.id } });
    expect(await readdir(path.join(dataDir, 'models'))).toEqual(['neighbour']);
    expect((await service.listModels()).iterable.find((m) => m.id === model.id)).toMatchObject({ downloaded: false, custom: true });
    await expect(service.deleteModelCache(model.id)).resolves.toEqual({ model: { id: model.id } });
  });

  it('refuses to delete the cache of a model that is not an LLM, or of an unknown model', async () => {
    const { service, summarizer } = await serviceForTest();
    const embedder = await service.createModel(seededModel({ usage: 'TEXT_EMBEDDING', unique: 'embedder' }));
    await expect(service.deleteModelCache(embedder.id)).rejects.toMatchObject({ code: 'FORBIDDEN' });
    await expect(service.deleteModelCache(summarizer.model.id)).rejects.toMatchObject({ code: 'FORBIDDEN' });
    await expect(service.deleteModelCache('ghost')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(service.deleteModelCache(embedder.id, { extra: 'refused' } as never)).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await expect(service.deleteModelCache(embedder.id, 'not an object' as never)).rejects.toMatchObject({ code: 'INVALID_INPUT' });
  });

  it('never deletes outside the cache root, whatever the id says', async () => {
    const dataDir = await tempDir();
    await mkdir(path.join(dataDir, 'keep'), { recursive: true });
    await writeFile(path.join(dataDir, 'keep', 'file'), 'x');
    const { createLocalModelRegistry } = await import('../../src/index.js');
    const { createFakeSummarizer } = await import('../../src/summarizers/index.js');
    const registry = createLocalModelRegistry({ summarizer: createFakeSummarizer(), cacheRoot: path.join(dataDir, 'models') });
    for (const id of ['..', '../keep', '..%2Fkeep', '/', '.', '../../', 'a/../../keep', '%2e%2e']) await registry.deleteCache(id);
    expect(await readdir(path.join(dataDir, 'keep'))).toEqual(['file']);
  });

  it('unloads every loaded model', async () => {
    const { service, summarizer } = await serviceForTest();
    await summarizer.title([{ id: 'm', role: 'USER', text: 'load it' }]);
    expect((await service.listModels()).iterable[0]?.loaded).toBe(true);
    await service.unloadModels();
    expect((await service.listModels()).iterable[0]?.loaded).toBe(false);
  });
});
