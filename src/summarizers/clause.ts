import { AUX, DETERMINERS, DO_FORMS, SUBJECT_PRONOUNS, VERBS, WH } from './lexicon.js';
import { isNominal, type Token } from './tokens.js';

/**
 * The shape of one sentence, found by matching word patterns with help from part-of-speech tags.
 * Titles and reported speech are both rendered from it: `How do I retry X?` is a `howTo` that
 * becomes "Retrying X" as a title and "asked how to retry X" in a summary.
 */
export type Shape =
  /** `how do I V…`, `how to V…`, `which library should I use…`, `is there a way to V…`. */
  | { readonly kind: 'howTo'; readonly wh: readonly Token[]; readonly vp: readonly Token[] }
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
    }
  /**
   * An imperative or `can you V…`: the speaker asks for something to be done. `lead` holds a
   * fronted condition or purpose (`If you already pushed`, `On 3.9`), without its comma.
   */
  | { readonly kind: 'request'; readonly vp: readonly Token[]; readonly lead?: readonly Token[] }
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
 * Matches lower-cased words from `start`. Each pattern word may list alternatives (`do|does`) and
 * end in `?` when optional. Answers the index after the match, or -1.
 */
export function match(tokens: readonly Token[], start: number, pattern: string): number {
  let i = start;
  for (const part of pattern.toLowerCase().split(' ')) {
    const optional = part.endsWith('?');
    const options = (optional ? part.slice(0, -1) : part).split('|');
    const t = tokens[i];
    if (t && options.includes(t.lower)) i += 1;
    else if (!optional) return -1;
  }
  return i;
}

/** Whether the token can be a verb's base form here (the tagger misses many, so a list helps). */
export function isBaseVerb(t: Token | undefined): boolean {
  if (!t || !/^[a-z][a-z-]*$/i.test(t.text)) return false;
  if (VERBS.has(t.lower)) return true;
  return t.pos === 'VERB' && t.lower === t.lemma;
}

/**
 * Whether the token can be a verb where grammar expects one (after `to`, after `how do I`): any
 * lower-case content word will do, since `debounce` or `memoize` are in no list.
 */
export function fillsVerbSlot(t: Token | undefined): boolean {
  if (isBaseVerb(t)) return true;
  return !!t && /^[a-z][a-z-]*$/.test(t.text) && !t.stop && !/^(DET|PRON|ADP|NUM|PUNCT|CCONJ|SCONJ|AUX|PART)$/.test(t.pos);
}

/** Whether the token is a verb in any form (`fails`, `running`, `use`). */
export function isVerbLike(t: Token | undefined): boolean {
  return !!t && (t.pos === 'VERB' || VERBS.has(t.lemma) || VERBS.has(t.lower));
}

/**
 * End (exclusive) of the noun phrase that starts at `start`: a pronoun, or an optional determiner
 * followed by adjectives and nominal words (`my Jest test`, `the React component`). Answers
 * `start` when there is none.
 */
export function nounPhraseEnd(tokens: readonly Token[], start: number): number {
  const first = tokens[start];
  if (!first) return start;
  if (SUBJECT_PRONOUNS.has(first.lower) && !(DETERMINERS.has(first.lower) && startsNominal(tokens[start + 1]))) {
    return start + 1;
  }
  let j = start;
  if (DETERMINERS.has(first.lower)) j += 1;
  const body = j;
  while (tokens[j]) {
    const t = tokens[j]!;
    const glued = j > body && !t.space; // `Next` `.` `js`, `user` `'s`
    if (glued || isNominal(t) || (t.pos === 'ADJ' && startsNominal(tokens[j + 1])) || (t.pos === 'VERB' && /^[A-Z]/.test(t.text) && j > body)) {
      j += 1;
      continue;
    }
    // A capitalised first word the tagger calls a verb (`React component`) still opens the phrase.
    if (j === body && /^[A-Z]/.test(t.text) && isNominal(tokens[j + 1] ?? t)) {
      j += 1;
      continue;
    }
    break;
  }
  // Trailing glued punctuation (`user.`) is not part of the phrase.
  while (j > body && !/[\p{L}\p{N}]/u.test(tokens[j - 1]!.text)) j -= 1;
  return j > body ? j : start;
}

function startsNominal(t: Token | undefined): boolean {
  return !!t && (isNominal(t) || t.pos === 'ADJ');
}

/** Parses a sentence whose openers (`Hi,`, `so`) and final punctuation are already removed. */
export function parseShape(tokens: readonly Token[]): Shape {
  // `If you already pushed, use git revert`: the imperative after a fronted condition.
  const comma = leadEnd(tokens);
  if (comma > 0) {
    const inner = parseRequest(tokens.slice(comma + 1).map((t, i) => (i === 0 ? { ...t, space: false } : t)));
    if (inner?.kind === 'request' && !inner.lead) return { ...inner, lead: tokens.slice(0, comma) };
  }
  return parseHowTo(tokens) ?? parseQuestion(tokens) ?? parseRequest(tokens) ?? parseFirstPerson(tokens) ??
    parseSuggestion(tokens) ?? { kind: 'statement', tokens };
}

const LEADS = new Set(['if', 'when', 'on', 'in', 'for', 'after', 'before', 'once', 'since', 'unless', 'to', 'with', 'without', 'during', 'while', 'otherwise', 'alternatively', 'instead', 'then', 'finally', 'first', 'next']);

/** Index of the comma that ends a fronted adverbial (`If X,`, `On 3.9,`), or -1. */
function leadEnd(tokens: readonly Token[]): number {
  if (!tokens[0] || !LEADS.has(tokens[0].lower)) return -1;
  const comma = tokens.findIndex((t, i) => i > 0 && i <= 14 && t.text === ',');
  return comma;
}

const WAY = 'way|ways|method|approach';
const QUALITY = 'best|easiest|simplest|right|correct|proper|recommended|cleanest|fastest|preferred|good|better|idiomatic|standard|quickest|safest';

function parseHowTo(tokens: readonly Token[]): Shape | undefined {
  const rest = (i: number): Shape | undefined => {
    const j = skipNeed(tokens, i);
    return j >= 0 && fillsVerbSlot(tokens[j]) ? { kind: 'howTo', wh: tokens.slice(0, 1), vp: tokens.slice(j) } : undefined;
  };
  const how = (i: number): Shape | undefined => {
    const j = skipNeed(tokens, i);
    const wh = tokens[0]!.lower === 'how' ? tokens.slice(0, 1) : [{ ...tokens[0]!, text: 'how', lower: 'how' }];
    return j >= 0 && fillsVerbSlot(tokens[j]) ? { kind: 'howTo', wh, vp: tokens.slice(j) } : undefined;
  };
  if (!tokens[0]) return undefined;
  let i = match(tokens, 0, 'how|what|which|where|when|whether to');
  if (i >= 0) return rest(i);
  for (const pattern of [
    `is|are there a|an|any ${QUALITY}? ${WAY} to`,
    'is it possible to',
    `what is|are the|a ${QUALITY} ${WAY} to`,
    `the|a ${QUALITY} ${WAY} to`,
  ]) {
    i = match(tokens, 0, pattern);
    if (i >= 0) return how(i);
  }
  // `how do I V`, `where should we V`, `which library should I use`.
  const first = tokens[0].lower;
  if (!WH.has(first) || first === 'why' || first === 'who') return undefined;
  let k = 1;
  if (first === 'which' || first === 'what') while (k < 4 && tokens[k] && !AUX.has(tokens[k]!.lower) && isNominal(tokens[k]!)) k += 1;
  const aux = tokens[k];
  if (!aux || !AUX.has(aux.lower) || ['is', 'are', 'am', 'was', 'were', 'has', 'have', 'had'].includes(aux.lower)) return undefined;
  const subject = tokens[k + 1];
  if (!subject || !['i', 'we', 'one'].includes(subject.lower)) return undefined;
  const j = skipNeed(tokens, k + 2);
  if (j < 0 || !fillsVerbSlot(tokens[j])) return undefined;
  return { kind: 'howTo', wh: tokens.slice(0, k), vp: tokens.slice(j) };
}

/** Skips `need to`/`have to`/`go about` before a verb (`how do I need to V` = `how to V`). */
function skipNeed(tokens: readonly Token[], i: number): number {
  const j = match(tokens, i, 'need|have|want to');
  if (j >= 0 && isBaseVerb(tokens[j])) return j;
  const k = match(tokens, i, 'go about');
  return k >= 0 ? k : i;
}

function parseQuestion(tokens: readonly Token[]): Shape | undefined {
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
  if (embedded > 0 && !politeRequest && tokens[embedded] && (WH.has(tokens[embedded]!.lower) || ['if'].includes(tokens[embedded]!.lower))) {
    const inner = tokens.slice(embedded);
    if (inner[0]!.lower === 'if') inner[0] = { ...inner[0]!, text: 'whether', lower: 'whether' };
    return parseHowTo(inner) ?? parseQuestion(inner) ?? { kind: 'question', wh: inner.slice(0, 1), negated: false, subject: [], rest: inner.slice(1) };
  }
  const first = tokens[0];
  if (!first) return undefined;
  let wh: Token[] = [];
  if (WH.has(first.lower)) {
    start = 1;
    if (first.lower === 'how' && tokens[1] && ['long', 'much', 'many', 'often', 'big', 'fast', 'far', 'come'].includes(tokens[1].lower)) start = 2;
    if (first.lower === 'which' || first.lower === 'what' || first.lower === 'whose') {
      while (start < 4 && tokens[start] && !AUX.has(tokens[start]!.lower) && isNominal(tokens[start]!)) start += 1;
    }
    wh = tokens.slice(0, start);
  }
  const aux = tokens[start];
  if (!aux || !AUX.has(aux.lower)) {
    return wh.length > 0 ? { kind: 'question', wh, negated: false, subject: [], rest: tokens.slice(start) } : undefined;
  }
  // `Can you …` is a request, not a question about the assistant's abilities.
  if (wh.length === 0 && match(tokens, start, 'can|could|would|will you|someone|anyone|somebody|anybody') >= 0) return undefined;
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
    if (end - s >= 2 && isVerbLike(last) && !SUBJECT_PRONOUNS.has(tokens[s]!.lower) && !(next && (isNominal(next) || isBaseVerb(next))) && last.pos !== 'PROPN') {
      end -= 1;
    }
    let v = end;
    while (tokens[v] && tokens[v]!.pos === 'ADV' && !isBaseVerb(tokens[v])) v += 1;
    if (tokens[v] && /^[a-z][a-z-]*$/i.test(tokens[v]!.text)) {
      verb = tokens[v];
      rest = v + 1;
    }
  }
  if (end === s) return { kind: 'question', wh, aux, negated, subject: [], rest: tokens.slice(s) };
  return { kind: 'question', wh, aux, negated, subject: tokens.slice(s, end), ...(verb ? { verb } : {}), rest: tokens.slice(rest) };
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
  const help = match(tokens, i, 'help me|us to?');
  if (help >= 0) {
    const j = match(tokens, help, 'with|on|about');
    if (j >= 0) return { kind: 'help', vp: tokens.slice(help), topic: true };
    if (isBaseVerb(tokens[help])) return { kind: 'help', vp: tokens.slice(help), topic: false };
    return tokens[help] ? { kind: 'help', vp: tokens.slice(help), topic: true } : undefined;
  }
  const helpWith = Math.max(match(tokens, 0, 'I need|want|would|could help|assistance with|on'), match(tokens, 0, 'need help|assistance with|on'), match(tokens, 0, 'help with|on'));
  if (helpWith >= 0 && tokens[helpWith]) return { kind: 'help', vp: tokens.slice(helpWith - 1), topic: true };
  const verb = tokens[i];
  // `Default it to an empty array`: a capitalised word before an object pronoun is a verb.
  const beforeObject = i === 0 && !!verb && /^[A-Z][a-z]+$/.test(verb.text) && !verb.stop && /^(it|them|this|these|those)$/.test(tokens[1]?.lower ?? '');
  if (!verb || !(isBaseVerb(verb) || beforeObject)) return undefined;
  if (beforeObject) return { kind: 'request', vp: tokens.slice(i) };
  if (i === 0 && !looksImperative(tokens)) return undefined;
  return { kind: 'request', vp: tokens.slice(i) };
}

/** `Test results are wrong` starts with a verb-like word but has a subject; `Use a Map` does not. */
function looksImperative(tokens: readonly Token[]): boolean {
  const first = tokens[0]!;
  if (first.pos === 'VERB' || first.pos === 'PROPN' || VERBS.has(first.lower)) {
    const end = nounPhraseEnd(tokens, 0);
    const after = tokens[end];
    if (end > 1 && after && (AUX.has(after.lower) || (after.pos === 'VERB' && after.lower !== after.lemma))) return false;
    if (tokens[1] && AUX.has(tokens[1].lower)) return false;
    return true;
  }
  return false;
}

function parseFirstPerson(tokens: readonly Token[]): Shape | undefined {
  const subject = match(tokens, 0, 'I|we');
  const bare = subject < 0 ? 0 : subject;
  // `I want to migrate…`, `Trying to get…` (the subject is often left out in chat).
  const desire = Math.max(
    match(tokens, bare, 'really? want|need|plan|hope|try|wanted|needed|tried to'),
    match(tokens, bare, 'would like|love to'),
    match(tokens, bare, 'am|are|was|were|have|been trying|looking|hoping|planning|attempting|wanting to'),
    match(tokens, bare, 'am|are have|been trying|looking|hoping|planning|attempting|wanting to'),
  );
  if (desire >= 0 && (subject >= 0 || bare === 0) && isBaseVerb(tokens[desire])) {
    return { kind: 'desire', vp: tokens.slice(desire), np: false };
  }
  if (subject < 0) {
    const looking = match(tokens, 0, 'looking|searching for');
    return looking >= 0 && tokens[looking] ? { kind: 'desire', vp: tokens.slice(looking), np: true } : undefined;
  }
  const want = Math.max(match(tokens, subject, 'really? want|need'), match(tokens, subject, 'would like'), match(tokens, subject, 'am|are looking|searching for'));
  if (want >= 0 && tokens[want] && DETERMINERS.has(tokens[want]!.lower)) return { kind: 'desire', vp: tokens.slice(want), np: true };
  const report = Math.max(
    match(tokens, subject, 'am|are|keep|kept|was|were|have|been? getting|seeing|hitting|receiving|encountering|facing|having|running'),
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
  const problem = match(tokens, subject, 'have|had|got a|an|this|the|some|weird|strange|an? problem|issue|error|bug|question|doubt');
  if (problem >= 0) {
    const noun = tokens.slice(subject + 1, problem).findIndex((t) => /^(problem|issue|error|bug|question|doubt)$/.test(t.lower));
    return { kind: 'report', object: tokens.slice(subject + 1 + noun) };
  }
  const progressive = match(tokens, subject, 'am|are|was|were|have|been? been?');
  if (progressive >= 0 && tokens[progressive] && tokens[progressive]!.pos === 'VERB' && /ing$/.test(tokens[progressive]!.lower)) {
    return { kind: 'progressive', predicate: tokens.slice(progressive) };
  }
  return undefined;
}

const NOT_ADVICE = new Set(['like', 'love', 'want', 'need', 'say', 'be', 'have', 'know', 'see', 'hate', 'think']);

function parseSuggestion(tokens: readonly Token[]): Shape | undefined {
  const recommend = Math.max(match(tokens, 0, 'I would|will? recommend|suggest|advise'), match(tokens, 0, 'my recommendation|suggestion is|would be'));
  if (recommend >= 0 && tokens[recommend]) {
    const to = match(tokens, recommend, 'to');
    return { kind: 'suggestion', vp: tokens.slice(to >= 0 ? to : recommend), recommend: true };
  }
  for (const pattern of ['you should|could|can|might|may also? want|need? to?', 'I would|might|will', 'let us', `the ${QUALITY} ${WAY}|fix|solution|option|approach|thing is to?`, 'it is best|better|worth|recommended to']) {
    const i = match(tokens, 0, pattern);
    // `I would love to` is a wish, not advice.
    if (pattern.startsWith('I ') && i >= 0 && !VERBS.has(tokens[i]!.lower)) continue;
    if (i >= 0 && NOT_ADVICE.has(tokens[i]!.lower)) continue;
    if (i >= 0 && isBaseVerb(tokens[i])) return { kind: 'suggestion', vp: tokens.slice(i), recommend: /best|recommended/.test(pattern) && /best|recommended/.test(tokens.slice(0, i).map((t) => t.lower).join(' ')) };
    if (i >= 0 && tokens[i]?.pos === 'VERB' && /ing$/.test(tokens[i]!.lower)) return { kind: 'suggestion', vp: tokens.slice(i), recommend: false };
  }
  return undefined;
}
