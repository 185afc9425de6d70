import { describe, expect, it } from 'vitest';
import { forEachTermOfWord, forEachWord } from '../../src/search/tokens.js';
import { WordLists } from '../../src/search/word-lists.js';

// The index finds a message's words with a scan of its own (word-lists.ts); a search finds a
// query's with forEachWord. Where the two disagreed, a word written would not be found as typed.
const TEXTS = [
  'Use exponential backoff with jitter: cap the delay, give up after a few tries.',
  'café crème, naïve façade — Größe/STRAẞE and Ünïcödé_ids like résumé2024',
  '请问useEffect怎么用？useEffect请问 ภาษาไทยไม่มีช่องว่าง 한국어문장 日本語とEnglish',
  'ERR_MODULE_NOT_FOUND in src/app.tsx at line 42; HTTPServer v2Api __init__',
  'emoji 😀 between words, 𝐛𝐨𝐥𝐝 math letters, 𠀀𠀁 CJK extension B, a\u0301 combining',
  '',
  ' ',
  '_',
  'x',
  'é',
  '😀',
  'abc',
  'abcé',
  'éabc',
  'ab😀cd',
  'tail ending in ascii',
];

/** Each term's number, the same for both ways of finding words. */
function numbering(): (word: string) => number[] {
  const numbers = new Map<string, number>();
  return (word) => {
    const lists: number[] = [];
    forEachTermOfWord(word, (term) => {
      if (!numbers.has(term)) numbers.set(term, numbers.size);
      lists.push(numbers.get(term)!);
    });
    return lists;
  };
}

describe('WordLists', () => {
  it('finds the words forEachWord finds, first seen and remembered', () => {
    const resolve = numbering();
    const words = new WordLists(resolve);
    for (const pass of [1, 2])
      for (const text of TEXTS) {
        const expected: number[] = [];
        forEachWord(text, (start, end) => expected.push(...resolve(text.slice(start, end))));
        const found: number[] = [];
        words.forEachList(text, (list) => found.push(list));
        expect(found, `${JSON.stringify(text)}, pass ${pass}`).toEqual(expected);
      }
  });
});
