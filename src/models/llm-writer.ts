import { fitMessages } from '../operations/fit-messages.js';
import type { ChatMessage, ModelRuntime, SummarizerMessage } from '../ports.js';
import type { ModelRecord } from '../records.js';

/** What the writer writes. */
export type WritingTask = 'title' | 'summary';

const INSTRUCTIONS: Readonly<Record<WritingTask, string>> = {
  title:
    'You name conversations between a user and an AI assistant. Answer with a title only: 2 to 8 words that name ' +
    'the topic, as a person would title the chat, in the language of the conversation. No quotes, no trailing ' +
    'period, no "Title:", no explanation.',
  summary:
    'You summarize conversations between a user and an AI assistant for someone skimming a list of past chats. ' +
    'Write 2 to 4 sentences from an observer\'s view ("The user asked…", "The assistant…"): what was asked, and what ' +
    'was answered, found or decided; say what is still open, if anything. Plain prose in the language of the ' +
    'conversation: no heading, no list, no markdown, no preamble.',
};

/** Tokens the answer may take, by task. */
const ANSWER_TOKENS: Readonly<Record<WritingTask, number>> = { title: 32, summary: 320 };
/** Tokens assumed when neither the model nor the runtime says how much context it reads. */
const DEFAULT_CONTEXT_TOKENS = 4_096;
/** A cautious characters-per-token ratio: code and non-English text run below English's ~4. */
const CHARS_PER_TOKEN = 3;
const SPEAKERS: Readonly<Record<SummarizerMessage['role'], string>> = {
  USER: 'User',
  ASSISTANT: 'Assistant',
  SYSTEM: 'System',
  UNKNOWN: 'Participant',
};

/**
 * The chat that asks `model` for a title or a summary of `messages`: the instruction, then the
 * conversation as a transcript fitted to the model's context (its first request, the opening of
 * the answer to it, and the latest messages; what was left out of the middle is marked).
 */
export function promptFor(task: WritingTask, messages: readonly SummarizerMessage[], contextTokens: number): ChatMessage[] {
  const budgetChars = Math.max(1_000, (contextTokens - ANSWER_TOKENS[task] - 200) * CHARS_PER_TOKEN);
  const fitted = fitMessages(messages, budgetChars);
  const turns = fitted.messages.map((message) => `${SPEAKERS[message.role]}: ${message.text}`);
  if (fitted.omitted > 0) turns.splice(fitted.before, 0, `[… ${fitted.omitted} messages left out here …]`);
  return [
    { role: 'system', content: INSTRUCTIONS[task] },
    { role: 'user', content: `The conversation:\n\n${turns.join('\n\n')}\n\n${task === 'title' ? 'Its title:' : 'Its summary:'}` },
  ];
}

/** Tokens of context of `model` on `runtime`: the model's `maxTokens.input`, else the runtime's figure, else 4,096. */
export function contextTokensOf(model: ModelRecord, runtime: ModelRuntime): number {
  const declared = Number(model.maxTokens?.input ?? model.maxTokens?.total);
  if (Number.isFinite(declared) && declared > 0) return declared;
  return runtime.contextTokens?.(model) ?? DEFAULT_CONTEXT_TOKENS;
}

export const answerTokens = (task: WritingTask) => ANSWER_TOKENS[task];

/**
 * What a model answered, cleaned into a title or a summary: `<think>` blocks, quotes, `Title:`
 * prefixes, markdown headings and emphasis removed. Undefined when nothing usable is left (empty,
 * an unfinished `<think>`, too long, a title of more than 12 words).
 */
export function cleanAnswer(task: WritingTask, answer: string): string | undefined {
  // Control characters or undecodable bytes: the model produced noise, not text.
  if (/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f\ufffd]/.test(answer)) return undefined;
  let text = answer.replace(/<think>[\s\S]*?<\/think>/gi, '');
  // A reasoning block the model never closed: nothing after it can be trusted.
  if (/<think>/i.test(text)) return undefined;
  // A heading is the title itself when a title is asked for, and a mere label in a summary.
  text = (task === 'title' ? text.replace(/^\s*#{1,6}\s+/gm, '') : text.replace(/^\s*#{1,6}\s.*$/gm, ''))
    .replace(/\*\*([^*]+)\*\*/g, '$1')
    .replace(/^\s*(?:title|summary|conversation title)\s*:\s*/i, '')
    .trim();
  if (task === 'title') {
    text = (text.split('\n').find((line) => line.trim() !== '') ?? '').trim();
    text = text
      .replace(/^["'“”‘’`«»]+|["'“”‘’`«»]+$/g, '')
      .replace(/[.。]+$/, '')
      .trim();
    const words = text.split(/\s+/).filter(Boolean).length;
    return words >= 1 && words <= 12 && text.length <= 120 ? text : undefined;
  }
  text = text.replace(/\s*\n+\s*/g, ' ').trim();
  return text.length >= 20 && text.length <= 2_000 ? text : undefined;
}
