import type { Conversation, Sentence } from './conversation.js';
import { nounPhraseEnd } from './grammar.js';
import { gerund } from './inflect.js';
import { DETERMINERS } from './lexicon.js';
import { isWordy, type Token, word } from './tokens.js';

/**
 * What a conversation is about, as a short phrase: the noun it keeps coming back to (in the most
 * messages, mentioned early, preferably by the user or in the request), with the verb that governs
 * it or the words that modify it where the text has them (`Quitting smoking`, `Renting a car`,
 * `Genetic engineering`), else with the next most central noun (`Allergies and cold`). Used for
 * the title of a chat whose opening line does not name its topic (`Can I help you?`).
 */

// Nouns that never make a topic: time words, vague nouns, forms of address.
const VAGUE_NOUNS = new Set(
  `today tonight tomorrow yesterday weekend morning evening afternoon night day week
  month year minute hour moment second people person man woman guy lady kind sort type bit course fact idea
  matter problem reason number name place part side end lot lots dear honey sir madam mr mrs ms miss dad mom
  mum way thing stuff time everything something anything nothing one piece couple half rest`.split(/\s+/),
);
// Words that quantify or judge rather than describe: `more`, `first`, `good`, `certain`.
const QUANTIFIERS = new Set(
  `more most few first last next certain similar other same such many much several
  whole own any some little great good nice sure only real right wrong big small main entire various
  particular specific lovely wonderful terrible awful fine okay`.split(/\s+/),
);
// Verbs that say nothing about the topic (`have a cat`, `like coffee`): they are left out of the phrase.
const LIGHT_VERBS = new Set(
  `be have do know think want need like love hate enjoy prefer let mean hope wish feel
  seem look sound say tell try help`.split(/\s+/),
);

// Weights, set on the first half of the DialogSum development split.
const VERB_WEIGHT = 1; // A governing verb the conversation repeats (`book … tickets`) counts like the noun.
const MODIFIER_WEIGHT = 0.3;
const REQUEST_BONUS = 1; // The opening request names the topic more often than later turns.
const USER_BONUS = 0.3;
const LATE_PENALTY = 0.05; // Per message before the phrase's sentence.
const LATE_TOPIC_PENALTY = 0.3; // Per message before the noun was first mentioned.
const SINGLE_PENALTY = 0.5; // One word is a keyword, not a title.

interface Candidate {
  readonly tokens: readonly Token[];
  readonly head: string;
  readonly score: number;
}

/** The topic phrase, at least two words when the conversation allows; undefined without a content noun. */
export function topicPhrase(conversation: Conversation, request: Sentence | undefined): Token[] | undefined {
  const candidates = rank(conversation, request);
  const best = candidates[0];
  if (!best) return undefined;
  if (best.tokens.length >= 2) return [...best.tokens];
  // The same noun with its verb or modifier elsewhere, else the two most central nouns.
  const fuller = candidates.find((c) => c.head === best.head && c.tokens.length >= 2);
  if (fuller) return [...fuller.tokens];
  const second = candidates.find((c) => c.head !== best.head);
  return second ? [...best.tokens, word('and', 'CCONJ'), ...second.tokens.map((t) => ({ ...t, space: true }))] : [...best.tokens];
}

/** In how many messages each term occurs, and in which message it first occurs. */
function spread(conversation: Conversation): { messages: Map<string, number>; first: Map<string, number> } {
  const messages = new Map<string, number>();
  const first = new Map<string, number>();
  for (const m of conversation.messages) {
    const seen = new Set<string>();
    for (const s of m.sentences) if (!s.courtesy) for (const t of s.terms) seen.add(t);
    for (const t of seen) {
      messages.set(t, (messages.get(t) ?? 0) + 1);
      if (!first.has(t)) first.set(t, m.index);
    }
  }
  return { messages, first };
}

function rank(conversation: Conversation, request: Sentence | undefined): Candidate[] {
  const { messages, first } = spread(conversation);
  const weight = (lemma: string): number => messages.get(lemma) ?? 1;
  const out: Candidate[] = [];
  for (const s of conversation.sentences) {
    if (s.courtesy || s.role === 'SYSTEM') continue;
    const tokens = s.tokens;
    for (let i = 0; i < tokens.length; ) {
      const end = nounPhraseEnd(tokens, i);
      if (end <= i) {
        i += 1;
        continue;
      }
      const start = i;
      i = end;
      const phrase = cleanPhrase(tokens.slice(start, end));
      const nouns = phrase.filter((t) => t.pos === 'NOUN' && s.terms.has(t.lemma) && !VAGUE_NOUNS.has(t.lemma));
      const head = nouns[nouns.length - 1];
      if (!head) continue;
      const body = phrase.slice(0, phrase.indexOf(head) + 1).slice(-3);
      let score = weight(head.lemma);
      for (const t of body) if (t !== head && s.terms.has(t.lemma)) score += MODIFIER_WEIGHT * weight(t.lemma);
      let tokensOut: Token[] = body.map((t, k) => (k === 0 ? { ...t, space: false } : t));
      const verb = governingVerb(tokens, start);
      if (verb && body.length < 3) {
        // `rent a car` → `Renting a car`: an article stays with its noun after the verb.
        const article = /^(a|an|the)$/.test(tokens[start]!.lower) && body.length === phrase.length ? [tokens[start]!] : [];
        tokensOut = [
          { ...word(gerund(verb.lemma), 'VERB', verb.lemma), space: false },
          ...[...article, ...body].map((t, k) => (k === 0 ? { ...t, space: true } : t)),
        ];
        score += VERB_WEIGHT * weight(verb.lemma);
      }
      if (s === request) score += REQUEST_BONUS;
      if (s.role === 'USER') score += USER_BONUS;
      score -= LATE_PENALTY * s.message + LATE_TOPIC_PENALTY * (first.get(head.lemma) ?? 0);
      if (tokensOut.length < 2) score -= SINGLE_PENALTY;
      out.push({ tokens: tokensOut, head: head.lemma, score });
    }
  }
  // Stable: equal scores keep conversation order.
  return out
    .map((c, i) => ({ c, i }))
    .sort((a, b) => b.c.score - a.c.score || a.i - b.i)
    .map(({ c }) => c);
}

/** Words of a noun phrase without determiners, quantifiers, numbers, possessors or punctuation. */
function cleanPhrase(chunk: readonly Token[]): Token[] {
  let phrase = [...chunk];
  const stop = phrase.findIndex((t) => !isWordy(t) && t.text !== '-');
  if (stop >= 0) phrase = phrase.slice(0, stop);
  const possessive = phrase.findIndex((t) => t.lower === "'s" || t.lower === "'");
  if (possessive >= 0) phrase = phrase.slice(possessive + 1);
  while (
    phrase[0] &&
    (DETERMINERS.has(phrase[0].lower) || phrase[0].pos === 'PRON' || phrase[0].pos === 'NUM' || QUANTIFIERS.has(phrase[0].lower))
  ) {
    phrase = phrase.slice(1);
  }
  return phrase;
}

/** The content verb right before a noun phrase (`quit smoking`, `book two tickets`), if any. */
function governingVerb(tokens: readonly Token[], start: number): Token | undefined {
  let k = start - 1;
  while (k >= 0 && (DETERMINERS.has(tokens[k]!.lower) || tokens[k]!.pos === 'NUM')) k -= 1;
  const verb = tokens[k];
  if (!verb || verb.pos !== 'VERB' || !/^[a-z]+$/.test(verb.lower)) return undefined;
  if (LIGHT_VERBS.has(verb.lemma) || VAGUE_NOUNS.has(verb.lemma)) return undefined;
  return verb;
}
