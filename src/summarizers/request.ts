import { parseShape, type Shape } from './clause.js';
import type { AnalyzedMessage, Conversation, Role, Sentence } from './conversation.js';
import { stripOpeners } from './courtesy.js';
import { HONORIFIC, PROBLEM_WORDS, VAGUE_TERMS } from './lexicon.js';
import { trimEnd } from './phrase.js';
import type { Token } from './tokens.js';

/** A sentence ready for rewriting: openers and final punctuation gone, shape parsed. */
export interface Prepared {
  readonly sentence: Sentence;
  readonly tokens: readonly Token[];
  readonly shape: Shape;
  /** Set when the sentence opened with `Yes,` or `No,` (an answer to a question). */
  readonly answer?: 'yes' | 'no';
  /** The name the sentence is addressed to (`Mrs. Wang, would you …`): who `you` is. */
  readonly addressed?: string;
}

/** Prepares a sentence for rewriting. */
export function prepare(sentence: Sentence): Prepared {
  const { tokens, answer, addressed } = stripOpeners(sentence.tokens);
  const trimmed = trimEnd(dropVocative(trimEnd(tokens)));
  const shape = parseShape(trimmed, sentence.question);
  return { sentence, tokens: trimmed, shape, ...(answer ? { answer } : {}), ...(addressed ? { addressed } : {}) };
}

const ADDRESS = /^(sir|madam|man|buddy|mate|guys|everyone|folks|doctor|dear|bro)$/;

/** Drops a trailing form of address: `Do you smoke, Mr. Smith?` → `Do you smoke`. */
function dropVocative(tokens: readonly Token[]): Token[] {
  const comma = tokens.map((t) => t.text).lastIndexOf(',');
  if (comma < 1 || tokens.length - comma > 4) return [...tokens];
  const tail = tokens.slice(comma + 1);
  const named =
    tail.length > 0 &&
    (HONORIFIC.test(tail[0]!.lower) || (tail.length === 1 && ADDRESS.test(tail[0]!.lower))) &&
    tail.slice(1).every((t) => /^[A-Z.]/.test(t.text));
  return named ? tokens.slice(0, comma) : [...tokens];
}

/** The request and the message it is in. */
export interface Request {
  readonly prepared: Prepared;
  readonly message: AnalyzedMessage;
  /** False when the best sentence is only a lead-in (`Here is my code:`), so code says more. */
  readonly strong: boolean;
}

// Users open conversations; without them, whoever spoke first with content stands in.
const ROLE_ORDER: readonly Role[] = ['USER', 'UNKNOWN', 'ASSISTANT', 'SYSTEM'];

const SHAPE_WEIGHT: Readonly<Record<Shape['kind'], number>> = {
  howTo: 4,
  help: 4,
  question: 3,
  request: 3,
  desire: 3,
  report: 3,
  progressive: 2,
  suggestion: 1,
  statement: 0,
};

/**
 * The sentence that says what the conversation is about: in the first user message with content,
 * the sentence that most looks like a request (a how-to question, an imperative, `I want to…`, an
 * error report), preferring earlier ones. Undefined when no message has a content sentence.
 */
export function pickRequest(conversation: Conversation): Request | undefined {
  for (const role of ROLE_ORDER) {
    for (const message of conversation.messages) {
      if (message.role !== role) continue;
      const candidates = message.sentences.filter((s) => !s.courtesy);
      if (candidates.length === 0) continue;
      let best: Prepared | undefined;
      let bestScore = -Infinity;
      for (const sentence of candidates) {
        const prepared = prepare(sentence);
        const score = requestScore(prepared);
        if (score > bestScore) {
          best = prepared;
          bestScore = score;
        }
      }
      return { prepared: best!, message, strong: bestScore >= 0 };
    }
  }
  return undefined;
}

/** How much a prepared sentence looks like the request of a conversation. */
export function requestScore(p: Prepared): number {
  const s = p.sentence;
  let score = SHAPE_WEIGHT[p.shape.kind] - 0.4 * s.index;
  if (s.question) score += 1;
  if (p.tokens.some((t) => PROBLEM_WORDS.has(t.lower))) score += 1;
  if (s.words < 3) score -= 3;
  // `What is the best approach?` asks without saying about what: a sentence that names it wins.
  if ([...s.terms].every((t) => VAGUE_TERMS.has(t))) score -= 1.5;
  if (s.intro && s.words < 6) score -= 2; // `Here is my code:`; a long sentence before code still counts.
  if (/^(here is|here are|below is|this is my|this is the|the following)\b/i.test(s.text)) score -= 3;
  // A pasted log or script line (`Run # Debug: check if GH_TOKEN is set`) is not what anyone asked.
  if (PASTED_LINE.test(s.text)) score -= 4;
  // A label before a colon (`Debug: Check if GH_TOKEN is set`) heads a log or a list, not a request.
  // Not an error's (`Error: Cannot find module express`), which is what the user asks about.
  if (/^(?!(?:Error|Warning|Exception|Fatal|Failed|Failure|Traceback|Panic)\b)[A-Z][a-z]+:\s/.test(s.text)) score -= 2;
  return score;
}

// Shell comments and substitutions: the marks of a pasted script or CI log line (a request may hold `npm ci && npm test`).
const PASTED_LINE = /(?:^|\s)#\s|\$\(|\$\{/;
