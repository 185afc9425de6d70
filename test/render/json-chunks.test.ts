import { describe, expect, it } from 'vitest';
import { jsonChunks, stringifyInSlices } from '../../src/render/json-chunks.js';

const longList = (n: number) => Array.from({ length: n }, (_, i) => ({ id: String(i), text: `item "${i}"\n`, skipped: undefined }));

// Values shaped like the answers: long lists at the top, nested in wrappers, inside short lists,
// with what JSON.stringify leaves out (undefined, functions) or turns into null (in arrays).
const VALUES: Record<string, unknown> = {
  'a short object': { a: 1, list: [1, 2, 3] },
  'a long list': longList(1_000),
  'a long list in a wrapper': { iterable: longList(700), indices: { a: 1 }, skip: undefined, f: () => 1 },
  'long lists inside a short list': [{ messages: { iterable: longList(600) } }, 1, 'x', null],
  'holes and undefined in a long list': Array.from({ length: 600 }, (_, i) => (i % 3 === 0 ? undefined : { i })),
  'a scalar': 'just text',
};

describe('jsonChunks', () => {
  for (const [name, value] of Object.entries(VALUES)) {
    it(`joins to JSON.stringify's text: ${name}`, async () => {
      expect([...jsonChunks(value)].join('')).toBe(JSON.stringify(value));
      expect(await stringifyInSlices(value)).toBe(JSON.stringify(value));
    });
  }

  it('cuts a long list into pieces of a few hundred items, so no piece holds the whole answer', () => {
    const pieces = [...jsonChunks({ messages: { iterable: longList(20_000) } })];
    expect(pieces.length).toBeGreaterThan(30);
    const whole = pieces.join('').length;
    expect(Math.max(...pieces.map((piece) => piece.length))).toBeLessThan(whole / 20);
  });

  it('cuts a list of large items (a page of search hits) into pieces of about 64 K characters', () => {
    const hits = Array.from({ length: 300 }, (_, i) => ({ identifier: String(i), snippet: 'x'.repeat(6_000) }));
    const pieces = [...jsonChunks({ iterable: hits })];
    expect(pieces.join('')).toBe(JSON.stringify({ iterable: hits }));
    // Each piece: under 64 K characters, and one item that took it past them.
    expect(Math.max(...pieces.map((piece) => piece.length))).toBeLessThan(64 * 1024 + 6_100);
    expect(pieces.length).toBeGreaterThan(25);
  });
});
