/**
 * The web-origin rules, route by route: every route of the router is tried with a foreign Host, a
 * foreign or `null` Origin, a cross-site fetch without Origin, a form's Content-Type, a missing or
 * wrong token; each is refused before any work and the store is unchanged. The same routes still
 * work for a program on this machine (no Origin), for an allowed origin (with CORS headers) and
 * with the right token.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { createHonoRouter, type HonoRouterOptions } from '../../adapters/hono/index.js';
import { startHttpServer } from '../../adapters/hono/serve.js';
import { type Answer, answerOf, expectError, httpClient, stateOf } from '../helpers/http.js';
import { conversationWith, said, seeds, serviceForTest } from '../helpers/service.js';

const EXTENSION = 'chrome-extension://abcdefghijklmnop';
const TOKEN = 'correct horse battery staple';
const PAGE_SAFETY = ['x-frame-options', 'content-security-policy', 'x-content-type-options'];

/** A service with one record of each kind, and its router with `options`. */
async function setUp(options: HonoRouterOptions = {}) {
  const { service } = await serviceForTest();
  const conversation = await conversationWith(service, said('USER', 'Why is the build slow?'), said('ASSISTANT', 'Cache the deps.'));
  const website = await service.createWebsite(seeds.website);
  const router = createHonoRouter(service, options);
  const ids: Record<string, string> = {
    conversation: conversation.id,
    message: conversation.messages.iterable[0]!.id,
    target: website.id,
    id: website.id,
    model: 'extractive-summarizer',
  };
  // Every route the router serves, with its parameters filled in.
  const routes = router.routes
    .filter((route) => (route.method === 'GET' || route.method === 'POST') && !route.path.includes('*'))
    .map((route) => ({ method: route.method, url: route.path.replace(/:(\w+)/g, (_, name: string) => encodeURIComponent(ids[name]!)) }))
    .filter((route, index, all) => all.findIndex((other) => other.method === route.method && other.url === route.url) === index);
  const send = async (route: { method: string; url: string }, headers: Record<string, string> = {}): Promise<Answer> => {
    const post = route.method === 'POST';
    return answerOf(
      await router.request(`http://127.0.0.1:39300${route.url}`, {
        method: route.method,
        headers: { ...(post ? { 'content-type': 'application/json' } : {}), ...headers },
        ...(post ? { body: '{}' } : {}),
      }),
    );
  };
  // The store is read through a router of its own, which needs no token.
  return { service, router, routes, send, http: httpClient(createHonoRouter(service)) };
}

type Context = Awaited<ReturnType<typeof setUp>>;

/** Sends every route with `headers`, expects each refused with `status` and `code`, and the store unchanged. */
async function expectEveryRouteRefused(context: Context, headers: Record<string, string>, status: number, code: string) {
  const before = await stateOf(context.http);
  for (const route of context.routes) {
    const answer = await context.send(route, headers);
    expect({ route, status: answer.status }).toEqual({ route, status });
    expectError(answer, status, code);
  }
  expect(await stateOf(context.http)).toEqual(before);
}

/** Sends every route with `headers` and expects none refused by the guards (a 2xx, or a 4xx of the operation itself). */
async function expectEveryRouteServed(context: Context, headers: Record<string, string>) {
  for (const route of context.routes) {
    const answer = await context.send(route, headers);
    expect({ route, status: answer.status, code: answer.body?.error?.code }).not.toMatchObject({
      status: expect.toSatisfy((s: number) => [401, 403, 415].includes(s) || s >= 500),
    });
  }
}

describe('web-origin defences, on by default', () => {
  let context: Context;
  beforeEach(async () => {
    context = await setUp();
  });

  it('covers every route of the router', () => {
    // 35 reads (3 of them the OpenAPI document and the docs page) and 157 writes today (4 of them searches); a new route joins the table by itself.
    expect(context.routes.filter((route) => route.method === 'GET')).toHaveLength(35);
    expect(context.routes.filter((route) => route.method === 'POST')).toHaveLength(157);
  });

  it('serves programs on this machine: loopback hosts with any port, no Origin', async () => {
    for (const host of ['127.0.0.1:39300', 'localhost:1234', 'LOCALHOST', '127.0.0.2', '[::1]:39300', 'app.localhost:8080']) {
      await expectEveryRouteServed(context, { host });
    }
  });

  it('answers every route, its refusals and an unknown path with the page-safety headers, over a real server', async () => {
    // Over Node's own server: there the headers are set on its response object, not by Hono.
    const server = await startHttpServer(context.service, { port: 0, host: '127.0.0.1', keepAliveTimeoutMs: 500, shutdownGraceMs: 1_000 });
    try {
      const sent = async (route: { method: string; url: string }, headers: Record<string, string> = {}) => {
        const post = route.method === 'POST';
        const answer = await fetch(`${server.url}${route.url}`, {
          method: route.method,
          headers: { ...(post ? { 'content-type': 'application/json' } : {}), ...headers },
          ...(post ? { body: '{}' } : {}),
        });
        await answer.arrayBuffer();
        return { route, status: answer.status, ...Object.fromEntries(PAGE_SAFETY.map((name) => [name, answer.headers.get(name)])) };
      };
      const expected = {
        'x-frame-options': 'DENY',
        'content-security-policy': "frame-ancestors 'none'",
        'x-content-type-options': 'nosniff',
      };
      for (const route of context.routes) {
        expect(await sent(route)).toMatchObject({ route, ...expected });
        expect(await sent(route, { origin: 'https://attacker.example' })).toMatchObject({ route, status: 403, ...expected });
      }
      expect(await sent({ method: 'GET', url: '/no/such/route' })).toMatchObject({ status: 404, ...expected });
    } finally {
      await server.close();
    }
  });

  it('refuses a foreign Host before any work: DNS rebinding', async () => {
    await expectEveryRouteRefused(context, { host: 'attacker.example:39300' }, 403, 'FORBIDDEN');
    await expectEveryRouteRefused(context, { host: '192.168.1.20:39300' }, 403, 'FORBIDDEN');
  });

  it('refuses any web origin, the opaque `null` one too', async () => {
    await expectEveryRouteRefused(context, { origin: 'https://attacker.example' }, 403, 'FORBIDDEN');
    await expectEveryRouteRefused(context, { origin: 'null' }, 403, 'FORBIDDEN');
    await expectEveryRouteRefused(context, { origin: 'http://127.0.0.1:8000' }, 403, 'FORBIDDEN');
  });

  it('refuses cross-site browser requests that carry no Origin (images, scripts), but not navigations', async () => {
    await expectEveryRouteRefused(context, { 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'no-cors' }, 403, 'FORBIDDEN');
    await expectEveryRouteRefused(context, { 'sec-fetch-site': 'same-site', 'sec-fetch-mode': 'no-cors' }, 403, 'FORBIDDEN');
    const navigation = await context.send(
      { method: 'GET', url: '/models' },
      { 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'navigate', 'sec-fetch-dest': 'document' },
    );
    expect(navigation.status).toBe(200);
    expect(navigation.headers.get('x-frame-options')).toBe('DENY');
    const framed = await context.send(
      { method: 'GET', url: '/models' },
      { 'sec-fetch-site': 'same-site', 'sec-fetch-mode': 'navigate', 'sec-fetch-dest': 'iframe' },
    );
    expectError(framed, 403, 'FORBIDDEN');
  });

  it('refuses what an HTML form can send: form-urlencoded, multipart and text/plain bodies', async () => {
    const posts = context.routes.filter((route) => route.method === 'POST');
    const before = await stateOf(context.http);
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'text/plain;charset=UTF-8']) {
      for (const route of posts) {
        const answer = await context.send(route, { 'content-type': type });
        expectError(answer, 415, 'UNSUPPORTED_MEDIA_TYPE');
      }
    }
    expect(await stateOf(context.http)).toEqual(before);
  });

  it('lets no web page restore a conversation from the trash, remove one, or empty it', async () => {
    const trashed = await conversationWith(context.service, said('USER', 'Deleted, and kept in the trash'));
    await context.service.deleteConversation(trashed.id);
    const before = await stateOf(context.http);
    expect(before['/trash']).toMatchObject({ iterable: [{ id: trashed.id }] });
    const routes = [
      { method: 'POST', url: `/conversations/${trashed.id}/restore` },
      { method: 'POST', url: `/trash/${trashed.id}/delete` },
      { method: 'POST', url: '/trash/empty' },
      { method: 'GET', url: '/trash' },
    ];
    const hostile: Record<string, string>[] = [
      { origin: 'https://attacker.example' },
      { origin: 'null' },
      { host: 'attacker.example:39300' },
    ];
    for (const headers of hostile) {
      for (const route of routes) expectError(await context.send(route, headers), 403, 'FORBIDDEN');
    }
    expect(await stateOf(context.http)).toEqual(before);
    // A program on this machine may.
    expect((await context.send(routes[0]!)).status).toBe(200);
  });

  it('refuses a JSON body sent without a Content-Type', async () => {
    const answer = await answerOf(await context.router.request('/conversations/create', { method: 'POST', body: '{"type":"COPILOT"}' }));
    expectError(answer, 415, 'UNSUPPORTED_MEDIA_TYPE');
  });

  it('answers a CORS preflight from a foreign origin with a refusal and no CORS headers', async () => {
    const answer = await answerOf(
      await context.router.request('/conversations/create', {
        method: 'OPTIONS',
        headers: {
          origin: 'https://attacker.example',
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'content-type',
        },
      }),
    );
    expectError(answer, 403, 'FORBIDDEN');
    expect(answer.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('allowed origins', () => {
  it('serves an allowed origin on every route, with CORS headers naming it', async () => {
    const context = await setUp({ allowedOrigins: [EXTENSION, 'http://localhost:5173/'] });
    await expectEveryRouteServed(context, { origin: EXTENSION });
    const answer = await context.send({ method: 'GET', url: '/conversations' }, { origin: 'http://localhost:5173' });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('access-control-allow-origin')).toBe('http://localhost:5173');
    expect(answer.headers.get('vary')).toMatch(/origin/i);
  });

  it('answers the preflight of an allowed origin', async () => {
    const context = await setUp({ allowedOrigins: [EXTENSION] });
    const answer = await answerOf(
      await context.router.request('/conversations/create', {
        method: 'OPTIONS',
        headers: {
          origin: EXTENSION,
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'content-type,authorization',
        },
      }),
    );
    expect(answer.status).toBe(204);
    expect(answer.headers.get('access-control-allow-origin')).toBe(EXTENSION);
    expect(answer.headers.get('access-control-allow-methods')).toContain('POST');
    expect(answer.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('authorization');
  });

  it('still refuses other origins', async () => {
    const context = await setUp({ allowedOrigins: [EXTENSION] });
    await expectEveryRouteRefused(context, { origin: 'chrome-extension://someoneelse' }, 403, 'FORBIDDEN');
  });

  it('accepts configured host names besides loopback ones', async () => {
    const context = await setUp({ allowedHosts: ['pieces.internal'] });
    await expectEveryRouteServed(context, { host: 'pieces.internal:39300' });
    await expectEveryRouteRefused(context, { host: 'other.internal:39300' }, 403, 'FORBIDDEN');
  });
});

describe('token', () => {
  it('is required on every route once configured, and the right one is served', async () => {
    const context = await setUp({ token: TOKEN });
    await expectEveryRouteRefused(context, {}, 401, 'UNAUTHORIZED');
    await expectEveryRouteRefused(context, { authorization: 'Bearer wrong' }, 401, 'UNAUTHORIZED');
    await expectEveryRouteRefused(context, { authorization: TOKEN }, 401, 'UNAUTHORIZED');
    await expectEveryRouteServed(context, { authorization: `Bearer ${TOKEN}` });
    const refused = await context.send({ method: 'GET', url: '/models' });
    expect(refused.headers.get('www-authenticate')).toBe('Bearer');
  });

  it('does not let an allowed origin skip it, but lets its preflight through (browsers send no token there)', async () => {
    const context = await setUp({ token: TOKEN, allowedOrigins: [EXTENSION] });
    expectError(await context.send({ method: 'GET', url: '/models' }, { origin: EXTENSION }), 401, 'UNAUTHORIZED');
    const preflight = await context.router.request('/models', {
      method: 'OPTIONS',
      headers: { origin: EXTENSION, 'access-control-request-method': 'GET' },
    });
    expect(preflight.status).toBe(204);
  });
});
