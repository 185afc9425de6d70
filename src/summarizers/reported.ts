import type { Shape } from './clause.js';
import type { Role } from './conversation.js';
import { isBaseVerb, startsVerbObject } from './grammar.js';
import { gerund, past, thirdPerson } from './inflect.js';
import { DO_FORMS, PROBLEM_WORDS } from './lexicon.js';
import { gerundize, glue, lowerFirst, replaceAt } from './phrase.js';
import { type Referents, shiftPronouns } from './pronouns.js';
import type { Prepared } from './request.js';
import { referringPronoun } from './salient.js';
import { joinTokens, retext, type Token, word } from './tokens.js';

/**
 * Rewrites one sentence as what an observer would report, without the speaker: `How do I retry X?`
 * → `asked how to retry X`; the assistant's `Use a Map instead.` → `suggested using a Map instead`;
 * `The cache is stale because…` → `explained that the cache is stale because…`. Pronouns move to
 * the third person (`my` → `their`). `replacement` stands in for the first referring pronoun.
 */
export function reportPredicate(p: Prepared, role: Role, speakers: Referents, replacement?: readonly Token[]): string {
  // A sentence addressed by name (`Mrs. Wang, would you …`) is reported as said to that person.
  const names = !p.addressed
    ? speakers
    : role === 'ASSISTANT'
      ? { ...speakers, user: p.addressed }
      : { ...speakers, assistant: p.addressed, assistantIsPerson: true };
  const shift = (tokens: readonly Token[]): Token[] => shiftPronouns(tokens, role, names);
  const clause = (tokens: readonly Token[], verb = false): string => text(lowerFirst(shift(tokens), verb));
  const addressee = role === 'ASSISTANT' ? names.user : role === 'UNKNOWN' ? 'others' : names.assistant;
  const shape = withReplacement(p.shape, replacement);
  // A fronted `For my React app,` goes after the question: `asked whether …, for their React app`.
  const lead = (shape.kind === 'howTo' || shape.kind === 'question') && shape.lead ? `, ${clause(shape.lead)}` : '';
  switch (shape.kind) {
    case 'howTo':
      return `asked ${text(lowerWh(shape.wh))} to ${uninvertSecondQuestion(clause(shape.vp, true))}${lead}`;
    case 'question':
      return `asked ${uninvertSecondQuestion(question(shape, role, names, shift))}${lead}`;
    case 'request':
      if (shape.negative) {
        if (role === 'ASSISTANT') return `advised against ${text(gerundize(lowerFirst(shift(shape.vp), true), true))}`;
        return `asked ${addressee} not to ${clause(shape.vp, true)}`;
      }
      if (shape.lead) {
        // `If you already pushed, use git revert` → `suggested that, if they already pushed, they use git revert`.
        const lead = clause(shape.lead);
        const who = names.assistantIsPerson ? names.user : 'they';
        if (role === 'ASSISTANT') return `suggested that, ${lead}, ${who} ${clause(shape.vp, true)}`;
        return `asked ${addressee} to ${clause(shape.vp, true)}, ${lead}`;
      }
      if (role === 'ASSISTANT') return suggestion(shape.vp, false, shift, true);
      return `asked ${addressee} to ${clause(shape.vp, true)}`;
    case 'help': {
      if (!shape.topic) return `asked for help ${text(gerundize(shift(shape.vp)))}`;
      const topic = clause(shape.vp);
      return /^(with|on|about) /.test(topic) ? `asked for help ${topic}` : `asked for help with ${topic}`;
    }
    case 'report': {
      const object = clause(shape.object);
      if (shape.lead) return `reported ${shape.lead.lower === 'having' ? 'having' : gerund(shape.lead.lemma)} ${object}`;
      return `reported ${/^[aeiou]/.test(object) ? 'an' : 'a'} ${object}`;
    }
    case 'suggestion':
      return suggestion(shape.vp, shape.recommend, shift);
    case 'desire':
    case 'progressive':
      return statement(p, role, names, shift);
    case 'statement':
      return statement({ ...p, tokens: shape.tokens }, role, names, shift);
  }
}

function withReplacement(shape: Shape, replacement: readonly Token[] | undefined): Shape {
  if (!replacement) return shape;
  const swap = (tokens: readonly Token[]): readonly Token[] | undefined => {
    const i = referringPronoun(tokens);
    return i < 0 ? undefined : replaceAt(tokens, i, replacement);
  };
  switch (shape.kind) {
    case 'question': {
      const subject = swap(shape.subject);
      if (subject) return { ...shape, subject };
      const rest = swap(shape.rest);
      return rest ? { ...shape, rest } : shape;
    }
    case 'howTo':
    case 'request':
    case 'help':
    case 'desire':
    case 'suggestion': {
      const vp = swap(shape.vp);
      return vp ? { ...shape, vp } : shape;
    }
    case 'report': {
      const object = swap(shape.object);
      return object ? { ...shape, object } : shape;
    }
    case 'statement': {
      const tokens = swap(shape.tokens);
      return tokens ? { ...shape, tokens } : shape;
    }
    default:
      return shape;
  }
}

function suggestion(vp: readonly Token[], recommend: boolean, shift: (t: readonly Token[]) => Token[], imperative = false): string {
  const verb = recommend ? 'recommended' : 'suggested';
  const first = vp[0]?.lower;
  if (first === 'note' || first === 'remember') {
    const rest = vp.slice(1);
    return `noted ${rest[0]?.lower === 'that' ? '' : 'that '}${text(lowerFirst(shift(rest)))}`;
  }
  // An imperative starts with a verb even when no list knows it (`Default it to …`).
  const phrase = imperative || isBaseVerb(vp[0]) ? gerundize(lowerFirst(shift(vp), true), true) : lowerFirst(shift(vp));
  return `${verb} ${text(phrase)}`;
}

type Question = Extract<Shape, { kind: 'question' }>;

/** `How many AWS Lambda functions` → `how many AWS Lambda functions`: only the wh-word changes case. */
function lowerWh(wh: readonly Token[]): Token[] {
  return wh.map((t, i) => (i === 0 ? retext(t, t.lower) : t));
}

function question(q: Question, role: Role, names: Referents, shift: (t: readonly Token[]) => Token[]): string {
  const wh = q.wh.length > 0 ? lowerWh(q.wh) : [word('whether')];
  const not = q.negated ? [word('not', 'PART')] : [];
  if (!q.aux) return text(glue(wh, shift(q.rest)));
  const aux = q.aux.lower;
  if (q.subject.length === 0) return text(glue(wh, [retext(q.aux, aux)], not, shift(q.rest)));
  // `What is the difference between X and Y?` reads better as `about the difference between X and Y`.
  const about = q.rest[0]?.pos === 'ADP' || q.rest[0]?.lower === 'to';
  if (q.wh[0]?.lower === 'what' && /^(is|are)$/.test(aux) && !q.negated && about) {
    return `about ${text(lowerFirst(shift([...q.subject, ...q.rest])))}`;
  }
  const subject = lowerFirst(shift(q.subject));
  const singular = isSingular(q.subject, role, names);
  const rest = shift(q.rest);
  if (DO_FORMS.has(aux)) {
    if (!q.verb) return text(glue(wh, subject, rest));
    const verb = q.verb.lower;
    const verbs = q.negated
      ? [word(aux === 'did' ? 'did' : singular ? 'does' : 'do'), word('not'), word(verb)]
      : [word(aux === 'did' ? past(verb) : singular ? thirdPerson(verb) : verb)];
    return text(glue(wh, subject, verbs, rest));
  }
  return text(glue(wh, subject, [word(agree(aux, q.subject, role, names))], not, rest));
}

/**
 * A second question joined to the first keeps its question order in the source (`…, and when
 * should I use X`); reported, it takes statement order (`…, and when they should use X`).
 */
function uninvertSecondQuestion(reported: string): string {
  return reported
    .replace(
      /, (and|or) (when|how|why|where|which|what) (should|can|could|would|will|must|is|are) (they|it|he|she|we|you|one) /,
      ', $1 $2 $4 $3 ',
    )
    .replace(/, (and|or) (when|how|why|where|which|what) do (they|we|you) /, ', $1 $2 $3 ');
}

const SINGULAR_PRONOUN = /^(he|she|it|this|that|there|one|someone|something|everything|anyone|anything|nothing|everyone)$/;

/** Whether the subject, once shifted to the third person, takes a singular verb. */
function isSingular(subject: readonly Token[], role: Role, names: Referents): boolean {
  const head = subject[subject.length - 1]!;
  if (subject.length === 1) {
    if (head.lower === 'i') return role === 'ASSISTANT' && !names.assistantIsPerson;
    if (head.lower === 'you') return role === 'USER' || role === 'SYSTEM';
    if (/^(we|they|these|those|people)$/.test(head.lower)) return false;
    if (SINGULAR_PRONOUN.test(head.lower)) return true;
  }
  return head.lemma === head.lower || !/s$/.test(head.lower);
}

/** The auxiliary after a shifted subject: `I am` → `they are`, the user's `you are` → `the assistant is`. */
function agree(aux: string, subject: readonly Token[], role: Role, names: Referents): string {
  const only = subject.length === 1 ? subject[0]!.lower : '';
  const itself = role === 'ASSISTANT' && !names.assistantIsPerson;
  if (only === 'i' && !itself) return ({ am: 'are', was: 'were' } as Record<string, string>)[aux] ?? aux;
  if ((only === 'i' && itself) || (only === 'you' && (role === 'USER' || role === 'SYSTEM'))) {
    return ({ am: 'is', are: 'is', were: 'was', have: 'has' } as Record<string, string>)[aux] ?? aux;
  }
  return aux;
}

const HEDGE = /^(i|we) (think|believe|suspect|guess|feel)( that)? |^it (seems|looks like|sounds like)( that)? /;
const CAUSE = /\b(because|caused|causes|happens|due to|reason|means|since|so that|results? in)\b/;
const ADVICE = /\b(should|recommend|recommended|better|best|prefer|instead|consider|ideally|avoid|make sure)\b/;
const NOTE = /^(note|keep in mind|be aware|remember|bear in mind|be careful)\b/;

function statement(p: Prepared, role: Role, names: Referents, shift: (t: readonly Token[]) => Token[]): string {
  let tokens = [...p.tokens];
  // `That works, but reuse one client instead` and `X works well; store it with the order` end
  // in advice: reported as a suggestion, after what comes before it when that says something.
  const advice = role === 'ASSISTANT' ? adviceTail(tokens) : undefined;
  if (advice) {
    const suggested = `suggested ${text(gerundize(lowerFirst(shift(tokens.slice(advice.start)), true), true))}`;
    const before = tokens.slice(0, advice.end);
    if (before.filter((t) => /[\p{L}\p{N}]/u.test(t.text)).length <= 3) return suggested;
    const head = statement({ ...p, tokens: before }, role, names, shift);
    return head ? `${head}, and ${suggested}` : suggested;
  }
  // A fragment without a verb (`At eight, at Tom's house.`) cannot be rephrased: it is quoted.
  // (A longer sentence without a tagged verb is more likely a tagging miss: it is reported.)
  if (!tokens.some((t) => t.pos === 'VERB' || t.pos === 'AUX') && p.sentence.words < 6) {
    const quoted = text(tokens);
    return quoted === '' ? '' : `said "${quoted}"`;
  }
  // `I think X` / `It seems X` report X; the hedge is the observer's to drop.
  const hedge = HEDGE.exec(`${text(tokens).toLowerCase()} `);
  if (hedge) tokens = tokens.slice(hedge[0].trim().split(/\s+/).length);
  const lower = text(tokens).toLowerCase();
  const body = text(lowerFirst(shift(tokens)));
  if (body === '') return '';
  // A question that parsed as a statement: `And if a missing city is an error?`, `Retain keeps order?`.
  if (p.sentence.question) return /^if /.test(body) ? `asked what happens ${body}` : `asked whether ${body}`;
  const that = /^(they|it|that) /.test(body) ? '' : 'that ';
  if (role === 'ASSISTANT') {
    if (p.answer === 'yes') return `confirmed that ${body}`;
    if (p.answer === 'no') return `replied that ${body}`;
    const note = NOTE.exec(lower);
    if (note) {
      const rest = text(lowerFirst(shift(tokens.slice(note[0].split(' ').length)))).replace(/^that /, '');
      return `noted that ${rest}`;
    }
    if (CAUSE.test(lower)) return `explained that ${body}`;
    if (ADVICE.test(lower)) return `suggested that ${body}`;
    // An assistant explains; a person in a dialogue just says things.
    return names.assistantIsPerson ? `said ${that}${body}` : `explained that ${body}`;
  }
  if (p.answer === 'yes') return `confirmed that ${body}`;
  if (tokens.some((t) => PROBLEM_WORDS.has(t.lower))) return `reported ${that}${body}`;
  // Said to someone by name: `George, there is the Great Wall.` → `told George that there is …`.
  return p.addressed ? `told ${p.addressed} that ${body}` : `said ${that}${body}`;
}

/**
 * Where an imperative closes the sentence after `; ` or `, but `: `end` is where the clause before
 * it ends, `start` where the imperative starts. The imperative's verb must be followed by what
 * can begin its object (`store it`, `reuse a client`), so a noun that could be a verb does not count.
 */
function adviceTail(tokens: readonly Token[]): { end: number; start: number } | undefined {
  for (let k = 1; k < tokens.length - 2; k++) {
    const start = tokens[k]!.text === ';' ? k + 1 : tokens[k]!.text === ',' && tokens[k + 1]?.lower === 'but' ? k + 2 : -1;
    const verb = tokens[start];
    if (
      start > 0 &&
      verb &&
      /^[a-z]/.test(verb.text) &&
      isBaseVerb(verb) &&
      !NOT_ADVICE.test(verb.lower) &&
      startsVerbObject(tokens[start + 1])
    ) {
      return { end: k, start };
    }
  }
  return undefined;
}

// Imperatives that permit, warn or remark rather than advise: `feel free to`, `expect some delay`.
const NOT_ADVICE = /^(feel|expect|hope|note|mind|let|say|see|imagine|consider)$/;

/** Joins tokens into text with tidy spacing. */
function text(tokens: readonly Token[]): string {
  return joinTokens(tokens)
    .replace(/\s+/g, ' ')
    .replace(/\s+([,.;:!?%])(?![\p{L}\d_])/gu, '$1')
    .trim();
}
