import { expect } from 'vitest';
import { createHonoRouter, type HonoRouterOptions } from '../../adapters/hono/index.js';
import { RECORD_ROUTES } from '../../adapters/hono/routes.js';
import type { ServiceOptions } from '../../src/index.js';
import type { FakeSummarizer } from '../../src/summarizers/index.js';
import { serviceForTest } from './service.js';

/** Anything answering Hono's `request`: the router itself, or a Hono app it is mounted in. */
export interface Fetchable {
  request(input: string, init?: RequestInit): Response | Promise<Response>;
}

/** One HTTP answer, read once: status, headers, raw text and the parsed JSON body (if any). */
export interface Answer {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  // Answers are checked field by field in the tests; `any` keeps those checks readable.
  readonly body: any;
}

/** `path\`/conversation/${id}/messages\`` with every interpolated id percent-encoded, as the official client does. */
export const path = (strings: TemplateStringsArray, ...ids: string[]): string =>
  strings.reduce((url, piece, index) => url + encodeURIComponent(ids[index - 1] ?? '') + piece);

/** Reads a Response the way the tests look at it. */
export async function answerOf(response: Response): Promise<Answer> {
  const text = await response.text();
  let body: unknown;
  try {
    body = text === '' ? undefined : JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: response.status, headers: response.headers, text, body };
}

/** Sends requests the way the official client does, through `app.request` (no network). */
export function httpClient(app: Fetchable, base = '') {
  const send = async (method: string, url: string, init: RequestInit = {}): Promise<Answer> =>
    answerOf(await app.request(base + url, { method, ...init }));
  return {
    get: (url: string) => send('GET', url),
    /** A POST without body or Content-Type: how the client calls the operations that take no input. */
    post: (url: string) => send('POST', url),
    /**
     * A POST with `Content-Type: application/json`: `body` as JSON, or an empty body when it is
     * undefined (what the client sends when the caller passes no input).
     */
    postJson: (url: string, body?: unknown) =>
      send('POST', url, {
        headers: { 'content-type': 'application/json' },
        body: body === undefined ? '' : JSON.stringify(body),
      }),
    /** A POST with `Content-Type: application/json` and exactly this body text (malformed JSON, say). */
    postText: (url: string, text: string, headers: Record<string, string> = {}) =>
      send('POST', url, { headers: { 'content-type': 'application/json', ...headers }, body: text }),
  };
}

export type HttpClient = ReturnType<typeof httpClient>;

/**
 * An in-memory service (a recording fake summarizer, `options.summarizer` or a default one; a
 * stepping clock), its Hono router, and a client for it.
 */
export async function routerForTest(
  options: { summarizer?: FakeSummarizer; service?: Omit<ServiceOptions, 'summarizer'>; router?: HonoRouterOptions } = {},
) {
  const made = await serviceForTest({ ...options.service, ...(options.summarizer ? { summarizer: options.summarizer } : {}) });
  const summarizer = options.summarizer ?? made.summarizer;
  const router = createHonoRouter(made.service, options.router);
  return { service: made.service, summarizer, router, http: httpClient(router) };
}

/** Asserts a JSON answer with this status and answers its body. */
export function expectJson(answer: Answer, status = 200): any {
  expect({ status: answer.status, text: answer.text }).toMatchObject({ status });
  expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
  expect(answer.body).toBeDefined();
  return answer.body;
}

/** Asserts an empty 204 answer. */
export function expectNoContent(answer: Answer): void {
  expect({ status: answer.status, text: answer.text }).toEqual({ status: 204, text: '' });
}

/** Asserts an error answer `{ error: { code, message, ... } }` with this status; answers `error`. */
export function expectError(answer: Answer, status: number, code: string): any {
  const body = expectJson(answer, status);
  expect(body).toMatchObject({ error: { code, message: expect.any(String) } });
  return body.error;
}

/**
 * Everything the service holds, read over HTTP: every list, and each conversation with its
 * messages. Equal before and after a rejected request means the request changed nothing.
 */
export async function stateOf(http: HttpClient): Promise<Record<string, unknown>> {
  const state: Record<string, unknown> = {};
  for (const url of ['/conversations', '/models', '/trash', ...Object.values(RECORD_ROUTES).map((route) => `/${route.path}`)]) {
    state[url] = expectJson(await http.get(url));
  }
  const conversations = state['/conversations'] as { iterable: { id: string }[] };
  for (const { id } of conversations.iterable) {
    state[`conversation ${id}`] = expectJson(await http.get(path`/conversation/${id}`));
    state[`messages of ${id}`] = expectJson(await http.get(path`/conversation/${id}/messages`));
  }
  return state;
}
