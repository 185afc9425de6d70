import { HONORIFIC } from './lexicon.js';
import type { Token } from './tokens.js';

/**
 * Small talk that carries no content: greetings, thanks, acknowledgements, offers of help. Such
 * sentences are never picked for titles or summaries; a conversation made only of them gets a
 * fallback title ("Greeting").
 */

const GREETING = /\b(hi|hello|hey|hiya|howdy|greetings|good (morning|afternoon|evening|day))\b/;

// Phrases removed from a lower-cased sentence; if nothing but FILLER words remains, it was courtesy.
const PHRASES: readonly RegExp[] = [
  /\b(hi|hello|hey|hiya|howdy|yo|greetings|good (morning|afternoon|evening|day|night))\b/g,
  /\b(many )?thanks?( you)?( (so|very) much| a lot| a ton| again)?\b/g,
  /\b(thx|ty|cheers|appreciate (it|that|this)|(much|really) appreciated|bye|goodbye|see (you|ya)( later| soon)?|take care)\b/g,
  /\bhave a (good|great|nice) (day|one|weekend|evening)\b/g,
  /\b(ok(ay)?|k|alright|all right|sure( thing)?|great|cool|nice|awesome|perfect|excellent)\b/g,
  /\b(wonderful|brilliant|amazing|fantastic)\b/g,
  /\b(got it|sounds good|makes sense|that (works|helps|helped|did it|fixed it)|it works( now)?|(this|that) (is|was) helpful)\b/g,
  /\b(you are|you're) welcome\b|\b(no (problem|worries)|my pleasure|anytime|of course|certainly|absolutely|indeed)\b/g,
  /\b(glad|happy) (to help|i could help|it helped|that helped|it works|to hear (that|it))\b/g,
  /\b(i )?hope (this|that|it) helps\b|\bhappy coding\b|\bgood luck\b/g,
  /\b(great|good|excellent) question\b/g,
  // Asks with no content of their own: `Any ideas?`, `Can you help?`.
  /\b(any|some) (ideas?|thoughts|suggestions|advice|pointers|tips|help)( on this| here)?\b|\bthoughts\b/g,
  /\bwhat do you think\b|\b(can|could) you help( me)?\b|\bplease help\b/g,
  /\bhow (are you|is it going|are things|is your day)( doing)?( today)?\b/g,
  /\b(how|what) can i (help|assist|do for) you( with)?( today)?\b|\bhow may i (help|assist) you( today)?\b/g,
  /\b(is there )?anything else( i can help (you )?with)?\b/g,
  /\bi am (good|fine|well|great|doing (well|good|great|fine))\b/g,
  /\b(nice|pleased|good) to meet you\b/g,
  /\b(yes|yeah|yep|yup|no|nope|sorry|my bad|oops|lol|haha|wow|hmm+|oh|ah)\b/g,
];

const FILLER = new Set([
  'there',
  'you',
  'so',
  'much',
  'very',
  'a',
  'lot',
  'again',
  'all',
  'everyone',
  'guys',
  'folks',
  'man',
  'buddy',
  'assistant',
  'bot',
  'today',
  'really',
  'for',
  'the',
  'help',
  'your',
  'that',
  'this',
  'me',
  'it',
  'now',
  'just',
  'well',
  'and',
  'then',
  'too',
  'as',
  'always',
  'friend',
  'mate',
  'sir',
  'madam',
  'dear',
  'team',
  'please',
  'ok',
  'is',
  'am',
  'are',
  'thank',
  'very',
  'i',
  'to',
  'what',
  'anything',
  'else',
  'with',
  'be',
  'of',
  'fine',
  'do',
  'doing',
  'can',
  'claude',
  'chatgpt',
  'copilot',
  'pieces',
  'in',
  'advance',
  'quick',
  'question',
  'test',
  'testing',
]);

const GREETING_AND_NAME =
  /^\W*(hi|hello|hey|good (morning|afternoon|evening))\b[\s,]*((mr|mrs|ms|dr|miss)\.?\s+)?[A-Z][\w.'-]*(\s+[A-Z][\w.'-]*)?[\s!.,]*$/i;

/** Whether the sentence is only small talk (`Hi there!`, `Thanks, that helped.`, `How can I help?`). */
export function isCourtesy(text: string): boolean {
  let rest = ` ${text.toLowerCase()} `;
  if (/\b(let me know|feel free to (ask|reach)|if you have any (other|more|further) questions)\b/.test(rest)) {
    return true;
  }
  // `Hi, Mr. Smith.` is a greeting too: a greeting followed by nothing but a name.
  if (GREETING_AND_NAME.test(text) && /[A-Z]/.test(text.replace(/^\W*\w+/, ''))) {
    return true;
  }
  for (const phrase of PHRASES) rest = rest.replace(phrase, ' ');
  const words = rest.match(/[\p{L}\p{N}']+/gu) ?? [];
  return words.every((w) => FILLER.has(w));
}

/** Whether the sentence thanks someone. */
export function isThanks(text: string): boolean {
  return /\b(thanks?|thx|ty|cheers|appreciate)\b/.test(text.toLowerCase());
}

/** Whether the sentence contains a greeting word (for the "Greeting" fallback title). */
export function hasGreeting(text: string): boolean {
  return GREETING.test(text.toLowerCase());
}

const OPENERS = new Set([
  'so',
  'well',
  'look',
  'listen',
  'mmm',
  'um',
  'uh',
  'ok',
  'okay',
  'alright',
  'yes',
  'yeah',
  'yep',
  'no',
  'sure',
  'actually',
  'basically',
  'also',
  'additionally',
  'anyway',
  'anyways',
  'btw',
  'hmm',
  'oh',
  'ah',
  'great',
  'thanks',
  'perfect',
  'cool',
  'right',
  'now',
  'then',
  'first',
  'firstly',
  'second',
  'secondly',
  'finally',
  'hi',
  'hello',
  'hey',
  'plus',
  'otherwise',
  'alternatively',
  'honestly',
  'quick',
  'question',
  'update',
  'edit',
  'come',
  'and',
  'but',
]);

/**
 * Drops openers that do not belong in a title or a reported sentence: `Hi,`, `So`, `Ok so`,
 * `Quick question:`, `Hey Claude,`, `Look,`, and `please` anywhere. `yes`/`no` openers are reported
 * through `answer`, and a name the sentence is addressed to (`Mrs. Wang, would you …`) through
 * `addressed`.
 */
export function stripOpeners(tokens: readonly Token[]): { tokens: Token[]; answer?: 'yes' | 'no'; addressed?: string } {
  let start = 0;
  let answer: 'yes' | 'no' | undefined;
  let addressed: string | undefined;
  for (;;) {
    const t = tokens[start];
    if (!t) break;
    if (OPENERS.has(t.lower) || t.pos === 'INTJ') {
      if (/^(yes|yeah|yep)$/.test(t.lower)) answer ??= 'yes';
      if (/^(no|nope)$/.test(t.lower) && tokens[start + 1]?.text === ',') answer ??= 'no';
      // `No, …` and `Yes, …` are openers; `No module named x` is not.
      if (t.lower === 'no' && tokens[start + 1]?.text !== ',') break;
      // `Come on, …` is an opener; `Come back tomorrow` is not.
      if (t.lower === 'come') {
        if (tokens[start + 1]?.lower !== 'on' || tokens[start + 2]?.text !== ',') break;
        start += 1;
      }
      // These open a sentence only before a comma or colon (`Now, …`, `Update: …`, `Quick question:`).
      const next = tokens[start + 1];
      const punctuated = /^[,:]$/.test(next?.text ?? '') || (t.lower === 'quick' && next?.lower === 'question');
      if (/^(now|then|first|second|right|plus|update|edit|question|quick|look|listen)$/.test(t.lower) && !punctuated) break;
      start += 1;
      // A greeting may carry a name: `Hey Claude,` — skip up to the comma if it is close.
      if (GREETING.test(t.lower)) {
        const comma = tokens.slice(start, start + 3).findIndex((x) => x.text === ',');
        if (comma >= 0) start += comma;
      }
      while (tokens[start] && /^[,:;!.-]$/.test(tokens[start]!.text)) start += 1;
      continue;
    }
    // A name the sentence is addressed to: `Mrs. Wang, would you …`, `George, there is …`.
    const vocative = leadingVocative(tokens, start);
    if (vocative > 0) {
      addressed ??= joinName(tokens.slice(start, start + vocative - 1));
      start += vocative;
      continue;
    }
    break;
  }
  const rest = tokens.slice(start).filter((t) => t.lower !== 'please');
  const first = rest[0];
  if (first) rest[0] = { ...first, space: false };
  return { tokens: rest, ...(answer ? { answer } : {}), ...(addressed ? { addressed } : {}) };
}

/** `Mrs` `.` `Wang` → `Mrs. Wang`. */
const joinName = (name: readonly Token[]): string =>
  name
    .map((t) => t.text)
    .join(' ')
    .replace(/ \./g, '.');

/**
 * How many tokens a form of address takes at `start` (the name and its comma), or 0: one to three
 * capitalized words, a name or led by an honorific, then a comma and the start of a clause.
 */
function leadingVocative(tokens: readonly Token[], start: number): number {
  for (let end = start + 1; end <= start + 3 && end < tokens.length; end++) {
    if (tokens[end]!.text !== ',') continue;
    const name = tokens.slice(start, end).filter((t) => t.text !== '.');
    const next = tokens[end + 1];
    const addressed =
      name.length > 0 &&
      name.every((t) => /^[A-Z]/.test(t.text)) &&
      (HONORIFIC.test(name[0]!.lower) || name.every((t) => t.pos === 'PROPN'));
    return addressed && next && /^(AUX|VERB|PRON)$/.test(next.pos) ? end + 1 - start : 0;
  }
  return 0;
}
