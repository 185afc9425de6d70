import { ASCII_CLASS, type forEachWord, wordCharAt, wordEnd } from './tokens.js';

/** FNV-1a, 32 bits, over UTF-16 code units. */
const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

/** Words remembered at most; past it the cache starts again (the common words come back at once). */
const WORDS = 1 << 16;
const SLOTS = WORDS * 2;

/**
 * The posting lists of each word of a text, with the words seen before remembered as they were
 * written (`useEffect`, `Docker`): a word met again costs a hash and a comparison against the text
 * itself, with no string made, lower-cased, stemmed or looked up in the dictionary. Indexing a
 * message is mostly that: chats repeat their words. A word seen for the first time goes through
 * `resolve` (its terms, see `forEachTermOfWord`, as list numbers).
 */
export class WordLists {
  /** Hash table: entry + 1, or 0 for a free slot. */
  #slots = new Int32Array(SLOTS);
  #hashes = new Uint32Array(WORDS);
  #words: string[] = [];
  /** Each entry's lists: `#lists[start .. start + count)`. */
  #start = new Int32Array(WORDS);
  #count = new Uint8Array(WORDS);
  #lists = new Int32Array(WORDS * 2);
  #top = 0;

  constructor(private readonly resolve: (word: string) => readonly number[]) {}

  /**
   * Calls `visit` with the list of each term of `text`, in order (a list as often as its term
   * occurs). The words are those {@link forEachWord} finds, found by a scan of its own that hashes
   * a run of ASCII (most of a chat) as it reads it: one pass over the text instead of two, a
   * quarter off the cost of indexing a message. Where a word meets a character beyond ASCII,
   * `wordEnd` (forEachWord's rule) says where it ends.
   */
  forEachList(text: string, visit: (list: number) => void): void {
    const length = text.length;
    let i = 0;
    while (i < length) {
      const start = i;
      let code = text.charCodeAt(i);
      let hash = FNV_OFFSET;
      if (code < 128) {
        if (ASCII_CLASS[code] === 0) {
          i++;
          continue;
        }
        hash = Math.imul(hash ^ code, FNV_PRIME);
        for (i++; i < length; i++) {
          code = text.charCodeAt(i);
          if (code >= 128 || ASCII_CLASS[code] === 0) break;
          hash = Math.imul(hash ^ code, FNV_PRIME);
        }
        // A letter beyond ASCII may carry the word on (`café`).
        if (i < length && code >= 128) {
          const end = wordEnd(text, start, 1);
          for (; i < end; i++) hash = Math.imul(hash ^ text.charCodeAt(i), FNV_PRIME);
        }
      } else {
        const first = wordCharAt(text, i);
        if (first === 0) {
          i++;
          continue;
        }
        const end = wordEnd(text, start, first);
        for (; i < end; i++) hash = Math.imul(hash ^ text.charCodeAt(i), FNV_PRIME);
      }
      this.#visitWord(text, start, i, hash >>> 0, visit);
    }
  }

  /** Visits the lists of the word `text[start, end)` (of FNV-1a hash `hash`): remembered, or resolved and remembered. */
  #visitWord(text: string, start: number, end: number, hash: number, visit: (list: number) => void): void {
    let entry = this.#find(text, start, end, hash);
    if (entry === undefined) {
      const word = text.slice(start, end);
      const lists = this.resolve(word);
      // A long run of Chinese (its lists are its pairs of characters) is not worth remembering.
      if (lists.length > 255) {
        for (const list of lists) visit(list);
        return;
      }
      entry = this.#add(word, hash, lists);
    }
    const from = this.#start[entry]!;
    const to = from + this.#count[entry]!;
    for (let i = from; i < to; i++) visit(this.#lists[i]!);
  }

  /** Forgets every word (the list numbers changed: a compaction renumbered them). */
  clear(): void {
    this.#slots.fill(0);
    this.#words = [];
    this.#top = 0;
  }

  #find(text: string, start: number, end: number, hash: number): number | undefined {
    const mask = SLOTS - 1;
    const length = end - start;
    for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
      const value = this.#slots[slot]!;
      if (value === 0) return undefined;
      const entry = value - 1;
      if (this.#hashes[entry] !== hash) continue;
      const word = this.#words[entry]!;
      if (word.length !== length) continue;
      let same = true;
      for (let i = 0; i < length; i++) {
        if (word.charCodeAt(i) !== text.charCodeAt(start + i)) {
          same = false;
          break;
        }
      }
      if (same) return entry;
    }
  }

  #add(word: string, hash: number, lists: readonly number[]): number {
    if (this.#words.length === WORDS || this.#top + lists.length > this.#lists.length) this.clear();
    const entry = this.#words.length;
    this.#words.push(word);
    this.#hashes[entry] = hash;
    this.#start[entry] = this.#top;
    this.#count[entry] = lists.length;
    this.#lists.set(lists, this.#top);
    this.#top += lists.length;
    const mask = SLOTS - 1;
    let slot = hash & mask;
    while (this.#slots[slot] !== 0) slot = (slot + 1) & mask;
    this.#slots[slot] = entry + 1;
    return entry;
  }
}
