import { describe, expect, it } from 'vitest';
import { Backoff } from '../../src/stores/json-file/backoff.js';

describe('Backoff (when a failing compaction is tried again)', () => {
  it('waits 1 s after a failure, twice as long after each failure in a row up to 5 minutes, and not at all after a success', () => {
    const backoff = new Backoff();
    expect(backoff.due(0)).toBe(true);
    const waits: number[] = [];
    let now = 0;
    for (let i = 0; i < 12; i++) {
      backoff.failed(now);
      let wait = 0;
      while (!backoff.due(now + wait)) wait += 500;
      waits.push(wait);
      now += wait;
    }
    expect(waits).toEqual([1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 64_000, 128_000, 256_000, 300_000, 300_000, 300_000]);
    expect(backoff.describe(now - 100_000)).toBe('in 100 s at the earliest');
    backoff.succeeded();
    expect(backoff.due(now)).toBe(true);
    backoff.failed(now);
    expect(backoff.due(now + 999)).toBe(false);
    expect(backoff.due(now + 1_000)).toBe(true);
  });
});
