/**
 * Summaries of chats with a coding assistant: a short note for someone skimming past chats, in
 * three robust parts that never go through reported-speech rewriting:
 * 1. what was asked, as the conversation's title phrase (`The user asked for help with installing
 *    Playwright for browser automation.`) or, when that title is not an activity, a short quote of
 *    the request;
 * 2. what was found, done or decided: the assistant's most outcome-like sentence, quoted;
 * 3. what is still open: a last user request nobody answered, quoted.
 * Narration (`Let me check …`), checklist lines, emoji, tool prompts (`Continue to iterate?`) and
 * boilerplate are never picked; code is not mentioned.
 */
import type { AnalyzedMessage, Conversation, Role, Sentence } from './conversation.js';
import { announcedActivity } from './echo.js';
import { DOT, QUESTION_DOT } from './prose.js';

const capitalizeFirstLetter = (text: string): string => text.charAt(0).toUpperCase() + text.slice(1);

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

/** Replies this long (in words) come from a coding assistant, whose requests are terse commands. */
export const ASSISTANT_ANSWER_WORDS = 80;

/**
 * Sentences that are never reported, with examples:
 * - narration of the assistant's own next step: `Let me check the file.`, `Now I will update it.`,
 *   `I will help you …`, `Read file: src/index.ts`, `Perfect!`;
 * - checklist and status lines: `✅ Updated PLAN.md`, `[-] Analyze …`, `Status: DONE`;
 * - tool prompts and boilerplate: `Continue to iterate?`, `Feel free to ask any additional questions.`
 */
const NARRATION =
  /^(?:let me|let us|now let|now I|I will|I am going to|I need to|I can see|I found|I have|I'?ve|first,?|next,?|then,?|now,|perfect|great|excellent|good|here is|here are|read file|looking at|based on|okay|ok|sure|yes|no)\b/i;
const BOILERPLATE =
  /continue to iterate|additional questions|feel free|let me know|hope this helps|if you (?:need|have|want)|would you like|do you want|should I\b/i;
const MARKS =
  /[\p{Extended_Pictographic}\u2610-\u2612\u2713-\u2718\u27a1\u2b50\u2705\u274c]|\[[ xX-]\]|^\W*(?:[\p{Lu}][\p{L}-]*\s?){1,3}:/u;
/**
 * What the assistant found, did or decided: `The problem was that the workflow exited with code 1 …`,
 * `The .env.example file is now tracked in git.`, `All 42 tests pass.`
 */
const OUTCOME =
  /\b(?:the (?:issue|problem|error|cause|root cause|fix|bug) (?:is|was)|(?:is|are|was|were|has been|have been) (?:now |successfully |already )?(?:fixed|resolved|updated|created|added|removed|moved|installed|pushed|implemented|completed|renamed|deleted|configured|merged|committed|done|ready|working|in place|tracked|passing)|now (?:uses|has|works|passes|includes|shows|runs|supports)|(?:tests?|build|ci|checks?) (?:now )?pass(?:es|ed)?|successfully|caused by|because)\b/i;

const PERSONAL = /\b(?:I|me|my|mine|we|us|our|you|your|yours)\b/i;
// `Can you please …` before a quoted request says nothing.
const ASKING =
  /^(?:(?:hey|hi|ok|okay)[,!]?\s+)?(?:(?:can|could|would) you\s+(?:please\s+)?(?:help me\s+(?:to\s+)?)?|please\s+|help me\s+(?:to\s+)?|I (?:want|need|would like) (?:you )?(?:to\s+)?)+/i;

/** The request as quotable words: lead-ins out, `my`/`our` → `the` (`update my rules` → `update the rules`). */
function asRequest(text: string): string {
  return plain(text)
    .replace(ASKING, '')
    .replace(/\b(?:my|our)\b/g, 'the')
    .replace(/\b(?:My|Our)\b/g, 'The');
}

const FOLLOW = /^(?:continue|next|go on|ok|okay|yes|no|thanks|thank you|great|perfect)\W*$/i;

function plain(text: string): string {
  return text.replaceAll(DOT, '.').replaceAll(QUESTION_DOT, '?.').replace(/\s+/g, ' ').trim();
}

function reportable(s: Sentence): boolean {
  if (s.courtesy || s.question || s.intro) return false;
  if (s.words < 6 || s.words > 32) return false;
  const text = plain(s.text);
  if (NARRATION.test(text) || BOILERPLATE.test(text) || MARKS.test(text)) return false;
  // A fragment (`The largest file in the codebase with 469 lines`) has no verb.
  if (!s.tokens.some((t) => t.pos === 'VERB' || t.pos === 'AUX')) return false;
  if (!/^[A-Z"'(]/.test(text) || !/[.!]["')]?$/.test(text)) return false;
  // Headings and lists run together (`Script Files (7 files updated)`): mostly capitalized words.
  const words = text.split(' ');
  const capitalized = words.filter((w) => /^[A-Z]/.test(w)).length;
  if (capitalized / words.length > 0.5) return false;
  // An observer's note: a sentence in the first or second person would need rewriting to be quoted.
  if (PERSONAL.test(text)) return false;
  // Paths and identifiers crowding the sentence make it a log line, not a note.
  return words.filter((w) => /[/\\_=<>{}]|\.\w+\.|\w\.\w/.test(w)).length <= 2;
}

/** The assistant's sentence that best says what was found, done or decided, later ones first. */
export function outcomeSentence(conversation: Conversation, topic: ReadonlySet<string>): Sentence | undefined {
  let best: { sentence: Sentence; score: number } | undefined;
  const assistant = conversation.messages.filter((m) => m.role === 'ASSISTANT');
  assistant.forEach((m, mi) => {
    const last = mi === assistant.length - 1;
    m.sentences.forEach((s, si) => {
      if (!reportable(s)) return;
      const outcome = OUTCOME.test(plain(s.text));
      const shared = [...s.terms].filter((t) => topic.has(t)).length;
      const score = (outcome ? 2 : 0) + Math.min(shared, 5) + (last ? 1 : 0) + (si / Math.max(1, m.sentences.length)) * 0.5;
      if (!outcome && shared === 0) return;
      if (!best || score > best.score) best = { sentence: s, score };
    });
  });
  return best?.sentence;
}

/** A last user message nobody answered yet (not `continue` or `thanks`): its first sentence. */
function openRequest(conversation: Conversation): Sentence | undefined {
  const last = conversation.messages[conversation.messages.length - 1];
  const firstUser = conversation.messages.findIndex((m) => m.role === 'USER');
  if (!last || last.role !== 'USER' || last.index === firstUser) return undefined;
  const s = last.sentences.find(
    (x) => !x.courtesy && x.words >= 3 && !BOILERPLATE.test(x.text) && !MARKS.test(x.text) && !PERSONAL.test(asRequest(x.text)),
  );
  if (!s || FOLLOW.test(plain(s.text))) return undefined;
  // Only a question or a request is left open (`Down to 2 queries.` reports, it asks nothing).
  const first = s.tokens.find((t) => /\p{L}/u.test(t.text));
  return s.question || (first?.pos === 'VERB' && s.index === 0) ? s : undefined;
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

/** An activity phrase: the title starts with a gerund (`Installing Playwright …`). */
function isActivity(title: string): boolean {
  return /^[A-Z][a-z]+ing\b/.test(title) && !/^(Thing|String|Nothing|Something|Everything|Morning|Evening|Ring|King)\b/.test(title);
}

function lowerTitle(title: string): string {
  return /^[A-Z][a-z]/.test(title) ? title[0]!.toLowerCase() + title.slice(1) : title;
}

/** The first sentence of the first request: what is quoted when the title is not an activity. */
function requestSentence(messages: readonly AnalyzedMessage[]): Sentence | undefined {
  const first = messages.find((m) => m.role === 'USER' && m.sentences.length > 0);
  const at = first ? first.sentences.findIndex((s) => !s.courtesy && s.words >= 2) : -1;
  const s = first?.sentences[Math.max(0, at)];
  // A short first line (`Install Playwright`) is quoted with the lines that continue the request.
  const next = first?.sentences[Math.max(0, at) + 1];
  if (!s || !next || s.words >= 12 || s.question || next.courtesy) return s;
  const joined = `${s.text.replace(/[.!]$/, '')}; ${next.text}`;
  return { ...s, text: joined, words: s.words + next.words, terms: new Set([...s.terms, ...next.terms]) };
}

/** The developer-chat summary (see the module comment); `title` is the conversation's title. */
export function writeAssistantChatSummary(
  conversation: Conversation,
  title: string,
  speakers: Readonly<Record<Role, string>>,
  maxSentences: number,
  maxLength: number,
): string {
  const parts: string[] = [];
  const request = requestSentence(conversation.messages);
  const announced = announcedActivity(conversation);
  const activity = announced && isActivity(capitalizeFirstLetter(announced)) ? announced : undefined;
  if (isActivity(title)) {
    // The request is quoted too when it names what the title leaves out (`… (“add comments in Arabic”)`).
    const said = new Set((activity ?? title).toLowerCase().split(/[^a-z0-9]+/));
    const more = request ? [...request.terms].filter((t) => !said.has(t)).length : 0;
    const asked = request ? asRequest(request.text) : '';
    const quoted = request && more >= 1 ? ` (${quote(asked, 26)})` : '';
    parts.push(`${speakers.USER} asked for help with ${lowerTitle(activity ?? title)}${quoted}.`);
  } else {
    const asked = request ? asRequest(request.text) : '';
    // A quote is the user's own words, first person and all; only a question is introduced as asked.
    if (request) parts.push(`${speakers.USER} ${request.question ? 'asked' : 'wrote'}: ${quote(asked, 16)}.`);
    // A title that is not an activity (`React component re-renders forever`) is named as the topic.
    else if (title && !PERSONAL.test(title)) parts.push(`${speakers.USER} raised the topic: ${title}.`);
  }
  const topic = new Set(
    title
      .toLowerCase()
      .split(/[^a-z0-9]+/)
      .filter((w) => w.length > 2),
  );
  for (const m of conversation.messages)
    if (m.role === 'USER') for (const s of m.sentences.slice(0, 2)) for (const t of s.terms) topic.add(t);
  // Nothing robust to say about the request: the sentence-level summary takes over.
  if (parts.length === 0) return '';
  const outcome = outcomeSentence(conversation, topic);
  if (outcome) parts.push(`${speakers.ASSISTANT} reported: ${quote(outcome.text, 28)}.`);
  const open = openRequest(conversation);
  if (open) parts.push(`${speakers.USER} then asked: ${quote(asRequest(open.text), 16)}, still unanswered.`);
  // Within the sentence and length limits: later parts give way first.
  const kept: string[] = [];
  for (const part of parts.slice(0, Math.max(1, maxSentences))) {
    if ([...kept, part].join(' ').length > maxLength) break;
    kept.push(part);
  }
  return kept.join(' ');
}
