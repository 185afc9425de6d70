import { describe, expect, it } from 'vitest';
import { topOf } from '../../src/search/top-scores.js';
import { runAtOnce } from '../../src/slices.js';

describe('topOf', () => {
  it('answers the k best items by score, ties by the lower item, as a full sort would', () => {
    let seed = 7;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    // Few distinct scores: many ties.
    const scores = Float64Array.from({ length: 20_000 }, () => Math.floor(random() * 50));
    const items = Array.from({ length: 15_000 }, () => Math.floor(random() * scores.length));
    const unique = [...new Set(items)];
    const sorted = [...unique].sort((a, b) => scores[b]! - scores[a]! || a - b);
    for (const k of [0, 1, 3, 1000, unique.length, unique.length + 5])
      expect(runAtOnce(topOf(unique, scores, k))).toEqual(sorted.slice(0, k));
  });

  it('pauses every thousand items', () => {
    const items = Array.from({ length: 10_000 }, (_, i) => i);
    const steps = topOf(items, Float64Array.from(items), 10);
    let pauses = 0;
    while (!steps.next().done) pauses++;
    expect(pauses).toBe(9);
  });
});
