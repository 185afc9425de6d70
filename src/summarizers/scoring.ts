import type { Conversation, Sentence } from './conversation.js';

// A sentence worth reporting names at least two things (`I know what you mean` names none).
const MIN_TERMS = 2;

/**
 * How central a sentence is to the conversation: the sum, over its distinct content terms, of how
 * often each term recurs in other sentences, divided by the square root of its term count so that
 * long sentences do not win by length alone. Sentences that only introduce code (`Here's how:`),
 * small talk and fragments score zero. A cheap stand-in for TextRank that is just as deterministic.
 */
export function scoreSentence(conversation: Conversation, sentence: Sentence): number {
  if (sentence.courtesy || sentence.intro || sentence.words < 3 || sentence.terms.size < MIN_TERMS) return 0;
  if (/^(here is|here are|below is|the following|for example|e\.g\.)\b/i.test(sentence.text)) return 0;
  let sum = 0;
  for (const term of sentence.terms) sum += (conversation.frequency.get(term) ?? 1) - 1 + 0.25;
  let score = sum / Math.sqrt(sentence.terms.size);
  // Short and very long sentences summarize poorly; the first sentence of an answer usually leads.
  if (sentence.words < 5) score *= 0.5;
  if (sentence.words > 40) score *= 0.6;
  if (sentence.index === 0 && sentence.role === 'ASSISTANT') score *= 1.3;
  // Fragments without a verb (`At eight, at Tom's house.`) report badly out of context.
  if (!sentence.tokens.some((t) => t.pos === 'VERB' || t.pos === 'AUX')) score *= 0.2;
  return score;
}

/** Jaccard overlap of two sentences' terms: 1 means they say the same thing in the same words. */
export function overlap(a: Sentence, b: Sentence): number {
  if (a.terms.size === 0 || b.terms.size === 0) return 0;
  let shared = 0;
  for (const term of a.terms) if (b.terms.has(term)) shared += 1;
  return shared / (a.terms.size + b.terms.size - shared);
}
