import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { afterEach, describe, expect, it } from 'vitest';
import { createHonoRouter, type HonoRouterOptions } from '../../adapters/hono/index.js';
import { answerOf, expectError, expectJson, expectNoContent, httpClient, path } from '../helpers/http.js';
import { conversationWith, said, seededModel, serviceForTest } from '../helpers/service.js';

/** The router mounted at /api in the host's own Hono app, which has routes of its own. */
async function mountedAtApi(options?: HonoRouterOptions) {
  const { service, summarizer } = await serviceForTest();
  const host = new Hono();
  host.get('/health', (c) => c.text('ok'));
  host.route('/api', createHonoRouter(service, options));
  const conversation = await conversationWith(service, said('USER', 'Mounted and answering?'));
  return { service, summarizer, host, conversation, api: httpClient(host, '/api') };
}

describe('mounted under a prefix in another Hono app', () => {
  it("answers the routes at /api/..., next to the host app's own routes", async () => {
    const { host, api, conversation } = await mountedAtApi();
    expect(expectJson(await api.get(path`/conversation/${conversation.id}`)).id).toBe(conversation.id);
    expect(expectJson(await api.get('/models')).iterable).toHaveLength(1);
    expectNoContent(await api.postJson(path`/conversation/${conversation.id}/scores/increment`, { conversation: { reuse: true } }));
    const website = expectJson(await api.postJson('/websites/create', { url: 'https://example.com', name: 'Example' }));
    expectNoContent(await api.post(path`/conversation/${conversation.id}/websites/associate/${website.id}`));
    expect(expectJson(await api.get(path`/conversation/${conversation.id}`)).websites.iterable).toEqual([{ id: website.id }]);

    const health = await host.request('/health');
    expect(await health.text()).toBe('ok');
    expect((await host.request(path`/conversation/${conversation.id}`)).status).toBe(404);
  });

  it('keeps the JSON error shape and statuses', async () => {
    const { api, conversation } = await mountedAtApi();
    expectError(await api.get('/conversation/ghost'), 410, 'NOT_FOUND');
    expectError(await api.get('/conversation/ghost/messages'), 404, 'NOT_FOUND');
    expectError(await api.postText(path`/conversation/${conversation.id}/scores/increment`, '{"conversation":'), 400, 'INVALID_INPUT');
    const invalid = expectError(await api.get(path`/conversation/${conversation.id}?transferables=maybe`), 400, 'INVALID_INPUT');
    expect(invalid.issues[0].path).toEqual(['transferables']);
    const first = expectJson(await api.postJson('/models/create', seededModel()));
    expect(expectError(await api.postJson('/models/create', seededModel()), 409, 'CONFLICT').existingId).toBe(first.id);
    const blank = expectJson(await api.postJson('/conversations/create', { type: 'COPILOT' }));
    expectError(await api.post(path`/conversation/${blank.id}/rename`), 422, 'UNPROCESSABLE');
  });

  it('keeps the body limit, answering 413 as JSON', async () => {
    const { api, conversation } = await mountedAtApi({ maxBodyBytes: 1024 });
    const body = JSON.stringify({ ...said('USER', 'y'.repeat(2048)), conversation: { id: conversation.id } });
    expectError(await api.postText('/messages/create', body), 413, 'PAYLOAD_TOO_LARGE');
  });
});

describe('served by @hono/node-server', () => {
  let close: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await close?.();
    close = undefined;
  });

  /** Serves the router on a free port of 127.0.0.1; answers its base URL. */
  async function served(options?: HonoRouterOptions) {
    const { service } = await serviceForTest();
    const router = createHonoRouter(service, options);
    const port = await new Promise<number>((resolve) => {
      const server = serve({ fetch: router.fetch, port: 0, hostname: '127.0.0.1' }, (info: AddressInfo) => resolve(info.port));
      close = () =>
        new Promise<void>((done, fail) => {
          server.close((error) => (error ? fail(error) : done()));
          if ('closeAllConnections' in server) server.closeAllConnections();
        });
    });
    return { service, base: `http://127.0.0.1:${port}` };
  }

  it("answers real fetches: JSON, 204, the client's empty JSON body, and decoded ids", async () => {
    const { service, base } = await served();
    const conversation = await conversationWith(service, said('USER', 'Over the wire.'));

    const got = await answerOf(await fetch(`${base}${path`/conversation/${conversation.id}`}`));
    expect(expectJson(got).messages.iterable[0].reference.fragment.string.raw).toBe('Over the wire.');

    const emptyBody = await fetch(`${base}${path`/conversation/${conversation.id}/scores/increment`}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '',
    });
    expectNoContent(await answerOf(emptyBody));

    const summary = await fetch(`${base}${path`/conversation/${conversation.id}/summarize`}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
    });
    expect(expectJson(await answerOf(summary)).conversation).toEqual({ id: conversation.id });

    const unknown = await answerOf(await fetch(`${base}${path`/conversation/${'a/b c'}/messages`}`));
    expect(expectError(unknown, 404, 'NOT_FOUND').id).toBe('a/b c');
    expectError(await answerOf(await fetch(`${base}${path`/conversation/${'a/b c'}`}`)), 410, 'NOT_FOUND');
  });

  it('answers 413 to a real request over the limit', async () => {
    const { service, base } = await served({ maxBodyBytes: 1024 });
    const conversation = await conversationWith(service);
    const answer = await fetch(`${base}/messages/create`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...said('USER', 'z'.repeat(2048)), conversation: { id: conversation.id } }),
    });
    expectError(await answerOf(answer), 413, 'PAYLOAD_TOO_LARGE');
    expect((await service.listConversationMessages(conversation.id)).iterable).toEqual([]);
  });
});

describe('request log', () => {
  it('logs one line per request, with method, path, status and time, and no query string', async () => {
    const lines: string[] = [];
    const router = createHonoRouter((await serviceForTest()).service, { requestLog: (line) => lines.push(line) });
    await router.request('/models?secret=1');
    await router.request('/conversation/missing');
    expect(lines).toEqual([
      expect.stringMatching(/^GET \/models 200 \d+ ms$/),
      expect.stringMatching(/^GET \/conversation\/missing 410 \d+ ms$/),
    ]);
  });
});
