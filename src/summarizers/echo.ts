/**
 * Titles from the assistant's own restatement of the task. Coding assistants open their answer by
 * saying what they are about to do (`I'll help you install Playwright for browser automation.`,
 * `Let me fix the JSON parse error in the env loader.`), which names the topic more plainly than a
 * terse request (`#selection fix this`, `@file.md update`). That clause, cut to its head and
 * compacted, becomes the title: `Installing Playwright for browser automation`.
 */
import type { Conversation } from './conversation.js';
import { gerund } from './inflect.js';
import { DOT, QUESTION_DOT } from './prose.js';

/**
 * Openings that announce the task, and what follows them. Examples:
 * - `I will help you update the TestSprite MCP test report.` → `update the TestSprite MCP test report`
 * - `Let me fix the failing build.` → `fix the failing build`
 * - `I will help you with production deployment.` → noun phrase `production deployment`
 */
const ANNOUNCE =
  /^(?:Great[!,.]?\s+|Sure[!,.]?\s+|Perfect[!,.]?\s+)?(?:I will|Let me|I am going to)\s+(?:now\s+)?(?:help you\s+(?:to\s+)?|go ahead and\s+)?(.+)$/i;
const WITH = /^with\s+(.+)$/i;

/**
 * Where the head of the clause ends: punctuation, a subordinate or purpose clause, or a trailing
 * reference to the project as a whole. Examples: `fix the build, which …`, `update X so that …`,
 * `create a task for Y following the Kiro workflow`, `deploy the app for the DocGen CLI project`.
 */
const CLAUSE_END = new RegExp(
  [
    '[!?;,(\\n]|\\.(?!\\d)|:(?!\\d)',
    '\\s[-–—]\\s',
    '\\s(?:which|that(?=\\s(?:\\w+s|will|can|could|should|would|must|may|might|is|are|was|were|has|have)\\b)|if|when|unless|because|so that|so|by|to ensure|to make sure|and then|then|following|based on|according to|while|before|after|using)\\s',
    '\\s(?:for|in|of)\\s(?:the|your|our)\\s[\\w-]+(?:\\s[\\w-]+)?\\s(?:project|repository|repo|codebase)\\b',
  ].join('|'),
  'i',
);

// `implement Task 1.2: Core Project Management Commands` → `implement Core Project Management Commands`.
const NUMBERED = /\b(?:task|phase|step)\s+#?[\d.]+\s*:\s*(?=\w)/i;

// Words a title does without: articles, possessives, demonstratives, vague quantifiers.
const FILLER = /^(the|a|an|your|my|our|their|its|this|these|those|that|all|any|some|current|existing)$/i;
// Words that open a phrase of their own: a title cut inside such a phrase ends before it.
const PHRASE_OPENER = /^(to|for|in|of|with|from|on|into|about|across|between|within|at|under|over)$/i;
// Words a title does not end on.
const DANGLING =
  /^(and|or|to|for|of|in|on|with|from|by|at|as|into|about|the|a|an|is|are|be|your|my|our|if|when|what|how|that|here|there|you|me|us)$/i;

const FILE_MENTION =
  /@?(?:[\w-]+\/)*[\w-]*\.?[\w-]+\.(?:mdc?|tsx?|jsx?|py|ya?ml|json|txt|toml|lock|sh|env(?:\.\w+)?)\b|@[\w./-]+|(?:[\w-]+\/)+(?=\s|$)/g;

/** Every file or folder mention in `text` named by its subject: `fix @auto-fix-ci.yml` → `fix auto fix ci`. */
export function describeFiles(text: string): string {
  return text
    .replaceAll(DOT, '.')
    .replace(FILE_MENTION, (m) => fileSubject(m))
    .replace(/\s{2,}/g, ' ')
    .trim();
}

/** `@docs/api-spec.md` → `api spec`; `README.md` → `README`: a file named by its subject. */
export function fileSubject(path: string): string {
  const base = path.replace(/^@/, '').replace(/\/+$/, '').split('/').pop() ?? '';
  return base
    .replace(/^\./, '')
    .replace(/\.[a-z0-9]{1,5}$/i, '')
    .replace(/[._-]+/g, ' ')
    .trim();
}

/** A word of a compacted clause; `task` marks a verb that opens a second task (`… and re-run …`). */
interface Word {
  readonly text: string;
  readonly task: boolean;
}

/** Plain words of an announced clause, its head only, fillers out, at most `max` words. */
export function compact(clause: string, max: number): string {
  return compactWords(clause, max)
    .map((w) => w.text)
    .join(' ');
}

/** The clause's head as words, fillers out unless `articles` (then `your`/`my`/`our` read `the`). */
function compactWords(clause: string, max: number, articles = false): Word[] {
  const plain = clause
    .replaceAll(DOT, '.')
    .replaceAll(QUESTION_DOT, '?.')
    .replace(/[`*"“”]/g, '')
    // File and folder mentions are named by their subject, never copied as paths.
    .replace(FILE_MENTION, (m) => fileSubject(m));
  const head = plain.replace(NUMBERED, '').split(CLAUSE_END)[0] ?? '';
  // `please` is courtesy wherever it stands (`add this favicon to the project please`).
  const raw = head.split(/\s+/).filter((w) => w !== '' && !/^please$/i.test(w));
  // A second imperative run on without `and` (`delete unwanted scripts keep the rest`) starts a
  // clause of its own: the head ends before it.
  // Not after a verb that takes a clause (`make the parser keep …`, `make sure handlers return …`).
  const runOn = CAUSATIVE.test(raw[0] ?? '')
    ? -1
    : raw.findIndex(
        (w, i) =>
          i >= 2 &&
          !/^(and|or|to)$/i.test(raw[i - 1]!) &&
          !FILLER.test(raw[i - 1]!) &&
          isPlainVerb(w) &&
          RUN_ON_NEXT.test(raw[i + 1] ?? ''),
      );
  if (runOn > 0) raw.length = runOn;
  // Whether a word opens a second task is read before the fillers go: `and release the notes`.
  const words: Word[] = [];
  raw.forEach((text, i) => {
    const task = /^(and|or)$/i.test(raw[i - 1] ?? '') && opensTask(text, raw[i + 1]);
    if (articles) words.push({ text: /^(your|my|our)$/i.test(text) ? 'the' : text, task });
    else if (!FILLER.test(text)) words.push({ text, task });
  });
  let out = fit(words, max);
  while (out.length > 0 && DANGLING.test(out[out.length - 1]!.text)) out = out.slice(0, -1);
  // A second task left without its object (`… and check`) says nothing.
  if (out.length > 2 && CONJUNCTION.test(out[out.length - 2]!.text) && out[out.length - 1]!.task) out = out.slice(0, -2);
  return out;
}

/**
 * Whether `word`, after `and`, opens a second task: a task verb, and for one that is a noun as
 * often (`update the docs and release notes`), only when what follows is what follows a verb
 * (`and release the notes`, `and check for updates`).
 */
function opensTask(word: string, next: string | undefined): boolean {
  if (/^re-[a-z]+$/i.test(word)) return true;
  // `update/add`: every part a task verb.
  if (word.includes('/')) return word.split('/').every((part) => IMPERATIVE.has(part.toLowerCase()));
  const lower = word.toLowerCase();
  if (!IMPERATIVE.has(lower)) return false;
  return !NOUN_TOO.has(lower) || next === undefined || AFTER_VERB.test(next);
}
// What follows a verb that starts a clause of its own: `keep only …`, `remove the …`.
const RUN_ON_NEXT = /^(the|a|an|this|that|these|those|it|them|all|any|only|just|every|each|my|our|your)$/i;

/** A verb that is never a noun as well (`keep`, `delete`, not `build` or `test`), in its base form. */
const isPlainVerb = (word: string): boolean => IMPERATIVE.has(word.toLowerCase()) && !NOUN_TOO.has(word.toLowerCase());
const CAUSATIVE = /^(make|let|have|help|get|ensure)$/i;
const CONJUNCTION = /^(and|or)$/i;
const NOUN_TOO = new Set(
  'release test document build set use run review check commit push pull merge setup update fix change start scan upload'.split(' '),
);
const AFTER_VERB = /^(the|a|an|this|that|these|those|it|them|all|any|my|our|your|its|their|to|into|from|on|in|for|with|up|out)$/i;

/**
 * At most `max` words without cutting a phrase in half. Two tasks (`install Playwright for browser
 * automation and re-run the integration workflow`) keep both heads (`install Playwright and re-run
 * integration workflow`) if they fit, else the first; a phrase cut short (`implement the engine
 * for intelligent tool`) goes back to the word that opens it (`implement the engine`).
 */
function fit(words: readonly Word[], max: number): Word[] {
  if (words.length <= max) return [...words];
  const and = words.findIndex((w, i) => i >= 2 && CONJUNCTION.test(w.text));
  if (and > 0 && words[and + 1]?.task) {
    const first = head(words.slice(0, and));
    const second = head(words.slice(and + 1));
    if (first.length + 1 + second.length <= max && second.length >= 2) return [...first, words[and]!, ...second];
    if (first.length <= max) return first;
  }
  const cut = words.slice(0, max);
  const opener = cut.findLastIndex((w, i) => i >= 3 && PHRASE_OPENER.test(w.text));
  if (opener > 0) return cut.slice(0, opener);
  // `… and check` with what was to be checked cut off: the second task goes (a second noun stays).
  return CONJUNCTION.test(cut.at(-2)?.text ?? '') && cut.at(-1)!.task ? cut.slice(0, -2) : cut;
}

/** A verb or noun phrase without its trailing prepositional phrases: `re-run workflow for CI` → `re-run workflow`. */
function head(words: readonly Word[]): Word[] {
  const opener = words.findIndex((w, i) => i >= 2 && PHRASE_OPENER.test(w.text));
  return opener > 0 ? words.slice(0, opener) : [...words];
}

/**
 * The title the assistant's first answer announces (`Installing Playwright for browser
 * automation`), or undefined when it does not open by announcing the task.
 */
export function announcedTitle(conversation: Conversation, max: number): string | undefined {
  return announced(conversation, max);
}

/**
 * The announced task at more length, for a summary's first sentence: `installing Playwright for
 * browser automation and re-running complete integration workflow`.
 */
export function announcedActivity(conversation: Conversation): string | undefined {
  // Inside a sentence the articles stay (`adding this favicon to the project`): a title drops them.
  return announced(conversation, 18, true);
}

/**
 * An activity: the first verb and any verb opening a second task as gerunds, `install X and re-run
 * Y` → `installing X and re-running Y`, so that both halves read alike.
 */
function asActivity(words: readonly Word[]): string {
  // `update/add` → `updating/adding`.
  const asGerund = (verb: string) => verb.split('/').map(gerund).join('/');
  return words.map((w, i) => (i === 0 ? asGerund(w.text.toLowerCase()) : w.task ? asGerund(w.text) : w.text)).join(' ');
}

function announced(conversation: Conversation, max: number, articles = false): string | undefined {
  const firstUser = conversation.messages.findIndex((m) => m.role === 'USER' && m.prose !== '');
  if (firstUser < 0) return undefined;
  const answer = conversation.messages[firstUser + 1];
  if (!answer || answer.role !== 'ASSISTANT') return undefined;
  const match = ANNOUNCE.exec(firstLine(answer.prose));
  if (!match) return undefined;
  const clause = match[1]!;
  const noun = WITH.exec(clause);
  const words = compactWords(noun ? noun[1]! : clause, max, articles);
  if (words.length < 2 && !noun) return undefined;
  if (words.length === 0) return undefined;
  const title = noun ? words.map((w) => w.text).join(' ') : asActivity(words);
  return title[0]!.toUpperCase() + title.slice(1);
}

/** The first line or sentence of `prose`. */
const firstLine = (prose: string): string => prose.split(/\n+|(?<=[.!?])\s+(?=[A-Z])/)[0]?.trim() ?? '';

/**
 * The first line of the first request, without the files mentioned before it (`@.rules fix
 * rules`: what it is about, not its words); undefined when no user message has prose.
 */
function firstRequestLine(conversation: Conversation): string | undefined {
  const request = conversation.messages.find((m) => m.role === 'USER' && m.prose !== '');
  return request && firstLine(request.prose.replaceAll(DOT, '.').replace(/^(?:\s*@[\w./-]+)+\s*/, ''));
}

// Politeness and framing before the request proper: `can you please`, `help me`, `I want to`.
const LEAD_IN =
  /^(?:(?:can|could|would) you\s+(?:please\s+)?|please\s+|help me\s+(?:to\s+)?|I (?:want|need|would like) (?:you )?(?:to\s+)?|let us\s+)+/i;
// Imperatives that open developer requests; a title names them as activities (`Adding …`).
const IMPERATIVE = new Set(
  (
    'add create update fix make write start continue move change delete remove review check scan push install ' +
    'organize implement complete resolve upload explain understand improve run set build deploy test refactor ' +
    'rename prepare focus propose merge return debug configure explore enhance clean find analyze document ' +
    'generate convert migrate upgrade setup use pull commit release publish optimize identify present apply keep'
  ).split(' '),
);

/**
 * A title from a first request that opens with an imperative, compacted (`@scripts/ delete unwanted
 * scripts keep only usable` → `Deleting unwanted scripts keep only usable`), for a coding
 * assistant's chat whose answer does not announce its task; undefined for other conversations,
 * other kinds of request, or when too little is left.
 */
export function requestTitle(conversation: Conversation, max: number): string | undefined {
  return requested(conversation, Math.min(6, max), false);
}

/**
 * {@link requestTitle} at more length and with its articles, for a summary's first sentence:
 * `making a new task to capture the following work`.
 */
export function requestActivity(conversation: Conversation): string | undefined {
  return requested(conversation, 18, true);
}

function requested(conversation: Conversation, max: number, articles: boolean): string | undefined {
  const first = firstRequestLine(conversation);
  if (first === undefined) return undefined;
  const words = compactWords(first.replace(LEAD_IN, '').replace(/^(tell|show|give) me\s+/i, '$1 '), max, articles);
  // Questions and reports (`what is …`, `I am seeing this error`) are left to the sentence-level titler.
  if (words.length < 2 || !IMPERATIVE.has(words[0]!.text.toLowerCase())) return undefined;
  const title = asActivity(words);
  return title[0]!.toUpperCase() + title.slice(1);
}

/** The first request's opening words, compacted and capitalized, when at least three are left. */
export function requestOpening(conversation: Conversation, max: number): string | undefined {
  const first = firstRequestLine(conversation);
  if (first === undefined) return undefined;
  const text = compact(first.replace(LEAD_IN, ''), max);
  // `I am getting ECONNREFUSED …` is a report in the first person, not a title.
  if (text.split(' ').length < 3 || /\b(?:I|me|we|us|you)\b/i.test(text)) return undefined;
  return text[0]!.toUpperCase() + text.slice(1);
}
