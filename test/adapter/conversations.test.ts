import { describe, expect, it } from 'vitest';
import { createFakeSummarizer } from '../../src/summarizers/index.js';
import { expectError, expectJson, expectNoContent, type HttpClient as Http, path, routerForTest, stateOf } from '../helpers/http.js';
import { conversationWith, said } from '../helpers/service.js';

/** A router over a service holding one conversation with two messages. */
async function withConversation() {
  const summarizer = createFakeSummarizer({ title: 'Payment retries', summary: 'Backoff with jitter was suggested.' });
  const context = await routerForTest({ summarizer });
  const conversation = await conversationWith(
    context.service,
    said('USER', 'How do I retry a flaky payment API?'),
    said('ASSISTANT', 'Use exponential backoff with jitter.'),
  );
  const messageIds = conversation.messages.iterable.map((m) => m.id);
  return { ...context, conversation, messageIds };
}

describe('GET /conversation/{conversation}', () => {
  it('answers 200 with the conversation and its messages', async () => {
    const { http, conversation, messageIds } = await withConversation();
    const body = expectJson(await http.get(path`/conversation/${conversation.id}`));
    expect(body).toMatchObject({ id: conversation.id, type: 'COPILOT', created: { value: expect.any(String) } });
    expect(body.messages.iterable.map((m: { id: string }) => m.id)).toEqual(messageIds);
    expect(body.messages.iterable[0].reference.fragment.string.raw).toBe('How do I retry a flaky payment API?');
  });
});

describe('GET /conversation/{conversation}/messages', () => {
  it('answers 200 with the messages in order and their indices', async () => {
    const { http, conversation, messageIds } = await withConversation();
    const body = expectJson(await http.get(path`/conversation/${conversation.id}/messages`));
    expect(body.iterable.map((m: { id: string }) => m.id)).toEqual(messageIds);
    expect(body.iterable.map((m: { role: string }) => m.role)).toEqual(['USER', 'ASSISTANT']);
    expect(body.iterable[1]).toMatchObject({
      conversation: { id: conversation.id },
      fragment: { string: { raw: 'Use exponential backoff with jitter.' } },
    });
    expect(body.indices).toEqual({ [messageIds[0]!]: 0, [messageIds[1]!]: 1 });
  });

  it('answers what is true now after each write, though answers are cached: a message added, a summary, a message deleted', async () => {
    const { http, service, conversation, messageIds } = await withConversation();
    const messages = async (query = '') => expectJson(await http.get(`${path`/conversation/${conversation.id}/messages`}${query}`));
    const ids = async (query = '') => (await messages(query)).iterable.map((m: { id: string }) => m.id);
    expect(await ids()).toEqual(messageIds);
    expect(await ids('?transferables=false')).toEqual(messageIds); // both renderings now cached

    const added = await service.createMessage({
      conversation: { id: conversation.id },
      role: 'USER',
      fragment: { string: { raw: 'And the cap?' } },
    });
    expect(await ids()).toEqual([...messageIds, added.id]);
    expect((await messages('?transferables=false')).iterable[2].fragment).toEqual({});

    const { annotation } = await service.summarizeConversation(conversation.id, { messages: { iterable: [{ id: added.id }] } });
    expect((await messages()).iterable[2].annotations).toEqual({ iterable: [{ id: annotation.id }] });

    // A page that was cached, then a message before it deleted: the page moves up.
    expect(await ids('?offset=1&limit=1')).toEqual([messageIds[1]]);
    await service.deleteMessage(messageIds[0]!);
    expect(await ids('?offset=1&limit=1')).toEqual([added.id]);
    const after = await messages();
    expect(after.iterable.map((m: { id: string }) => m.id)).toEqual([messageIds[1], added.id]);
    expect(after.indices).toEqual({ [messageIds[1]!]: 0, [added.id]: 1 });
  });

  it('answers a page with next and a Link header to it, and the last page without', async () => {
    const { http, conversation, messageIds } = await withConversation();
    for (let round = 0; round < 2; round++) {
      // The second round is answered from the cache: the same bodies and headers.
      const first = await http.get(`${path`/conversation/${conversation.id}/messages`}?limit=1`);
      expect(expectJson(first)).toMatchObject({ iterable: [{ id: messageIds[0] }], next: 1 });
      expect(first.headers.get('link')).toBe(`<${path`/conversation/${conversation.id}/messages`}?limit=1&offset=1>; rel="next"`);
      const last = await http.get(`${path`/conversation/${conversation.id}/messages`}?limit=1&offset=1`);
      expect(expectJson(last)).toEqual({ iterable: [expect.objectContaining({ id: messageIds[1] })], indices: { [messageIds[1]!]: 1 } });
      expect(last.headers.get('link')).toBeNull();
    }
  });
});

describe('POST /conversation/{conversation}/rename', () => {
  it('answers 200 with the conversation named by the summarizer, and the name is stored', async () => {
    const { http, summarizer, conversation } = await withConversation();
    const body = expectJson(await http.post(path`/conversation/${conversation.id}/rename`));
    expect(body.id).toBe(conversation.id);
    expect(body.name).toBe('Payment retries');
    expect(summarizer.calls.map((call) => call.method)).toEqual(['title']);
    expect(expectJson(await http.get(path`/conversation/${conversation.id}`)).name).toBe(body.name);
  });

  it('answers 422 for a conversation without text, and names nothing', async () => {
    const { http, service, summarizer } = await routerForTest();
    const blank = await conversationWith(service, said('USER', '   '));
    const before = await stateOf(http);
    const error = expectError(await http.post(path`/conversation/${blank.id}/rename`), 422, 'UNPROCESSABLE');
    expect(error.id).toBe(blank.id);
    expect(summarizer.calls).toEqual([]);
    expect(await stateOf(http)).toEqual(before);
  });
});

describe('POST /conversation/{conversation}/summarize', () => {
  it('with an empty JSON body summarizes every message and answers 200 with the stored annotation', async () => {
    const { http, summarizer, conversation, messageIds } = await withConversation();
    const body = expectJson(await http.postJson(path`/conversation/${conversation.id}/summarize`));
    expect(body).toEqual({ conversation: { id: conversation.id }, annotation: { id: expect.any(String) } });
    expect(summarizer.calls.at(-1)?.messages.map((m) => m.id)).toEqual(messageIds);

    const after = expectJson(await http.get(path`/conversation/${conversation.id}`));
    const annotation = after.annotations.iterable.find((a: { id: string }) => a.id === body.annotation.id);
    expect(annotation?.reference).toMatchObject({ type: 'SUMMARY', text: 'Backoff with jitter was suggested.' });
    const listed = expectJson(await http.get('/annotations')).iterable.map((a: { id: string }) => a.id);
    expect(listed).toContain(body.annotation.id);
  });

  it('with { messages } summarizes just those messages', async () => {
    const { http, summarizer, conversation, messageIds } = await withConversation();
    const chosen = messageIds[1]!;
    const body = expectJson(
      await http.postJson(path`/conversation/${conversation.id}/summarize`, { messages: { iterable: [{ id: chosen }] } }),
    );
    expect(body.conversation).toEqual({ id: conversation.id });
    expect(summarizer.calls.at(-1)?.messages.map((m) => m.id)).toEqual([chosen]);
  });

  it('answers 422 for a conversation without messages, and stores no annotation', async () => {
    const { http, service, summarizer } = await routerForTest();
    const empty = await conversationWith(service);
    const before = await stateOf(http);
    expectError(await http.postJson(path`/conversation/${empty.id}/summarize`), 422, 'UNPROCESSABLE');
    expect(summarizer.calls).toEqual([]);
    expect(await stateOf(http)).toEqual(before);
  });
});

describe('POST /conversation/update', () => {
  it('answers 200 with the conversation, changed as the body says, and the change is stored', async () => {
    const { http, conversation } = await withConversation();
    const body = expectJson(await http.postJson('/conversation/update', { id: conversation.id, name: 'Retries', favorited: true }));
    expect(body).toMatchObject({ id: conversation.id, name: 'Retries', favorited: true });
    expect(Date.parse(body.updated.value)).toBeGreaterThan(Date.parse(conversation.updated.value));
    expect(expectJson(await http.get(path`/conversation/${conversation.id}`))).toMatchObject({ name: 'Retries', favorited: true });
  });

  it('answers 404 when the body names an unknown conversation', async () => {
    const { http } = await withConversation();
    const before = await stateOf(http);
    const error = expectError(await http.postJson('/conversation/update', { id: 'ghost', name: 'x' }), 404, 'NOT_FOUND');
    expect(error.id).toBe('ghost');
    expect(await stateOf(http)).toEqual(before);
  });
});

describe('POST /conversation/{conversation}/scores/increment', () => {
  it('answers 204 with no body and adds one to each score set to true', async () => {
    const { http, conversation } = await withConversation();
    expectNoContent(await http.postJson(path`/conversation/${conversation.id}/scores/increment`, { conversation: { reuse: true } }));
    expectNoContent(
      await http.postJson(path`/conversation/${conversation.id}/scores/increment`, { conversation: { reuse: true, searched: true } }),
    );
    const { score } = expectJson(await http.get(path`/conversation/${conversation.id}`));
    expect(score).toMatchObject({ reuse: 2, searched: 1, manual: 0, automatic: 0 });
  });
});

describe('conversations: create, list, delete', () => {
  it('POST /conversations/create answers 200 with the conversation, which GET /conversations lists', async () => {
    const { http } = await routerForTest();
    const created = expectJson(
      await http.postJson('/conversations/create', { type: 'COPILOT', name: 'Fresh', messages: [said('USER', 'hello there')] }),
    );
    expect(created).toMatchObject({ type: 'COPILOT', name: 'Fresh', id: expect.any(String) });
    expect(created.messages.iterable[0].reference.fragment.string.raw).toBe('hello there');
    const listed = expectJson(await http.get('/conversations'));
    expect(listed.iterable.map((c: { id: string }) => c.id)).toEqual([created.id]);
  });

  it('POST /conversations/{conversation}/delete answers 204, after which the conversation is gone (410)', async () => {
    const { http, conversation } = await withConversation();
    expectNoContent(await http.post(path`/conversations/${conversation.id}/delete`));
    expect(expectJson(await http.get('/conversations')).iterable).toEqual([]);
    expectError(await http.get(path`/conversation/${conversation.id}`), 410, 'NOT_FOUND');
  });
});

describe('messages: create, delete', () => {
  it('POST /messages/create answers 200 with the message, appended to its conversation', async () => {
    const { http, conversation, messageIds } = await withConversation();
    const message = expectJson(
      await http.postJson('/messages/create', { ...said('USER', 'and one more thing'), conversation: { id: conversation.id } }),
    );
    expect(message).toMatchObject({
      role: 'USER',
      conversation: { id: conversation.id },
      fragment: { string: { raw: 'and one more thing' } },
    });
    const listed = expectJson(await http.get(path`/conversation/${conversation.id}/messages`));
    expect(listed.iterable.map((m: { id: string }) => m.id)).toEqual([...messageIds, message.id]);
  });

  it('POST /messages/{message}/delete answers 204 and the message leaves its conversation', async () => {
    const { http, conversation, messageIds } = await withConversation();
    expectNoContent(await http.post(path`/messages/${messageIds[0]!}/delete`));
    const listed = expectJson(await http.get(path`/conversation/${conversation.id}/messages`));
    expect(listed.iterable.map((m: { id: string }) => m.id)).toEqual([messageIds[1]]);
  });
});

describe('the transferables query parameter', () => {
  /** Each route that takes it, and where its answer keeps the messages. */
  const routes = [
    {
      name: 'GET /conversation/{c}',
      send: (h: Http, id: string, query: string) => h.get(path`/conversation/${id}` + query),
      messagesOf: (body: any) => body.messages.iterable.map((item: any) => item.reference),
    },
    {
      name: 'GET /conversation/{c}/messages',
      send: (h: Http, id: string, query: string) => h.get(path`/conversation/${id}/messages` + query),
      messagesOf: (body: any) => body.iterable,
    },
    {
      name: 'POST /conversation/{c}/rename',
      send: (h: Http, id: string, query: string) => h.post(path`/conversation/${id}/rename` + query),
      messagesOf: (body: any) => body.messages.iterable.map((item: any) => item.reference),
    },
    {
      name: 'POST /conversation/update',
      send: (h: Http, id: string, query: string) => h.postJson('/conversation/update' + query, { id, favorited: true }),
      messagesOf: (body: any) => body.messages.iterable.map((item: any) => item.reference),
    },
  ];

  describe.each(routes)('$name', ({ send, messagesOf }) => {
    it.each(['', '?transferables=true'])('includes fragment.string.raw when the query is %j', async (query) => {
      const { http, conversation, messageIds } = await withConversation();
      const messages = messagesOf(expectJson(await send(http, conversation.id, query)));
      expect(messages.map((m: any) => m.id)).toEqual(messageIds);
      expect(messages.map((m: any) => m.fragment?.string?.raw)).toEqual([
        'How do I retry a flaky payment API?',
        'Use exponential backoff with jitter.',
      ]);
    });

    it('leaves the text out with transferables=false, answering the same messages', async () => {
      const { http, conversation, messageIds } = await withConversation();
      const answer = await send(http, conversation.id, '?transferables=false');
      const messages = messagesOf(expectJson(answer));
      expect(messages.map((m: any) => m.id)).toEqual(messageIds);
      expect(messages.map((m: any) => m.role)).toEqual(['USER', 'ASSISTANT']);
      for (const message of messages) expect(message.fragment?.string).toBeUndefined();
      expect(answer.text).not.toContain('flaky payment');
    });

    it('answers 400 naming transferables for any other value, and changes nothing', async () => {
      const { http, conversation, summarizer } = await withConversation();
      const before = await stateOf(http);
      const error = expectError(await send(http, conversation.id, '?transferables=maybe'), 400, 'INVALID_INPUT');
      expect(error.issues[0].path).toEqual(['transferables']);
      expect(summarizer.calls).toEqual([]);
      expect(await stateOf(http)).toEqual(before);
    });
  });
});

describe('GET /conversation/{conversation} after changes', () => {
  /** Each change a client can make that shows in the conversation, made over HTTP. */
  const CHANGES: { name: string; change(context: Awaited<ReturnType<typeof withConversation>>): Promise<void> }[] = [
    {
      name: 'rename',
      change: async ({ http, conversation }) => void expectJson(await http.post(path`/conversation/${conversation.id}/rename`)),
    },
    {
      name: 'update',
      change: async ({ http, conversation }) =>
        void expectJson(await http.postJson('/conversation/update', { id: conversation.id, name: 'Edited' })),
    },
    {
      name: 'scores/increment',
      change: async ({ http, conversation }) =>
        expectNoContent(await http.postJson(path`/conversation/${conversation.id}/scores/increment`, { conversation: { reuse: true } })),
    },
    {
      name: 'summarize',
      change: async ({ http, conversation }) => void expectJson(await http.postJson(path`/conversation/${conversation.id}/summarize`)),
    },
    {
      name: 'messages/create',
      change: async ({ http, conversation }) =>
        void expectJson(
          await http.postJson('/messages/create', { ...said('USER', 'a late addition'), conversation: { id: conversation.id } }),
        ),
    },
    {
      name: 'messages/{m}/delete',
      change: async ({ http, messageIds }) => expectNoContent(await http.post(path`/messages/${messageIds[0]!}/delete`)),
    },
    {
      name: 'websites associate',
      change: async ({ http, conversation }) => {
        const website = expectJson(await http.postJson('/websites/create', { url: 'https://example.com', name: 'Example' }));
        expectNoContent(await http.post(path`/conversation/${conversation.id}/websites/associate/${website.id}`));
      },
    },
    {
      name: 'deleting a linked anchor',
      change: async ({ http, service, conversation }) => {
        const anchor = await service.createAnchor({ type: 'FILE', fullpath: '/tmp/a.ts', conversation: conversation.id });
        expect(expectJson(await http.get(path`/conversation/${conversation.id}`)).anchors.iterable).toEqual([{ id: anchor.id }]);
        expectNoContent(await http.post(path`/anchors/${anchor.id}/delete`));
      },
    },
  ];

  it.each(CHANGES)('answers the conversation as changed by $name, not an earlier read', async ({ change }) => {
    const context = await withConversation();
    const { http, conversation } = context;
    const url = path`/conversation/${conversation.id}`;
    const earlier = [expectJson(await http.get(url)), expectJson(await http.get(`${url}?transferables=false`))];

    await change(context);
    const later = expectJson(await http.get(url));
    expect(later).not.toEqual(earlier[0]);
    // The listing renders afresh: the single read must agree with it.
    const listed = expectJson(await http.get('/conversations')).iterable.find((c: { id: string }) => c.id === conversation.id);
    expect(later).toEqual(listed);
    const light = expectJson(await http.get(`${url}?transferables=false`));
    expect(light).not.toEqual(earlier[1]);
    expect(light.messages.iterable.map((m: { id: string }) => m.id)).toEqual(later.messages.iterable.map((m: { id: string }) => m.id));
  });

  it('keeps the answers with and without transferables apart', async () => {
    const { http, conversation } = await withConversation();
    const url = path`/conversation/${conversation.id}`;
    for (const query of ['', '?transferables=false', '', '?transferables=false']) {
      const raw = expectJson(await http.get(url + query)).messages.iterable[0].reference.fragment?.string?.raw;
      expect(raw).toBe(query === '' ? 'How do I retry a flaky payment API?' : undefined);
    }
  });
});

describe('a conversation long enough to be answered in pieces', () => {
  it('is answered byte for byte as the whole answer, by create, rename and GET', async () => {
    const summarizer = createFakeSummarizer({ title: 'Long "one"', summary: 'Many messages.' });
    const { http, service } = await routerForTest({ summarizer });
    const messages = Array.from({ length: 2_500 }, (_, i) => said(i % 2 ? 'ASSISTANT' : 'USER', `message ${i}: "quoted" é 😀 \u2028`));
    const created = await http.postJson('/conversations/create', { type: 'COPILOT', messages });
    const id = (JSON.parse(created.text) as { id: string }).id;
    expect(created.text).toBe(JSON.stringify(await service.getConversation(id)));
    // A summary covering every message: each message's answer names it.
    await service.summarizeConversation(id);
    const renamed = await http.post(path`/conversation/${id}/rename`);
    const whole = JSON.stringify(await service.getConversation(id));
    expect(renamed.text).toBe(whole);
    expect((await http.get(path`/conversation/${id}`)).text).toBe(whole);
    expect((await http.get(path`/conversation/${id}?transferables=false`)).text).toBe(
      JSON.stringify(await service.getConversation(id, { transferables: false })),
    );
    expect(await service.getConversationJson(id)).toBe(whole);
  });
});
