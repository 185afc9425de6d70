import type { ItemSentence, ItsFunction, PartOfSpeech, WinkMethods } from 'wink-nlp';
import { DOT, QUESTION_DOT } from './prose.js';

/** One token as the summarizer works with it: a plain, immutable value that rewriting can copy. */
export interface Token {
  readonly text: string;
  /** Lower-cased text. */
  readonly lower: string;
  /** Lower-cased base form (`fails` → `fail`); equals `lower` when the model has none. */
  readonly lemma: string;
  readonly pos: PartOfSpeech;
  /** Whether whitespace precedes the token; joining tokens uses it to rebuild `Next.js` or `can not`. */
  readonly space: boolean;
  readonly stop: boolean;
}

/** Reads `text` into sentences of tokens. Sentences without any letter or digit are dropped. */
export function readSentences(nlp: WinkMethods, text: string): Token[][] {
  const doc = nlp.readDoc(text);
  const its = nlp.its;
  const tokens = doc.tokens();
  const texts = tokens.out();
  const pos = tokens.out(its.pos) as PartOfSpeech[];
  // The typings declare `lemma` with an extra `addons` parameter; wink passes it at run time.
  const lemmas = tokens.out(its.lemma as unknown as ItsFunction<string>) as string[];
  const spaces = tokens.out(its.precedingSpaces) as string[];
  const stops = tokens.out(its.stopWordFlag) as boolean[];
  const all: Token[] = texts.map((raw, i) => {
    const t = raw.replaceAll(DOT, '.').replaceAll(QUESTION_DOT, '?.');
    return {
      text: t,
      lower: t.toLowerCase(),
      lemma: (lemmas[i] ?? raw).replaceAll(DOT, '.').replaceAll(QUESTION_DOT, '?.').toLowerCase(),
      pos: pos[i] ?? 'X',
      space: (spaces[i] ?? '') !== '',
      stop: stops[i] ?? false,
    };
  });
  const sentences: Token[][] = [];
  doc.sentences().each((sentence: ItemSentence) => {
    const inner = sentence.tokens();
    const count = inner.length();
    if (count === 0) return;
    const start = inner.itemAt(0).index();
    // Line breaks come out as SPACE tokens; they only mean "whitespace before the next token".
    const slice: Token[] = [];
    let gap = false;
    for (const t of all.slice(start, start + count)) {
      if (t.pos === 'SPACE' || t.text.trim() === '') gap = true;
      else {
        slice.push(gap && slice.length > 0 ? { ...t, space: true } : t);
        gap = false;
      }
    }
    if (slice[0]) slice[0] = { ...slice[0], space: false };
    if (slice.some((t) => /[\p{L}\p{N}]/u.test(t.text))) sentences.push(slice);
  });
  return sentences;
}

/** A token made up by rewriting (`retrying`, `they`), spaced like an ordinary word. */
export function word(text: string, pos: PartOfSpeech = 'X', lemma = text.toLowerCase()): Token {
  return { text, lower: text.toLowerCase(), lemma, pos, space: true, stop: false };
}

/** Rebuilds text from tokens, keeping the original spacing between them. */
export function joinTokens(tokens: readonly Token[]): string {
  let out = '';
  for (const t of tokens) out += out === '' ? t.text : (t.space ? ' ' : '') + t.text;
  return out;
}

/** True for tokens that carry letters or digits (not punctuation or symbols). */
export function isWordy(t: Token): boolean {
  return /[\p{L}\p{N}]/u.test(t.text);
}

/** Number of whitespace-separated words; `Next.js` counts once although it is three tokens. */
export function countWords(tokens: readonly Token[]): number {
  let words = 0;
  let counted = false;
  tokens.forEach((t, i) => {
    if (i === 0 || t.space) counted = false;
    if (!counted && isWordy(t)) {
      words += 1;
      counted = true;
    }
  });
  return words;
}

/** Same token with a different text, keeping its tags (used for case and pronoun changes). */
export function retext(t: Token, text: string): Token {
  return { ...t, text, lower: text.toLowerCase() };
}

/** True for nominal-looking tokens: nouns, proper nouns, numbers, and tech words the tagger mislabels. */
export function isNominal(t: Token): boolean {
  if (t.pos === 'NOUN' || t.pos === 'PROPN' || t.pos === 'NUM') return true;
  // `React`, `useEffect`, `ECONNREFUSED`: capitals inside or at the start of a non-stop word.
  return !t.stop && /\p{L}/u.test(t.text) && /^[\p{Lu}]|[\p{Ll}][\p{Lu}]/u.test(t.text) && t.pos !== 'PRON';
}

/** True when the token can open or continue a noun phrase (`the *flaky* call`, `*React* hooks`). */
export function startsPhrase(t: Token | undefined): boolean {
  return !!t && (isNominal(t) || t.pos === 'ADJ');
}
