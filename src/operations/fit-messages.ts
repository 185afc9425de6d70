import type { SummarizerMessage } from '../ports.js';

/** What {@link fitMessages} kept of a conversation. */
export interface FittedMessages {
  /** The messages kept, in their order; the last kept may be cut short. */
  readonly messages: SummarizerMessage[];
  /** How many messages were left out (from the middle of the conversation). */
  readonly omitted: number;
  /** How many of the kept messages come before the messages left out (where to mark the gap). */
  readonly before: number;
}

/** Share of the budget for the first request, and for the opening of the answer to it. */
const REQUEST_SHARE = 1 / 2;
const FIRST_ANSWER_SHARE = 1 / 8;

/**
 * Fits a conversation into `maxChars` characters of text: the first request (what the
 * conversation is about), the opening of the answer to it (where an assistant restates the task:
 * `I'll fix the JSON parse error in the env loader.`), and then the latest messages (where it ended
 * up), leaving out the middle. Whatever the conversation's length, the work after this is bounded.
 */
export function fitMessages(messages: readonly SummarizerMessage[], maxChars: number): FittedMessages {
  let total = 0;
  for (const message of messages) total += message.text.length;
  if (total <= maxChars) return { messages: [...messages], omitted: 0, before: messages.length };

  const firstRequest = Math.max(
    0,
    messages.findIndex((message) => message.role === 'USER'),
  );
  const head = [cut(messages[firstRequest]!, Math.floor(maxChars * REQUEST_SHARE))];
  const reply = messages[firstRequest + 1];
  // The answer's opening only when messages come after it: a last message is kept whole below.
  if (reply && reply.role !== 'USER' && firstRequest + 2 < messages.length) {
    head.push(cut(reply, Math.floor(maxChars * FIRST_ANSWER_SHARE)));
  }
  let budget = maxChars - head.reduce((sum, message) => sum + message.text.length, 0);
  const tail: SummarizerMessage[] = [];
  for (let i = messages.length - 1; i > firstRequest + head.length - 1 && budget > 0; i--) {
    const message = messages[i]!;
    const kept = cut(message, budget);
    tail.push(kept);
    budget -= kept.text.length;
  }
  tail.reverse();
  // What came before the first request (a system prompt, a greeting) is left out with the middle.
  const kept = [...head, ...tail];
  return { messages: kept, omitted: messages.length - kept.length, before: head.length };
}

/** The message with at most `chars` characters of text, cut at a word boundary when one is near. */
function cut(message: SummarizerMessage, chars: number): SummarizerMessage {
  if (message.text.length <= chars) return message;
  const slice = message.text.slice(0, chars);
  const space = slice.lastIndexOf(' ');
  return { ...message, text: space > chars * 0.8 ? slice.slice(0, space) : slice };
}
