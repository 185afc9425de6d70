import { afterEach, describe, expect, it, vi } from 'vitest';
import { createHonoRouter } from '../../adapters/hono/index.js';
import { RECORD_ROUTES } from '../../adapters/hono/routes.js';
import type { Service } from '../../src/index.js';
import {
  type Answer,
  expectError,
  expectJson,
  expectNoContent,
  type HttpClient,
  httpClient,
  path,
  routerForTest,
  stateOf,
} from '../helpers/http.js';
import { conversationWith, said, seededModel, serviceForTest } from '../helpers/service.js';

/** Every route that names a record by id (link routes: see links.test.ts), and the status of an unknown id. */
const ID_ROUTES: { name: string; send(http: HttpClient, id: string): Promise<Answer>; status: number }[] = [
  // The spec declares 410 for an unknown conversation on this route alone.
  { name: 'GET /conversation/{c}', send: (http, id) => http.get(path`/conversation/${id}`), status: 410 },
  { name: 'GET /conversation/{c}/messages', send: (http, id) => http.get(path`/conversation/${id}/messages`), status: 404 },
  { name: 'POST /conversation/{c}/rename', send: (http, id) => http.post(path`/conversation/${id}/rename`), status: 404 },
  { name: 'POST /conversation/{c}/summarize', send: (http, id) => http.postJson(path`/conversation/${id}/summarize`), status: 404 },
  {
    name: 'POST /conversation/{c}/scores/increment',
    send: (http, id) => http.postJson(path`/conversation/${id}/scores/increment`, { conversation: { reuse: true } }),
    status: 404,
  },
  { name: 'POST /conversation/update', send: (http, id) => http.postJson('/conversation/update', { id, name: 'x' }), status: 404 },
  { name: 'POST /conversations/{c}/delete', send: (http, id) => http.post(path`/conversations/${id}/delete`), status: 404 },
  { name: 'POST /messages/{m}/delete', send: (http, id) => http.post(path`/messages/${id}/delete`), status: 404 },
  ...Object.values(RECORD_ROUTES).map((route) => ({
    name: `POST /${route.path}/{id}/delete`,
    send: (http: HttpClient, id: string) => http.post(`/${route.path}${path`/${id}/delete`}`),
    status: 404,
  })),
  { name: 'POST /models/{m}/delete', send: (http, id) => http.post(path`/models/${id}/delete`), status: 404 },
  { name: 'POST /models/{m}/delete/cache', send: (http, id) => http.postJson(path`/models/${id}/delete/cache`), status: 404 },
];

/** A router over a service holding one of most things, so that "unknown" is not "empty". */
async function populated() {
  const context = await routerForTest();
  await conversationWith(context.service, said('USER', 'hello'), said('ASSISTANT', 'hi'));
  await context.service.createModel(seededModel());
  return context;
}

describe.each(ID_ROUTES)('$name with an unknown id', ({ send, status }) => {
  it(`answers ${status} NOT_FOUND naming the id, and changes nothing`, async () => {
    const { http } = await populated();
    const before = await stateOf(http);
    const error = expectError(await send(http, 'ghost'), status, 'NOT_FOUND');
    expect(error.id).toBe('ghost');
    expect(await stateOf(http)).toEqual(before);
  });

  it('receives the id decoded (a%2Fb%20c is "a/b c")', async () => {
    const { http } = await populated();
    const error = expectError(await send(http, 'a/b c'), status, 'NOT_FOUND');
    expect(error.id).toBe('a/b c');
  });
});

describe('ids with encoded characters', () => {
  it('reach the service decoded, so a record whose id has them is found', async () => {
    const ids = ['conv/with slash', 'mm%20literal'];
    let next = 0;
    const { http } = await routerForTest({ service: { generateId: () => ids[next++] ?? `id-${next}` } });
    const created = expectJson(await http.postJson('/conversations/create', { type: 'COPILOT', messages: [said('USER', 'hi')] }));
    expect(created.id).toBe('conv/with slash');
    const messageId = created.messages.iterable[0].id;
    expect(messageId).toBe('mm%20literal');

    expect(expectJson(await http.get(path`/conversation/${created.id}`)).id).toBe(created.id);
    expect(expectJson(await http.get(path`/conversation/${created.id}/messages`)).iterable[0].id).toBe(messageId);
    expectNoContent(await http.post(path`/messages/${messageId}/delete`));
    expect(expectJson(await http.get(path`/conversation/${created.id}/messages`)).iterable).toEqual([]);
  });
});

describe('request body limit', () => {
  const message = (conversation: string, text: string) => ({ ...said('USER', text), conversation: { id: conversation } });

  it.each([
    ['with a Content-Length header', true],
    ['streamed, without Content-Length', false],
  ])('answers 413 PAYLOAD_TOO_LARGE to a body over maxBodyBytes (%s), storing nothing', async (_label, withLength) => {
    const { http, service } = await routerForTest({ router: { maxBodyBytes: 1024 } });
    const conversation = await conversationWith(service);
    const before = await stateOf(http);
    const body = JSON.stringify(message(conversation.id, 'x'.repeat(2048)));
    const headers: Record<string, string> = withLength ? { 'content-length': String(Buffer.byteLength(body)) } : {};
    expectError(await http.postText('/messages/create', body, headers), 413, 'PAYLOAD_TOO_LARGE');
    expect(await stateOf(http)).toEqual(before);
    // A body under the limit still passes.
    expectJson(await http.postJson('/messages/create', message(conversation.id, 'short')));
  });

  it('accepts a 200 KB body by default', async () => {
    const { http, service } = await routerForTest();
    const conversation = await conversationWith(service);
    const text = 'long line of text. '.repeat(11_000);
    expect(Buffer.byteLength(text)).toBeGreaterThan(200_000);
    const created = expectJson(await http.postJson('/messages/create', message(conversation.id, text)));
    const messages = expectJson(await http.get(path`/conversation/${conversation.id}/messages`));
    expect(messages.iterable.map((m: { id: string }) => m.id)).toEqual([created.id]);
    expect(messages.iterable[0].fragment.string.raw).toBe(text);
  });
});

describe('unknown routes', () => {
  it.each([
    ['GET', '/nowhere'],
    ['GET', '/conversation/c1/nothing-here'],
    ['POST', '/conversation/c1/anchors/attach/a1'],
    ['GET', '/models/create'],
  ])('%s %s answers 404 with a JSON error', async (method, url) => {
    const { router } = await routerForTest();
    const answer = await router.request(url, { method });
    expect(answer.status).toBe(404);
    expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await answer.json()).toMatchObject({ error: { code: 'NOT_FOUND', message: expect.any(String) } });
  });
});

describe('faults', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  const SECRET = 'ENOSPC writing /var/lib/secret-store/db.json';
  const fault = () => {
    throw new Error(SECRET);
  };

  /** Routes whose service method is replaced with one that fails like a bug would. */
  const FAULTS: {
    method: keyof Service;
    also?: (keyof Service)[];
    send(http: HttpClient, ids: { conversation: string }): Promise<Answer>;
  }[] = [
    // The route may read through either form of the same read.
    {
      method: 'getConversation',
      also: ['getConversationJson', 'getConversationJsonPieces'],
      send: (http, { conversation }) => http.get(path`/conversation/${conversation}`),
    },
    { method: 'summarizeConversation', send: (http, { conversation }) => http.postJson(path`/conversation/${conversation}/summarize`) },
    { method: 'associate', send: (http, { conversation }) => http.post(path`/conversation/${conversation}/websites/associate/w1`) },
    { method: 'createModel', send: (http) => http.postJson('/models/create', seededModel()) },
    { method: 'listModels', send: (http) => http.get('/models') },
  ];

  it.each(FAULTS)(
    'a plain Error thrown by $method answers 500 INTERNAL without leaking its message',
    async ({ method, also = [], send }) => {
      const { service } = await serviceForTest();
      const conversation = await conversationWith(service, said('USER', 'hello'));
      const broken = { ...service, ...Object.fromEntries([method, ...also].map((name) => [name, fault])) } as Service;
      const logged = vi.spyOn(console, 'error').mockImplementation(() => {});
      const answer = await send(httpClient(createHonoRouter(broken)), { conversation: conversation.id });
      expectError(answer, 500, 'INTERNAL');
      expect(answer.text).not.toContain('ENOSPC');
      expect(answer.text).not.toContain('secret-store');
      expect(logged).toHaveBeenCalled();
    },
  );

  it('service errors are not faults: a rejected request is answered with its own status, not 500', async () => {
    const { http } = await routerForTest();
    const logged = vi.spyOn(console, 'error').mockImplementation(() => {});
    expectError(await http.postJson('/models/create', { name: 'incomplete' }), 400, 'INVALID_INPUT');
    expectError(await http.get('/conversation/ghost/messages'), 404, 'NOT_FOUND');
    expect(logged).not.toHaveBeenCalled();
  });
});
