import { isBaseVerb, isVerbLike, nounPhraseEnd, type Shape } from './clause.js';
import { codeKind, codeNoun } from './code-language.js';
import type { Conversation } from './conversation.js';
import { hasGreeting } from './courtesy.js';
import { thirdPerson, past } from './inflect.js';
import { DEICTIC_DETERMINERS, DO_FORMS, TOPIC_VERBS } from './lexicon.js';
import { capitalizeFirst, dropAsides, gerundize, trimEnd } from './phrase.js';
import { pickRequest, prepare, type Prepared, type Request } from './request.js';
import { referringPronoun, salientPhrase } from './salient.js';
import { countWords, isNominal, isWordy, joinTokens, retext, word, type Token } from './tokens.js';

/** Options of the title writer. */
export interface TitleOptions {
  /** Longest title in words. */
  readonly maxWords: number;
}

/**
 * A short title for the conversation, built from the first user request: `How do I retry a flaky
 * payment API call in TypeScript?` → `Retrying a flaky payment API call in TypeScript`. Falls back
 * to `Greeting`/`Short chat` for small talk, `<Language> code snippet` for code alone, and the
 * first words of the first message for text that does not read as English. '' when there is no text.
 */
export function writeTitle(conversation: Conversation, options: TitleOptions): string {
  const max = Math.max(2, options.maxWords);
  const firstUser = conversation.messages.find((m) => m.role === 'USER' && (m.sentences.length > 0 || m.code.length > 0));
  if (firstUser && firstUser.code.length > 0 && firstUser.sentences.every((s) => s.courtesy)) {
    return codeTitle(firstUser.code[0]!.language);
  }
  const request = pickRequest(conversation);
  if (!request) {
    const anyCode = conversation.messages.find((m) => m.code.length > 0);
    if (anyCode) return codeTitle(anyCode.code[0]!.language);
    if (conversation.sentences.length === 0) return '';
    return conversation.sentences.some((s) => hasGreeting(s.text)) ? 'Greeting' : 'Short chat';
  }
  if (!request.message.english) return firstWords(request.message.prose, Math.min(6, max)) || 'Untitled conversation';
  if (!request.strong && request.message.code.length > 0) return codeTitle(request.message.code[0]!.language);

  const topic = topicOf(request);
  if (topic.sentence.terms.size <= 1 && [...topic.sentence.terms].every((t) => t === 'happen') && referringPronoun(topic.tokens) >= 0) {
    // `Why is this happening?` with nothing else to go on.
    const code = request.message.code[0];
    return code ? `Unexpected behavior in ${codeNoun(code.language)}` : 'Unexpected behavior';
  }
  let tokens = finish(fromShape(topic.shape, topic.tokens), conversation, request, max);
  if (countWords(tokens) < 2) {
    const code = request.message.code[0];
    const context = code ? codeNoun(code.language) : conversation.language;
    if (tokens.length > 0 && context) tokens = [...tokens, word('in'), ...context.split(' ').map((w) => word(w, 'NOUN'))];
  }
  const text = render(tokens);
  if (countWords(tokens) >= 2) return text;
  const fallback = firstWords(joinTokens(topic.tokens), Math.min(6, max));
  if (fallback.split(/\s+/).length >= 2) return fallback;
  return text ? `Question about ${text.toLowerCase()}` : fallback || 'Untitled conversation';
}

// Verbs that say something is wrong without saying what: `Why is this happening?` names no topic.
const VAGUE = new Set(['happen', 'fail', 'work', 'break', 'wrong', 'fix', 'help', 'mean', 'occur', 'solve', 'resolve', 'debug', 'crash', 'throw', 'go', 'idea', 'thought']);

/**
 * The sentence to title: the request, unless it only points at something said before (`Why is
 * this happening?` after `My React component re-renders forever.`); then the most topical other
 * sentence of the message.
 */
function topicOf(request: Request): Prepared {
  const p = request.prepared;
  const specific = [...p.sentence.terms].filter((t) => !VAGUE.has(t));
  if (specific.length > 0 || (referringPronoun(p.tokens) < 0 && p.sentence.terms.size > 0)) return p;
  // With code in the message, `Why does this fail?` is about the code unless a sentence says more.
  const enough = request.message.code.length > 0 ? 3 : 2;
  const others = request.message.sentences.filter((s) => s !== p.sentence && !s.courtesy && !s.intro && s.words >= 3 && s.terms.size >= enough);
  const best = others.sort((a, b) => b.terms.size - a.terms.size || a.index - b.index)[0];
  return best ? prepare(best) : p;
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
  const words = text.replace(/\s+/g, ' ').trim().split(' ').filter((w) => /[\p{L}\p{N}]/u.test(w));
  let out = words.slice(0, count).join(' ');
  if ([...out].length > 60) out = words.length === 1 || out.indexOf(' ') > 60 ? [...out].slice(0, 20).join('') : out.slice(0, out.lastIndexOf(' ', 60));
  return out.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N})\]]+$/gu, '');
}

function fromShape(shape: Shape, tokens: readonly Token[]): Token[] {
  switch (shape.kind) {
    case 'howTo':
      return shape.wh[0]!.lower === 'how' ? gerundize(shape.vp) : [...shape.wh, word('to', 'PART'), ...shape.vp];
    case 'question':
      return fromQuestion(shape);
    case 'request':
      return fromRequest(shape.vp);
    case 'help':
      if (!shape.topic) return gerundize(shape.vp);
      return /^(with|on|about)$/.test(shape.vp[0]?.lower ?? '') ? [word('Help', 'NOUN'), ...shape.vp] : [word('Help', 'NOUN'), word('with', 'ADP'), ...shape.vp];
    case 'desire':
      return shape.np ? [...shape.vp] : gerundize(shape.vp);
    case 'report':
      return [...shape.object];
    case 'progressive':
      return [...shape.predicate];
    case 'suggestion':
      return isBaseVerb(shape.vp[0]) ? gerundize(shape.vp) : [...shape.vp];
    case 'statement':
      return fromStatement(tokens);
  }
}

type Question = Extract<Shape, { kind: 'question' }>;

function fromQuestion(q: Question): Token[] {
  const wh = q.wh[0]?.lower;
  const not = q.negated ? [word('not', 'PART')] : [];
  if (!q.aux) return [...q.wh, ...q.rest];
  if (q.subject.length === 0) return [...q.wh, q.aux, ...not, ...q.rest];
  const aux = q.aux.lower;
  const firstPerson = q.subject.length === 1 && /^(i|we)$/.test(q.subject[0]!.lower);
  const isDo = DO_FORMS.has(aux);
  const verbPhrase = q.verb ? [q.verb, ...q.rest] : [...q.rest];
  const leadsWithIng = /ing$/.test(q.rest[0]?.lower ?? '') && isVerbLike(q.rest[0]);
  if (firstPerson) {
    if (wh === 'why' && q.negated && /^(can|could)$/.test(aux)) return [word('Unable', 'ADJ'), word('to', 'PART'), ...q.rest];
    if (wh === 'why' && !isDo && !leadsWithIng) return [word('Why', 'ADV'), ...q.rest];
    const phrase = isDo ? skipNeedTo(verbPhrase) : [...q.rest];
    const core = leadsWithIng || !isBaseVerb(phrase[0]) ? phrase : gerundize(phrase);
    return wh && wh !== 'why' ? [...q.wh, ...q.subject, q.aux, ...not, ...q.rest] : [...not, ...core];
  }
  if (wh === 'why') {
    if (isDo && q.verb) return [...q.subject, ...not, ...gerundize(verbPhrase)];
    if (leadsWithIng) return [...q.subject, ...not, ...q.rest];
    return [...q.wh, ...q.subject, q.aux, ...not, ...q.rest];
  }
  if (wh) {
    if (isDo && q.verb) {
      const verb = q.negated ? [q.aux, ...not, q.verb] : [retext(q.verb, aux === 'did' ? past(q.verb.lower) : aux === 'does' ? thirdPerson(q.verb.lower) : q.verb.lower)];
      return [...q.wh, ...q.subject, ...verb, ...q.rest];
    }
    if (/^(is|are|was|were)$/.test(aux) && q.rest.length === 0) return [...q.wh, q.aux, ...not, ...q.subject];
    if (wh === 'what' && /^(is|are)$/.test(aux) && !q.negated) return [...q.subject, ...q.rest];
    return [...q.wh, ...q.subject, q.aux, ...not, ...q.rest];
  }
  // Yes/no questions: `Is there a library for X?` → `Library for X`; others keep question order.
  if (q.subject[0]!.lower === 'there' && q.rest.length > 0 && !q.negated) return [...q.rest];
  return [q.aux, ...not, ...q.subject, ...(q.verb ? [q.verb] : []), ...q.rest];
}

/** `need to install X` → `install X`, so that `Do I need to install X?` gives `Installing X`. */
function skipNeedTo(phrase: readonly Token[]): Token[] {
  if (/^(need|have|want)$/.test(phrase[0]?.lower ?? '') && phrase[1]?.lower === 'to' && isBaseVerb(phrase[2])) return phrase.slice(2);
  return [...phrase];
}

function fromRequest(vp: readonly Token[]): Token[] {
  const verb = vp[0]!.lower;
  let rest = vp.slice(1);
  if (TOPIC_VERBS.has(verb) || /^(show|tell|give|teach)$/.test(verb)) {
    while (rest[0] && /^(me|us|to|about)$/.test(rest[0].lower)) rest = rest.slice(1);
    if (/^(how|what)$/.test(rest[0]?.lower ?? '') && rest[1]?.lower === 'to' && isBaseVerb(rest[2])) return gerundize(rest.slice(2));
    if (rest.length > 0) return rest;
  }
  return gerundize(vp);
}

function fromStatement(tokens: readonly Token[]): Token[] {
  // `I think the cache is stale` is about the cache.
  let i = 0;
  if (/^(i|we)$/.test(tokens[0]?.lower ?? '') && /^(think|guess|believe|suspect|noticed|found|realized|feel)$/.test(tokens[1]?.lower ?? '')) {
    i = 2;
    if (tokens[i]?.lower === 'that') i += 1;
  }
  const rest = tokens.slice(i);
  // `This query is super slow on a big table` → `Slow query on a big table`.
  const end = nounPhraseEnd(rest, 0);
  const be = rest[end];
  if (end > 0 && be && /^(is|are|was|were)$/.test(be.lower)) {
    let j = end + 1;
    while (rest[j] && (rest[j]!.pos === 'ADV' || /^(super|very|really|so|extremely|quite|too|pretty|incredibly)$/.test(rest[j]!.lower))) j += 1;
    const adjective = rest[j];
    if (adjective && adjective.pos === 'ADJ' && !startsPhrase(rest[j + 1])) {
      const subject = rest.slice(0, end).filter((t, k) => !(k === 0 && t.pos === 'DET' || (k === 0 && DEICTIC_DETERMINERS.has(t.lower))));
      if (subject.length > 0) return [retext(adjective, adjective.lower), ...subject.map((t) => ({ ...t, space: true })), ...rest.slice(j + 1)];
    }
  }
  return rest;
}

/** Cleans, trims and completes title tokens: asides out, `my`/`this` → `the`, pronouns resolved. */
function finish(raw: readonly Token[], conversation: Conversation, request: Request, max: number): Token[] {
  let tokens = trimEnd(dropAsides(raw));
  tokens = tokens.map((t, i) => (DEICTIC_DETERMINERS.has(t.lower) && determines(t, tokens[i + 1]) ? retext(t, 'the') : t));
  const pronoun = referringPronoun(tokens);
  if (pronoun >= 0) {
    const phrase = salientPhrase(conversation, request);
    if (phrase) tokens = [...tokens.slice(0, pronoun), ...phrase.map((t) => ({ ...t, space: true })), ...tokens.slice(pronoun + 1)];
  }
  while (tokens[0] && /^(the|a|an|some|any)$/.test(tokens[0].lower)) tokens = tokens.slice(1);
  if (tokens[0]) tokens[0] = { ...tokens[0], space: false };
  tokens = trimTail(cut(tokens, max));
  const language = conversation.language;
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

function startsPhrase(t: Token | undefined): boolean {
  return !!t && (isNominal(t) || t.pos === 'ADJ');
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

const PARTICLES = /^(out|up|down|off|on|in|over|away|back|through)$/;

/** Drops words a title must not end with: articles, prepositions, conjunctions, auxiliaries. */
function trimTail(tokens: readonly Token[]): Token[] {
  const out = [...tokens];
  for (;;) {
    const last = out[out.length - 1];
    if (!last) break;
    const particle = PARTICLES.test(last.lower) && isVerbLike(out[out.length - 2]);
    // A final `is` can be right (`What a monad is`), so auxiliaries stay; `cut` never ends on one.
    if (!isWordy(last) || (!particle && (last.stop || /^(DET|ADP|CCONJ|SCONJ|PART)$/.test(last.pos)) && !/^(it|them|this|that|is|are|works?|does)$/.test(last.lower))) {
      out.pop();
      continue;
    }
    break;
  }
  return out;
}

const STRONG_BREAK = /^(that|which|who|where|when|because|so|if|while|after|before|since|until|unless|but|and|or|using|via|whenever|without|even|though|although|whereas|despite)$/;

/**
 * Shortens to at most `max` words at the best phrase boundary: before a clause (`that …`, `when
 * …`, a comma) rather than inside a noun compound or between a verb and its object.
 */
function cut(tokens: readonly Token[], max: number): Token[] {
  const starts: number[] = [];
  tokens.forEach((t, i) => {
    if (i === 0 || t.space) starts.push(i);
  });
  if (starts.length <= max) return [...tokens];
  let best = -1;
  let bestScore = -Infinity;
  for (let k = 2; k <= max; k += 1) {
    const end = starts[k]!; // tokens[0, end) hold the first k words
    const last = tokens[end - 1]!;
    const before = tokens[end - 2];
    const next = tokens[end]!;
    const particle = PARTICLES.test(last.lower) && isVerbLike(before);
    if (!isWordy(last) || (!particle && (last.stop || /^(DET|ADP|CCONJ|SCONJ|PART|AUX|PRON)$/.test(last.pos)))) continue;
    if (startsPhrase(next) && (isNominal(last) || last.pos === 'ADJ')) continue; // inside a compound
    if (isVerbLike(last) && !isNominal(last) && (startsPhrase(next) || next.pos === 'DET' || next.pos === 'PRON')) continue;
    if (isVerbLike(last) && before && /^(ADP|SCONJ)$/.test(before.pos)) continue; // `after upgrading`
    const strength = /^[,;:(\-–—]$/.test(next.text) || next.pos === 'SCONJ' || STRONG_BREAK.test(next.lower) ? 2 : next.pos === 'ADP' ? 1 : 0;
    const score = k + 4 * strength;
    if (score >= bestScore) {
      bestScore = score;
      best = end;
    }
  }
  return tokens.slice(0, best > 0 ? best : starts[max]!);
}

// Titles are also bounded in characters: a pasted 3,000-letter "word" must not become one.
const MAX_TITLE_CHARS = 80;

function render(tokens: readonly Token[]): string {
  let text = joinTokens(tokens).replace(/\s+/g, ' ').replace(/\s+([,.;:!?])/g, '$1').trim();
  if (text.length > MAX_TITLE_CHARS) {
    const space = text.lastIndexOf(' ', MAX_TITLE_CHARS);
    text = space > 20 ? text.slice(0, space) : [...text].slice(0, 60).join('');
  }
  return text.replace(/[\s,.;:!?\-–—]+$/u, '');
}
