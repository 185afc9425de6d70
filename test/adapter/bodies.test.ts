import { describe, expect, it } from 'vitest';
import { RECORD_ROUTES } from '../../adapters/hono/routes.js';
import { type Answer, expectError, expectJson, expectNoContent, path, routerForTest, stateOf } from '../helpers/http.js';
import { conversationWith, said, seededModel } from '../helpers/service.js';

/** A router over a conversation with two messages and a downloaded custom LLM. */
async function setUp() {
  const context = await routerForTest();
  const conversation = await conversationWith(
    context.service,
    said('USER', 'Why is the build slow?'),
    said('ASSISTANT', 'Cache the deps.'),
  );
  const model = await context.service.createModel(seededModel({ downloaded: true }));
  return { ...context, conversation, model };
}
type Context = Awaited<ReturnType<typeof setUp>>;

/**
 * The five operations that take a JSON body: what an empty body (the client's "no input") does, and
 * an invalid body with the field it must name.
 */
const BODY_OPERATIONS: {
  name: string;
  url(context: Context): string;
  empty(answer: Answer, context: Context, before: unknown): Promise<void>;
  invalid(context: Context): unknown;
  field: (string | number)[];
}[] = [
  {
    name: 'POST /conversation/{c}/scores/increment',
    url: ({ conversation }) => path`/conversation/${conversation.id}/scores/increment`,
    empty: async (answer, { http }, before) => {
      expectNoContent(answer);
      expect(await stateOf(http)).toEqual(before);
    },
    invalid: () => ({ conversation: { reuse: 'yes' } }),
    field: ['conversation', 'reuse'],
  },
  {
    name: 'POST /conversation/{c}/summarize',
    url: ({ conversation }) => path`/conversation/${conversation.id}/summarize`,
    empty: async (answer, { conversation, summarizer }) => {
      expect(expectJson(answer)).toMatchObject({ conversation: { id: conversation.id }, annotation: { id: expect.any(String) } });
      expect(summarizer.calls.at(-1)?.messages.map((m) => m.id)).toEqual(conversation.messages.iterable.map((m) => m.id));
    },
    invalid: () => ({ messages: { iterable: 'all of them' } }),
    field: ['messages', 'iterable'],
  },
  {
    name: 'POST /conversation/update',
    url: () => '/conversation/update',
    // The conversation's id travels in the body: without a body there is nothing to update.
    empty: async (answer, { http }, before) => {
      expectError(answer, 400, 'INVALID_INPUT');
      expect(await stateOf(http)).toEqual(before);
    },
    invalid: ({ conversation }) => ({ id: conversation.id, name: 'Renamed', favorited: 'yes' }),
    field: ['favorited'],
  },
  {
    name: 'POST /models/create',
    url: () => '/models/create',
    // A model needs a seed.
    empty: async (answer, { http }, before) => {
      expectError(answer, 400, 'INVALID_INPUT');
      expect(await stateOf(http)).toEqual(before);
    },
    invalid: () => seededModel({ unique: 'another', usage: 'TELEPATHY' as never }),
    field: ['usage'],
  },
  {
    name: 'POST /models/{m}/delete/cache',
    url: ({ model }) => path`/models/${model.id}/delete/cache`,
    empty: async (answer, { model }) => {
      expect(expectJson(answer)).toEqual({ model: { id: model.id } });
    },
    // ModelDeleteCacheInput has no fields; a body that is not an object is wrong as a whole.
    invalid: () => 'everything',
    field: [],
  },
];

describe.each(BODY_OPERATIONS)('$name', (operation) => {
  it('treats an empty body sent as application/json as "no input"', async () => {
    const context = await setUp();
    const before = await stateOf(context.http);
    await operation.empty(await context.http.postJson(operation.url(context)), context, before);
  });

  it('answers 400 INVALID_INPUT to malformed JSON, and changes nothing', async () => {
    const context = await setUp();
    const before = await stateOf(context.http);
    const error = expectError(await context.http.postText(operation.url(context), '{"conversation": {"reuse": tru'), 400, 'INVALID_INPUT');
    expect(error.issues).toEqual(expect.any(Array));
    expect(await stateOf(context.http)).toEqual(before);
  });

  it('answers 400 naming the invalid field, and changes nothing', async () => {
    const context = await setUp();
    const before = await stateOf(context.http);
    const error = expectError(await context.http.postJson(operation.url(context), operation.invalid(context)), 400, 'INVALID_INPUT');
    expect(error.issues[0].path).toEqual(operation.field);
    expect(await stateOf(context.http)).toEqual(before);
  });
});

describe('create routes', () => {
  const creates = ['/conversations/create', '/messages/create', ...Object.values(RECORD_ROUTES).map((route) => `/${route.path}/create`)];

  it.each(creates)('%s answers 400 INVALID_INPUT to malformed JSON and to an empty body, creating nothing', async (url) => {
    const { http } = await setUp();
    const before = await stateOf(http);
    expectError(await http.postText(url, '{"type": "COPILOT",'), 400, 'INVALID_INPUT');
    expectError(await http.postJson(url), 400, 'INVALID_INPUT');
    expect(await stateOf(http)).toEqual(before);
  });
});
