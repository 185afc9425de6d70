/**
 * The names the two people of a conversation go by, when the conversation says them: an observer
 * writes "Susan asked whether Mr. Brown is in", not "The user asked whether Mr. Brown is in", once
 * Susan has said who she is. Used only for conversations between people (not chats with a coding
 * assistant) whose speakers the caller has not named.
 */
import type { AnalyzedMessage, Conversation, Role, Sentence } from './conversation.js';
import { HONORIFIC } from './lexicon.js';
import { prepare } from './request.js';
import type { Token } from './tokens.js';

/** The names found, by role. */
export type ParticipantNames = Partial<Record<'USER' | 'ASSISTANT', string>>;

/**
 * Names from the opening turns: the name the first message of one side addresses the other by
 * (`Harry, do you like the opera?`, `Hi Joe.`, `Lieb!`), and the name a side introduces itself with
 * (`This is Susan speaking.`, `My name is Tom.`, `I'm Anna, from accounts.`). When both sides would
 * get one name, neither is named; a role nobody names is left out.
 */
export function participantNames(conversation: Conversation): ParticipantNames {
  const user = openingMessage(conversation, 'USER');
  const assistant = openingMessage(conversation, 'ASSISTANT');
  const names: ParticipantNames = {
    USER: (user && introducedName(user)) ?? (assistant && addressedName(assistant)),
    ASSISTANT: (assistant && introducedName(assistant)) ?? (user && addressedName(user)),
  };
  if (names.USER && names.USER === names.ASSISTANT) return {};
  return Object.fromEntries(Object.entries(names).filter(([, name]) => name !== undefined));
}

/**
 * The first message of `role`, when it is one of the first two turns: later, a name is as often a
 * third person's (`Hello, Barbara … Florence, come and meet her`).
 */
function openingMessage(conversation: Conversation, role: Role): AnalyzedMessage | undefined {
  const turns = conversation.messages.filter((m) => m.sentences.length > 0).slice(0, 2);
  return turns.find((m) => m.role === role);
}

/** The name a message addresses the listener by, in its first sentences. */
function addressedName(message: AnalyzedMessage): string | undefined {
  const [first, second] = message.sentences;
  for (const sentence of [first, second]) {
    if (!sentence) continue;
    // `Lieb! How are you?`: a word called out is a name when a question to the listener follows.
    const called = sentence === first && second?.question && /\byou\b/i.test(second.text) ? calledName(sentence) : undefined;
    const name = prepare(sentence).addressed ?? greetedName(sentence) ?? called ?? trailingName(sentence);
    if (name && isPersonName(name)) return name;
  }
  return undefined;
}

/**
 * Whether the sentence only says who the speaker is (`Hello, this is Susan speaking.`, `Hi, this is
 * Dan from the garage.`, `I'm your new neighbor, Jack.`): once the speaker is named, there is
 * nothing in it to report. One that goes on (`…, I am calling about my bill`) is reported.
 */
export function introducesSpeaker(sentence: Sentence): boolean {
  const text = sentence.text.trim();
  const match = INTRODUCTION.exec(text) ?? SELF_DESCRIBED.exec(text);
  if (!match || !isName(sentence.tokens, match[1]!)) return false;
  const rest = text.slice(match.index + match[0].length);
  return /^\s*(?:(?:speaking|here)\b|from\b[^,;]{0,40})?\s*[.!]?\s*$/.test(rest);
}

/** The name the message's first sentences introduce the speaker with. */
function introducedName(message: AnalyzedMessage): string | undefined {
  for (const sentence of message.sentences.slice(0, 2)) {
    // Only a sentence that is nothing but the introduction, which then goes unreported: named from
    // `This is Maria, I am calling about my bill`, the note would say `Maria said that this is Maria, …`.
    if (!introducesSpeaker(sentence)) continue;
    const match = INTRODUCTION.exec(sentence.text.trim()) ?? SELF_DESCRIBED.exec(sentence.text.trim());
    if (match && isPersonName(match[1]!)) return match[1];
  }
  return undefined;
}

// `This is Susan speaking`, `My name is Tom`, `I'm Anna from accounts`: the name, then the end, a comma, `speaking`, `here` or `from`.
const INTRODUCTION =
  /^(?:(?:[Hh]ello|[Hh]i|[Hh]ey|[Gg]ood (?:morning|afternoon|evening))[,!.]?\s+)?(?:[Tt]his is|[Mm]y name is|[Mm]y name's|I'm|I am)\s+((?:(?:Mr|Mrs|Ms|Miss|Dr)\.?\s+)?[A-Z][a-z]+(?:\s+[A-Z][a-z]+)?)(?=\s*(?:[,.!]|$)|\s+(?:speaking|here|from)\b)/;

// `I'm your new neighbor, Jack.`: the speaker described, then named.
const SELF_DESCRIBED =
  /^(?:I'm|I am|[Tt]his is)\s+(?:your|the|a|an)\b[^,]*,\s+((?:(?:Mr|Mrs|Ms|Miss|Dr)\.?\s+)?[A-Z][a-z]+(?:\s+[A-Z][a-z]+)?)\s*[.!]?$/;

// `Hi Joe.`, `Good morning, Mrs. Wang!`: a greeting and a name, nothing else.
const GREETING =
  /^(?:[Hh]ello|[Hh]i|[Hh]ey|[Gg]ood (?:morning|afternoon|evening)|[Mm]orning|[Ee]vening)[,!]?\s+((?:(?:Mr|Mrs|Ms|Miss|Dr)\.?\s+)?[A-Z][a-z]+)\s*[.!,]?$/;

function greetedName(sentence: Sentence): string | undefined {
  const match = GREETING.exec(sentence.text.trim());
  return match && isName(sentence.tokens, match[1]!) ? match[1] : undefined;
}

/** `Lieb!`: a sentence that is only a name, called out. */
function calledName(sentence: Sentence): string | undefined {
  const match = /^([A-Z][a-z]+)\s*!$/.exec(sentence.text.trim());
  return match && isName(sentence.tokens, match[1]!) ? match[1] : undefined;
}

/** `That is a big order, Jane.`: a name after the last comma, ending the sentence. */
function trailingName(sentence: Sentence): string | undefined {
  // `I'm your new neighbor, Jack.` names the speaker, not the listener.
  if (/^(?:I'm|I am|this is|my name)\b/i.test(sentence.text)) return undefined;
  const match = /,\s+((?:(?:Mr|Mrs|Ms|Miss|Dr)\.?\s+)?[A-Z][a-z]+)\s*[.!?]?$/.exec(sentence.text.trim());
  return match && isName(sentence.tokens, match[1]!) ? match[1] : undefined;
}

/** Whether the tagger reads the name's last word as a proper noun in the sentence (not `I'm Sorry`, `This is Great`). */
function isName(tokens: readonly Token[], name: string): boolean {
  const last = name.split(/\s+/).at(-1)!;
  return tokens.some((t) => t.text === last && t.pos === 'PROPN');
}

// Forms of address, greetings and words a tagger may take for names, which name nobody; and the
// assistants people greet by name (`Hi Claude.`), which are not people.
const NOT_A_NAME =
  /^(?:sir|madam|ma'am|mom|mum|dad|honey|darling|dear|sweetie|sweetheart|babe|baby|love|doctor|waiter|waitress|officer|boss|team|everyone|everybody|guys|man|buddy|mate|bro|folks|god|jesus|hello|bye|goodbye|thanks|cheers|congratulations|welcome|please|sorry|okay|ok|yes|no|well|wow|good|great|fine|hmm|whew|oops|taxi|english|chinese|american|british|chatgpt|gpt|claude|gemini|bard|copilot|siri|alexa|cortana|bing|grok|llama|mistral)$/i;

// `This is Paris Hotel`: a place or a firm answering, not a person.
const INSTITUTION =
  /\b(?:hotel|bank|inc|ltd|company|restaurant|agency|hospital|clinic|office|department|desk|center|centre|store|shop|airlines?|services?|support)$/i;

function isPersonName(name: string): boolean {
  const words = name.split(/\s+/);
  const last = words.at(-1)!.replace(/\.$/, '');
  if (words.length === 1 && HONORIFIC.test(last.toLowerCase())) return false;
  return !NOT_A_NAME.test(last) && !NOT_A_NAME.test(words[0]!) && !INSTITUTION.test(name);
}
