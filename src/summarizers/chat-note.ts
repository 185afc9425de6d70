/**
 * The summary of a chat with a coding assistant: a short note for someone skimming past chats. It
 * is written in stages, each a function of the conversation with typed data out, so that each can
 * be tested and changed alone:
 *
 * 1. {@link askedOf}: what was asked, as the chat's activity (`installing Playwright for browser
 *    automation`) with the request quoted where it says more, or the request quoted alone;
 * 2. {@link topicOf}: the words the chat is about (title and the first lines of each request);
 * 3. {@link outcomeOf}: what was found, done or decided, the assistant's most outcome-like
 *    sentence on the topic;
 * 4. {@link openOf}: what is still open, a last request nobody answered;
 * 5. {@link renderNote}: the note as sentences, within the sentence and length limits.
 *
 * Nothing goes through reported-speech rewriting, so nothing can come out garbled: the user's and
 * the assistant's words are quoted. Narration, checklists, emoji, tool prompts and boilerplate are
 * never picked (see chat-rules.ts); code is not mentioned.
 */
import { ASKING, BOILERPLATE, FOLLOW_UP, LIST_LINE, MARKS, matches, NARRATION, OUTCOME, PERSONAL, TASK_LABEL } from './chat-rules.js';
import type { AnalyzedMessage, Conversation, Role, Sentence } from './conversation.js';
import { announcedActivity, requestActivity, requestTitle } from './echo.js';
import { DOT, QUESTION_DOT } from './prose.js';

/** Replies this long (in words) come from a coding assistant, whose requests are terse commands. */
export const ASSISTANT_ANSWER_WORDS = 80;

/** Whether the conversation is a chat with a coding assistant: its first answer is long or has code. */
export function isAssistantChat(conversation: Conversation): boolean {
  const firstUser = conversation.messages.findIndex((m) => m.role === 'USER' && m.prose !== '');
  if (firstUser < 0) return false;
  return conversation.messages.some(
    (m) =>
      m.index > firstUser &&
      m.role === 'ASSISTANT' &&
      (m.code.length > 0 || m.sentences.reduce((sum, s) => sum + s.words, 0) >= ASSISTANT_ANSWER_WORDS),
  );
}

/** Stage 1's result: what was asked. */
export type Asked =
  /** An activity (`installing Playwright`), with the request's words where they say more. */
  | { readonly kind: 'activity'; readonly activity: string; readonly quote?: string }
  /** The request in the user's words; `question` when it asks one. */
  | { readonly kind: 'quote'; readonly quote: string; readonly question: boolean };

/** The note before rendering: one part per stage. */
export interface ChatNote {
  readonly asked: Asked;
  /** The outcome sentence, quoted. */
  readonly outcome?: string;
  /** A last request nobody answered, quoted. */
  readonly open?: string;
}

/** Words of a quoted request and of a quoted outcome. */
const REQUEST_QUOTE_WORDS = 26;
const SHORT_QUOTE_WORDS = 16;
const OUTCOME_QUOTE_WORDS = 28;

/** Stage 1: what was asked, given the conversation and its title; undefined when nothing can be said robustly. */
export function askedOf(conversation: Conversation, title: string): Asked | undefined {
  const request = requestSentence(conversation.messages);
  const asked = request ? asRequest(request.text) : '';
  if (isActivity(title)) {
    // The assistant's own restatement of the task says it at more length than the title.
    // Or the request's own imperative, when the title is made from it (`making a new task to capture …`):
    // the title writer asks for 8 words, as the summary writer does here.
    const announced = announcedActivity(conversation);
    const fromRequest = title === requestTitle(conversation, 8) ? requestActivity(conversation) : undefined;
    const activity = announced && isActivity(announced) ? announced : (fromRequest ?? title);
    // The request is quoted too when it names what the activity leaves out (`… (“add comments in Arabic”)`).
    // A term is said when a word of the activity starts with its first five letters (`add` in
    // `adding`, `continu` in `continuing`).
    const said = activity.toLowerCase().split(/[^a-z0-9]+/);
    const more = request ? [...request.terms].filter((t) => !said.some((w) => w.startsWith(t.slice(0, 5)))).length : 0;
    return {
      kind: 'activity',
      activity: lowerFirst(activity),
      quote: request && more >= 1 ? quote(asked, REQUEST_QUOTE_WORDS) : undefined,
    };
  }
  return request && { kind: 'quote', quote: quote(asked, SHORT_QUOTE_WORDS), question: request.question };
}

/** Stage 2: the words the conversation is about: the title's, and those of each request's first two sentences. */
export function topicOf(conversation: Conversation, title: string): ReadonlySet<string> {
  const topic = new Set(
    title
      .toLowerCase()
      .split(/[^a-z0-9]+/)
      .filter((w) => w.length > 2),
  );
  for (const m of conversation.messages)
    if (m.role === 'USER') for (const s of m.sentences.slice(0, 2)) for (const t of s.terms) topic.add(t);
  return topic;
}

/** Stage 3: the assistant's sentence that best says what was found, done or decided, later ones first; quoted. */
export function outcomeOf(conversation: Conversation, topic: ReadonlySet<string>): string | undefined {
  let best: { sentence: Sentence; score: number } | undefined;
  const assistant = conversation.messages.filter((m) => m.role === 'ASSISTANT');
  assistant.forEach((m, mi) => {
    const last = mi === assistant.length - 1;
    m.sentences.forEach((s, si) => {
      if (!reportable(s)) return;
      const outcome = matches(OUTCOME, plain(s.text));
      const shared = [...s.terms].filter((t) => topic.has(t)).length;
      if (!outcome && shared === 0) return;
      const score = (outcome ? 2 : 0) + Math.min(shared, 5) + (last ? 1 : 0) + (si / Math.max(1, m.sentences.length)) * 0.5;
      if (!best || score > best.score) best = { sentence: s, score };
    });
  });
  return best && quote(best.sentence.text, OUTCOME_QUOTE_WORDS);
}

/** Stage 4: a last user message nobody answered yet (not `continue` or `thanks`): its first sentence, quoted. */
export function openOf(conversation: Conversation): string | undefined {
  const last = conversation.messages[conversation.messages.length - 1];
  const firstUser = conversation.messages.findIndex((m) => m.role === 'USER');
  if (!last || last.role !== 'USER' || last.index === firstUser) return undefined;
  const s = last.sentences.find(
    (x) => !x.courtesy && x.words >= 3 && !matches(BOILERPLATE, x.text) && !matches(MARKS, x.text) && !matches(PERSONAL, asRequest(x.text)),
  );
  if (!s || matches(FOLLOW_UP, plain(s.text))) return undefined;
  // Only a question or a request is left open (`Down to 2 queries.` reports, it asks nothing).
  const first = s.tokens.find((t) => /\p{L}/u.test(t.text));
  return s.question || (first?.pos === 'VERB' && s.index === 0) ? quote(asRequest(s.text), SHORT_QUOTE_WORDS) : undefined;
}

/** Stage 5: the note as sentences, later parts giving way first to the sentence and length limits. */
export function renderNote(
  note: ChatNote,
  speakers: Readonly<Record<Role, string>>,
  limits: { readonly maxSentences: number; readonly maxLength: number },
): string {
  const { asked } = note;
  const parts = [
    asked.kind === 'activity'
      ? `${speakers.USER} asked for help with ${asked.activity}${asked.quote ? ` (${asked.quote})` : ''}.`
      : // The user's own words, first person and all; only a question is introduced as asked.
        `${speakers.USER} ${asked.question ? 'asked' : 'wrote'}: ${asked.quote}.`,
  ];
  if (note.outcome) parts.push(`${speakers.ASSISTANT} reported: ${note.outcome}.`);
  if (note.open) parts.push(`${speakers.USER} then asked: ${note.open}, still unanswered.`);
  const kept: string[] = [];
  for (const part of parts.slice(0, Math.max(1, limits.maxSentences))) {
    if ([...kept, part].join(' ').length > limits.maxLength) break;
    kept.push(part);
  }
  return kept.join(' ');
}

/** The note of a coding-assistant chat, stages 1 to 4; undefined when nothing robust can be said of the request. */
export function composeChatNote(conversation: Conversation, title: string): ChatNote | undefined {
  const asked = askedOf(conversation, title);
  if (!asked) return undefined;
  return { asked, outcome: outcomeOf(conversation, topicOf(conversation, title)), open: openOf(conversation) };
}

/** `text` cut to `max` words, with an ellipsis when cut; quotes and trailing stops out. */
export function quote(text: string, max: number): string {
  const words = plain(text).replace(/["“”]/g, "'").split(' ');
  const cut = words.length > max;
  const body = words
    .slice(0, max)
    .join(' ')
    .replace(/[\s.,;:!]+$/, '');
  return `“${body}${cut ? '…' : ''}”`;
}

function plain(text: string): string {
  return text.replaceAll(DOT, '.').replaceAll(QUESTION_DOT, '?.').replace(/\s+/g, ' ').trim();
}

/** The request as quotable words: lead-ins out, `my`/`our` → `the` (`update my rules` → `update the rules`). */
function asRequest(text: string): string {
  return plain(text)
    .replace(ASKING.pattern, '')
    .replace(/\b(?:my|our)\b/g, 'the')
    .replace(/\b(?:My|Our)\b/g, 'The');
}

/** A sentence a note can quote as the outcome: a whole, plain, third-person statement. */
function reportable(s: Sentence): boolean {
  if (s.courtesy || s.question || s.intro) return false;
  if (s.words < 6 || s.words > 32) return false;
  const text = plain(s.text);
  if ([NARRATION, BOILERPLATE, MARKS, LIST_LINE].some((rule) => matches(rule, text))) return false;
  // A sentence that opens with a verb is an instruction, a plan's step or a status line (`Verify
  // that all requirements are met.`, `Update the specs as the project evolves.`), not an outcome.
  // A gerund subject (`Removing while iterating skips elements.`) is not one.
  const first = s.tokens.find((t) => /\p{L}/u.test(t.text));
  if (first?.pos === 'VERB' && !/ing$/i.test(first.text)) return false;
  // A fragment (`The largest file in the codebase with 469 lines`) has no verb.
  if (!s.tokens.some((t) => t.pos === 'VERB' || t.pos === 'AUX')) return false;
  if (!/^[A-Z"'(]/.test(text) || !/[.!]["')]?$/.test(text)) return false;
  // Headings and lists run together (`Script Files (7 files updated)`): mostly capitalized words.
  const words = text.split(' ');
  const capitalized = words.filter((w) => /^[A-Z]/.test(w)).length;
  if (capitalized / words.length > 0.5) return false;
  // An observer's note: a sentence in the first or second person would need rewriting to be quoted.
  if (matches(PERSONAL, text)) return false;
  // Paths and identifiers crowding the sentence make it a log line, not a note.
  return words.filter((w) => /[/\\_=<>{}]|\.\w+\.|\w\.\w/.test(w)).length <= 2;
}

/** An activity phrase: it starts with a gerund (`Installing Playwright …`). */
function isActivity(phrase: string): boolean {
  return /^[A-Za-z][a-z]+ing\b/.test(phrase) && !/^(Thing|String|Nothing|Something|Everything|Morning|Evening|Ring|King)\b/i.test(phrase);
}

function lowerFirst(phrase: string): string {
  return /^[A-Z][a-z]/.test(phrase) ? phrase[0]!.toLowerCase() + phrase.slice(1) : phrase;
}

/** The first sentence of the first request, with the next one when it is short (`Install Playwright`). */
function requestSentence(messages: readonly AnalyzedMessage[]): Sentence | undefined {
  const first = messages.find((m) => m.role === 'USER' && m.sentences.length > 0);
  // A long prompt that labels its task (`Goal: expand “Saved” into a research library.`) says it there.
  const labelled = first?.sentences.find((s) => matches(TASK_LABEL, s.text) && s.words >= 4);
  if (labelled) return { ...labelled, text: labelled.text.replace(TASK_LABEL.pattern, '') };
  const at = first ? first.sentences.findIndex((s) => !s.courtesy && s.words >= 2) : -1;
  const s = first?.sentences[Math.max(0, at)];
  const next = first?.sentences[Math.max(0, at) + 1];
  if (!s || !next || s.words >= 12 || s.question || next.courtesy) return s;
  const joined = `${s.text.replace(/[.!]$/, '')}; ${next.text}`;
  return { ...s, text: joined, words: s.words + next.words, terms: new Set([...s.terms, ...next.terms]) };
}
