/**
 * Two service processes (the command's `serve`, DATABASE_URL set) on one throw-away PostgreSQL
 * database, as two instances behind a load balancer: the official client,
 * `@pieces.app/pieces-os-client`, unmodified, finds through one what it wrote through the other
 * (a conversation, increments split between them, a link on both sides, a search right after the
 * write); then one is killed with SIGKILL while both take writes, and every write it acknowledged
 * is there through the other, nothing dangles, and the other never failed a request.
 */
import {
  Configuration,
  ConversationApi,
  ConversationMessagesApi,
  ConversationsApi,
  type SearchInput,
  WebsitesApi,
} from '@pieces.app/pieces-os-client';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createPostgresRepository } from '../../src/stores/postgres/index.js';
import { describeWithPostgres, freshSchema } from '../helpers/postgres.js';
import { type ServeProcess, startServeProcess } from '../helpers/serve-process.js';
import { tempDir } from '../helpers/temp-dir.js';
import { storedRelationProblems } from '../security/fuzz-helpers.js';

function clientsFor(basePath: string) {
  const configuration = new Configuration({ basePath });
  return {
    conversation: new ConversationApi(configuration),
    conversations: new ConversationsApi(configuration),
    messages: new ConversationMessagesApi(configuration),
    websites: new WebsitesApi(configuration),
  };
}

const ids = (list: { iterable?: { id: string }[] } | undefined) => (list?.iterable ?? []).map((item) => item.id);
const search = (query: string): SearchInput => ({ engines: { iterable: [{ query }] } });

describeWithPostgres('two service processes on one PostgreSQL database', (postgres) => {
  const schema = freshSchema('instances');
  let a: ServeProcess;
  let b: ServeProcess;
  let viaA: ReturnType<typeof clientsFor>;
  let viaB: ReturnType<typeof clientsFor>;

  beforeAll(async () => {
    // One data folder for both, as instances sharing DATA_DIR would: it holds only the models' cache.
    const dataDir = await tempDir();
    const env = { DATABASE_URL: postgres().url, DATABASE_SCHEMA: schema };
    // Started together, on an empty schema: one migrates it, the other waits for it (the advisory lock).
    [a, b] = await Promise.all([startServeProcess(dataDir, env), startServeProcess(dataDir, env)]);
    viaA = clientsFor(a.url);
    viaB = clientsFor(b.url);
  }, 60_000);
  afterAll(() => {
    a?.kill();
    b?.kill();
  });

  it('reads through B a conversation created through A', async () => {
    const created = await viaA.conversations.conversationsCreateSpecificConversation({
      seededConversation: {
        type: 'COPILOT',
        name: 'Written through A',
        messages: [{ role: 'USER', fragment: { string: { raw: 'Which instance keeps this?' } } }],
      },
    });
    const read = await viaB.conversation.conversationGetSpecificConversation({ conversation: created.id });
    expect(read.name).toBe('Written through A');
    expect(ids(read.messages)).toEqual(ids(created.messages));
    expect(read.messages.iterable.map((item) => item.reference?.fragment?.string?.raw)).toEqual(['Which instance keeps this?']);
  });

  it('adds up increments split across A and B, none failing', async () => {
    const { id } = await viaB.conversations.conversationsCreateSpecificConversation({ seededConversation: { type: 'COPILOT' } });
    const outcomes = await Promise.allSettled(
      Array.from({ length: 40 }, (_, i) =>
        (i % 2 === 0 ? viaA : viaB).conversation.conversationScoresIncrement({
          conversation: id,
          seededScoreIncrement: { conversation: { reuse: true } },
        }),
      ),
    );
    expect(outcomes.filter((outcome) => outcome.status === 'rejected')).toEqual([]);
    for (const via of [viaA, viaB])
      expect((await via.conversation.conversationGetSpecificConversation({ conversation: id })).score?.reuse).toBe(40);
  });

  it('shows through B both sides of a link made through A, and through A both sides of its removal through B', async () => {
    const { id } = await viaA.conversations.conversationsCreateSpecificConversation({ seededConversation: { type: 'COPILOT' } });
    const website = await viaA.websites.websitesCreateNewWebsite({
      seededWebsite: { url: 'https://www.postgresql.org/docs/', name: 'Docs' },
    });
    const websiteSide = async (via: typeof viaA) =>
      ids((await via.websites.websitesSnapshot()).iterable.find((other) => other.id === website.id)?.conversations);
    const conversationSide = async (via: typeof viaA) =>
      ids((await via.conversation.conversationGetSpecificConversation({ conversation: id })).websites);
    await viaA.conversation.conversationAssociateWebsite({ conversation: id, website: website.id });
    expect(await conversationSide(viaB)).toEqual([website.id]);
    expect(await websiteSide(viaB)).toEqual([id]);
    await viaB.conversation.conversationDisassociateWebsite({ conversation: id, website: website.id });
    expect(await conversationSide(viaA)).toEqual([]);
    expect(await websiteSide(viaA)).toEqual([]);
  });

  it('finds through one instance, by search, what the other acknowledged a moment before', async () => {
    const { id } = await viaA.conversations.conversationsCreateSpecificConversation({ seededConversation: { type: 'COPILOT' } });
    const words = ['quokka', 'zeppelin', 'marmalade', 'fjord'];
    for (const [i, word] of words.entries()) {
      const [writer, reader] = i % 2 === 0 ? [viaA, viaB] : [viaB, viaA];
      const message = await writer.messages.messagesCreateSpecificMessage({
        seededConversationMessage: { role: 'USER', fragment: { string: { raw: `a ${word} in the logs` } }, conversation: { id } },
      });
      const found = await reader.messages.searchMessages({ searchInput: search(word) });
      expect(found.iterable.map((hit) => hit.identifier)).toEqual([message.id]);
    }
  });

  it('keeps every write the instance killed with SIGKILL acknowledged, nothing dangling, and the other fails no request', async () => {
    const post = async (server: ServeProcess, route: string, body: unknown): Promise<Response> => {
      const response = await fetch(`${server.url}${route}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(10_000),
      });
      if (!response.ok) throw new Error(`${route}: ${response.status} ${await response.text()}`);
      return response;
    };
    const conversations = await Promise.all(
      ['first', 'second'].map(
        async (name) => ((await (await post(b, '/conversations/create', { type: 'COPILOT', name })).json()) as { id: string }).id,
      ),
    );
    const [counter] = conversations;
    const acknowledged = { messages: new Set<string>(), increments: 0 };
    const failures = { a: [] as string[], b: [] as string[] };
    let killed = false;
    let acknowledgedByA = 0;
    // Requests sent to A and not answered yet, and how many there were when it was killed.
    let pendingAtA = 0;
    let pendingAtKill = 0;
    // Bounded: at most 40 writes per writer, and 8 s.
    const until = Date.now() + 8_000;
    const writer = (server: ServeProcess, name: 'a' | 'b', w: number) => async () => {
      for (let i = 0; i < 40 && Date.now() < until; i++) {
        // After the kill, B's writers go on for a while: what B serves then counts too.
        if (name === 'a' && killed) return;
        if (name === 'a') pendingAtA++;
        try {
          if (i % 3 === 2) {
            await post(server, `/conversation/${counter}/scores/increment`, { conversation: { reuse: true } });
            acknowledged.increments++;
          } else {
            const response = await post(server, '/messages/create', {
              role: 'USER',
              fragment: { string: { raw: `${name}${w} write ${i}` } },
              conversation: { id: conversations[(w + i) % 2] },
            });
            acknowledged.messages.add(((await response.json()) as { id: string }).id);
          }
          if (name === 'a') pendingAtA--;
          if (name === 'a' && ++acknowledgedByA === 30) {
            // Mid-write: A's other writers have requests under way.
            killed = true;
            pendingAtKill = pendingAtA;
            a.kill();
          }
        } catch (error) {
          if (name === 'a') pendingAtA--;
          failures[name].push(`${(error as Error).message} (${killed ? 'after' : 'before'} the kill)`);
        }
      }
    };
    // And a reader of B throughout.
    const reads: Promise<void> = (async () => {
      for (let i = 0; i < 200 && Date.now() < until && !(killed && failures.b.length > 0); i++) {
        const response = await fetch(`${b.url}/conversation/${counter}`, { signal: AbortSignal.timeout(10_000) }).catch(
          (error: Error) => error,
        );
        if (response instanceof Error || !response.ok)
          failures.b.push(`read: ${response instanceof Error ? response.message : response.status}`);
        else await response.text();
        if (killed && i > 40) return;
      }
    })();
    await Promise.all([...[0, 1, 2].map((w) => writer(a, 'a', w)()), ...[0, 1, 2].map((w) => writer(b, 'b', w)()), reads]);
    expect(killed).toBe(true);
    expect(failures.b).toEqual([]);
    // Killed mid-write: requests to A were under way. It failed only those (the ones it had not
    // answered before it died), one per writer at most.
    expect(pendingAtKill).toBeGreaterThan(0);
    expect(failures.a.every((failure) => failure.endsWith('(after the kill)'))).toBe(true);
    expect(failures.a.length).toBeLessThanOrEqual(pendingAtKill);

    // Every acknowledged write, read through B.
    const stored = new Set<string>();
    for (const conversation of conversations) {
      const listing = await viaB.conversation.conversationSpecificConversationMessages({ conversation, transferables: false });
      for (const message of listing.iterable) stored.add(message.id);
    }
    expect([...acknowledged.messages].filter((id) => !stored.has(id))).toEqual([]);
    // Beyond them, at most the messages A had under way when it died (committed, unanswered).
    expect(stored.size - acknowledged.messages.size).toBeLessThanOrEqual(failures.a.length);
    const score = (await viaB.conversation.conversationGetSpecificConversation({ conversation: counter! })).score?.reuse ?? 0;
    expect(score).toBeGreaterThanOrEqual(acknowledged.increments);
    expect(score).toBeLessThanOrEqual(acknowledged.increments + failures.a.length);
    // Both sides of every link agree, across the whole schema.
    const repository = await createPostgresRepository({ connectionString: postgres().url }, { schema });
    try {
      expect(await storedRelationProblems(repository)).toEqual([]);
    } finally {
      await repository.close();
    }
  });
});
