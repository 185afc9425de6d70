/**
 * How text search ranks and expands, in one place: the embedded index (text-index.ts) and the
 * PostgreSQL store's search (src/stores/postgres/text-search.ts) use these same numbers and
 * spellings, so the two find and order the same documents.
 */

// BM25's usual constants.
export const K1 = 1.2;
export const B = 0.75;
/**
 * How much a field counts in a conversation's score, against a message's 1: the AI tools title a
 * chat from its first request, and people remember a chat by it, by its name and by its summary.
 */
export const WEIGHT_FIRST_REQUEST = 8;
export const WEIGHT_NAME = 4;
export const WEIGHT_ANNOTATION = 2;
/** A word found only as the start of a longer one, or one typo away, counts less than itself. */
export const WEIGHT_PREFIX = 0.7;
export const WEIGHT_TYPO = 0.6;
/** Words of a query looked for with a typo, at most (within the request's `typoSpellings` budget). */
export const MAX_TYPO_WORDS = 4;
/** Longer words a prefix stands for, at most (the most frequent ones). */
export const PREFIX_EXPANSIONS = 32;
/** Messages and annotations shown with each conversation found. */
export const HITS_PER_CONVERSATION = 3;

/** BM25's idf of a term held by `count` of `docs` documents (always positive). */
export const idf = (docs: number, count: number): number => Math.log(1 + (docs - count + 0.5) / (count + 0.5));

/** Whether a typed word is looked for with a typo at all: 4 to 24 letters, and all its spellings within what the budget has left. */
export const typoWorthTrying = (typed: string, spellingsLeft: number): boolean =>
  typed.length >= 4 && typed.length <= 24 && spellingsOneEditAway(typed.length) <= spellingsLeft;

/**
 * The stems a word typed past the end of its stem may stand for (`documentati`, indexed as
 * `document`): its starts of 4 letters or more, up to 5 letters shorter, longest first.
 */
export function stemsTypedPast(typed: string): string[] {
  const stems: string[] = [];
  for (let k = typed.length - 1; k >= Math.max(4, typed.length - 5); k--) stems.push(typed.slice(0, k));
  return stems;
}

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

/** How many spellings {@link oneEditAway} answers for a word of `letters`, at most. */
export const spellingsOneEditAway = (letters: number): number =>
  letters + (letters - 1) + ALPHABET.length * letters + ALPHABET.length * (letters + 1);

/** Words one deletion, swap, change or insertion away from `word` (in lower-case letters and digits). */
export function* oneEditAway(word: string): Generator<string> {
  for (let i = 0; i < word.length; i++) yield word.slice(0, i) + word.slice(i + 1);
  for (let i = 0; i + 1 < word.length; i++) yield word.slice(0, i) + word[i + 1] + word[i] + word.slice(i + 2);
  for (let i = 0; i < word.length; i++) for (const c of ALPHABET) if (c !== word[i]) yield word.slice(0, i) + c + word.slice(i + 1);
  for (let i = 0; i <= word.length; i++) for (const c of ALPHABET) yield word.slice(0, i) + c + word.slice(i);
}

/** The `k` items offered with the highest counts, in that order (ties: the first offered first). */
export class TopLists<List> {
  readonly #lists: List[] = [];
  readonly #counts: number[] = [];
  constructor(readonly k: number) {}

  offer(list: List, count: number): void {
    const counts = this.#counts;
    if (counts.length === this.k && !(count > counts[counts.length - 1]!)) return;
    let at = counts.length;
    while (at > 0 && count > counts[at - 1]!) at--;
    counts.splice(at, 0, count);
    this.#lists.splice(at, 0, list);
    if (counts.length > this.k) {
      counts.pop();
      this.#lists.pop();
    }
  }

  best(): readonly List[] {
    return this.#lists;
  }
}
