/**
 * The index's immutable segments (front-coded terms with their postings inline), the merge that
 * writes them, and the dictionary that reads them beside a mutable segment: what each term's
 * postings are must not depend on where they are kept.
 */
import { describe, expect, it } from 'vitest';
import { MutableSegment } from '../../src/search/mutable-segment.js';
import { mergeRuns } from '../../src/search/segment-merge.js';
import { TermDictionary } from '../../src/search/term-dictionary.js';
import { decodeKey, encodeKey, MAX_KEY_BYTES } from '../../src/search/term-keys.js';
import { type TermSegment, validateSegment } from '../../src/search/term-segment.js';
import { runAtOnce } from '../../src/slices.js';

type Postings = [doc: number, frequency: number][];

/** A seeded generator of numbers in [0, 1). */
function random(seed: number): () => number {
  return () => {
    seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
    return seed / 2 ** 32;
  };
}

/** Terms of every kind a segment holds: ASCII, accented, CJK pairs, a surrogate pair (emoji), and a character above the surrogates. */
const SPECIAL = ['a', 'ab', 'abc', 'abd', 'café', 'cafe', '搜索', '索对', '😀x', '\uff21b', 'zz', 'z'];

/** `count` random terms with postings among `docs` documents (most in one document, some in many). */
function corpus(count: number, docs: number, seed = 1): Map<string, Postings> {
  const next = random(seed);
  const terms = new Map<string, Postings>();
  for (const term of SPECIAL) terms.set(term, []);
  while (terms.size < count) {
    let term = '';
    const length = 1 + Math.floor(next() * 10);
    for (let i = 0; i < length; i++) term += String.fromCharCode(97 + Math.floor(next() * 26));
    terms.set(term, []);
  }
  for (const [, postings] of terms) {
    const many = next() < 0.2 ? Math.floor(next() * 40) + 2 : 1;
    let doc = Math.floor(next() * 10);
    for (let i = 0; i < many && doc < docs; i++) {
      postings.push([doc, next() < 0.8 ? 1 : 2 + Math.floor(next() * 300)]);
      doc += 1 + Math.floor(next() * (i % 7 === 0 ? 5000 : 30));
    }
    if (postings.length === 0) postings.push([docs - 1, 1]);
  }
  return terms;
}

/** The terms in a mutable segment (documents in increasing order, as the index adds them). */
function mutableOf(terms: ReadonlyMap<string, Postings>, base = 0): MutableSegment {
  const segment = new MutableSegment(base);
  const byDoc: [number, string, number][] = [];
  for (const [term, postings] of terms) for (const [doc, frequency] of postings) byDoc.push([doc, term, frequency]);
  byDoc.sort((a, b) => a[0] - b[0]);
  for (const [doc, term, frequency] of byDoc) segment.add(segment.listOf(term), doc, frequency);
  return segment;
}

const flushed = (mutable: MutableSegment, mapDoc = (doc: number) => doc): TermSegment =>
  runAtOnce(mergeRuns([mutable.cursor()], mapDoc, 1024));

function postingsOf(segment: TermSegment, term: string): Postings | undefined {
  const key = new Uint8Array(MAX_KEY_BYTES);
  const ref = segment.find(key, encodeKey(term, key));
  if (ref < 0) return undefined;
  const found: Postings = [];
  segment.forEachPosting(ref, (doc, frequency) => found.push([doc, frequency]));
  expect(segment.count(ref)).toBe(found.length);
  return found;
}

describe('term keys', () => {
  it('order as JavaScript orders the strings, surrogate pairs included, and decode to them', () => {
    const terms = [...SPECIAL].sort();
    const keys = terms.map((term) => {
      const key = new Uint8Array(MAX_KEY_BYTES);
      return key.slice(0, encodeKey(term, key));
    });
    const byBytes = [...keys.keys()].sort((a, b) => Buffer.compare(keys[a]!, keys[b]!));
    expect(byBytes).toEqual(terms.map((_, i) => i));
    for (const [i, term] of terms.entries()) expect(decodeKey(keys[i]!, 0, keys[i]!.length)).toBe(term);
  });
});

describe('TermSegment', () => {
  const terms = corpus(3000, 20_000);
  const segment = flushed(mutableOf(terms));

  it('finds every term it holds with its postings, and no other', () => {
    expect(segment.terms).toBe(terms.size);
    for (const [term, postings] of terms) expect(postingsOf(segment, term)).toEqual(postings);
    for (const absent of ['', 'aa0', 'abcc', 'zzzzzzzzzzzz', '😀', 'caf'])
      if (!terms.has(absent)) expect(postingsOf(segment, absent)).toBeUndefined();
  });

  it('costs a few bytes a term: the letters it does not share with its neighbour and its postings', () => {
    const singles = [...terms.values()].filter((postings) => postings.length === 1).length;
    expect(singles).toBeGreaterThan(terms.size / 2);
    let text = 0;
    for (const [term, postings] of terms) text += (term.length + 1) * postings.length;
    expect(segment.byteLength).toBeLessThan(text);
  });

  it('reads its terms in order from any point (what a prefix scan and a merge read)', () => {
    const sorted = [...terms.keys()].sort();
    const cursor = segment.seek();
    const read: string[] = [];
    while (cursor.next()) read.push(decodeKey(cursor.key, 0, cursor.keyLength));
    expect(read).toEqual(sorted);
    const key = new Uint8Array(MAX_KEY_BYTES);
    for (const from of ['ab', 'm', 'zz', 'café', '']) {
      const at = segment.seek(key, encodeKey(from, key));
      const first = at.next() ? decodeKey(at.key, 0, at.keyLength) : undefined;
      expect(first).toBe(sorted.find((term) => term >= from));
    }
  });

  it('passes its check, and fails it when its bytes are changed so that it could not be read safely', () => {
    expect(runAtOnce(validateSegment(segment, 20_000))).toBe(true);
    // A document past those the index has.
    expect(runAtOnce(validateSegment(segment, 100))).toBe(false);
    const changed = (at: number, value: number) => {
      const bytes = segment.bytes.slice();
      bytes[at] = value;
      return runAtOnce(validateSegment({ ...segment, bytes, blocks: segment.blocks } as TermSegment, 20_000));
    };
    // The first entry's head claiming a shared prefix (there is none), or a length past the end.
    expect(changed(0, 0x31)).toBe(false);
    expect(changed(segment.bytes.length - 1, 0xff)).toBe(false);
    // Cut short.
    const cut = { ...segment, bytes: segment.bytes.subarray(0, segment.bytes.length - 3) } as TermSegment;
    expect(runAtOnce(validateSegment(cut, 20_000))).toBe(false);
  });
});

describe('mergeRuns', () => {
  it('joins the runs’ postings of each term in run order, and drops those of dead documents (and terms left with none)', () => {
    const early = new Map<string, Postings>([
      ['alpha', [[0, 1]]],
      ['beta', [[1, 3]]],
      ['gone', [[2, 1]]],
    ]);
    const late = new Map<string, Postings>([
      ['alpha', [[5, 1]]],
      ['delta', [[6, 2]]],
    ]);
    const merged = runAtOnce(mergeRuns([flushed(mutableOf(early)).seek(), mutableOf(late).cursor()], (doc) => (doc === 2 ? -1 : doc), 64));
    expect(postingsOf(merged, 'alpha')).toEqual([
      [0, 1],
      [5, 1],
    ]);
    expect(postingsOf(merged, 'beta')).toEqual([[1, 3]]);
    expect(postingsOf(merged, 'delta')).toEqual([[6, 2]]);
    expect(postingsOf(merged, 'gone')).toBeUndefined();
    expect(merged.terms).toBe(3);
  });

  it('renumbers documents as told', () => {
    const terms = corpus(500, 5000, 7);
    const renumbered = flushed(mutableOf(terms), (doc) => (doc % 2 === 0 ? doc / 2 : -1));
    for (const [term, postings] of terms) {
      const kept = postings.filter(([doc]) => doc % 2 === 0).map(([doc, frequency]) => [doc / 2, frequency]);
      expect(postingsOf(renumbered, term)).toEqual(kept.length > 0 ? kept : undefined);
    }
  });
});

describe('TermDictionary', () => {
  /** A dictionary of `terms` written document by document, its mutable segment flushed every few dozen terms. */
  function dictionaryOf(terms: ReadonlyMap<string, Postings>, limit: number): TermDictionary {
    const dictionary = new TermDictionary([], 0, { terms: limit });
    const byDoc: [number, string, number][] = [];
    for (const [term, postings] of terms) for (const [doc, frequency] of postings) byDoc.push([doc, term, frequency]);
    byDoc.sort((a, b) => a[0] - b[0]);
    let doc = -1;
    for (const [at, term, frequency] of byDoc) {
      // Flushed between documents, as the index does.
      if (at !== doc && dictionary.flushDue) {
        dictionary.freeze(at);
        runAtOnce(dictionary.flush((d) => d));
      }
      doc = at;
      dictionary.add(dictionary.listOf(term), at, frequency);
    }
    return dictionary;
  }

  const terms = corpus(2000, 20_000, 3);
  const dictionary = dictionaryOf(terms, 97);

  it('answers each term’s postings as one list, whichever segments hold them', () => {
    expect(dictionary.segments.length).toBeGreaterThan(1);
    for (const [term, postings] of terms) {
      const found: Postings = [];
      const held = dictionary.find(term)!;
      held.forEach((doc, frequency) => found.push([doc, frequency]));
      expect(found).toEqual(postings);
      expect(held.count).toBe(postings.length);
    }
    expect(dictionary.find('not-a-term')).toBeUndefined();
  });

  it('lists the terms a prefix starts in order, across its segments, each with all its postings', () => {
    for (const prefix of ['a', 'ab', 'q', 'caf', 'zz', '搜']) {
      const seen = [...dictionary.termsWithPrefix(prefix)].map(([term, postings]) => [term, postings.count]);
      expect(seen).toEqual(
        [...terms.entries()]
          .filter(([term]) => term.startsWith(prefix))
          .sort(([a], [b]) => (a < b ? -1 : 1))
          .map(([term, postings]) => [term, postings.length]),
      );
    }
  });
});
