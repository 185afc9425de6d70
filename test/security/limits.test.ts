/**
 * Limits that keep one request from holding the service: oversized lists and texts refused early
 * with 413, a full conversation with 422, deep or non-JSON values with 400, small error answers
 * however bad the input, list pages, and a summarizer that reads a bounded part of a long
 * conversation. Each refusal changes nothing.
 */
import { describe, expect, it } from 'vitest';
import { isServiceError, LIMITS, type Summarizer } from '../../src/index.js';
import { expectError, expectJson, path, routerForTest, stateOf } from '../helpers/http.js';
import { said, serviceForTest } from '../helpers/service.js';

const messages = (count: number, text = (i: number) => `message ${i}`) =>
  Array.from({ length: count }, (_, i) => said(i % 2 === 0 ? 'USER' : 'ASSISTANT', text(i)));

/** The ServiceError `promise` rejects with. */
async function rejection(promise: Promise<unknown>) {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!isServiceError(error)) throw new Error(`expected a ServiceError, got ${String(error)}`);
  return error;
}

describe('sizes', () => {
  it('refuses more messages than a create takes, before reading them, with 413 and the limit', async () => {
    const { http } = await routerForTest();
    const before = await stateOf(http);
    // Every message invalid too: the count is checked first, so the answer names the count alone.
    const answer = await http.postJson('/conversations/create', {
      type: 'COPILOT',
      messages: Array(LIMITS.messagesPerCreate + 1).fill({ role: 'NOBODY' }),
    });
    const error = expectError(answer, 413, 'PAYLOAD_TOO_LARGE');
    expect(error).toMatchObject({ limit: LIMITS.messagesPerCreate, issues: [{ path: ['messages'] }] });
    expect(await stateOf(http)).toEqual(before);
  });

  it('refuses a message text over the limit with 413', async () => {
    const { http } = await routerForTest();
    const answer = await http.postJson('/conversations/create', {
      type: 'COPILOT',
      messages: [said('USER', 'x'.repeat(LIMITS.textChars + 1))],
    });
    expect(expectError(answer, 413, 'PAYLOAD_TOO_LARGE')).toMatchObject({
      limit: LIMITS.textChars,
      issues: [{ path: ['messages', 0, 'fragment', 'string', 'raw'] }],
    });
  });

  it('creates a conversation of the most messages at once, and refuses one more with 422', async () => {
    const { service } = await serviceForTest();
    const full = await service.createConversation({ type: 'COPILOT', messages: messages(LIMITS.messagesPerConversation) });
    expect(full.messages.iterable).toHaveLength(LIMITS.messagesPerConversation);
    const error = await rejection(service.createMessage({ ...said('USER', 'one more'), conversation: { id: full.id } }));
    expect(error).toMatchObject({ code: 'UNPROCESSABLE', details: { limit: LIMITS.messagesPerConversation } });
    expect((await service.listConversationMessages(full.id)).iterable).toHaveLength(LIMITS.messagesPerConversation);
  });

  it('answers a bad body with a few issues, however many there are', async () => {
    const { http } = await routerForTest();
    const answer = await http.postJson('/conversations/create', { type: 'COPILOT', messages: Array(10_000).fill({ role: 'NOBODY' }) });
    const error = expectError(answer, 400, 'INVALID_INPUT');
    expect(error.issues.length).toBeGreaterThan(0);
    expect(error.issues.length).toBeLessThanOrEqual(LIMITS.reportedIssues);
    expect(error.issues[0].path).toEqual(['messages', 0, 'role']);
    expect(answer.text.length).toBeLessThan(2_000);
  });
});

describe('free-form values', () => {
  const nested = (depth: number) => {
    let value: unknown = 'bottom';
    for (let i = 0; i < depth; i++) value = { deeper: value };
    return value as Record<string, unknown>;
  };

  it('refuses JSON nested deeper than the limit with 400, over HTTP and in-process', async () => {
    const { http, service } = await routerForTest();
    const before = await stateOf(http);
    const deep = JSON.stringify({ type: 'COPILOT', application: nested(2_000) });
    expectError(await http.postText('/conversations/create', deep), 400, 'INVALID_INPUT');
    expect(await rejection(service.createConversation({ type: 'COPILOT', pipeline: nested(LIMITS.jsonDepth + 1) }))).toMatchObject({
      code: 'INVALID_INPUT',
    });
    expect(await stateOf(http)).toEqual(before);
    // At the limit it is kept as given.
    const kept = await service.createConversation({ type: 'COPILOT', pipeline: nested(LIMITS.jsonDepth - 1) });
    expect(kept.pipeline).toEqual(nested(LIMITS.jsonDepth - 1));
  });

  it('refuses values a JSON file cannot hold: BigInt, Date, functions, NaN, cycles', async () => {
    const { service } = await serviceForTest();
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    for (const value of [10n, new Date(), () => 1, Number.NaN, Infinity, cycle, new Map()]) {
      const error = await rejection(service.createConversation({ type: 'COPILOT', application: { value } }));
      expect(error.code).toBe('INVALID_INPUT');
      expect(error.details.issues?.[0]?.path).toEqual(expect.arrayContaining(['application', 'value']));
    }
    expect((await service.listConversations()).iterable).toHaveLength(0);
  });

  it('stores a copy: changing the caller’s object later changes nothing stored', async () => {
    const { service } = await serviceForTest();
    const application = { name: 'VS Code', settings: { theme: 'dark' } };
    const created = await service.createConversation({ type: 'COPILOT', application });
    application.settings.theme = 'light';
    expect((await service.getConversation(created.id)).application).toEqual({ name: 'VS Code', settings: { theme: 'dark' } });
  });
});

describe('pages', () => {
  it('answers a list a page at a time, with the next offset in the body and a Link header', async () => {
    const { http, service } = await routerForTest();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await service.createConversation({ type: 'COPILOT', name: `c${i}` })).id);
    const first = await http.get('/conversations?limit=2&transferables=false');
    expect(expectJson(first).iterable.map((c: { id: string }) => c.id)).toEqual(ids.slice(0, 2));
    expect(first.body.next).toBe(2);
    expect(first.headers.get('link')).toBe('</conversations?limit=2&transferables=false&offset=2>; rel="next"');
    const last = await http.get('/conversations?limit=2&offset=4');
    expect(expectJson(last).iterable.map((c: { id: string }) => c.id)).toEqual(ids.slice(4));
    expect(last.body.next).toBeUndefined();
    expect(last.headers.get('link')).toBeNull();
    expect(expectJson(await http.get('/conversations')).iterable).toHaveLength(5);
  });

  it('pages a conversation’s messages, with positions in the whole conversation', async () => {
    const { http, service } = await routerForTest();
    const conversation = await service.createConversation({ type: 'COPILOT', messages: messages(5) });
    const page = expectJson(await http.get(path`/conversation/${conversation.id}/messages` + '?offset=3&limit=5'));
    expect(page.iterable.map((m: { fragment: { string: { raw: string } } }) => m.fragment.string.raw)).toEqual(['message 3', 'message 4']);
    expect(Object.values(page.indices)).toEqual([3, 4]);
  });

  it('refuses a page larger than the limit (413) and malformed numbers (400)', async () => {
    const { http } = await routerForTest();
    expect(expectError(await http.get(`/conversations?limit=${LIMITS.pageSize + 1}`), 413, 'PAYLOAD_TOO_LARGE').limit).toBe(
      LIMITS.pageSize,
    );
    expectError(await http.get('/conversations?limit=0'), 400, 'INVALID_INPUT');
    expectError(await http.get('/websites?offset=-1'), 400, 'INVALID_INPUT');
    expectError(await http.get('/anchors?limit=ten'), 400, 'INVALID_INPUT');
  });
});

describe('summarizing a long conversation', () => {
  it('hands the summarizer its first request and latest messages, within what it reads', async () => {
    const seen: string[][] = [];
    const summarizer: Summarizer = {
      model: { id: 'small', name: 'Small', version: '1', description: '', usage: 'CODE_DESCRIPTION', type: 'SPEED' },
      maxInputChars: 1_000,
      title: async (input) => (seen.push(input.map((m) => m.text)), 'A title'),
      summarize: async (input) => (seen.push(input.map((m) => m.text)), 'A summary.'),
      isLoaded: () => true,
      unload: async () => undefined,
    };
    const { service } = await serviceForTest({ summarizer });
    const conversation = await service.createConversation({
      type: 'COPILOT',
      messages: [said('SYSTEM', 'You are helpful.'), ...messages(2_000, (i) => `message ${i} `.padEnd(100, '.'))],
    });
    await service.renameConversation(conversation.id);
    const { annotation } = await service.summarizeConversation(conversation.id);
    for (const texts of seen) {
      expect(texts.join('').length).toBeLessThanOrEqual(1_000);
      expect(texts[0]).toMatch(/^message 0 /);
      expect(texts.at(-1)).toMatch(/^message 1999 /);
    }
    // The summary is of the whole conversation: it names every message, the ones left out of the
    // summarizer's reading too, so the next summary starts after them.
    const stored = (await service.listAnnotations()).iterable.find((a) => a.id === annotation.id);
    expect(stored?.messages?.iterable).toHaveLength(2_001);
  });
});
