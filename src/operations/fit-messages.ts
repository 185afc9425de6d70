import type { SummarizerMessage } from '../ports.js';

/** What {@link fitMessages} kept of a conversation. */
export interface FittedMessages {
  /** The messages kept, in their order; the last kept may be cut short. */
  readonly messages: SummarizerMessage[];
  /** How many messages were left out (from the middle of the conversation). */
  readonly omitted: number;
}

/**
 * Fits a conversation into `maxChars` characters of text: the first request (what the
 * conversation is about) and then the latest messages (where it ended up), leaving out the
 * middle. Whatever the conversation's length, the work after this is bounded.
 */
export function fitMessages(messages: readonly SummarizerMessage[], maxChars: number): FittedMessages {
  let total = 0;
  for (const message of messages) total += message.text.length;
  if (total <= maxChars) return { messages: [...messages], omitted: 0 };

  const firstRequest = Math.max(
    0,
    messages.findIndex((message) => message.role === 'USER'),
  );
  const head = cut(messages[firstRequest]!, Math.floor(maxChars / 2));
  let budget = maxChars - head.text.length;
  const tail: SummarizerMessage[] = [];
  for (let i = messages.length - 1; i > firstRequest && budget > 0; i--) {
    const message = messages[i]!;
    const kept = cut(message, budget);
    tail.push(kept);
    budget -= kept.text.length;
  }
  tail.reverse();
  // What came before the first request (a system prompt, a greeting) is left out with the middle.
  const kept = [head, ...tail];
  return { messages: kept, omitted: messages.length - kept.length };
}

/** The message with at most `chars` characters of text, cut at a word boundary when one is near. */
function cut(message: SummarizerMessage, chars: number): SummarizerMessage {
  if (message.text.length <= chars) return message;
  const slice = message.text.slice(0, chars);
  const space = slice.lastIndexOf(' ');
  return { ...message, text: space > chars * 0.8 ? slice.slice(0, space) : slice };
}
