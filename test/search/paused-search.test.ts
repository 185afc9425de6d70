/**
 * A search that has paused (it gives other requests a turn every few milliseconds) reads the index
 * as it was when it started: writes that come meanwhile are held, in order, and applied before the
 * next search. Searches are made to pause at every point they may by a clock that has always run
 * out, so the tests say what happens in order, never how long it takes.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { MessageRecord, TextQuery } from '../../src/index.js';
import type { RecordChange } from '../../src/ports.js';
import { SearchIndex } from '../../src/search/search-index.js';
import { queryWords } from '../../src/search/tokens.js';
import { messageRecord } from '../../src/testing/records.js';

const message = (id: string, text: string): RecordChange => {
  const record: MessageRecord = { ...messageRecord(id, 'c1'), fragment: { string: { raw: text } } };
  return { collection: 'messages', id, record };
};
const removed = (id: string): RecordChange => ({ collection: 'messages', id, record: null });
const query = (text: string): TextQuery => ({ text, words: queryWords(text), prefix: false, limit: 100_000 });
const ids = async (hits: Promise<{ id: string }[]>) => (await hits).map((hit) => hit.id).sort();

function pauseAtEveryStep(): void {
  let now = 0;
  vi.spyOn(performance, 'now').mockImplementation(() => (now += 100));
}
/** Resolves once the I/O and timers waiting now have had their turn: a search started before has paused by then. */
const aTurnLater = () => new Promise((resolve) => setImmediate(resolve));

afterEach(() => {
  vi.restoreAllMocks();
});

describe('a search that has paused', () => {
  it('does not see writes made meanwhile; they are applied, in order, before the next search starts', async () => {
    const index = new SearchIndex();
    index.apply([message('m1', 'kafka consumer lag'), message('m2', 'kafka partitions')]);
    pauseAtEveryStep();
    const first = ids(index.searchMessages(query('kafka')));
    await aTurnLater();
    // Written while the first search is paused: m3 about kafka, m1 rewritten (twice, the last one wins), m2 deleted.
    index.apply([message('m3', 'kafka rebalance')]);
    index.apply([message('m1', 'kafka again')]);
    index.apply([message('m1', 'redis streams')]);
    index.apply([removed('m2')]);
    const second = ids(index.searchMessages(query('kafka')));
    expect(await first).toEqual(['m1', 'm2']);
    expect(await second).toEqual(['m3']);
    expect(await ids(index.searchMessages(query('redis')))).toEqual(['m1']);
  });

  it('answers the documents it started with, whole, though writes meanwhile would compact and renumber the index', async () => {
    const index = new SearchIndex();
    index.apply(Array.from({ length: 6000 }, (_, i) => message(`m${i}`, `kafka topic number ${i}`)));
    pauseAtEveryStep();
    const first = ids(index.searchMessages(query('kafka')));
    await aTurnLater();
    // Over 5,000 dead documents, and a fifth of all: applied now, this would compact the index.
    index.apply(Array.from({ length: 5500 }, (_, i) => removed(`m${i}`)));
    const all = Array.from({ length: 6000 }, (_, i) => `m${i}`).sort();
    expect(await first).toEqual(all);
    expect(await ids(index.searchMessages(query('kafka')))).toEqual(all.filter((id) => Number(id.slice(1)) >= 5500));
    expect(index.index.size).toBe(500);
  });

  it('makes the copy for the index file wait for it: the copy holds every write given before, those the search held too', async () => {
    const index = new SearchIndex();
    index.apply(Array.from({ length: 10 }, (_, i) => message(`m${i}`, `redis key ${i}`)));
    // Notes when the index's own search is done (its steps returned).
    const text = index.index;
    const steps = text.messageSearch.bind(text);
    let searched = false;
    vi.spyOn(text, 'messageSearch').mockImplementation(function* (q) {
      const hits = yield* steps(q);
      searched = true;
      return hits;
    });
    pauseAtEveryStep();
    const search = index.searchMessages(query('redis'));
    await aTurnLater();
    expect(searched).toBe(false);
    // Held while the search is paused: it must be in the copy all the same.
    index.apply([message('m10', 'redis key 10')]);
    const copied = await index.index.parts();
    expect(searched).toBe(true);
    expect(copied.ids).toHaveLength(11);
    expect(copied.ids).toContain('m10');
    expect(await search).toHaveLength(10);
  });
});
