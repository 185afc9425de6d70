import { codeNoun } from './code-language.js';
import type { Conversation } from './conversation.js';
import { nounPhraseEnd } from './grammar.js';
import { DETERMINERS } from './lexicon.js';
import type { Request } from './request.js';
import { isWordy, startsPhrase, type Token, word } from './tokens.js';

// `hundreds of files`: the files are meant, not the hundreds.
const QUANTITY = /^(hundreds|thousands|millions|dozens|lots|tons|bunch|couple|number|plenty|few|some|many)$/;
const REFERRING = new Set(['it', 'this', 'that', 'them', 'these', 'those']);

/** Index of the first pronoun standing for something said earlier (`retry it`, `why does this fail`). */
export function referringPronoun(tokens: readonly Token[]): number {
  return tokens.findIndex((t, i) => {
    if (!REFERRING.has(t.lower) || t.pos === 'DET') return false;
    // `this error`, `those files`: a determiner, not a pronoun (`make it smaller` is a pronoun).
    if (t.lower !== 'it' && t.lower !== 'them' && startsPhrase(tokens[i + 1])) return false;
    const previous = tokens[i - 1];
    const next = tokens[i + 1];
    // `a server that never answers`, `says that the runtime …`: `that` introduces a clause.
    if (t.lower === 'that' && previous && previous.pos !== 'VERB' && previous.pos !== 'ADP') return false;
    return !((t.lower === 'that' || t.lower === 'this') && next && /^(DET|PRON|PROPN)$/.test(next.pos));
  });
}

/** The last `count` whitespace-separated words of a phrase (`Node.js` is one word of three tokens). */
function lastWords(tokens: readonly Token[], count: number): Token[] {
  const starts = tokens.flatMap((t, i) => (i === 0 || t.space ? [i] : []));
  const from = starts[Math.max(0, starts.length - count)] ?? 0;
  return tokens.slice(from).map((t, i) => (i === 0 ? { ...t, space: true } : t));
}

/** Whether a noun phrase's head is plural (`files`), to match `them` rather than `it`. */
function plural(head: Token): boolean {
  return head.lower !== head.lemma && /s$/.test(head.lower);
}

/**
 * What a pronoun in the request most likely stands for: the best-weighted noun phrase of the
 * request's message (nearer sentences first), or the message's code (`the TypeScript code`).
 * `How should I retry it?` after `Sometimes the Stripe request fails.` gives `the Stripe request`.
 */
export function salientPhrase(conversation: Conversation, request: Request, pronoun: Token, orCode = true): Token[] | undefined {
  const own = request.prepared.sentence;
  const many = /^(them|these|those)$/.test(pronoun.lower);
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
      // Every word after the determiner counts: `commit` in `a commit` may be tagged a verb.
      const nominal = chunk.filter((t) => !DETERMINERS.has(t.lower) && t.pos !== 'PRON' && isWordy(t) && t.pos !== 'ADJ');
      const head = nominal[nominal.length - 1];
      // The antecedent agrees in number, and is not something the request names itself.
      if (!head || head.pos === 'NUM' || QUANTITY.test(head.lower)) continue;
      if (plural(head) !== many || own.terms.has(head.lemma)) continue;
      // Antecedents are usually recent, often a subject, and about what the conversation is about.
      let score = 0;
      for (const t of nominal) score += conversation.frequency.get(t.lemma) ?? 1;
      score /= nominal.length;
      if (nominal.some((t) => /^[A-Z]/.test(t.text))) score += 0.5;
      if (first) score += 0.5;
      if (sentence.index === own.index - 1) score += 1;
      // `files whose names …`: the noun after `whose` is a detail of the one before.
      if (/^(whose|which|that)$/.test(tokens[i - chunk.length - 1]?.lower ?? '')) score -= 1;
      score -= 0.3 * Math.abs(own.index - sentence.index);
      first = false;
      if (score > bestScore) {
        bestScore = score;
        best = chunk;
      }
    }
  }
  if (best) {
    const body = lastWords(
      best.filter((t, i) => !(i === 0 && DETERMINERS.has(t.lower))),
      4,
    );
    const named = body.every((t) => /^[A-Z]/.test(t.text));
    return named ? body : [word('the', 'DET'), ...body];
  }
  const code = request.message.code[0];
  if (code && orCode)
    return [
      word('the', 'DET'),
      ...codeNoun(code.language)
        .split(' ')
        .map((w) => word(w, 'NOUN')),
    ];
  return undefined;
}
