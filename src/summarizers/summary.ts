import { composeChatNote, isAssistantChat, renderNote } from './chat-note.js';
import { article, codeKind, codeNoun } from './code-language.js';
import type { AnalyzedMessage, Conversation, Role, Sentence } from './conversation.js';
import { hasGreeting, isThanks } from './courtesy.js';
import { introducesSpeaker, participantNames } from './participants.js';
import { capitalizeText } from './phrase.js';
import type { Referents } from './pronouns.js';
import { reportPredicate } from './reported.js';
import { pickRequest, prepare, type Request } from './request.js';
import { referringPronoun, salientPhrase } from './salient.js';
import { overlap, scoreSentence } from './scoring.js';
import { writeTitle } from './title.js';
import { word } from './tokens.js';

/** Options of the summary writer. */
export interface SummaryOptions {
  /** Most sentences in the summary. */
  readonly maxSentences: number;
  /** Most characters in the summary. */
  readonly maxLength: number;
  /** How each role is named as a speaker (`The user`, `The assistant`). */
  readonly speakers: Readonly<Record<Role, string>>;
  /**
   * Whether people who say their names are named by them (`Susan asked …`) in a conversation between
   * people: true when the caller left `speakers` to the defaults.
   */
  readonly nameParticipants?: boolean;
}

/** A name for the ASSISTANT role that is a tool, not a person (`The assistant`, `Copilot`). */
export const ASSISTANT_TOOL = /\b(assistant|bot|model|ai|system|copilot)\b/i;

/** A line of the summary before rendering: a picked sentence, or a message that is only code. */
interface Item {
  readonly message: number;
  readonly order: number;
  readonly role: Role;
  readonly sentence?: Sentence;
  /** The conversation ends on this question, unanswered. */
  readonly open?: boolean;
}

// Reported clauses longer than this are cut at a clause boundary.
const MAX_CLAUSE = 220;
// Sentences of one message in a summary: more would crowd out the other side of the conversation.
const PER_MESSAGE = 2;
// An answer's code is mentioned in the same sentence when that sentence is short enough.
const MERGE_LIMIT = 160;

/**
 * An observer's summary: the user's request ("The user asked how to …"), the first answer, then
 * the most central other sentences, in conversation order, each reported with its speaker ("The
 * assistant suggested …", "The user then asked …"; two of one speaker in a row share a sentence),
 * and a last question nobody has answered yet, reported as open. Shared code is mentioned by
 * language, never quoted. '' when no message has prose or code.
 */
export function writeSummary(conversation: Conversation, given: SummaryOptions): string {
  // People who say who they are are named by it (`Susan asked …`); a coding assistant's chat keeps its roles.
  const people = given.nameParticipants && !isAssistantChat(conversation) ? participantNames(conversation) : {};
  const options = { ...given, speakers: { ...given.speakers, ...people } };
  const names: Referents = {
    user: referent(options.speakers.USER),
    assistant: referent(options.speakers.ASSISTANT),
    // A conversation whose people say their names is between people, whichever side is named.
    assistantIsPerson: Object.keys(people).length > 0 || !ASSISTANT_TOOL.test(options.speakers.ASSISTANT),
  };
  // Chats with a coding assistant get a note of request, outcome and what is open; a well-formed
  // how-to question (`How do I retry …?`) answered in a few plain sentences is still reported as
  // asked and answered. A long answer (plans, headings, narration) is not reported sentence by
  // sentence: its lines come out garbled in reported speech.
  const asked = pickRequest(conversation);
  const howTo = asked?.prepared.shape.kind === 'howTo';
  if (!names.assistantIsPerson && isAssistantChat(conversation) && !(howTo && answerWords(conversation, asked) < LONG_ANSWER_WORDS)) {
    const note = composeChatNote(conversation, writeTitle(conversation, { maxWords: 8 }));
    // A how-to answered in long plain prose, with no outcome to quote, is still retold.
    if (note && !(howTo && !note.outcome)) return renderNote(note, options.speakers, options);
  }
  const empty = (m: AnalyzedMessage): boolean => m.sentences.length === 0 && m.code.length === 0;
  const onlySystem = conversation.messages.every((m) => m.role === 'SYSTEM' || empty(m));
  const named = (s: Sentence): boolean => s.role in people && introducesSpeaker(s);
  const eligible = (s: Sentence): boolean => !s.courtesy && (s.role !== 'SYSTEM' || onlySystem) && !named(s);
  const request = asked;
  const opening = request && eligible(request.prepared.sentence) ? request.prepared.sentence : undefined;
  const budget = Math.max(1, options.maxSentences);

  // Messages that are only code get a line of their own ("The user shared a Python code snippet").
  const codeOnly = codeMessages(conversation, request).filter((m) => !m.sentences.some(eligible));
  const room = Math.max(0, budget - (opening ? 1 : 0) - codeOnly.length);
  const picked = pick(conversation, opening, request, room, eligible);
  // What remains open: a last question nobody has answered is reported, as such, in place of the
  // least central pick if need be (never the first answer's lead), unless it repeats the opening.
  const open = openQuestion(conversation, eligible);
  if (open && open !== opening && !picked.includes(open) && !(opening && overlap(opening, open) >= 0.5)) {
    if (picked.length < room) picked.push(open);
    else if (picked.length >= 2) picked[picked.length - 1] = open;
  }
  const items: Item[] = [
    ...(opening ? [{ message: opening.message, order: opening.index, role: opening.role, sentence: opening }] : []),
    ...picked.map((s) => ({ message: s.message, order: s.index, role: s.role, sentence: s })),
    ...codeOnly.map((m) => ({ message: m.index, order: 0, role: m.role })),
  ]
    .map((item: Item) => (open && item.sentence === open ? { ...item, open: true } : item))
    .sort((a, b) => a.message - b.message || a.order - b.order);

  if (items.length === 0) return smallTalk(conversation, options.speakers, names);
  return render(items, conversation, request, names, options);
}

// An answer this long (in words of prose) is a plan or a report, not a few sentences to retell.
const LONG_ANSWER_WORDS = 200;

/** Words of prose in the first answer after the request. */
function answerWords(conversation: Conversation, request: Request): number {
  const answer = conversation.messages.find((m) => m.role === 'ASSISTANT' && m.index > request.message.index);
  return answer?.sentences.reduce((sum, s) => sum + s.words, 0) ?? 0;
}

/** The first answer's first content sentence, then the best-scored others, without repeats. */
function pick(
  conversation: Conversation,
  opening: Sentence | undefined,
  request: Request | undefined,
  room: number,
  eligible: (s: Sentence) => boolean,
): Sentence[] {
  const scores = new Map<Sentence, number>();
  for (const s of conversation.sentences) if (eligible(s) && s !== opening) scores.set(s, scoreSentence(conversation, s));
  const ranked = [...scores]
    .filter(([, score]) => score > 0)
    .map(([s]) => s)
    .sort((a, b) => scores.get(b)! - scores.get(a)! || a.message - b.message || a.index - b.index);
  const picked: Sentence[] = [];
  const take = (s: Sentence): void => {
    if (picked.length >= room || picked.includes(s)) return;
    const chosen = opening ? [opening, ...picked] : picked;
    if (chosen.some((c) => overlap(c, s) >= 0.5)) return;
    if (chosen.filter((c) => c.message === s.message).length >= PER_MESSAGE) return;
    picked.push(s);
  };
  // Answers usually lead with the point, so the first answer's first content sentence comes first.
  const after = request?.message.index ?? -1;
  const useful = (s: Sentence): boolean => (scores.get(s) ?? 0) > 0;
  const answer = conversation.messages.find((m) => m.role === 'ASSISTANT' && m.index > after && m.sentences.some(useful));
  const lead = answer?.sentences.find(useful);
  if (lead) take(lead);
  for (const s of ranked) take(s);
  return picked;
}

/**
 * The user's question the conversation ends on: the last question of the last message, when that
 * message is the user's (any later reply, even a bare "Yes.", closes it). A tag question (`…,
 * right?`) asks for no answer.
 */
function openQuestion(conversation: Conversation, eligible: (s: Sentence) => boolean): Sentence | undefined {
  const last = conversation.messages.findLast((m) => m.role !== 'SYSTEM' && (m.code.length > 0 || m.sentences.length > 0));
  if (last?.role !== 'USER') return undefined;
  return last.sentences.findLast((s) => s.question && eligible(s) && !TAG_QUESTION.test(s.text));
}

const TAG_QUESTION = /,\s*(right|ok|okay|yes|no|correct|huh|isn't it|don't you think)\s*\?\s*$/i;

/** The first user message with code, and the first answer with code after the request. */
function codeMessages(conversation: Conversation, request: Request | undefined): AnalyzedMessage[] {
  const user = conversation.messages.find((m) => m.role !== 'ASSISTANT' && m.role !== 'SYSTEM' && m.code.length > 0);
  const after = request?.message.index ?? -1;
  const answer = conversation.messages.find((m) => m.role === 'ASSISTANT' && m.code.length > 0 && m.index > after);
  return [user, answer].filter((m): m is AnalyzedMessage => m !== undefined);
}

/** `The user` → `the user`; custom names such as `#Person2#` are kept as given. */
function referent(speaker: string): string {
  return /^The\s/.test(speaker) ? `the${speaker.slice(3)}` : speaker;
}

/** `a TypeScript code example`, `two Python code snippets`, `shell commands`, `a stack trace`. */
function describe(message: AnalyzedMessage): string {
  const language = message.code[0]!.language;
  const kind = codeKind(language);
  let phrase = codeNoun(language);
  if (kind === 'program' || kind === 'unknown') phrase = `${phrase} ${message.role === 'ASSISTANT' ? 'example' : 'snippet'}`;
  if (kind === 'shell') return phrase;
  const count = message.code.length;
  if (count > 1 && message.code.every((c) => c.language === language)) {
    return `${count === 2 ? 'two' : count === 3 ? 'three' : 'several'} ${phrase}s`;
  }
  return `${article(phrase)} ${phrase}`;
}

function render(
  items: readonly Item[],
  conversation: Conversation,
  request: Request | undefined,
  names: Referents,
  options: SummaryOptions,
): string {
  const out: string[] = [];
  const described = new Set<number>();
  let length = 0;
  let previous: Item | undefined;
  // The last sentence may take one more predicate of its speaker (`asked X and how Y`), once.
  let joinable: string | undefined;
  const push = (item: Item, predicate: string): boolean => {
    const sameRole = previous?.role === item.role;
    if (sameRole && joinable && out.length > 0 && canJoin(predicate)) {
      const last = out[out.length - 1]!;
      const joined = `${last.replace(/[.!?]$/, '')}${joinWith(joinable, predicate)}.`;
      if (joined.length <= MAX_JOINED && length - last.length + joined.length <= options.maxLength) {
        out[out.length - 1] = joined;
        length += joined.length - last.length;
        previous = item;
        joinable = undefined;
        return true;
      }
    }
    if (out.length >= options.maxSentences) return false;
    let speaker = options.speakers[item.role];
    let connector = sameRole ? ' also' : item.role !== 'ASSISTANT' && previous?.role === 'ASSISTANT' ? ' then' : '';
    // Messages of unknown role may come from different people: "Another participant", not "also".
    if (item.role === 'UNKNOWN' && sameRole && previous!.message !== item.message && speaker === 'A participant') {
      speaker = 'Another participant';
      connector = '';
    }
    let sentence = capitalizeText(`${speaker}${connector} ${predicate}`.replace(/\s+/g, ' ').trim());
    if (!/[.!?]$/.test(sentence)) sentence = `${sentence.replace(/[\s,;:]+$/, '')}.`;
    const room = options.maxLength - length - (out.length > 0 ? 1 : 0);
    if (sentence.length > room) {
      if (out.length > 0 || room < 20) return false;
      sentence = `${clip(sentence.slice(0, -1), room - 1)}.`;
    }
    out.push(sentence);
    length += sentence.length + (out.length > 1 ? 1 : 0);
    previous = item;
    joinable = canJoin(predicate) && item.role !== 'UNKNOWN' ? predicate : undefined;
    return true;
  };

  for (const item of items) {
    const message = conversation.messages[item.message]!;
    const hasCode = message.code.length > 0 && !described.has(message.index) && message.role !== 'SYSTEM';
    if (!item.sentence) {
      described.add(message.index);
      if (!push(item, `${item.role === 'ASSISTANT' ? 'replied with' : 'shared'} ${describe(message)}`)) break;
      continue;
    }
    const firstOfMessage = !previous || previous.message !== item.message;
    let predicate = lowerCommonWord(predicateOf(item, conversation, request, names, firstOfMessage && hasCode), conversation, item.role);
    if (!/\s\S/.test(predicate)) continue; // Nothing left to report once rewritten.
    let note: string | undefined;
    if (hasCode) {
      described.add(message.index);
      // Quoted text in another language (`wrote: …`) is not merged into: the note stands alone.
      const quoted = predicate.startsWith('wrote:');
      if (item.role !== 'ASSISTANT' && !quoted) predicate = `shared ${describe(message)} and ${predicate}`;
      else if (predicate.length <= MERGE_LIMIT && !quoted) predicate = `${predicate}, and shared ${describe(message)}`;
      else note = `shared ${describe(message)}`;
    }
    if (item.open) predicate = `${predicate.replace(/[.?!]$/, '')}; that question is still open`;
    if (!push(item, predicate)) break;
    if (note) push({ ...item, order: item.order + 0.5 }, note);
  }
  return out.join(' ');
}

// Two predicates of one speaker are joined (`asked X and how Y`) while the sentence stays this short.
const MAX_JOINED = 240;
// Predicates that can be joined: reported speech (`asked …`, `explained that …`), not a quote (`wrote: …`).
const JOINABLE =
  /^(?:asked|explained|said|suggested|confirmed|told|recommended|mentioned|agreed|added|noted|described|wanted|thanked|invited|offered|warned|replied|answered|pointed|insisted|complained|admitted|proposed|reported|shared)\b/;
// What may follow a repeated verb, which then goes (`explained that X and that Y`).
const CLAUSE_START = /^(?:that|whether|if|how|what|why|when|where|who|which)\b/;

/**
 * A predicate that can be joined to or joined onto: reported speech with no quote, no open-question
 * mark (`; that question is still open`) and no code note already (`…, and shared …`), so that a
 * sentence never chains three `and`s.
 */
function canJoin(predicate: string): boolean {
  return JOINABLE.test(predicate) && !/[;:]|\band shared\b/.test(predicate);
}

/**
 * ` and <second>`, without the second's verb when it repeats the first's (`explained that X and
 * that Y`; `said X` then `said Y` → `said X and that Y`), and after a comma when the first has a
 * comma or an `and` of its own (`said X and Y, and asked Z`).
 */
function joinWith(first: string, second: string): string {
  const [verb, ...words] = second.split(' ');
  const rest = words.join(' ');
  const repeated = first.split(' ', 1)[0] === verb;
  let joined = second;
  if (repeated && CLAUSE_START.test(rest)) joined = rest;
  else if (repeated && THAT_VERB.test(verb!)) joined = `that ${rest}`;
  return `${/,|\band\b/.test(first) ? ',' : ''} and ${joined}`;
}

// Verbs whose object is a `that` clause, which a repeat can carry alone (`said X and that Y`).
const THAT_VERB = /^(?:said|explained|added|noted|mentioned|confirmed|reported|agreed|admitted|insisted|complained)$/;

function predicateOf(item: Item, conversation: Conversation, request: Request | undefined, names: Referents, withCode: boolean): string {
  const sentence = item.sentence!;
  const message = conversation.messages[item.message]!;
  // Text in another language is not rewritten: the observer notes what was written.
  if (!message.english) return `wrote: ${clip(sentence.text, MAX_CLAUSE)}`;
  const prepared = request?.prepared.sentence === sentence ? request.prepared : prepare(sentence);
  // A pronoun with nothing before it stands for the shared code (`asked why it fails`) or for
  // the request's most likely antecedent (`asked how to retry the request`).
  const first = !message.sentences.slice(0, sentence.index).some((s) => !s.courtesy);
  let replacement;
  const pronoun = prepared.tokens[referringPronoun(prepared.tokens)];
  if (first && pronoun && item.role !== 'ASSISTANT') {
    const isRequest = request !== undefined && request.prepared === prepared;
    const named = isRequest ? salientPhrase(conversation, request, pronoun, false) : undefined;
    replacement = named ?? (withCode ? [word(/^(them|these|those)$/.test(pronoun.lower) ? 'them' : 'it', 'PRON')] : undefined);
  }
  return clip(reportPredicate(prepared, item.role, names, replacement), MAX_CLAUSE);
}

/**
 * A sentence's capitalized first word, reported mid-sentence (`explained that Coroutines are …`),
 * keeps its capital only if it is a name. It is taken for a common word when the same speaker
 * writes it in lower case elsewhere (users often type names in lower case; a speaker who
 * capitalizes a name does so throughout) and nobody capitalizes it inside a sentence.
 */
function lowerCommonWord(predicate: string, conversation: Conversation, role: Role): string {
  const match = /^(\w+ (?:that|whether) )([A-Z][a-z]+)\b/.exec(predicate);
  if (!match) return predicate;
  const word = match[2]!;
  const lower = word.toLowerCase();
  let seenLower = false;
  for (const sentence of conversation.sentences) {
    for (let i = 0; i < sentence.tokens.length; i++) {
      const text = sentence.tokens[i]!.text;
      if (text === lower) seenLower ||= sentence.role === role;
      else if (text === word && i > 0) return predicate;
    }
  }
  return seenLower ? `${match[1]}${lower}${predicate.slice(match[0].length)}` : predicate;
}

/** A summary for conversations that are only greetings and thanks. */
function smallTalk(conversation: Conversation, speakers: Readonly<Record<Role, string>>, names: Referents): string {
  const said = (role: Role, test: (text: string) => boolean): boolean =>
    conversation.sentences.some((s) => s.role === role && test(s.text));
  if (conversation.sentences.length === 0) return '';
  if (!conversation.sentences.some((s) => s.role === 'USER' || s.role === 'ASSISTANT')) {
    const greeted = conversation.sentences.some((s) => hasGreeting(s.text));
    return `The participants exchanged ${greeted ? 'greetings' : 'pleasantries'}.`;
  }
  const user = speakers.USER;
  if (said('USER', hasGreeting) && conversation.sentences.some((s) => s.role === 'ASSISTANT')) {
    return `${user} and ${names.assistant} exchanged greetings.`;
  }
  if (said('USER', hasGreeting)) return `${user} greeted ${names.assistant}.`;
  if (said('USER', isThanks)) return `${user} thanked ${names.assistant}.`;
  return `${user} and ${names.assistant} exchanged pleasantries.`;
}

const BOUNDARY = /,\s|;\s|\s(?:because|which|and|but|so|when|while|where|although|since|with)\s/g;

/** Shortens text to `max` characters at a clause boundary, else at a word boundary. */
export function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  let cut = -1;
  for (const m of text.matchAll(BOUNDARY)) {
    if (m.index > max) break;
    if (m.index >= max * 0.4) cut = m.index;
  }
  if (cut < 0) cut = text.lastIndexOf(' ', max);
  if (cut <= 0) cut = max;
  let out = text.slice(0, cut);
  for (;;) {
    const trimmed = out
      .replace(/[\s,;:(\-–—]+$/, '')
      .replace(/\s+(the|a|an|and|or|to|of|with|in|on|for|that|which|but|so|is|are|their|its|by|from|as)$/i, '');
    if (trimmed === out) break;
    out = trimmed;
  }
  return out;
}
