import { describe, expect, it } from 'vitest';
import { expectError, expectJson, expectNoContent, path, routerForTest, stateOf } from '../helpers/http.js';
import { conversationWith, said, seededModel } from '../helpers/service.js';

const idsOf = (list: { iterable: { id: string }[] }) => list.iterable.map((model) => model.id);

describe('GET /models', () => {
  it('answers 200 with the built-in model, not custom', async () => {
    const { http, summarizer } = await routerForTest();
    const body = expectJson(await http.get('/models'));
    expect(body.iterable).toHaveLength(1);
    expect(body.iterable[0]).toMatchObject({ id: summarizer.model.id, custom: false, name: expect.any(String), usage: expect.any(String) });
  });
});

describe('POST /models/create', () => {
  it('answers 200 with a custom model, which GET /models lists', async () => {
    const { http } = await routerForTest();
    const model = expectJson(await http.postJson('/models/create', seededModel()));
    expect(model).toMatchObject({ id: expect.any(String), name: 'My Llama', custom: true, usage: 'CODE_CONVERSATION', loaded: false });
    expect(idsOf(expectJson(await http.get('/models')))).toContain(model.id);
  });

  it('answers 409 naming the existing model for a duplicate, and creates nothing', async () => {
    const { http } = await routerForTest();
    const first = expectJson(await http.postJson('/models/create', seededModel()));
    const before = await stateOf(http);
    const error = expectError(await http.postJson('/models/create', seededModel({ name: 'Same runtime name' })), 409, 'CONFLICT');
    expect(error.existingId).toBe(first.id);
    expect(await stateOf(http)).toEqual(before);
  });
});

describe('POST /models/{model}/delete', () => {
  it('answers 204 and the custom model is no longer listed', async () => {
    const { http } = await routerForTest();
    const model = expectJson(await http.postJson('/models/create', seededModel()));
    expectNoContent(await http.post(path`/models/${model.id}/delete`));
    expect(idsOf(expectJson(await http.get('/models')))).not.toContain(model.id);
  });

  it('answers 403 for the built-in model, which stays', async () => {
    const { http, summarizer } = await routerForTest();
    const before = await stateOf(http);
    const error = expectError(await http.post(path`/models/${summarizer.model.id}/delete`), 403, 'FORBIDDEN');
    expect(error.id).toBe(summarizer.model.id);
    expect(await stateOf(http)).toEqual(before);
  });
});

describe('POST /models/{model}/delete/cache', () => {
  it.each([
    ['an empty JSON body', undefined],
    ['{}', {}],
  ])('with %s answers 200 with the model, keeps it and marks it not downloaded', async (_label, body) => {
    const { http } = await routerForTest();
    const model = expectJson(await http.postJson('/models/create', seededModel({ downloaded: true })));
    expect(expectJson(await http.postJson(path`/models/${model.id}/delete/cache`, body))).toEqual({ model: { id: model.id } });
    const listed = expectJson(await http.get('/models')).iterable.find((m: { id: string }) => m.id === model.id);
    expect(listed).toMatchObject({ id: model.id, downloaded: false });
  });

  it('answers 403 for a model that is not an LLM, and changes nothing', async () => {
    const { http } = await routerForTest();
    const titles = expectJson(
      await http.postJson('/models/create', seededModel({ usage: 'CODE_TITLE', unique: 'titler', name: 'Titler', downloaded: true })),
    );
    const before = await stateOf(http);
    const error = expectError(await http.postJson(path`/models/${titles.id}/delete/cache`), 403, 'FORBIDDEN');
    expect(error.id).toBe(titles.id);
    expect(await stateOf(http)).toEqual(before);
  });
});

describe('POST /models/unload', () => {
  it('answers 204 and leaves no model loaded', async () => {
    const { http, service, summarizer } = await routerForTest();
    const { id } = await conversationWith(service, said('USER', 'Name this chat about retries, please.'));
    expectJson(await http.post(path`/conversation/${id}/rename`)); // loads the built-in model
    const loaded = async () =>
      expectJson(await http.get('/models'))
        .iterable.filter((m: { loaded?: boolean }) => m.loaded)
        .map((m: { id: string }) => m.id);
    expect(await loaded()).toEqual([summarizer.model.id]);

    expectNoContent(await http.post('/models/unload'));
    expect(await loaded()).toEqual([]);
  });
});
