import { describe, expect, it, vi } from 'vitest';
import type { SearchInput, Service } from '../../src/index.js';
import { createFakeSummarizer } from '../../src/summarizers/fake.js';
import { conversationWith, said, serviceForTest } from '../helpers/service.js';

/** One engine with this query (and whatever else the test adds). */
const query = (text: string, more: Record<string, unknown> = {}): SearchInput => ({ engines: { iterable: [{ query: text, ...more }] } });
const ids = (answer: { iterable: { identifier: string }[] }) => answer.iterable.map((hit) => hit.identifier);

/** Three conversations of the kind developers have with an assistant. */
async function seeded(service: Service) {
  const react = await conversationWith(
    service,
    said('USER', 'Why does my useEffect run twice in React 18?'),
    said('ASSISTANT', 'StrictMode mounts every component twice in development, so effects run twice.'),
  );
  const node = await conversationWith(
    service,
    said('USER', 'node fails with ERR_MODULE_NOT_FOUND when importing src/app.tsx'),
    said('ASSISTANT', 'Add the .js extension to the import, or set moduleResolution to bundler.'),
  );
  const docker = await conversationWith(
    service,
    said('USER', 'How do I shrink my Docker images?'),
    said('ASSISTANT', 'Use a multi-stage build and a slim base image; installing only production dependencies helps.'),
  );
  const message = (conversation: typeof react, i: number) => conversation.messages.iterable[i]!.id;
  return { react, node, docker, message };
}

describe('searchMessages', () => {
  it('finds messages by word, stem, part of an identifier, file name, prefix and typo, best first', async () => {
    const { service } = await serviceForTest();
    const { react, node, docker, message } = await seeded(service);

    expect(new Set(ids(await service.searchMessages(query('effects'))))).toEqual(new Set([message(react, 1), message(react, 0)]));
    // A stem: "installing" was written, "installed" is asked.
    expect(ids(await service.searchMessages(query('installed')))).toEqual([message(docker, 1)]);
    // A part of an identifier, and the identifier whole.
    // `module` is a word of ERR_MODULE_NOT_FOUND and of moduleResolution.
    expect(new Set(ids(await service.searchMessages(query('module'))))).toEqual(new Set([message(node, 0), message(node, 1)]));
    expect(ids(await service.searchMessages(query('ERR_MODULE_NOT_FOUND')))[0]).toBe(message(node, 0));
    expect(ids(await service.searchMessages(query('app.tsx')))).toEqual([message(node, 0)]);
    // As you type: the last word is the start of a longer one.
    expect(ids(await service.searchMessages(query('strictmo')))).toEqual([message(react, 1)]);
    // A typo in a word the index does not hold.
    expect(ids(await service.searchMessages(query('dokcer')))).toEqual([message(docker, 0)]);
    // Nothing matches: no hits, not everything.
    expect((await service.searchMessages(query('kubernetes'))).iterable).toEqual([]);
    expect((await service.searchMessages(query('the and of'))).iterable).toEqual([]);
  });

  it('answers the client shape: similarity 0–1, exact when verbatim, the message, a snippet', async () => {
    const { service } = await serviceForTest();
    const { docker, message } = await seeded(service);
    const [hit, ...rest] = (await service.searchMessages(query('multi-stage build'))).iterable;
    expect(rest).toEqual([]);
    expect(hit).toMatchObject({ identifier: message(docker, 1), exact: true, message: { id: message(docker, 1), role: 'ASSISTANT' } });
    expect(hit!.similarity).toBeGreaterThan(0);
    expect(hit!.similarity).toBeLessThanOrEqual(1);
    expect(hit!.snippet).toContain('multi-stage build');
    // The words, not in that order: found, not exact, and less similar.
    const [loose] = (await service.searchMessages(query('build multi-stage'))).iterable;
    expect(loose).toMatchObject({ identifier: message(docker, 1), exact: false });
  });

  it('leaves the records out when transferables are off', async () => {
    const { service } = await serviceForTest();
    const { react, message } = await seeded(service);
    const answer = await service.searchMessages(query('StrictMode'), { transferables: false });
    expect(answer.iterable).toEqual([{ identifier: message(react, 1), exact: true, similarity: expect.any(Number) }]);
  });

  it('pages with limit and offset, answering the next offset while there are more', async () => {
    const { service } = await serviceForTest();
    const conversation = await conversationWith(
      service,
      ...Array.from({ length: 5 }, (_, i) => said('USER', `retry number ${i} of the flaky test`)),
    );
    const first = await service.searchMessages(query('flaky'), { limit: 2 });
    expect(first.iterable).toHaveLength(2);
    expect(first.next).toBe(2);
    const rest = await service.searchMessages(query('flaky'), { limit: 10, offset: 2 });
    expect(rest.next).toBeUndefined();
    expect(new Set([...ids(first), ...ids(rest)])).toEqual(new Set(conversation.messages.iterable.map((m) => m.id)));
  });

  it('keeps up with every write: a deleted message, a deleted conversation', async () => {
    const { service } = await serviceForTest();
    const { react, node, message } = await seeded(service);
    await service.deleteMessage(message(react, 1));
    expect(ids(await service.searchMessages(query('StrictMode')))).toEqual([]);
    await service.deleteConversation(node.id);
    expect(ids(await service.searchMessages(query('module')))).toEqual([]);
    const added = await service.createMessage({
      conversation: { id: react.id },
      role: 'ASSISTANT',
      fragment: { string: { raw: 'Concurrent rendering too.' } },
    });
    expect(ids(await service.searchMessages(query('concurrent')))).toEqual([added.id]);
  });

  it('combines engines: AND keeps what every engine finds, OR what any finds', async () => {
    const { service } = await serviceForTest();
    const { react, docker, message } = await seeded(service);
    const both = (type: 'AND' | 'OR') => ({ engines: { type, iterable: [{ query: 'twice' }, { query: 'development' }] } });
    expect(ids(await service.searchMessages(both('AND')))).toEqual([message(react, 1)]);
    expect(new Set(ids(await service.searchMessages(both('OR'))))).toEqual(new Set([message(react, 0), message(react, 1)]));
    // Nested operations: (twice OR docker) AND images.
    const nested = {
      engines: {
        type: 'AND' as const,
        iterable: [{ operations: { type: 'OR' as const, iterable: [{ query: 'twice' }, { query: 'docker' }] } }, { query: 'images' }],
      },
    };
    expect(ids(await service.searchMessages(nested))).toEqual([message(docker, 0)]);
  });

  it('keeps only verbatim matches with full_text.exact, and those at least as similar as full_text.similarity', async () => {
    const { service } = await serviceForTest();
    const { react, message } = await seeded(service);
    expect(new Set(ids(await service.searchMessages(query('twice in React'))))).toEqual(new Set([message(react, 0), message(react, 1)]));
    expect(ids(await service.searchMessages(query('twice in React', { full_text: { exact: true } })))).toEqual([message(react, 0)]);
    const all = (await service.searchMessages(query('twice development'))).iterable;
    const least = Math.max(...all.map((hit) => hit.similarity));
    expect(ids(await service.searchMessages(query('twice development', { full_text: { similarity: least } })))).toEqual([
      all[0]!.identifier,
    ]);
  });

  it('filters by time with a temporal engine, alone or beside a query', async () => {
    const { service } = await serviceForTest();
    const first = async (conversation: { id: string }) => (await service.listConversationMessages(conversation.id)).iterable[0]!;
    // The test clock steps a second at a time: each message has a time of its own.
    const early = await first(await conversationWith(service, said('USER', 'deploy the staging server')));
    const late = await first(await conversationWith(service, said('USER', 'deploy the production server')));
    const since = { temporal: { created: { from: { value: late.created.value } } } };
    const found = await service.searchMessages(query('deploy', since));
    expect(ids(found)).toEqual([late.id]);
    expect(found.iterable[0]!.temporal).toBe(true);
    // A time range alone lists what it holds.
    const before = { temporal: { created: { to: { value: early.created.value } } } };
    expect(ids(await service.searchMessages({ engines: { iterable: [before] } }))).toEqual([early.id]);
  });

  it('finds words of other languages and scripts, mixed with code, and next to emoji', async () => {
    const { service } = await serviceForTest();
    const conversation = await conversationWith(
      service,
      said('USER', 'Die Größe der Überprüfung'),
      said('USER', '如何搜索对话记录'),
      said('USER', '请问useEffect为什么执行两次'),
      said('USER', 'ship it 🚀deploy🚀 tonight'),
    );
    const [german, chinese, mixed, emoji] = conversation.messages.iterable.map((m) => m.id);
    expect(ids(await service.searchMessages(query('größe')))).toEqual([german]);
    expect(ids(await service.searchMessages(query('搜索')))).toEqual([chinese]);
    expect(ids(await service.searchMessages(query('useEffect')))).toEqual([mixed]);
    expect(ids(await service.searchMessages(query('为什么')))).toEqual([mixed]);
    expect(ids(await service.searchMessages(query('deploy tonight')))).toEqual([emoji]);
  });

  it('takes the last word whole after a space; finds a word typed past its stem', async () => {
    const { service } = await serviceForTest();
    const { docker, message } = await seeded(service);
    const docs = await conversationWith(service, said('USER', 'Where is the documentation for installing plugins?'));
    expect(ids(await service.searchMessages(query('sli')))).toEqual([message(docker, 1)]);
    expect(ids(await service.searchMessages(query('sli ')))).toEqual([]);
    // Indexed as `document` and `instal`: typed on past them, still found.
    expect(ids(await service.searchMessages(query('documentati')))).toEqual([docs.messages.iterable[0]!.id]);
    expect(ids(await service.searchMessages(query('installati')))).toEqual(
      expect.arrayContaining([docs.messages.iterable[0]!.id, message(docker, 1)]),
    );
  });

  it('bounds the work of one request: 16 engines in all (413 past them), 32 words of a query, each once', async () => {
    const { service } = await serviceForTest();
    const { react, message } = await seeded(service);
    const many = (n: number) => ({ engines: { iterable: Array.from({ length: n }, () => ({ query: 'twice' })) } });
    await expect(service.searchMessages(many(16))).resolves.toBeDefined();
    await expect(service.searchMessages(many(17))).rejects.toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
    // Four levels of four engines each: 4 + 16 + … in all, over the limit however shallow each list is.
    const nested = (level: number): Record<string, unknown> =>
      level === 0 ? { query: 'x' } : { operations: { iterable: Array.from({ length: 4 }, () => nested(level - 1)) } };
    await expect(service.searchMessages({ engines: { iterable: [nested(2)] } } as never)).rejects.toMatchObject({
      code: 'PAYLOAD_TOO_LARGE',
      details: { issues: [{ path: ['engines'], message: expect.stringMatching(/at most 16 engines/) }] },
    });
    // A word said again is looked for once; past 32 words the query is cut.
    expect(ids(await service.searchMessages(query(Array(150).fill('twice').join(' '))))).toContain(message(react, 1));
    const filler = Array.from({ length: 40 }, (_, i) => `filler${String.fromCharCode(97 + (i % 26), 97 + Math.floor(i / 26))}`).join(' ');
    expect(ids(await service.searchMessages(query(`${filler} twice`)))).toEqual([]);
  });

  it('runs an embeddings engine as full text when no embedder is configured, and says so once', async () => {
    const warn = vi.fn();
    const { service } = await serviceForTest({ logger: { warn } });
    const { react, message } = await seeded(service);
    const input = query('StrictMode', { embeddings: { type: 'JINA' } });
    expect(ids(await service.searchMessages(input))).toEqual([message(react, 1)]);
    await service.searchMessages(input);
    expect(warn).toHaveBeenCalledTimes(1);
    expect(warn.mock.calls[0]![0]).toMatch(/embeddings.*full text/);
  });

  it('refuses bad input with INVALID_INPUT naming the field, and changes nothing', async () => {
    const { service } = await serviceForTest();
    await expect(service.searchMessages({} as SearchInput)).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await expect(service.searchMessages({ engines: { iterable: [{ qeury: 'x' }] } } as never)).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      details: { issues: [{ path: ['engines', 'iterable', 0, 'qeury'], message: 'unknown field' }] },
    });
    await expect(service.searchMessages(query('x'.repeat(1001)))).rejects.toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
    const deep = (level: number): Record<string, unknown> =>
      level === 0 ? { query: 'x' } : { operations: { iterable: [deep(level - 1)] } };
    await expect(service.searchMessages({ engines: { iterable: [deep(3)] } } as never)).resolves.toBeDefined();
    await expect(service.searchMessages({ engines: { iterable: [deep(4)] } } as never)).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await expect(service.searchMessages(query('x'), { limit: 0 })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await expect(service.searchMessages(query('x'), { limit: 1001 })).rejects.toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
  });
});

describe('searchConversationMessages', () => {
  it("searches one conversation's messages; NOT_FOUND for an unknown conversation", async () => {
    const { service } = await serviceForTest();
    const { react, docker, message } = await seeded(service);
    expect(ids(await service.searchConversationMessages(docker.id, query('build')))).toEqual([message(docker, 1)]);
    expect(ids(await service.searchConversationMessages(react.id, query('build')))).toEqual([]);
    await expect(service.searchConversationMessages('nope', query('build'))).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});

describe('searchConversations', () => {
  it('finds conversations by their messages, with the messages that matched', async () => {
    const { service } = await serviceForTest();
    const { react, node, message } = await seeded(service);
    const answer = await service.searchConversations(query('import module'));
    expect(ids(answer)).toEqual([node.id]);
    const [hit] = answer.iterable;
    expect(hit!.conversation?.id).toBe(node.id);
    expect(hit!.messages?.iterable.map((m) => m.identifier)).toEqual(expect.arrayContaining([message(node, 0), message(node, 1)]));
    expect(ids(await service.searchConversations(query('twice')))).toEqual([react.id]);
  });

  it('finds conversations by name, following renames, and by their summaries', async () => {
    const { service } = await serviceForTest({ summarizer: createFakeSummarizer({ summary: 'Hooks firing twice under StrictMode.' }) });
    const { docker, react } = await seeded(service);
    await service.updateConversation({ id: docker.id, name: 'Container diet' });
    expect(ids(await service.searchConversations(query('container diet')))).toEqual([docker.id]);
    await service.updateConversation({ id: docker.id, name: 'Slim images' });
    expect(ids(await service.searchConversations(query('container')))).toEqual([]);
    // A word of the summary alone: the conversation is found by its annotation, and shows it.
    const { annotation } = await service.summarizeConversation(react.id);
    const found = await service.searchConversations(query('hooks firing'));
    expect(ids(found)).toEqual([react.id]);
    expect(found.iterable[0]!.annotations?.iterable.map((a) => a.identifier)).toEqual([annotation.id]);
  });

  it('ranks a conversation whose first request matches above one that mentions the words in passing', async () => {
    const { service } = await serviceForTest();
    const asked = await conversationWith(service, said('USER', 'How do I paginate a GraphQL query?'), said('ASSISTANT', 'Use cursors.'));
    const passing = await conversationWith(
      service,
      said('USER', 'Review my API design'),
      said('ASSISTANT', 'Looks fine. Later you may paginate the GraphQL query results, and add caching, and logging, and metrics.'),
    );
    expect(ids(await service.searchConversations(query('paginate graphql query')))).toEqual([asked.id, passing.id]);
  });

  it('no longer finds a deleted conversation', async () => {
    const { service } = await serviceForTest();
    const { node } = await seeded(service);
    await service.deleteConversation(node.id);
    expect(ids(await service.searchConversations(query('module')))).toEqual([]);
  });

  it('answers each conversation with its messages by id alone, however long it is', async () => {
    const { service } = await serviceForTest();
    const { node } = await seeded(service);
    const [hit] = (await service.searchConversations(query('module'))).iterable;
    expect(hit!.conversation!.messages.iterable).toEqual(node.messages.iterable.map((m) => ({ id: m.id })));
    expect(hit!.conversation!.messages.indices).toEqual(Object.fromEntries(node.messages.iterable.map((m, i) => [m.id, i])));
    expect(hit!.conversation!.name).toBe(node.name);
  });

  it('leaves the conversation out when transferables are off', async () => {
    const { service } = await serviceForTest();
    const { docker } = await seeded(service);
    const [hit] = (await service.searchConversations(query('docker'), { transferables: false })).iterable;
    expect(hit!.identifier).toBe(docker.id);
    expect(hit!.conversation).toBeUndefined();
    expect(hit!.messages!.iterable[0]!.message).toBeUndefined();
  });
});
