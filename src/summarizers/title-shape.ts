import { leadEnd, type Shape } from './clause.js';
import { isBaseVerb, isVerbLike, nounPhraseEnd } from './grammar.js';
import { past, thirdPerson } from './inflect.js';
import { DEICTIC_DETERMINERS, DO_FORMS, TOPIC_VERBS } from './lexicon.js';
import { gerundize } from './phrase.js';
import { isNominal, retext, startsPhrase, type Token, word } from './tokens.js';

/**
 * A sentence's shape as a title phrase: questions and requests become noun or gerund phrases
 * (`How do I retry X?` → `Retrying X`, `Why does my test time out?` → `Test timing out`).
 */

/** Title tokens for a parsed sentence; `tokens` is the whole sentence, for statements. */
export function fromShape(shape: Shape, tokens: readonly Token[]): Token[] {
  switch (shape.kind) {
    case 'howTo':
      return shape.wh[0]!.lower === 'how' ? gerundize(withoutCausative(shape.vp)) : [...shape.wh, word('to', 'PART'), ...shape.vp];
    case 'question':
      return fromQuestion(shape);
    case 'request':
      return shape.negative ? [word('Not', 'PART'), ...gerundize(shape.vp)] : fromRequest(shape.vp);
    case 'help':
      if (!shape.topic) return gerundize(shape.vp);
      // `help me with X` → `Help with X`; `help me to set up X` is a task, not a topic.
      return /^(with|on|about)$/.test(shape.vp[0]?.lower ?? '')
        ? [word('Help', 'NOUN'), ...shape.vp]
        : [word('Help', 'NOUN'), word('with', 'ADP'), ...shape.vp];
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

/**
 * `make my service retry a flaky API` is about retrying a flaky API: the title names the action,
 * not the thing made to do it. Other verb phrases are kept whole.
 */
function withoutCausative(vp: readonly Token[]): readonly Token[] {
  if (!/^(make|get|have|let)$/.test(vp[0]?.lower ?? '')) return vp;
  const end = nounPhraseEnd(vp, 1);
  return end > 1 && isBaseVerb(vp[end]) && vp.length - end >= 3 ? vp.slice(end) : vp;
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
    // `Why can't I import X?` → `Unable to import X`; `Why do I get X?` → `Getting X`.
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
      // `How does the event loop work?` → `How the event loop works`.
      const base = q.verb.lower;
      const inflected = aux === 'did' ? past(base) : aux === 'does' ? thirdPerson(base) : base;
      const verb = q.negated ? [q.aux, ...not, q.verb] : [retext(q.verb, inflected)];
      return [...q.wh, ...q.subject, ...verb, ...q.rest];
    }
    if (/^(is|are|was|were)$/.test(aux) && q.rest.length === 0) return [...q.wh, q.aux, ...not, ...q.subject];
    // `What is the difference between X and Y?` → `Difference between X and Y`.
    if (wh === 'what' && /^(is|are)$/.test(aux) && !q.negated) return [...q.subject, ...q.rest];
    return [...q.wh, ...q.subject, q.aux, ...not, ...q.rest];
  }
  // Yes/no questions: `Is there a library for X?` → `Library for X`; others keep question order.
  if (q.subject[0]!.lower === 'there' && q.rest.length > 0 && !q.negated) return [...q.rest];
  return [q.aux, ...not, ...q.subject, ...(q.verb ? [q.verb] : []), ...q.rest];
}

/** `need to install X` → `install X`, so that `Do I need to install X?` gives `Installing X`. */
function skipNeedTo(phrase: readonly Token[]): Token[] {
  const need = /^(need|have|want)$/.test(phrase[0]?.lower ?? '') && phrase[1]?.lower === 'to';
  return need && isBaseVerb(phrase[2]) ? phrase.slice(2) : [...phrase];
}

/** `Write a parser` → `Writing a parser`; `Explain closures` → `Closures`; `Show me how to X` → `X-ing`. */
function fromRequest(vp: readonly Token[]): Token[] {
  const verb = vp[0]!.lower;
  let rest = vp.slice(1);
  if (TOPIC_VERBS.has(verb) || /^(show|tell|give|teach)$/.test(verb)) {
    while (rest[0] && /^(me|us|to|about)$/.test(rest[0].lower)) rest = rest.slice(1);
    const howTo = /^(how|what)$/.test(rest[0]?.lower ?? '') && rest[1]?.lower === 'to' && isBaseVerb(rest[2]);
    if (howTo) return gerundize(rest.slice(2));
    if (rest.length > 0) return rest;
  }
  return gerundize(vp);
}

const HEDGES = /^(think|guess|believe|suspect|noticed|found|realized|feel)$/;
const INTENSIFIERS = /^(super|very|really|so|extremely|quite|too|pretty|incredibly)$/;

function fromStatement(tokens: readonly Token[]): Token[] {
  // `I think the cache is stale` is about the cache.
  let i = 0;
  if (/^(i|we)$/.test(tokens[0]?.lower ?? '') && HEDGES.test(tokens[1]?.lower ?? '')) {
    i = 2;
    if (tokens[i]?.lower === 'that') i += 1;
  }
  let rest = tokens.slice(i);
  // `When the call fails, the whole process crashes`: the main clause says what happened.
  const comma = leadEnd(rest);
  if (comma > 0 && rest.length - comma > 3) rest = rest.slice(comma + 1).map((t, k) => (k === 0 ? { ...t, space: false } : t));
  // `In my Vue component the list does not update`: the phrase before the subject goes.
  if (rest[0]?.pos === 'ADP' && rest.length > 4) {
    const end = nounPhraseEnd(rest, 1);
    const next = rest[end];
    if (end > 1 && next && (next.pos === 'DET' || isNominal(next))) {
      rest = rest.slice(end).map((t, k) => (k === 0 ? { ...t, space: false } : t));
    }
  }
  // `This query is super slow on a big table` → `Slow query on a big table`.
  const end = nounPhraseEnd(rest, 0);
  const be = rest[end];
  if (end > 0 && be && /^(is|are|was|were)$/.test(be.lower)) {
    let j = end + 1;
    while (rest[j] && (rest[j]!.pos === 'ADV' || INTENSIFIERS.test(rest[j]!.lower))) j += 1;
    const adjective = rest[j];
    if (adjective && adjective.pos === 'ADJ' && !startsPhrase(rest[j + 1])) {
      const determined = rest[0]!.pos === 'DET' || DEICTIC_DETERMINERS.has(rest[0]!.lower);
      const subject = rest.slice(determined ? 1 : 0, end).map((t) => ({ ...t, space: true }));
      if (subject.length > 0) return [retext(adjective, adjective.lower), ...subject, ...rest.slice(j + 1)];
    }
  }
  return rest;
}
