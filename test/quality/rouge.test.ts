import { describe, expect, it } from 'vitest';
import { porterStem } from '../../bench/quality/porter.js';
import { lcsLength, rouge, tokenize } from '../../bench/quality/rouge.js';

describe('porterStem', () => {
  it('stems the examples of Porter (1980) as NLTK does', () => {
    const pairs: Array<[string, string]> = [
      ['caresses', 'caress'],
      ['ponies', 'poni'],
      ['cats', 'cat'],
      ['feed', 'feed'],
      ['agreed', 'agre'],
      ['plastered', 'plaster'],
      ['motoring', 'motor'],
      ['sing', 'sing'],
      ['conflated', 'conflat'],
      ['troubled', 'troubl'],
      ['sized', 'size'],
      ['hopping', 'hop'],
      ['falling', 'fall'],
      ['hissing', 'hiss'],
      ['filing', 'file'],
      ['happy', 'happi'],
      ['relational', 'relat'],
      ['rational', 'ration'],
      ['conditional', 'condit'],
      ['digitizer', 'digit'],
      ['vietnamization', 'vietnam'],
      ['hopefulness', 'hope'],
      ['electrical', 'electr'],
      ['adjustment', 'adjust'],
      ['adoption', 'adopt'],
      ['generously', 'gener'],
      ['controlling', 'control'],
      ['oscillators', 'oscil'],
      ['conversations', 'convers'],
      ['deployment', 'deploy'],
      ['summaries', 'summari'],
      ['quickly', 'quickli'],
      ['person1', 'person1'],
    ];
    for (const [word, stem] of pairs) expect(porterStem(word), word).toBe(stem);
  });

  it("follows NLTK's extensions by default and the published algorithm on request", () => {
    // NLTK_EXTENSIONS (what rouge_score uses) versus ORIGINAL_ALGORITHM.
    const pairs: Array<[string, string, string]> = [
      ['ties', 'tie', 'ti'],
      ['died', 'die', 'di'],
      ['dying', 'die', 'dy'],
      ['skies', 'sky', 'ski'],
      ['enjoy', 'enjoy', 'enjoi'],
      ['playing', 'play', 'plai'],
      ['news', 'news', 'new'],
    ];
    for (const [word, nltk, original] of pairs) {
      expect(porterStem(word), word).toBe(nltk);
      expect(porterStem(word, { original: true }), word).toBe(original);
    }
  });

  it('differs from Porter2 where the two algorithms differ', () => {
    // Porter2 (wink-porter2-stemmer, Snowball English) gives `generous` and `fair` here.
    expect(porterStem('generously')).toBe('gener');
    expect(porterStem('fairly')).toBe('fairli');
  });
});

describe('rouge_score tokens', () => {
  it('lower-cases, splits on anything but [a-z0-9], and stems only words longer than 3 letters', () => {
    expect(tokenize("#Person1#: It's 3:30, isn't it? Running TESTS quickly!")).toEqual([
      'person1',
      'it',
      's',
      '3',
      '30',
      'isn',
      't',
      'it',
      'run',
      'test',
      'quickli',
    ]);
    expect(tokenize('café—naïve')).toEqual(['caf', 'na', 've']);
    expect(tokenize('  ...  ')).toEqual([]);
  });
});

describe('rouge', () => {
  it('scores a one-word substitution', () => {
    // ref: the cat sat on the mat (6)   pred: the cat lay on the mat (6)
    // R1: overlap the×2 + cat + on + mat = 5 → P = R = F = 5/6
    // R2: ref {the cat, cat sat, sat on, on the, the mat}, pred {the cat, cat lay, lay on, on the, the mat}
    //     overlap 3 of 5 each side → F = 3/5
    // RL: LCS "the cat on the mat" = 5 → 5/6
    const s = rouge('The cat sat on the mat.', 'The cat lay on the mat.');
    expect(s.rouge1.f1).toBeCloseTo(5 / 6, 10);
    expect(s.rouge2.f1).toBeCloseTo(3 / 5, 10);
    expect(s.rougeL.f1).toBeCloseTo(5 / 6, 10);
  });

  it('matches words through their stems', () => {
    // ref: run test quickli (3)   pred: he run the test (4)
    // R1: overlap run + test = 2 → P = 2/4, R = 2/3, F = 2·(1/2)(2/3) / (1/2 + 2/3) = (2/3) / (7/6) = 4/7
    // R2: ref {run test, test quickli}, pred {he run, run the, the test} → 0
    // RL: LCS "run test" = 2 → same as R1, 4/7
    const s = rouge('Running tests quickly', 'He runs the test');
    expect(s.rouge1.precision).toBeCloseTo(1 / 2, 10);
    expect(s.rouge1.recall).toBeCloseTo(2 / 3, 10);
    expect(s.rouge1.f1).toBeCloseTo(4 / 7, 10);
    expect(s.rouge2.f1).toBe(0);
    expect(s.rougeL.f1).toBeCloseTo(4 / 7, 10);
  });

  it('clips repeated n-grams and takes one LCS over the whole text', () => {
    // ref: a b c d (4)   pred: d c b a a (5)
    // R1: overlap a (min(1,2)=1) + b + c + d = 4 → P = 4/5, R = 4/4, F = 2·0.8·1 / 1.8 = 8/9
    // R2: no shared bigram → 0
    // RL: LCS of "a b c d" and "d c b a a" = 1 → P = 1/5, R = 1/4, F = 2·(1/20) / (9/20) = 2/9
    const s = rouge('a b c d', 'd c b a a');
    expect(s.rouge1.f1).toBeCloseTo(8 / 9, 10);
    expect(s.rouge2.f1).toBe(0);
    expect(s.rougeL.f1).toBeCloseTo(2 / 9, 10);
    expect(lcsLength(['a', 'b', 'c', 'd'], ['a', 'x', 'c', 'y', 'd'])).toBe(3);
  });

  it('scores zero against an empty text', () => {
    const s = rouge('Something was said.', '');
    expect([s.rouge1.f1, s.rouge2.f1, s.rougeL.f1]).toEqual([0, 0, 0]);
    expect(rouge('', '').rougeL.f1).toBe(0);
  });
});
