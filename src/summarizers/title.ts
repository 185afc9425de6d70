import { isAssistantChat } from './chat-note.js';
import { codeKind, codeNoun } from './code-language.js';
import type { Conversation } from './conversation.js';
import { hasGreeting } from './courtesy.js';
import { announcedTitle, describeFiles, requestOpening, requestTitle } from './echo.js';
import { DEICTIC_DETERMINERS, VAGUE_TERMS } from './lexicon.js';
import { capitalizeFirst, capitalizeText, dropAsides, replaceAt, trimEnd } from './phrase.js';
import { type Prepared, pickRequest, prepare, type Request, requestScore } from './request.js';
import { referringPronoun, salientPhrase } from './salient.js';
import { fromShape } from './title-shape.js';
import { cut, render, trimTail } from './title-trim.js';
import { countWords, isWordy, joinTokens, retext, startsPhrase, type Token, word } from './tokens.js';
import { topicPhrase } from './topic.js';

/** Options of the title writer. */
export interface TitleOptions {
  /** Longest title in words. */
  readonly maxWords: number;
  /**
   * Whether the rules for chats with a coding assistant apply (default true); false when the
   * assistant role is a person (`speakers.ASSISTANT` names one), as in spoken dialogues.
   */
  readonly assistantChats?: boolean;
}

/**
 * A short title for the conversation, built from the first user request: `How do I retry a flaky
 * payment API call in TypeScript?` → `Retrying a flaky payment API call in TypeScript`. Falls back
 * to `Short greeting`/`Short chat` for small talk, `<Language> code snippet` for code alone, and the
 * first words of the first message for text that does not read as English. '' when there is no text.
 */
export function writeTitle(conversation: Conversation, options: TitleOptions): string {
  // A chat with a coding assistant: long or code-bearing answers, or an answer announcing its task.
  const devChat =
    options.assistantChats !== false && (isAssistantChat(conversation) || announcedTitle(conversation, options.maxWords) !== undefined);
  const title = sentenceTitle(conversation, options, devChat);
  // In a coding assistant's chat, a title of a word or two cut from a long request (`Affecting
  // functionality`) says less than the request's own opening words, compacted.
  if (devChat && title.split(/\s+/).filter(Boolean).length <= 2) {
    const opening = requestOpening(conversation, Math.min(6, options.maxWords));
    if (opening) return opening;
  }
  // Files are named by their subject, never copied as paths (`Error in GitHub Actions for auto fix ci`).
  return devChat ? capitalizeText(describeFiles(title)) || title : title;
}

// An announced task that only opens with looking at things.
const LOOKING_FIRST = /^(?:Analy[sz]ing|Scanning|Checking|Examining|Reviewing|Looking|Exploring|Reading|Inspecting|Investigating)\b/;

function sentenceTitle(conversation: Conversation, options: TitleOptions, devChat: boolean): string {
  const max = Math.max(2, options.maxWords);
  const firstUser = conversation.messages.find((m) => m.role === 'USER' && (m.sentences.length > 0 || m.code.length > 0));
  if (firstUser && firstUser.code.length > 0 && firstUser.sentences.every((s) => s.courtesy)) {
    return codeTitle(firstUser.code[0]!.language);
  }
  if (devChat) {
    const announced = announcedTitle(conversation, max);
    const requested = requestTitle(conversation, max);
    // `Analyzing the scripts folder …` is how the assistant starts; the user's own imperative
    // (`delete unwanted scripts`) names the task.
    if (announced && !(requested && LOOKING_FIRST.test(announced) && !LOOKING_FIRST.test(requested))) return announced;
    if (requested) return requested;
  }
  const request = pickRequest(conversation);
  if (!request) {
    const anyCode = conversation.messages.find((m) => m.code.length > 0);
    if (anyCode) return codeTitle(anyCode.code[0]!.language);
    if (conversation.sentences.length === 0) return '';
    return conversation.sentences.some((s) => hasGreeting(s.text)) ? 'Short greeting' : 'Short chat';
  }
  if (!request.message.english) return firstWords(request.message.prose, Math.min(6, max)) || UNTITLED;
  if (!request.strong && request.message.code.length > 0) return codeTitle(request.message.code[0]!.language);
  if (chatty(conversation, request)) {
    const phrase = topicPhrase(conversation, request.prepared.sentence);
    if (phrase && countWords(phrase) >= 2) return render(capitalizeFirst(cut(phrase, max)));
  }

  const topic = topicOf(request);
  const terms = [...topic.sentence.terms];
  if (terms.length === 1 && terms[0] === 'happen' && referringPronoun(topic.tokens) >= 0) {
    // `Why is this happening?` with nothing else to go on.
    const code = request.message.code[0];
    return code ? `Unexpected behavior in ${codeNoun(code.language)}` : 'Unexpected behavior';
  }
  let tokens = finish(fromShape(topic.shape, topic.tokens), conversation, request, max);
  if (countWords(tokens) < 2) {
    const code = request.message.code[0];
    const context = code ? codeNoun(code.language) : userLanguage(conversation);
    if (tokens.length > 0 && context) tokens = [...tokens, word('in'), ...words(context)];
  }
  const text = render(tokens);
  if (countWords(tokens) >= 2) return text;
  const fallback = firstWords(joinTokens(topic.tokens), Math.min(6, max));
  if (fallback.split(/\s+/).length >= 2) return fallback;
  return text ? `Question about ${text.toLowerCase()}` : fallback || UNTITLED;
}

// A reply this long (in words) answers a question; shorter replies are turns of a conversation.
const ANSWER_WORDS = 30;

/**
 * Whether the request opens a chat rather than a task. A task is named after its request
 * (`Retrying a flaky payment API`): the request asks how to do something, shares code, or gets a
 * real answer (code, or a paragraph), or there is no reply yet. A chat, where the request asks
 * nothing of the other side or gets a short reply, is named after what its turns keep coming back
 * to (`Quitting smoking`), since its opening line (`Did you go to school today?`) seldom says.
 */
function chatty(conversation: Conversation, request: Request): boolean {
  if (request.message.code.length > 0) return false;
  const reply = conversation.messages.find(
    (m) => m.index > request.message.index && m.role !== request.message.role && m.role !== 'SYSTEM',
  );
  if (!reply || reply.code.length > 0) return false;
  const shape = request.prepared.shape;
  if (shape.kind === 'howTo') return false;
  const asksNothing = shape.kind === 'statement' || (shape.kind === 'question' && shape.subject[0]?.lower === 'you');
  return asksNothing || reply.sentences.reduce((sum, s) => sum + s.words, 0) < ANSWER_WORDS;
}

// Never shown for real text, which always has words; only a guard against an empty title.
const UNTITLED = 'Untitled conversation';

function words(phrase: string): Token[] {
  return phrase.split(' ').map((w) => word(w, 'NOUN'));
}

/**
 * The sentence to title: the request, unless it only points at something said before (`Why is
 * this happening?` after `My React component re-renders forever.`); then the most topical other
 * sentence of the message.
 */
function topicOf(request: Request): Prepared {
  const p = request.prepared;
  // `make it faster` says what is wanted; `what am I doing wrong` does not.
  const modifiers = p.tokens.filter((t) => (t.pos === 'ADJ' || t.pos === 'ADV') && !t.stop).map((t) => t.lemma);
  if ([...p.sentence.terms, ...modifiers].some((t) => !VAGUE_TERMS.has(t))) return p;
  // With code in the message, `Why does this fail?` is about the code unless a sentence says more.
  const enough = request.message.code.length > 0 ? 3 : 2;
  const others = request.message.sentences.filter(
    (s) => s !== p.sentence && !s.courtesy && (!s.intro || s.words >= 6) && s.words >= 3 && s.terms.size >= enough,
  );
  // The most request-like of them (`I need to fetch 1000 URLs`), then the most topical.
  const ranked = others.map((s) => {
    const prepared = prepare(s);
    return { prepared, score: requestScore(prepared), terms: s.terms.size, index: s.index };
  });
  const best = ranked.sort((a, b) => b.score - a.score || b.terms - a.terms || a.index - b.index)[0];
  return best ? best.prepared : p;
}

/** `TypeScript code snippet`, `Shell commands`, `JSON snippet`, `Stack trace`, `Code snippet`. */
export function codeTitle(language: string | undefined): string {
  const kind = codeKind(language);
  const noun = codeNoun(language);
  const text = kind === 'program' || kind === 'unknown' ? `${noun} snippet` : noun;
  return text[0]!.toUpperCase() + text.slice(1);
}

/** The first `count` words of `text`; for scripts written without spaces, the first 20 characters. */
export function firstWords(text: string, count: number): string {
  const words = text
    .replace(/\s+/g, ' ')
    .trim()
    .split(' ')
    .filter((w) => /[\p{L}\p{N}]/u.test(w));
  let out = words.slice(0, count).join(' ');
  if ([...out].length > 60) {
    // Scripts without spaces (or one huge word) give one long "word": keep its first characters.
    const space = out.lastIndexOf(' ', 60);
    out = space > 0 ? out.slice(0, space) : [...out].slice(0, 20).join('');
  }
  return out.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N})\]]+$/gu, '');
}

/** Cleans, trims and completes title tokens: asides out, `my`/`this` → `the`, pronouns resolved. */
function finish(raw: readonly Token[], conversation: Conversation, request: Request, max: number): Token[] {
  let tokens = trimEnd(dropAsides(raw));
  tokens = tokens.map((t, i) => (DEICTIC_DETERMINERS.has(t.lower) && determines(t, tokens[i + 1]) ? retext(t, 'the') : t));
  const pronoun = referringPronoun(tokens);
  const phrase = pronoun >= 0 ? salientPhrase(conversation, request, tokens[pronoun]!) : undefined;
  if (phrase) {
    // `rename them all` → `rename the files`: the quantifier belonged to the pronoun.
    const all = /^(all|both)$/.test(tokens[pronoun + 1]?.lower ?? '') ? 1 : 0;
    tokens = replaceAt(
      tokens.filter((_, i) => i !== pronoun + 1 || all === 0),
      pronoun,
      phrase,
    );
  }
  while (tokens[0] && /^(the|a|an|some|any)$/.test(tokens[0].lower)) tokens = tokens.slice(1);
  if (tokens[0]) tokens[0] = { ...tokens[0], space: false };
  tokens = trimTail(cut(tokens, max));
  // A language tail only when the user's side uses it (their code, or their words): an assistant
  // answering in Python does not make `Pushing to the remote` a Python question.
  const language = userLanguage(conversation);
  if (language && countWords(tokens) + 2 <= max && countWords(tokens) >= 2 && !mentions(tokens, language)) {
    tokens = [...tokens, word('in', 'ADP'), word(language, 'PROPN')];
  }
  return capitalizeFirst(tokens);
}

/** Whether `t` determines the next word (`my last commit`, `this error`), rather than standing alone. */
function determines(t: Token, next: Token | undefined): boolean {
  if (!next || !isWordy(next)) return false;
  if (/^(my|our|your|their|his|her)$/.test(t.lower)) return !/^(AUX|ADP|CCONJ|SCONJ|PART)$/.test(next.pos);
  return startsPhrase(next);
}

const ALIASES: Readonly<Record<string, RegExp>> = {
  TypeScript: /^(typescript|ts|tsx|tsc|deno)$/,
  JavaScript: /^(javascript|js|node|nodejs|npm|react|vue|express|jsx)$/,
  Python: /^(python|py|django|flask|fastapi|pandas|pip|pytest)$/,
  Go: /^(go|golang)$/,
  Rust: /^(rust|cargo)$/,
};

function mentions(tokens: readonly Token[], language: string): boolean {
  const alias = ALIASES[language];
  return tokens.some((t) => t.lower === language.toLowerCase() || (alias?.test(t.lower) ?? false));
}

/** The conversation's language, when the user shared code in it or named it. */
function userLanguage(conversation: Conversation): string | undefined {
  const language = conversation.language;
  if (!language) return undefined;
  const users = conversation.messages.filter((m) => m.role === 'USER');
  if (users.some((m) => m.code.some((b) => b.language === language))) return language;
  return users.some((m) => m.sentences.some((s) => mentions(s.tokens, language))) ? language : undefined;
}
