import { fillsVerbSlot, isBaseVerb, isVerbLike, match, nounPhraseEnd } from './grammar.js';
import { AUX, DETERMINERS, DO_FORMS, SUBJECT_PRONOUNS, VERBS, WH } from './lexicon.js';
import { isNominal, type Token } from './tokens.js';

/**
 * The shape of one sentence, found by matching word patterns with help from part-of-speech tags.
 * Titles and reported speech are both rendered from it: `How do I retry X?` is a `howTo` that
 * becomes "Retrying X" as a title and "asked how to retry X" in a summary.
 */
export type Shape =
  /** `how do I V…`, `how to V…`, `which library should I use…`, `is there a way to V…`. */
  | { readonly kind: 'howTo'; readonly wh: readonly Token[]; readonly vp: readonly Token[]; readonly lead?: readonly Token[] }
  /**
   * Other questions. `wh` is empty for yes/no questions; `aux` is absent for `what causes X`;
   * `verb` is the main verb after do-support (`why does X fail`).
   */
  | {
      readonly kind: 'question';
      readonly wh: readonly Token[];
      readonly aux?: Token;
      readonly negated: boolean;
      readonly subject: readonly Token[];
      readonly verb?: Token;
      readonly rest: readonly Token[];
      readonly lead?: readonly Token[];
    }
  /**
   * An imperative or `can you V…`: the speaker asks for something to be done; `negative` for `do
   * not V…`. `lead` (here and in questions) holds a fronted condition or purpose (`If you already
   * pushed`, `For my React app`), without its comma.
   */
  | { readonly kind: 'request'; readonly vp: readonly Token[]; readonly negative?: boolean; readonly lead?: readonly Token[] }
  /** `help me V…` (`topic` false) or `help with X` (`topic` true, `vp` is `with X`). */
  | { readonly kind: 'help'; readonly vp: readonly Token[]; readonly topic: boolean }
  /** `I want to V…` (`np` false) or `I need a regex…` (`np` true, `vp` is the noun phrase). */
  | { readonly kind: 'desire'; readonly vp: readonly Token[]; readonly np: boolean }
  /** `I am getting X`, `I have a problem with X`: `lead` is the verb (`getting`), `object` is X. */
  | { readonly kind: 'report'; readonly lead?: Token; readonly object: readonly Token[] }
  /** `I am building X`: the predicate from the `-ing` verb on. */
  | { readonly kind: 'progressive'; readonly predicate: readonly Token[] }
  /** `You should V…`, `I would recommend V-ing…`, `Let us V…`, `The best way is to V…`. */
  | { readonly kind: 'suggestion'; readonly vp: readonly Token[]; readonly recommend: boolean }
  | { readonly kind: 'statement'; readonly tokens: readonly Token[] };

/**
 * Parses a sentence whose openers (`Hi,`, `so`) and final punctuation are already removed;
 * `question` tells whether it ended with a question mark.
 */
export function parseShape(tokens: readonly Token[], question = false): Shape {
  // `If you already pushed, use git revert`, `For my app, should I …?`: what follows the lead.
  const comma = leadEnd(tokens);
  if (comma > 0) {
    const after = tokens.slice(comma + 1).map((t, i) => (i === 0 ? { ...t, space: false } : t));
    const inner = parseHowTo(after) ?? parseQuestion(after, question) ?? parseRequest(after);
    if (inner && (inner.kind === 'request' || inner.kind === 'howTo' || inner.kind === 'question') && !inner.lead) {
      return { ...inner, lead: tokens.slice(0, comma) };
    }
  }
  return (
    parseHowTo(tokens) ??
    parseQuestion(tokens, question) ??
    parseRequest(tokens) ??
    parseFirstPerson(tokens) ??
    parseSuggestion(tokens) ?? { kind: 'statement', tokens }
  );
}

const LEADS = new Set([
  'if',
  'when',
  'on',
  'in',
  'for',
  'after',
  'before',
  'once',
  'since',
  'unless',
  'to',
  'with',
  'without',
  'during',
  'while',
  'otherwise',
  'alternatively',
  'instead',
  'then',
  'finally',
  'first',
  'next',
]);

/** Index of the comma that ends a fronted adverbial (`If X,`, `On 3.9,`), or -1. */
export function leadEnd(tokens: readonly Token[]): number {
  if (!tokens[0] || !LEADS.has(tokens[0].lower)) return -1;
  return tokens.findIndex((t, i) => i > 0 && i <= 14 && t.text === ',');
}

const WAY = 'way|ways|method|approach';
const QUALITY = [
  'best',
  'easiest',
  'simplest',
  'right',
  'correct',
  'proper',
  'recommended',
  'cleanest',
  'fastest',
  'preferred',
  'good',
  'better',
  'idiomatic',
  'standard',
  'quickest',
  'safest',
].join('|');

function parseHowTo(tokens: readonly Token[]): Shape | undefined {
  const howTo = (wh: readonly Token[], i: number): Shape | undefined => {
    const j = skipNeed(tokens, i);
    return fillsVerbSlot(tokens[j]) ? { kind: 'howTo', wh, vp: tokens.slice(j) } : undefined;
  };
  if (!tokens[0]) return undefined;
  let i = match(tokens, 0, 'how|what|which|where|when|whether to');
  if (i >= 0) return howTo(tokens.slice(0, 1), i);
  const how = [{ ...tokens[0], text: 'how', lower: 'how' }];
  for (const pattern of [
    `is|are there a|an|any ${QUALITY}? ${WAY} to`,
    'is it possible to',
    `what is|are the|a ${QUALITY} ${WAY} to`,
    `the|a ${QUALITY} ${WAY} to`,
  ]) {
    i = match(tokens, 0, pattern);
    if (i >= 0) return howTo(how, i);
  }
  // `how do I V`, `where should we V`, `which library should I use`.
  const first = tokens[0].lower;
  if (!WH.has(first) || first === 'why' || first === 'who') return undefined;
  let k = 1;
  if (first === 'which' || first === 'what') k = whPhraseEnd(tokens, k);
  const aux = tokens[k];
  if (!aux || !AUX.has(aux.lower) || /^(is|are|am|was|were|has|have|had)$/.test(aux.lower)) return undefined;
  const subject = tokens[k + 1]?.lower ?? '';
  // `How do you stop a container?` asks how one does it, unless it asks about the listener
  // (`How do you feel`, `What do you think`).
  const genericYou = subject === 'you' && first === 'how' && aux.lower === 'do' && !PERSONAL_VERBS.test(tokens[k + 2]?.lower ?? '');
  if (!/^(i|we|one)$/.test(subject) && !genericYou) return undefined;
  return howTo(tokens.slice(0, k), k + 2);
}

const PERSONAL_VERBS =
  /^(like|feel|think|know|do|find|mean|want|say|spell|pronounce|usually|plan|manage|cope|deal|get|come|go|spend|keep|enjoy|prefer|rate|see|intend|expect|handle|remember|pay|travel|live)$/;

/** Skips `need to`/`have to`/`go about` before a verb (`how do I need to V` = `how to V`). */
/** End of `which library` / `what tool` in a question: up to three nominal words after the wh-word. */
function whPhraseEnd(tokens: readonly Token[], start: number): number {
  let k = start;
  while (k < start + 3 && tokens[k] && !AUX.has(tokens[k]!.lower) && isNominal(tokens[k]!)) k += 1;
  return k;
}

function skipNeed(tokens: readonly Token[], i: number): number {
  const j = match(tokens, i, 'need|have|want to');
  if (j >= 0 && isBaseVerb(tokens[j])) return j;
  const k = match(tokens, i, 'go about');
  return k >= 0 ? k : i;
}

function parseQuestion(tokens: readonly Token[], question: boolean): Shape | undefined {
  let start = 0;
  // `Do you know why X fails` and `Any idea why X fails` embed the real question.
  const embedded = Math.max(
    match(tokens, 0, 'do|does|would anyone|you know'),
    match(tokens, 0, 'any idea|ideas on|about?'),
    match(tokens, 0, 'I|we am|was|were wondering'),
    match(tokens, 0, 'I|we would like|want to know|understand'),
  );
  // `I was wondering if you could explain X` is a request, handled by `parseRequest`.
  const politeRequest = match(tokens, embedded, 'if|whether you can|could|would') >= 0;
  const opener = tokens[embedded];
  if (embedded > 0 && !politeRequest && opener && (WH.has(opener.lower) || opener.lower === 'if')) {
    const inner = tokens.slice(embedded);
    if (opener.lower === 'if') inner[0] = { ...opener, text: 'whether', lower: 'whether' };
    return (
      parseHowTo(inner) ??
      parseQuestion(inner, true) ?? { kind: 'question', wh: inner.slice(0, 1), negated: false, subject: [], rest: inner.slice(1) }
    );
  }
  const first = tokens[0];
  if (!first) return undefined;
  let wh: Token[] = [];
  if (WH.has(first.lower)) {
    start = 1;
    if (first.lower === 'how' && /^(long|much|many|often|big|fast|far|come)$/.test(tokens[1]?.lower ?? '')) start = 2;
    // `how many retries should I allow`: the counted noun belongs to the wh-phrase, whatever its tag.
    const counted = tokens[2];
    if (
      first.lower === 'how' &&
      /^(much|many)$/.test(tokens[1]?.lower ?? '') &&
      counted &&
      /^[a-z]/i.test(counted.text) &&
      !AUX.has(counted.lower)
    ) {
      start = whPhraseEnd(tokens, 3);
    }
    if (/^(which|what|whose)$/.test(first.lower)) start = whPhraseEnd(tokens, start);
    wh = tokens.slice(0, start);
  }
  const aux = tokens[start];
  if (!aux || !AUX.has(aux.lower)) {
    // Without inversion or a question mark, `When the call fails, …` is a statement.
    const asks = question || /^(how|why)$/.test(first.lower);
    return wh.length > 0 && asks ? { kind: 'question', wh, negated: false, subject: [], rest: tokens.slice(start) } : undefined;
  }
  // `Do not force-unlock …` is a prohibition, handled by `parseRequest`.
  if (wh.length === 0 && !question && DO_FORMS.has(aux.lower) && tokens[start + 1]?.lower === 'not') return undefined;
  // `Can you …` is a request, not a question about the assistant's abilities.
  const asksSomeone = match(tokens, start, 'can|could|would|will you|someone|anyone|somebody|anybody') >= 0;
  if (wh.length === 0 && asksSomeone) return undefined;
  let s = start + 1;
  const negated = tokens[s]?.lower === 'not';
  if (negated) s += 1;
  let end = nounPhraseEnd(tokens, s);
  let verb: Token | undefined;
  let rest = end;
  if (DO_FORMS.has(aux.lower) && end > s) {
    // The tagger often calls the verb a noun (`my Jest test time out`): a verb-like last word of
    // a longer phrase, not followed by another noun, is taken as the verb.
    const last = tokens[end - 1]!;
    const next = tokens[end];
    const longPhrase = end - s >= 2 && !SUBJECT_PRONOUNS.has(tokens[s]!.lower);
    if (longPhrase && isVerbLike(last) && last.pos !== 'PROPN' && !(next && (isNominal(next) || isBaseVerb(next)))) {
      end -= 1;
    }
    let v = end;
    while (tokens[v] && tokens[v]!.pos === 'ADV' && !isBaseVerb(tokens[v])) v += 1;
    if (tokens[v] && /^[a-z][a-z-]*$/i.test(tokens[v]!.text)) {
      verb = tokens[v];
      rest = v + 1;
    }
  }
  if (end === s && wh.length === 0) {
    // `Does retain keep the order?`, `Will creating the index lock the table?`: the tagger missed
    // the subject, so it runs up to the first base verb.
    const v = tokens.findIndex((t, k) => k > s && k <= s + 5 && isBaseVerb(t));
    if (v > s) {
      const isDo = DO_FORMS.has(aux.lower);
      const subject = tokens.slice(s, v);
      if (!isDo) return { kind: 'question', wh, aux, negated, subject, rest: tokens.slice(v) };
      return { kind: 'question', wh, aux, negated, subject, verb: tokens[v]!, rest: tokens.slice(v + 1) };
    }
  }
  if (end === s) return { kind: 'question', wh, aux, negated, subject: [], rest: tokens.slice(s) };
  const subject = tokens.slice(s, end);
  return { kind: 'question', wh, aux, negated, subject, ...(verb ? { verb } : {}), rest: tokens.slice(rest) };
}

function parseRequest(tokens: readonly Token[]): Shape | undefined {
  let i = Math.max(
    match(tokens, 0, 'can|could|would|will you'),
    match(tokens, 0, 'I would like|love you to'),
    match(tokens, 0, 'I want|need you to'),
    match(tokens, 0, 'I|we am|was|were wondering if|whether you can|could|would'),
    match(tokens, 0, 'can|could|would|will someone|anyone|somebody|anybody'),
  );
  if (i < 0) i = 0;
  if (i === 0 && match(tokens, 0, 'let us') >= 0) return undefined; // a suggestion, see `parseSuggestion`
  const prohibition = match(tokens, i, 'do not|never');
  if (prohibition >= 0 && isBaseVerb(tokens[prohibition])) {
    return { kind: 'request', vp: tokens.slice(prohibition), negative: true };
  }
  // `Either release the lock or switch to …`.
  if (i === 0 && tokens[0]?.lower === 'either' && isBaseVerb(tokens[1])) i = 1;
  const help = match(tokens, i, 'help me|us to?');
  if (help >= 0) {
    const j = match(tokens, help, 'with|on|about');
    if (j >= 0) return { kind: 'help', vp: tokens.slice(help), topic: true };
    if (isBaseVerb(tokens[help])) return { kind: 'help', vp: tokens.slice(help), topic: false };
    return tokens[help] ? { kind: 'help', vp: tokens.slice(help), topic: true } : undefined;
  }
  const helpWith = Math.max(
    match(tokens, 0, 'I need|want|would|could help|assistance with|on'),
    match(tokens, 0, 'need help|assistance with|on'),
    match(tokens, 0, 'help with|on'),
  );
  if (helpWith >= 0 && tokens[helpWith]) return { kind: 'help', vp: tokens.slice(helpWith - 1), topic: true };
  const verb = tokens[i];
  // `Default it to an empty array`: a capitalised word before an object pronoun is a verb.
  const objectNext = /^(it|them|this|these|those)$/.test(tokens[1]?.lower ?? '');
  const plainWord = !!verb && /^[A-Z][a-z]+$/.test(verb.text) && !/(ing|ed)$/.test(verb.text) && !verb.stop;
  const beforeObject = i === 0 && plainWord && objectNext;
  if (!verb || !(isBaseVerb(verb) || beforeObject)) return undefined;
  if (beforeObject) return { kind: 'request', vp: tokens.slice(i) };
  if (i === 0 && !looksImperative(tokens)) return undefined;
  return { kind: 'request', vp: tokens.slice(i) };
}

/** `Test results are wrong` starts with a verb-like word but has a subject; `Use a Map` does not. */
function looksImperative(tokens: readonly Token[]): boolean {
  const first = tokens[0]!;
  // `Doing it sequentially takes forever`: an -ing form opens a subject, never an imperative.
  if (/^[a-z]*[aeiouy][a-z]*ing$/.test(first.lower) && !VERBS.has(first.lower)) return false;
  if (first.pos === 'VERB' || first.pos === 'PROPN' || VERBS.has(first.lower)) {
    const end = nounPhraseEnd(tokens, 0);
    const after = tokens[end];
    const finite = after && (AUX.has(after.lower) || (after.pos === 'VERB' && after.lower !== after.lemma));
    if (end > 1 && finite) return false;
    const second = tokens[1];
    if (second && AUX.has(second.lower)) return false;
    // `Retain keeps the order`: a verb in the third person makes the first word its subject.
    if (second && second.pos === 'VERB' && second.lower !== second.lemma && /s$/.test(second.lower)) return false;
    return true;
  }
  return false;
}

const TROUBLE = 'problem|issue|error|bug|question|doubt';
const EXPERIENCING = 'getting|seeing|hitting|receiving|encountering|facing|having|running';

function parseFirstPerson(tokens: readonly Token[]): Shape | undefined {
  const subject = match(tokens, 0, 'I|we');
  const bare = subject < 0 ? 0 : subject;
  // `I want to migrate…`, `Trying to get…` (the subject is often left out in chat).
  const desire = Math.max(
    match(tokens, bare, 'really? want|need|plan|hope|try|wanted|needed|tried to'),
    match(tokens, bare, 'would like|love to'),
    match(tokens, bare, 'am|are|was|were|have? been? trying|looking|hoping|planning|attempting|wanting to'),
  );
  if (desire >= 0 && (subject >= 0 || bare === 0) && isBaseVerb(tokens[desire])) {
    return { kind: 'desire', vp: tokens.slice(desire), np: false };
  }
  if (subject < 0) {
    const looking = match(tokens, 0, 'looking|searching for');
    return looking >= 0 && tokens[looking] ? { kind: 'desire', vp: tokens.slice(looking), np: true } : undefined;
  }
  const want = Math.max(
    match(tokens, subject, 'really? want|need'),
    match(tokens, subject, 'would like'),
    match(tokens, subject, 'am|are looking|searching for'),
  );
  if (want >= 0 && DETERMINERS.has(tokens[want]?.lower ?? '')) return { kind: 'desire', vp: tokens.slice(want), np: true };
  const report = Math.max(
    match(tokens, subject, `am|are|was|were|have? been|keep|kept? ${EXPERIENCING}`),
    match(tokens, subject, 'get|see|got|saw|hit|receive|received|encounter|encountered|run|ran'),
  );
  if (report >= 0 && tokens[report]) {
    let object = report;
    if (['running', 'run', 'ran'].includes(tokens[report - 1]!.lower)) {
      object = match(tokens, report, 'into');
      if (object < 0) return undefined;
    }
    return { kind: 'report', lead: tokens[report - 1]!, object: tokens.slice(object) };
  }
  const problem = match(tokens, subject, `have|had|got a|an|this|the|some? weird|strange|small|quick|big? ${TROUBLE}`);
  if (problem >= 0) return { kind: 'report', object: tokens.slice(problem - 1) };
  const progressive = match(tokens, subject, 'am|are|was|were|have|been? been?');
  const ing = tokens[progressive];
  if (progressive >= 0 && ing && ing.pos === 'VERB' && /ing$/.test(ing.lower)) {
    return { kind: 'progressive', predicate: tokens.slice(progressive) };
  }
  return undefined;
}

const NOT_ADVICE = new Set(['like', 'love', 'want', 'need', 'say', 'be', 'have', 'know', 'see', 'hate', 'think']);
const ADVICE = [
  'you should|could|can|might|may also? want|need? to?',
  'I would|might|will',
  'let us',
  `the ${QUALITY} ${WAY}|fix|solution|option|approach|thing is to?`,
  'it is best|better|worth|recommended to',
];

function parseSuggestion(tokens: readonly Token[]): Shape | undefined {
  const recommend = Math.max(
    match(tokens, 0, 'I would|will? recommend|suggest|advise'),
    match(tokens, 0, 'my recommendation|suggestion is|would be'),
  );
  if (recommend >= 0 && tokens[recommend]) {
    const to = match(tokens, recommend, 'to');
    return { kind: 'suggestion', vp: tokens.slice(to >= 0 ? to : recommend), recommend: true };
  }
  for (const pattern of ADVICE) {
    const i = match(tokens, 0, pattern);
    const verb = tokens[i];
    if (i < 0 || !verb || NOT_ADVICE.has(verb.lower)) continue;
    // `I would love to` is a wish, not advice: after `I would`, only well-known verbs count.
    if (pattern.startsWith('I ') && !VERBS.has(verb.lower)) continue;
    const recommend = tokens.slice(0, i).some((t) => t.lower === 'best' || t.lower === 'recommended');
    if (isBaseVerb(verb)) return { kind: 'suggestion', vp: tokens.slice(i), recommend };
    if (verb.pos === 'VERB' && /ing$/.test(verb.lower)) return { kind: 'suggestion', vp: tokens.slice(i), recommend: false };
  }
  return undefined;
}
