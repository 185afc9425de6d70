import type { SummarizerMessage } from '../ports.js';

/** What {@link fitMessages} kept of a conversation. */
export interface FittedMessages {
  /** The messages kept, in their order; a kept message may be cut short. */
  readonly messages: SummarizerMessage[];
  /** How many messages were left out of the middle, between `before` and the rest. */
  readonly omitted: number;
  /** How many of the kept messages come before the messages left out (where to mark the gap). */
  readonly before: number;
}

/** Share of the budget for the first request, and at least this much for the answer to it. */
const REQUEST_SHARE = 1 / 2;
const FIRST_ANSWER_SHARE = 1 / 8;

/**
 * Fits a conversation into `maxChars` characters of text: the first request (what the
 * conversation is about), the answer to it (its opening at least, where an assistant restates the
 * task: `I'll fix the JSON parse error in the env loader.`), and then the latest messages (where it
 * ended up), leaving out the middle; what comes before the first request (a system prompt, a
 * greeting) is left out too. Whatever the conversation's length, the work after this is bounded.
 */
export function fitMessages(messages: readonly SummarizerMessage[], maxChars: number): FittedMessages {
  const limit = Number.isFinite(maxChars) ? Math.max(1, Math.floor(maxChars)) : 1;
  let total = 0;
  for (const message of messages) total += message.text.length;
  if (total <= limit) return { messages: [...messages], omitted: 0, before: messages.length };

  const first = Math.max(
    0,
    messages.findIndex((message) => message.role === 'USER'),
  );
  const isLast = first === messages.length - 1;
  const request = cut(messages[first]!, isLast ? limit : Math.floor(limit * REQUEST_SHARE));
  // The answer to the request, unless it is the last message (then the tail keeps it).
  const answer = messages[first + 1]?.role !== 'USER' && first + 2 < messages.length ? messages[first + 1] : undefined;
  const answerFloor = answer ? Math.min(answer.text.length, Math.floor(limit * FIRST_ANSWER_SHARE)) : 0;
  let budget = limit - request.text.length - answerFloor;
  const tail: SummarizerMessage[] = [];
  const headEnd = first + (answer ? 2 : 1);
  for (let i = messages.length - 1; i >= headEnd && budget > 0; i--) {
    const kept = cut(messages[i]!, budget);
    tail.push(kept);
    budget -= kept.text.length;
  }
  tail.reverse();
  // What the tail left unused goes to the answer, beyond its opening.
  const head = answer ? [request, cut(answer, answerFloor + Math.max(0, budget))] : [request];
  const firstTail = messages.length - tail.length;
  return { messages: [...head, ...tail], omitted: firstTail - headEnd, before: head.length };
}

/** The message with at most `chars` characters of text, cut at a word boundary when one is near. */
function cut(message: SummarizerMessage, chars: number): SummarizerMessage {
  if (message.text.length <= chars) return message;
  const slice = message.text.slice(0, chars);
  const space = slice.lastIndexOf(' ');
  return { ...message, text: space > chars * 0.8 ? slice.slice(0, space) : slice };
}
