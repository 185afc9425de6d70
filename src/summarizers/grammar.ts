import { DETERMINERS, HONORIFIC, SUBJECT_PRONOUNS, VERBS } from './lexicon.js';
import { isNominal, startsPhrase, type Token } from './tokens.js';

/** Word-level tests the sentence parser and the rewriters share. */

/**
 * Matches lower-cased words from `start`. Each pattern word may list alternatives (`do|does`) and
 * end in `?` when optional. Answers the index after the match, or -1.
 */
export function match(tokens: readonly Token[], start: number, pattern: string): number {
  let i = start;
  for (const part of pattern.toLowerCase().split(' ')) {
    const optional = part.endsWith('?');
    const options = (optional ? part.slice(0, -1) : part).split('|');
    const t = tokens[i];
    if (t && options.includes(t.lower)) i += 1;
    else if (!optional) return -1;
  }
  return i;
}

/** Whether the token can be a verb's base form here (the tagger misses many, so a list helps). */
export function isBaseVerb(t: Token | undefined): boolean {
  if (!t || !/^[a-z][a-z-]*$/i.test(t.text)) return false;
  if (VERBS.has(t.lower)) return true;
  return t.pos === 'VERB' && t.lower === t.lemma;
}

/**
 * Whether the token can begin what follows an imperative verb (`store it`, `reuse a client`,
 * `retry only …`): it tells a verb starting a clause from a noun that could be one.
 */
export function startsVerbObject(t: Token | undefined): boolean {
  return !!t && /^(DET|PRON|ADV|ADJ|NUM)$/.test(t.pos);
}

const NOT_VERB_POS = /^(DET|PRON|ADP|NUM|PUNCT|CCONJ|SCONJ|AUX|PART)$/;

/**
 * Whether the token can be a verb where grammar expects one (after `to`, after `how do I`): any
 * lower-case content word will do, since `debounce` or `memoize` are in no list.
 */
export function fillsVerbSlot(t: Token | undefined): boolean {
  if (isBaseVerb(t)) return true;
  return !!t && /^[a-z][a-z-]*$/.test(t.text) && !t.stop && !NOT_VERB_POS.test(t.pos);
}

/** Whether the token is a verb in any form (`fails`, `running`, `use`). */
export function isVerbLike(t: Token | undefined): boolean {
  return !!t && (t.pos === 'VERB' || VERBS.has(t.lemma) || VERBS.has(t.lower));
}

/**
 * End (exclusive) of the noun phrase that starts at `start`: a pronoun, or an optional determiner
 * followed by adjectives and nominal words (`my Jest test`, `the React component`). Answers
 * `start` when there is none.
 */
export function nounPhraseEnd(tokens: readonly Token[], start: number): number {
  const first = tokens[start];
  if (!first) return start;
  // `this` before a person's title is the subject itself: `Is this Mrs. Brown?` asks whether this is she.
  const beforeTitle = /^(this|that)$/.test(first.lower) && HONORIFIC.test(tokens[start + 1]?.lower ?? '');
  if (SUBJECT_PRONOUNS.has(first.lower) && (beforeTitle || !(DETERMINERS.has(first.lower) && startsPhrase(tokens[start + 1])))) {
    return start + 1;
  }
  let j = start;
  if (DETERMINERS.has(first.lower)) j += 1;
  const body = j;
  while (tokens[j]) {
    const t = tokens[j]!;
    const glued = j > body && !t.space; // `Next` `.` `js`, `user` `'s`
    const adjective = t.pos === 'ADJ' && startsPhrase(tokens[j + 1]);
    // A word tagged as an adjective right before the verb ends the phrase as its head noun:
    // `Should the idempotency key be …`, `Does the cache key change …`.
    const head = t.pos === 'ADJ' && j > body && isNominal(tokens[j - 1]!) && (tokens[j + 1]?.pos === 'AUX' || isBaseVerb(tokens[j + 1]));
    // The tagger calls some capitalised names verbs (`React`); inside a phrase they are names.
    const name = t.pos === 'VERB' && /^[A-Z]/.test(t.text) && (j > body || isNominal(tokens[j + 1] ?? t));
    // Right after an article, a word tagged as a verb is a noun: `a commit`, `the build`.
    const article = j === body && j > start && /^(a|an|the)$/.test(first.lower);
    const afterArticle = article && /^[a-z]+$/.test(t.text) && t.pos === 'VERB';
    if (glued || isNominal(t) || adjective || head || name || afterArticle) {
      j += 1;
      continue;
    }
    break;
  }
  // Trailing glued punctuation (`user.`) is not part of the phrase.
  while (j > body && !/[\p{L}\p{N}]/u.test(tokens[j - 1]!.text)) j -= 1;
  return j > body ? j : start;
}
