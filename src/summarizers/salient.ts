import { nounPhraseEnd } from './clause.js';
import { codeNoun } from './code-language.js';
import type { Conversation } from './conversation.js';
import { DETERMINERS } from './lexicon.js';
import type { Request } from './request.js';
import { isNominal, word, type Token } from './tokens.js';

const REFERRING = new Set(['it', 'this', 'that', 'them', 'these', 'those']);

/** Index of the first pronoun standing for something said earlier (`retry it`, `why does this fail`). */
export function referringPronoun(tokens: readonly Token[]): number {
  return tokens.findIndex((t, i) => REFERRING.has(t.lower) && t.pos !== 'DET' && !startsPhrase(tokens[i + 1]));
}

function startsPhrase(t: Token | undefined): boolean {
  return !!t && (isNominal(t) || t.pos === 'ADJ');
}

/**
 * What a pronoun in the request most likely stands for: the best-weighted noun phrase of the
 * request's message (nearer sentences first), or the message's code (`the TypeScript code`).
 * `How should I retry it?` after `Sometimes the Stripe request fails.` gives `the Stripe request`.
 */
export function salientPhrase(conversation: Conversation, request: Request, orCode = true): Token[] | undefined {
  const own = request.prepared.sentence;
  let best: Token[] | undefined;
  let bestScore = 0;
  for (const sentence of request.message.sentences) {
    if (sentence === own || sentence.courtesy) continue;
    const tokens = sentence.tokens;
    let first = true;
    for (let i = 0; i < tokens.length; ) {
      const end = nounPhraseEnd(tokens, i);
      if (end <= i) {
        i += 1;
        continue;
      }
      const chunk = tokens.slice(i, end);
      i = end;
      const nominal = chunk.filter((t) => isNominal(t) && t.pos !== 'PRON');
      if (nominal.length === 0) continue;
      // Antecedents are usually recent, often a subject, and about what the conversation is about.
      let score = 0;
      for (const t of nominal) score += conversation.frequency.get(t.lemma) ?? 1;
      score /= nominal.length;
      if (nominal.some((t) => /^[A-Z]/.test(t.text))) score += 0.5;
      if (first) score += 0.5;
      if (sentence.index === own.index - 1) score += 1;
      score -= 0.3 * Math.abs(own.index - sentence.index);
      first = false;
      if (score > bestScore) {
        bestScore = score;
        best = chunk;
      }
    }
  }
  if (best) {
    const body = best.filter((t, i) => !(i === 0 && DETERMINERS.has(t.lower))).slice(-4);
    const named = body.every((t) => /^[A-Z]/.test(t.text));
    return named ? body : [word('the', 'DET'), ...body];
  }
  const code = request.message.code[0];
  if (code && orCode) return [word('the', 'DET'), ...codeNoun(code.language).split(' ').map((w) => word(w, 'NOUN'))];
  return undefined;
}
