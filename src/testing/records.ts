import { emptyConversation } from '../kinds/conversation.js';
import type { CollectionName, Collections, ConversationRecord, MessageRecord } from '../records.js';

/**
 * Minimal valid records for the contract suite, one builder per collection. They live here, not
 * in `test/`, because the suite ships in the package and cannot reach the repository's tests.
 */

const NOW = '2026-01-01T00:00:00.000Z';

/** A minimal valid conversation record. */
export function conversationRecord(id: string, name = `Conversation ${id}`): ConversationRecord {
  return emptyConversation(id, { value: NOW }, { name, type: 'COPILOT' });
}

/** A minimal valid message record of `conversation`. */
export function messageRecord(id: string, conversation: string): MessageRecord {
  const now = { value: NOW };
  return { id, conversation, role: 'USER', created: now, updated: now, groundedConversations: [] };
}

/** A minimal valid record of any collection, with this id. */
export function sampleRecord<C extends CollectionName>(collection: C, id: string): Collections[C] {
  const now = { value: NOW };
  const base = { id, created: now, updated: now };
  const records: { [K in CollectionName]: () => Collections[K] } = {
    conversations: () => conversationRecord(id),
    messages: () => messageRecord(id, 'some-conversation'),
    annotations: () => ({ ...base, type: 'COMMENT', text: `Annotation ${id}`, messages: [] }),
    anchors: () => ({ ...base, type: 'FILE', fullpath: `/tmp/${id}.ts`, point: `${id}-point`, conversations: [] }),
    assets: () => ({ ...base, creator: 'contract', mechanism: 'MANUAL', format: `${id}-format`, conversations: [] }),
    websites: () => ({ ...base, url: `https://example.com/${id}`, name: `Website ${id}`, conversations: [] }),
    workstreamSummaries: () => ({ ...base, name: `Summary ${id}`, model: {}, conversations: [] }),
    ranges: () => ({ ...base, from: now, to: now, between: true, conversations: [] }),
    models: () => ({ id, version: '1', created: now, name: `Model ${id}`, cloud: false, type: 'BALANCED', usage: 'CODE_CONVERSATION' }),
    tags: () => ({ ...base, text: `tag-${id}`, category: 'UNKNOWN', messages: [], annotations: [] }),
    persons: () => ({ ...base, type: { basic: { name: `Person ${id}` } }, messages: [], annotations: [] }),
    workstreamEvents: () => ({ ...base, application: { id: 'app' }, trigger: {}, messages: [], annotations: [] }),
    sources: () => ({ ...base, raw: { name: `Source ${id}` }, readable: `Source ${id}`, messages: [], conversations: [] }),
    trash: () => ({ ...base, expires: now, conversation: conversationRecord(id), messages: [], annotations: [] }),
  };
  return records[collection]();
}
