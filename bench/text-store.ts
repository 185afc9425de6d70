/**
 * The store bench/postgres.ts measures: `count` conversations of 20 messages of about 300
 * characters each (windows of developer text, bench/texts.ts), written through a repository's
 * transactions, BATCH conversations a transaction. Ids follow the position (conversation i is
 * `conversationId(i)`), and a seed fixes the texts, so every store built with the same arguments
 * holds the same records, and a child process knows every id from the count alone.
 */
import type { ConversationRecord, MessageRecord, Repository } from '../src/index.js';
import { conversationRecord } from '../src/testing/records.js';
import { conversationId } from './store-format4.js';
import { type Chat, Texts } from './texts.js';

export const MESSAGES_PER_CONVERSATION = 20;
/** Characters of a message: windows of 250 to 350, cut at whitespace. */
export const MESSAGE_CHARS = { shortest: 250, longest: 350 } as const;
const BATCH = 100;
const SEED = 1;

const messageId = (conversation: number, message: number) =>
  `00000002-0000-4000-8000-${(conversation * MESSAGES_PER_CONVERSATION + message).toString(16).padStart(12, '0')}`;

/** Conversation `i` and its messages. */
function conversationOf(i: number, texts: Texts, base: number): { conversation: ConversationRecord; messages: MessageRecord[] } {
  const id = conversationId(i);
  const chat = texts.chat();
  const at = (second: number) => ({ value: new Date(base + i * 600_000 + second * 1000).toISOString() });
  const messages: MessageRecord[] = Array.from({ length: MESSAGES_PER_CONVERSATION }, (_, m) => ({
    id: messageId(i, m),
    created: at(m),
    updated: at(m),
    conversation: id,
    role: m % 2 === 0 ? 'USER' : 'ASSISTANT',
    fragment: { string: { raw: texts.window(chat) } },
    groundedConversations: [],
  }));
  const conversation: ConversationRecord = {
    ...conversationRecord(id, chat.title),
    created: at(0),
    updated: at(MESSAGES_PER_CONVERSATION),
    messages: messages.map((m) => m.id),
  };
  return { conversation, messages };
}

/**
 * Writes the store's `count` conversations into `repository`, `parallel` transactions at a time
 * (a database takes several at once); answers the characters of message text written.
 */
export async function fillStore(repository: Repository, count: number, chats: Chat[], parallel = 1): Promise<{ textChars: number }> {
  const texts = new Texts(chats, SEED, MESSAGE_CHARS);
  const base = Date.parse('2026-01-01T00:00:00.000Z');
  let textChars = 0;
  const inFlight = new Set<Promise<unknown>>();
  for (let start = 0; start < count; start += BATCH) {
    while (inFlight.size >= parallel) await Promise.race(inFlight);
    const batch = Array.from({ length: Math.min(BATCH, count - start) }, (_, k) => conversationOf(start + k, texts, base));
    for (const { messages } of batch) for (const message of messages) textChars += message.fragment!.string!.raw!.length;
    // Built before the transaction: a store may run its function more than once.
    const done = repository.transact((tx) => {
      for (const { conversation, messages } of batch) {
        for (const message of messages) tx.put('messages', message);
        tx.put('conversations', conversation);
      }
    });
    inFlight.add(done);
    void done.finally(() => inFlight.delete(done));
  }
  await Promise.all(inFlight);
  return { textChars };
}
