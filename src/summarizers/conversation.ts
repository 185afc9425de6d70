import type { WinkMethods } from 'wink-nlp';
import type { SummarizerMessage } from '../ports.js';
import { type CodeBlock, splitCode } from './code-blocks.js';
import { codeKind } from './code-language.js';
import { isCourtesy } from './courtesy.js';
import { cleanProse } from './prose.js';
import { isWordy, joinTokens, readSentences, type Token } from './tokens.js';

export type Role = SummarizerMessage['role'];

/** One prose sentence of a message, with what selection and rewriting need to know about it. */
export interface Sentence {
  readonly role: Role;
  /** Index of the message in `Conversation.messages`. */
  readonly message: number;
  /** Index of the sentence within its message. */
  readonly index: number;
  readonly tokens: readonly Token[];
  readonly text: string;
  readonly question: boolean;
  /** Greetings, thanks and other small talk. */
  readonly courtesy: boolean;
  /** Ends in a colon: it introduces code or a list and says little by itself. */
  readonly intro: boolean;
  readonly words: number;
  /** Lemmas of its content words. */
  readonly terms: ReadonlySet<string>;
}

export interface AnalyzedMessage {
  readonly role: Role;
  readonly index: number;
  readonly sentences: readonly Sentence[];
  readonly code: readonly CodeBlock[];
  /** False when the prose does not read as English (the title then quotes its first words). */
  readonly english: boolean;
  /** The cleaned prose, for fallbacks. */
  readonly prose: string;
}

/** A conversation read once, shared by the title and summary builders. */
export interface Conversation {
  readonly messages: readonly AnalyzedMessage[];
  readonly sentences: readonly Sentence[];
  /** In how many content sentences each term occurs: the conversation's own topic weights. */
  readonly frequency: ReadonlyMap<string, number>;
  /** The programming language most of the code is in, if any (`TypeScript`). */
  readonly language: string | undefined;
}

// Verbs and nouns too common to say what a conversation is about.
const GENERIC = new Set([
  'be',
  'have',
  'do',
  'get',
  'make',
  'go',
  'know',
  'think',
  'want',
  'need',
  'thing',
  'way',
  'lot',
  'something',
  'anything',
  'use',
  'try',
  'help',
  'let',
  'see',
  'look',
  'say',
  'like',
  'just',
  'also',
  'sure',
  'good',
  'great',
  'question',
  'answer',
  'example',
  'here',
  'there',
  'thanks',
  'thank',
  'yes',
  'okay',
  'ok',
  'well',
  'really',
  'other',
  'able',
  'right',
  'work',
  'time',
  'please',
  'hi',
  'hello',
]);
const CONTENT_POS = new Set(['NOUN', 'PROPN', 'VERB', 'ADJ', 'NUM']);
// Only the start of a huge message (a pasted log or file) is read: it says what the message is.
const MAX_MESSAGE_CHARS = 20_000;

/** Reads every message: code split off, prose cleaned, sentences tagged and weighted. */
export function analyzeConversation(nlp: WinkMethods, input: readonly SummarizerMessage[]): Conversation {
  const messages: AnalyzedMessage[] = [];
  const sentences: Sentence[] = [];
  input.forEach((raw, index) => {
    const text = typeof raw.text === 'string' ? raw.text : '';
    const { prose: rawProse, code } = splitCode(text.length > MAX_MESSAGE_CHARS ? text.slice(0, MAX_MESSAGE_CHARS) : text);
    const prose = cleanProse(rawProse);
    const tokenized = prose === '' ? [] : readSentences(nlp, prose);
    const own = tokenized.map((tokens, i): Sentence => {
      const text = joinTokens(tokens);
      const wordy = tokens.filter(isWordy);
      return {
        role: raw.role,
        message: index,
        index: i,
        tokens,
        text,
        question: /\?\W*$/.test(text),
        courtesy: isCourtesy(text),
        intro: /:\W*$/.test(text),
        words: wordy.length,
        terms: new Set(
          tokens.filter((t) => CONTENT_POS.has(t.pos) && !t.stop && /\p{L}{2}/u.test(t.text) && !GENERIC.has(t.lemma)).map((t) => t.lemma),
        ),
      };
    });
    messages.push({ role: raw.role, index, sentences: own, code, english: readsAsEnglish(own), prose });
    sentences.push(...own);
  });
  const frequency = new Map<string, number>();
  for (const s of sentences) {
    if (s.courtesy) continue;
    for (const term of s.terms) frequency.set(term, (frequency.get(term) ?? 0) + 1);
  }
  return { messages, sentences, frequency, language: dominantLanguage(messages) };
}

/**
 * English prose has function words: below a few percent of stop words (by wink's English list)
 * or with mostly non-Latin letters, the text is taken as another language.
 */
function readsAsEnglish(sentences: readonly Sentence[]): boolean {
  const tokens = sentences.flatMap((s) => s.tokens).filter(isWordy);
  if (tokens.length === 0) return true;
  const letters = tokens.map((t) => t.text).join('');
  const latin = (letters.match(/[A-Za-z]/g) ?? []).length;
  if (latin / Math.max(1, (letters.match(/\p{L}/gu) ?? []).length) < 0.7) return false;
  if (tokens.length < 4) return true;
  const stops = tokens.filter((t) => t.stop).length;
  return stops / tokens.length >= 0.08;
}

/** The most frequent programming language among code blocks; ties go to the first seen. */
function dominantLanguage(messages: readonly AnalyzedMessage[]): string | undefined {
  const counts = new Map<string, number>();
  for (const m of messages) {
    for (const block of m.code) {
      const language = block.language;
      if (language && codeKind(language) === 'program') counts.set(language, (counts.get(language) ?? 0) + 1);
    }
  }
  let best: string | undefined;
  for (const [language, count] of counts) if (best === undefined || count > counts.get(best)!) best = language;
  return best;
}
