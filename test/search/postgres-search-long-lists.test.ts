/**
 * Search on PostgreSQL over lists longer than a search reads whole: a conversation search reads a
 * long list best first, in part, and scores its best candidates again from all their rows (see
 * search-queries.ts). Against the embedded index, which scores every conversation: the same
 * conversations first.
 */
import { expect, it, onTestFinished } from 'vitest';
import type { Repository, TextQuery } from '../../src/ports.js';
import { withSearch } from '../../src/search/indexed-repository.js';
import { endsInWord, queryWords } from '../../src/search/tokens.js';
import { createMemoryRepository } from '../../src/stores/memory.js';
import { createPostgresRepository } from '../../src/stores/postgres/index.js';
import { conversationRecord } from '../../src/testing/records.js';
import { describeWithPostgres, freshSchema } from '../helpers/postgres.js';

/** More conversations hold each common word than a search reads of its list (400 and the limit). */
const CONVERSATIONS = 700;
const COMMON = ['deploy', 'cluster', 'pipeline', 'cache', 'token', 'query'];
const FILLER = 'alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa'.split(' ');

/** A fixed sequence of numbers in [0, 1): the same store every run. */
function seeded(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state / 2_147_483_648;
  };
}

/** Conversations of two messages: common words at random counts among filler of random lengths, some in the name. */
async function fill(stores: Repository[]): Promise<void> {
  const random = seeded(7);
  const pick = <T>(items: readonly T[]) => items[Math.floor(random() * items.length)]!;
  const text = () => Array.from({ length: 3 + Math.floor(random() * 40) }, () => (random() < 0.25 ? pick(COMMON) : pick(FILLER))).join(' ');
  const records = Array.from({ length: CONVERSATIONS }, (_, i) => {
    const id = `00000001-0000-4000-8000-${i.toString(16).padStart(12, '0')}`;
    const messages = ['USER', 'ASSISTANT'].map((role, m) => ({
      id: `00000002-0000-4000-8000-${(i * 2 + m).toString(16).padStart(12, '0')}`,
      created: { value: new Date(Date.UTC(2026, 0, 1, 0, 0, i * 2 + m)).toISOString() },
      updated: { value: new Date(Date.UTC(2026, 0, 1, 0, 0, i * 2 + m)).toISOString() },
      conversation: id,
      role,
      fragment: { string: { raw: text() } },
      groundedConversations: [],
    }));
    const name = random() < 0.1 ? `${pick(COMMON)} ${pick(FILLER)}` : `${pick(FILLER)} notes`;
    return { conversation: { ...conversationRecord(id, name), messages: messages.map((m) => m.id) }, messages };
  });
  for (const store of stores) {
    await store.transact((tx) => {
      for (const { conversation, messages } of records) {
        for (const message of messages) tx.put('messages', message as never);
        tx.put('conversations', conversation);
      }
    });
  }
}

describeWithPostgres('Search on PostgreSQL, lists longer than a search reads', (server) => {
  it('ranks the same conversations first as the embedded index, which scores every one', async () => {
    const postgres = await createPostgresRepository({ connectionString: server().url }, { schema: freshSchema('long') });
    onTestFinished(() => postgres.close());
    const embedded = withSearch(createMemoryRepository());
    onTestFinished(() => embedded.close());
    await fill([postgres, embedded]);
    for (const text of ['deploy', 'cluster cache', 'token query pipeline', 'deploy cach', 'que']) {
      const query: TextQuery = { text, words: queryWords(text), prefix: endsInWord(text), limit: 20 };
      const ids = async (store: Repository) => (await store.search!.searchConversations(query)).map((hit) => hit.id);
      const [got, wanted] = [await ids(postgres), await ids(embedded)];
      expect(got.slice(0, 5), text).toEqual(wanted.slice(0, 5));
      // Further down, scores close together may be ordered apart; the same conversations are found.
      expect(got.filter((id) => wanted.includes(id)).length, text).toBeGreaterThanOrEqual(18);
    }
  });
});
