import type { ConversationRecord, MessageRecord } from '../../src/index.js';

/** A minimal valid conversation record for storage tests. */
export function conversationRecord(id: string, name = `Conversation ${id}`): ConversationRecord {
  const now = { value: '2026-01-01T00:00:00.000Z' };
  return {
    id,
    name,
    type: 'COPILOT',
    created: now,
    updated: now,
    messages: [],
    annotations: [],
    anchors: [],
    assets: [],
    websites: [],
    summaries: [],
    groundingMessages: [],
    groundingRanges: [],
  };
}

/** A minimal valid message record of `conversation`, for storage tests. */
export function messageRecord(id: string, conversation: string): MessageRecord {
  const now = { value: '2026-01-01T00:00:00.000Z' };
  return { id, conversation, role: 'USER', created: now, updated: now, groundedConversations: [] };
}
