import { randomUUID } from 'node:crypto';
import type { ConversationRecord, MessageRecord, Repository, WebsiteRecord } from '../src/index.js';

/** What the benchmark needs to know about a store it built. */
export interface BuiltStore {
  readonly conversations: string[];
  readonly websites: string[];
}

const at = { value: '2026-01-01T00:00:00.000Z' };
const SENTENCE = 'Use exponential backoff with jitter. ';

/**
 * Fills `repository` with `count` conversations of about 6 KB each (20 messages) and two website
 * links each. There is one website per two conversations (at least 200), so a website has a few
 * links at any size, as in real use; the mutations link and unlink these websites.
 */
export async function buildStore(repository: Repository, count: number): Promise<BuiltStore> {
  const websiteCount = Math.max(200, Math.ceil(count / 2));
  const websites: WebsiteRecord[] = Array.from({ length: websiteCount }, (_, i) => ({
    id: randomUUID(),
    url: `https://example.com/page/${i}`,
    name: `Page ${i}`,
    created: at,
    updated: at,
    conversations: [],
  }));
  await repository.transact((tx) => {
    for (const website of websites) tx.put('websites', website);
  });
  const conversations: string[] = [];
  const BATCH = 200;
  for (let start = 0; start < count; start += BATCH) {
    await repository.transact(async (tx) => {
      for (let i = start; i < Math.min(count, start + BATCH); i++) {
        const id = randomUUID();
        conversations.push(id);
        const messages: MessageRecord[] = Array.from({ length: 20 }, (_, m) => ({
          id: randomUUID(),
          created: at,
          updated: at,
          conversation: id,
          role: m % 2 === 0 ? 'USER' : 'ASSISTANT',
          fragment: { string: { raw: SENTENCE } },
          annotations: [],
          groundedConversations: [],
        }));
        const linked = [websites[i % websiteCount]!, websites[(i * 7 + 3) % websiteCount]!];
        const conversation: ConversationRecord = {
          id,
          type: 'COPILOT',
          name: `Conversation ${i}`,
          created: at,
          updated: at,
          messages: messages.map((m) => m.id),
          annotations: [],
          anchors: [],
          assets: [],
          websites: linked.map((w) => w.id),
          summaries: [],
          groundingMessages: [],
          groundingRanges: [],
        };
        for (const message of messages) tx.put('messages', message);
        tx.put('conversations', conversation);
        for (const website of linked) {
          const current = (await tx.get('websites', website.id))!;
          tx.put('websites', { ...current, conversations: [...current.conversations, id] });
        }
      }
    });
  }
  return { conversations, websites: websites.map((w) => w.id) };
}

/** The body of each measured write: a message of 300 characters (its conversation added per request). */
export const WRITE_BODY = {
  role: 'USER',
  fragment: {
    string: { raw: 'Use exponential backoff with jitter, cap the delay, and give up after a few tries. '.repeat(4).slice(0, 300) },
  },
} as const;
