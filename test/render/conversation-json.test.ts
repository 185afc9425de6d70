import { describe, expect, it } from 'vitest';
import { type ConversationRecord, createMemoryRepository, type MessageRecord } from '../../src/index.js';
import { conversationSnapshot, renderConversation, renderMessages } from '../../src/render/conversation.js';
import { conversationJson, conversationMessagesJson } from '../../src/render/conversation-json.js';
import { conversationRecord } from '../helpers/records.js';

const at = (value: string) => ({ value });

const bare: MessageRecord = {
  id: 'm-bare',
  created: at('2026-01-01T00:00:00.000Z'),
  updated: at('2026-01-01T00:00:00.000Z'),
  conversation: 'c-1',
  role: 'USER',
  groundedConversations: [],
};

// Every optional field a message can carry, and strings that JSON must escape.
const full: MessageRecord = {
  id: 'm-full',
  created: { value: '2026-01-01T00:00:01.000Z', readable: 'a "moment" ago' },
  updated: at('2026-01-01T00:00:02.000Z'),
  conversation: 'c-1',
  role: 'ASSISTANT',
  fragment: { string: { raw: 'Use `retry`:\n\t"quoted" \\ back\u0001slash \u2028 ✓' }, metadata: { language: 'ts' } },
  sentiment: 'LIKE',
  model: { id: 'model-1', name: 'Tiny' },
  score: { manual: 1, automatic: 2 },
  deleted: at('2026-01-02T00:00:00.000Z'),
  groundedConversations: [],
};

const textOnly: MessageRecord = { ...bare, id: 'm-text', fragment: { string: { raw: 'plain' } } };

const conversation: ConversationRecord = {
  id: 'c-1',
  type: 'COPILOT',
  name: 'Retrying "flaky" calls\n',
  favorited: true,
  deleted: at('2026-01-03T00:00:00.000Z'),
  model: { id: 'model-1' },
  score: { manual: 3, automatic: 4, priority: 1 },
  application: { id: 'app', name: 'VS_CODE' },
  pipeline: { conversation: { contextualizedCodeDialog: {} } },
  demo: false,
  created: at('2026-01-01T00:00:00.000Z'),
  updated: { value: '2026-01-01T00:00:05.000Z', readable: 'now' },
  // A message id without a record (skipped by both renderers) sits between the others.
  messages: ['m-bare', 'm-missing', 'm-full', 'm-text'],
  annotations: ['a-1', 'a-missing'],
  anchors: ['an-1'],
  assets: ['as-1', 'as-2'],
  websites: ['w-1'],
  summaries: ['s-1'],
  groundingMessages: ['m-elsewhere'],
  groundingRanges: ['r-1'],
};

// No optional field, every list empty.
const { name: _name, ...minimal }: ConversationRecord = { ...conversationRecord('c-2'), type: 'UNKNOWN' };

// Records only a hand-edited file can hold: the writer must still answer what the renderer does.
const odd: MessageRecord[] = [
  // Integer-like ids come first among an object's keys; `__proto__` is not a key at all.
  { ...bare, id: 'b' },
  { ...bare, id: '1' },
  { ...bare, id: '__proto__' },
  { ...bare, id: 'extra-keys', created: { value: '2026-01-01T00:00:00.000Z', zone: 'UTC' } as unknown as MessageRecord['created'] },
  { ...bare, id: 'no-role', role: undefined as unknown as MessageRecord['role'] },
];
const oddConversations: ConversationRecord[] = [
  { ...conversationRecord('c-3'), messages: ['b', '1'] },
  { ...conversationRecord('c-4'), messages: ['b', '__proto__', 'b'] },
  { ...conversationRecord('c-5'), messages: ['extra-keys', 'no-role'] },
  { ...conversationRecord('c-6'), created: undefined as unknown as ConversationRecord['created'] },
  // A repeated id among ordinary messages.
  { ...conversationRecord('c-7'), messages: ['m-bare', 'm-text', 'm-bare'] },
];

/** A store holding every record above. */
async function storeOfAll() {
  const repository = createMemoryRepository();
  await repository.transact((tx) => {
    for (const message of [bare, full, textOnly]) tx.put('messages', message);
    tx.put('annotations', {
      id: 'a-1',
      type: 'SUMMARY',
      text: 'The user asked.',
      conversation: 'c-1',
      messages: ['m-full'],
      created: at('2026-01-01T00:00:03.000Z'),
      updated: at('2026-01-01T00:00:03.000Z'),
    });
    tx.put('conversations', conversation);
    tx.put('conversations', minimal);
    for (const message of odd) tx.put('messages', message);
    for (const record of oddConversations) tx.put('conversations', record);
  });
  return repository;
}

describe('conversationMessagesJson', () => {
  it('writes exactly the text of JSON.stringify(renderMessages(...)) and its next, for every page, with and without transferables', async () => {
    const repository = await storeOfAll();
    await repository.read(async (view) => {
      for (const record of [conversation, minimal, ...oddConversations]) {
        for (const [offset, limit] of [
          [0, 1_000],
          [0, 1],
          [1, 1],
          [1, 2],
          [2, 5],
          [9, 3],
        ] as const) {
          // As the operation reads it: only the page's messages, and one past it.
          const snapshot = await conversationSnapshot(view, record, undefined, { start: offset, end: offset + limit + 1 });
          for (const transferables of [true, false]) {
            const page = { transferables, offset, limit };
            const expected = renderMessages(snapshot, page);
            const written = conversationMessagesJson(snapshot, page);
            expect(written.json, `${record.id} ${offset}+${limit}`).toBe(JSON.stringify(expected));
            expect(written.next).toBe(expected.next);
          }
        }
      }
    });
  });
});

describe('conversationJson', () => {
  it('writes exactly the text of JSON.stringify(renderConversation(...)), with and without transferables', async () => {
    const repository = await storeOfAll();

    await repository.read(async (view) => {
      // The summary's coverage shows on the message it covers.
      const full = await conversationSnapshot(view, conversation);
      expect(JSON.parse(conversationJson(full, { transferables: true })).messages.iterable[1].reference.annotations).toEqual({
        iterable: [{ id: 'a-1' }],
      });
      for (const record of [conversation, minimal, ...oddConversations]) {
        const snapshot = await conversationSnapshot(view, record);
        for (const transferables of [true, false]) {
          const written = conversationJson(snapshot, { transferables });
          expect(written).toBe(JSON.stringify(renderConversation(snapshot, { transferables })));
          expect(() => JSON.parse(written)).not.toThrow();
        }
      }
    });
  });
});
