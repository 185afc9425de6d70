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
    '\\s(?:which|so that|so|by|to ensure|to make sure|and then|then|following|based on|according to|while|before|after|using)\\s',
    '\\s(?:for|in|of)\\s(?:the|your|our)\\s[\\w-]+(?:\\s[\\w-]+)?\\s(?:project|repository|repo|codebase)\\b',
  ].join('|'),
  'i',
);

// `implement Task 1.2: Core Project Management Commands` → `implement Core Project Management Commands`.
const NUMBERED = /\b(?:task|phase|step)\s+#?[\d.]+\s*:\s*(?=\w)/i;

// Words a title does without: articles, possessives, demonstratives, vague quantifiers.
const FILLER = /^(the|a|an|your|my|our|their|its|this|these|those|that|all|any|some|current|existing)$/i;
// Verbs of looking before the real task: `analyze the folder and move …`.
const LOOKING = /^(?:analy[sz]e|scan|check|examine|review|look|explore|read|inspect|investigate|find)$/i;
// Words a title does not end on.
const DANGLING = /^(and|or|to|for|of|in|on|with|from|by|at|as|into|about|the|a|an|is|are|be|your|my|our|if|when|what|how|that)$/i;

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

/** Plain words of an announced clause, its head only, fillers out, at most `max` words. */
export function compact(clause: string, max: number): string {
  const plain = clause
    .replaceAll(DOT, '.')
    .replaceAll(QUESTION_DOT, '?.')
    .replace(/[`*"“”]/g, '')
    // File and folder mentions are named by their subject, never copied as paths.
    .replace(FILE_MENTION, (m) => fileSubject(m));
  const head = plain.replace(NUMBERED, '').split(CLAUSE_END)[0] ?? '';
  const words = head.split(/\s+/).filter((w) => w !== '' && !FILLER.test(w));
  let out = words.slice(0, max);
  // `analyze the scripts directory and identify …`: after a verb of looking, a second verb cut
  // short says nothing (`install X and re-run Y` keeps both).
  const and = out.indexOf('and');
  if (and >= 2 && out.length - and <= 2 && words.length > max && LOOKING.test(out[0] ?? '')) out = out.slice(0, and);
  while (out.length > 0 && DANGLING.test(out[out.length - 1]!)) out = out.slice(0, -1);
  return out.join(' ');
}

/**
 * The title the assistant's first answer announces (`Installing Playwright for browser
 * automation`), or undefined when it does not open by announcing the task.
 */
export function announcedTitle(conversation: Conversation, max: number): string | undefined {
  return announced(conversation, Math.min(7, max));
}

/**
 * The announced task at more length, for a summary's first sentence: `installing Playwright for
 * browser automation and re-running complete integration workflow`.
 */
export function announcedActivity(conversation: Conversation): string | undefined {
  const text = announced(conversation, 14);
  if (!text) return undefined;
  // `… and re-run Y` → `… and re-running Y`: both verbs read as activities.
  const words = text.split(' ');
  const and = words.indexOf('and');
  const next = words[and + 1];
  if (/ing$/.test(words[0]!) && and > 0 && next && (IMPERATIVE.has(next) || /^re-[a-z]+$/.test(next))) words[and + 1] = gerund(next);
  return words.join(' ');
}

function announced(conversation: Conversation, max: number): string | undefined {
  const firstUser = conversation.messages.findIndex((m) => m.role === 'USER' && m.prose !== '');
  if (firstUser < 0) return undefined;
  const answer = conversation.messages[firstUser + 1];
  if (!answer || answer.role !== 'ASSISTANT') return undefined;
  const first = answer.prose.split(/\n+|(?<=[.!?])\s+(?=[A-Z])/)[0]?.trim() ?? '';
  const match = ANNOUNCE.exec(first);
  if (!match) return undefined;
  const clause = match[1]!;
  const noun = WITH.exec(clause);
  const text = compact(noun ? noun[1]! : clause, max);
  const words = text.split(' ').filter(Boolean);
  if (words.length < 2 && !noun) return undefined;
  if (words.length === 0) return undefined;
  if (!noun) words[0] = gerund(words[0]!.toLowerCase());
  const title = words.join(' ');
  return title[0]!.toUpperCase() + title.slice(1);
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
    'generate convert migrate upgrade setup use pull commit release publish optimize'
  ).split(' '),
);

/**
 * A title from a first request that opens with an imperative, compacted (`@scripts/ delete unwanted
 * scripts keep only usable` → `Deleting unwanted scripts keep only usable`), for a coding
 * assistant's chat whose answer does not announce its task; undefined for other conversations,
 * other kinds of request, or when too little is left.
 */
export function requestTitle(conversation: Conversation, max: number): string | undefined {
  const firstUser = conversation.messages.findIndex((m) => m.role === 'USER' && m.prose !== '');
  if (firstUser < 0) return undefined;
  const prose = conversation.messages[firstUser]!.prose.replaceAll(DOT, '.').replace(/^(?:\s*@[\w./-]+)+\s*/, '');
  const first = prose.split(/\n+|(?<=[.!?])\s+(?=[A-Z])/)[0]?.trim() ?? '';
  const text = compact(first.replace(LEAD_IN, '').replace(/^(tell|show|give) me\s+/i, '$1 '), Math.min(6, max));
  const words = text.split(' ').filter(Boolean);
  // Questions and reports (`what is …`, `I am seeing this error`) are left to the sentence-level titler.
  if (words.length < 2 || !IMPERATIVE.has(words[0]!.toLowerCase())) return undefined;
  words[0] = gerund(words[0]!.toLowerCase());
  const title = words.join(' ');
  return title[0]!.toUpperCase() + title.slice(1);
}

/** The first request's opening words, compacted and capitalized, when at least three are left. */
export function requestOpening(conversation: Conversation, max: number): string | undefined {
  const request = conversation.messages.find((m) => m.role === 'USER' && m.prose !== '');
  if (!request) return undefined;
  const first = request.prose.split(/\n+|(?<=[.!?])\s+(?=[A-Z])/)[0]?.trim() ?? '';
  const text = compact(first.replace(LEAD_IN, ''), max);
  // `I am getting ECONNREFUSED …` is a report in the first person, not a title.
  if (text.split(' ').length < 3 || /\b(?:I|me|we|us|you)\b/i.test(text)) return undefined;
  return text[0]!.toUpperCase() + text.slice(1);
}
