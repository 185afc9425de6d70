/**
 * The costly searches a hostile local client can send (issue 25), each through the HTTP router
 * against a small store: answered 200, or refused 413 naming the budget, and the request's work
 * counters (`SearchBudget.used`, as the service hands them to the index) within the documented
 * caps. Whether the event loop stays free is an ordering here (a health request answered while a
 * search is still under way), never a time: bench/attacks.ts measures the times.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  createMemoryRepository,
  type QueryWord,
  type Repository,
  SEARCH_BUDGET,
  type SearchBudget,
  type SearchBudgetLimits,
  type TextQuery,
  type TextSearch,
} from '../../src/index.js';
import { MAX_IDENTIFIER_PARTS, MAX_WORD_TERMS } from '../../src/search/tokens.js';
import { expectError, expectJson, routerForTest, stateOf } from '../helpers/http.js';
import { conversationWith, said } from '../helpers/service.js';

/** A small seeded generator (mulberry32): the same bodies in every run. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const random = seeded(25);
const letters = (count: number) => Array.from({ length: count }, () => String.fromCharCode(97 + Math.floor(random() * 26))).join('');

const COMMON = 'error file code function return value import module server client request response build config test'.split(' ');
const CHINESE = '的一是不了人我在有他这为之大来以个中上们到说国和地也子时道出而要于就下得可生自会那后能对着事其里所去行过家十用发天';
const commonText = (chars: number) => {
  let text = '';
  while (text.length + 10 < chars) text += `${COMMON[Math.floor(random() * COMMON.length)]} `;
  return text.trim();
};
const chinese = (count: number) => Array.from({ length: count }, () => CHINESE[Math.floor(random() * CHINESE.length)]).join('');
/** `count` engines, each with the query `make` gives. */
const engines = (count: number, make: () => string) => ({
  engines: { iterable: Array.from({ length: count }, () => ({ query: make() })) },
});

/** Spellings one edit away from a word of `n` distinct letters: deletions, swaps, changes, insertions. */
const spellings = (n: number) => n + (n - 1) + 35 * n + 36 * (n + 1);

/**
 * A memory store whose search hands every query the service sends to the store's own index, and
 * keeps them: their budgets are the request's work counters. `first` resolves at the first. With
 * `lowerBound: false`, the search cannot say what a query's words hold before it runs.
 */
function recordingStore(lowerBound = true) {
  const inner = createMemoryRepository();
  const queries: TextQuery[] = [];
  const index = inner.search!;
  let done = 0;
  let started!: () => void;
  const first = new Promise<void>((resolve) => (started = resolve));
  const record = <T>(query: TextQuery, search: Promise<T>) => {
    queries.push(query);
    started();
    return search.finally(() => done++);
  };
  const search: TextSearch = {
    searchMessages: (query) => record(query, index.searchMessages(query)),
    searchConversations: (query) => record(query, index.searchConversations(query)),
    ...(lowerBound ? { postings: (words: readonly QueryWord[]) => index.postings!(words) } : {}),
  };
  const repository: Repository = { read: (fn) => inner.read(fn), transact: (fn) => inner.transact(fn), close: () => inner.close(), search };
  return {
    repository,
    queries,
    /** Every budget the queries carried, each once: one per request. */
    budgets: (): SearchBudget[] => [...new Set(queries.map((query) => query.budget!))],
    first,
    /** Index searches finished. */
    finished: () => done,
  };
}

/** A router over a recording store seeded with chats of common words, Chinese and an identifier-heavy one. */
async function attacked(searchBudget: Partial<SearchBudgetLimits> = {}, lowerBound = true) {
  const store = recordingStore(lowerBound);
  const { service, http } = await routerForTest({ service: { repository: store.repository, searchBudget } });
  for (let c = 0; c < 12; c++) {
    await conversationWith(
      service,
      said('USER', commonText(400)),
      said('ASSISTANT', `${commonText(300)} ${chinese(40)}`),
      said('USER', 'useEffect ERR_MODULE_NOT_FOUND getServerConfigValue'),
    );
  }
  const body = async (route: string, input: unknown) => {
    store.queries.length = 0;
    return http.postJson(route, input);
  };
  return { ...store, service, http, body };
}

/** The one budget of the request just made. */
function budgetOf(store: { budgets(): SearchBudget[] }): SearchBudget {
  const budgets = store.budgets();
  expect(budgets).toHaveLength(1);
  return budgets[0]!;
}

/** Every `due` of a slice's clock is past: searches pause at every point they may. */
function pauseAtEveryStep(): void {
  let now = 0;
  vi.spyOn(performance, 'now').mockImplementation(() => (now += 100));
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('the work of one search request is bounded', () => {
  it('expands typos by the words expanded, not those found: 16 engines of 32 made-up 24-letter words try 4 words', async () => {
    const store = await attacked();
    const answer = await store.body(
      '/conversations/search',
      engines(16, () => Array.from({ length: 32 }, () => letters(24)).join(' ')),
    );
    expect(expectJson(answer).iterable).toEqual([]);
    // Four words of the first engine fill the budget; no later word fits in what is left.
    const used = budgetOf(store).used;
    expect(used.typoSpellings).toBeLessThanOrEqual(SEARCH_BUDGET.typoSpellings);
    expect(used.typoSpellings).toBeLessThanOrEqual(4 * spellings(24));
    expect(used.typoSpellings).toBeGreaterThan(3 * spellings(24));
  });

  it('still finds a typo after made-up words, while the budget has room for it', async () => {
    const store = await attacked();
    const answer = await store.body('/messages/search', { engines: { iterable: [{ query: `${letters(12)} fucntion` }] } });
    expect(expectJson(answer).iterable.length).toBeGreaterThan(0);
    expect(budgetOf(store).used.typoSpellings).toBe(spellings(12) + spellings(8));
  });

  it('looks for an identifier by its first 16 parts: 16 engines of one ~130-part identifier', async () => {
    const store = await attacked();
    const identifier = () => {
      let word = 'get';
      for (let part = 1; part < 130 && word.length < 990; part++) {
        const next = COMMON[Math.floor(random() * COMMON.length)]!;
        word += next[0]!.toUpperCase() + next.slice(1);
      }
      return word;
    };
    expectJson(await store.body('/conversations/search', engines(16, identifier)));
    expect(store.queries).toHaveLength(16);
    for (const query of store.queries) {
      expect(query.words).toHaveLength(1);
      expect(query.words[0]!.terms.length).toBeLessThanOrEqual(1 + MAX_IDENTIFIER_PARTS);
    }
    expect(budgetOf(store).used.postings).toBeLessThanOrEqual(SEARCH_BUDGET.postings);
  });

  it('refuses a request whose words hold more postings than the budget with 413 naming it, before any engine runs', async () => {
    const store = await attacked();
    const attack = engines(16, () => commonText(1000));
    expectJson(await store.body('/conversations/search', attack));
    const needed = budgetOf(store).used.postings;
    expect(needed).toBeGreaterThan(0);

    const tight = await attacked({ postings: Math.floor(needed / 2) });
    const state = await stateOf(tight.http);
    const refused = expectError(await tight.body('/conversations/search', attack), 413, 'PAYLOAD_TOO_LARGE');
    expect(refused).toMatchObject({ budget: 'postings', limit: Math.floor(needed / 2) });
    expect(tight.queries).toEqual([]);
    expect(await stateOf(tight.http)).toEqual(state);
  });

  it('counts the postings of each engine before it walks them, where the index cannot say beforehand', async () => {
    const store = await attacked({}, false);
    const attack = engines(16, () => commonText(1000));
    expectJson(await store.body('/conversations/search', attack));
    const needed = budgetOf(store).used.postings;
    const before = await store.body(
      '/messages/search',
      engines(1, () => 'function value'),
    );

    const tight = await attacked({ postings: Math.floor(needed / 2) }, false);
    const refused = expectError(await tight.body('/conversations/search', attack), 413, 'PAYLOAD_TOO_LARGE');
    expect(refused).toMatchObject({ budget: 'postings', limit: Math.floor(needed / 2) });
    // Refused before the walk that would have gone past it: what was counted stays within it.
    expect(tight.queries.length).toBeGreaterThan(0);
    expect(tight.queries.length).toBeLessThan(16);
    expect(budgetOf(tight).used.postings).toBeLessThanOrEqual(Math.floor(needed / 2));
    // And the index is as it was: the next search answers as before.
    const after = await store.body(
      '/messages/search',
      engines(1, () => 'function value'),
    );
    expect(after.body).toEqual(before.body);
  });

  it("counts the answer's records (limit=1000, 16 long engines), and refuses past the budget with 413 naming it", async () => {
    const store = await attacked();
    const attack = engines(16, () => commonText(1000));
    const answer = expectJson(await store.body('/conversations/search?limit=1000', attack));
    expect(answer.iterable.length).toBe(12);
    const read = budgetOf(store).used.recordChars;
    // Every conversation's matching messages' texts, at least.
    expect(read).toBeGreaterThan(12 * 400);
    expect(read).toBeLessThanOrEqual(SEARCH_BUDGET.recordChars);

    const tight = await attacked({ recordChars: 5_000 });
    const state = await stateOf(tight.http);
    const refused = expectError(await tight.body('/conversations/search?limit=1000', attack), 413, 'PAYLOAD_TOO_LARGE');
    expect(refused).toMatchObject({ budget: 'recordChars', limit: 5_000 });
    expect(budgetOf(tight).used.recordChars).toBe(0);
    expect(await stateOf(tight.http)).toEqual(state);
  });

  it('looks at a bounded number of terms for a prefix: the most frequent 32 of at most 16,384 a word, 65,536 a request', async () => {
    const store = await attacked();
    // 17,000 made-up words starting with `zq` (letters only, so none splits into parts).
    const base26 = (n: number) =>
      [...n.toString(26).padStart(4, '0')].map((d) => String.fromCharCode(97 + Number.parseInt(d, 26))).join('');
    const words = Array.from({ length: 17_000 }, (_, i) => `zq${base26(i)}x`);
    await conversationWith(store.service, said('USER', words.join(' ')));

    expect(
      expectJson(
        await store.body(
          '/messages/search',
          engines(1, () => 'zq'),
        ),
      ).iterable.length,
    ).toBeGreaterThan(0);
    expect(budgetOf(store).used.prefixTerms).toBe(SEARCH_BUDGET.prefixTermsPerWord);

    expect(
      expectJson(
        await store.body(
          '/conversations/search',
          engines(16, () => 'zq'),
        ),
      ).iterable.length,
    ).toBeGreaterThan(0);
    expect(budgetOf(store).used.prefixTerms).toBe(SEARCH_BUDGET.prefixTerms);
  });

  it('counts engines nested AND/OR four levels deep against one budget', async () => {
    const store = await attacked();
    const nested = (level: number): Record<string, unknown> => ({
      query: commonText(60),
      ...(level < 3
        ? {
            operations: {
              type: level % 2 === 0 ? 'OR' : 'AND',
              iterable: level === 2 ? Array.from({ length: 13 }, () => ({ query: commonText(60) })) : [nested(level + 1)],
            },
          }
        : {}),
    });
    expectJson(await store.body('/conversations/search', { engines: { iterable: [nested(0)] } }));
    expect(store.queries).toHaveLength(16);
    expect(budgetOf(store).used.postings).toBeGreaterThan(0);
  });

  it('looks for the first 32 pairs of a run of Chinese: 16 engines of 1,000 characters', async () => {
    const store = await attacked();
    const answer = expectJson(
      await store.body(
        '/conversations/search',
        engines(16, () => chinese(1000)),
      ),
    );
    expect(answer.iterable.length).toBeGreaterThan(0);
    for (const query of store.queries) for (const word of query.words) expect(word.terms.length).toBeLessThanOrEqual(MAX_WORD_TERMS);
    expect(budgetOf(store).used.postings).toBeLessThanOrEqual(SEARCH_BUDGET.postings);
  });
});

describe('a search gives other requests their turn', () => {
  it('answers a health request made while a search is under way before the search ends', async () => {
    const store = await attacked();
    pauseAtEveryStep();
    const search = store.body(
      '/conversations/search',
      engines(16, () => commonText(1000)),
    );
    await store.first;
    // The index has started the search: a search that held the event loop would end before this answer.
    const health = await store.http.get('/.well-known/health');
    expect(health.status).toBe(200);
    expect(store.finished()).toBe(0);
    expectJson(await search);
    expect(store.finished()).toBe(16);
  });
});
