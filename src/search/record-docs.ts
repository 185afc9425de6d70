import type { RecordChange } from '../ports.js';
import type { AnnotationRecord, CollectionName, ConversationRecord, MessageRecord } from '../records.js';
import type { Field } from '../search-types.js';
import type { IndexedDoc } from './text-index.js';

/** The fields in the order of their numbers (how the tables and files hold them). */
export const FIELDS: readonly Field[] = ['userMessage', 'message', 'name', 'annotation'];
export const FIELD_NUMBER: Readonly<Record<Field, number>> = { userMessage: 0, message: 1, name: 2, annotation: 3 };

/** The collections whose records the index holds, and the field each record is. */
export const INDEXED_COLLECTIONS: ReadonlySet<CollectionName> = new Set(['messages', 'conversations', 'annotations']);

/** What the index does for one write: put a document, or remove one. */
export type IndexAction = { readonly put: IndexedDoc } | { readonly remove: Field; readonly id: string };

/** The index's actions for a committed write (none for collections it does not hold). */
export function indexActions(change: RecordChange): IndexAction[] {
  const { collection, id, record } = change;
  switch (collection) {
    case 'messages': {
      const message = record as MessageRecord | null;
      // A message's field follows its role, which a write may change: the other field's document goes.
      if (!message)
        return [
          { remove: 'userMessage', id },
          { remove: 'message', id },
        ];
      const field: Field = message.role === 'USER' ? 'userMessage' : 'message';
      return [
        { remove: field === 'userMessage' ? 'message' : 'userMessage', id },
        { put: docOf(field, message, message.conversation, message.fragment?.string?.raw ?? '') },
      ];
    }
    case 'conversations': {
      const conversation = record as ConversationRecord | null;
      // Every conversation has a name document, empty or not: it is how the index knows the conversation exists, and when.
      return conversation ? [{ put: docOf('name', conversation, conversation.id, conversation.name ?? '') }] : [{ remove: 'name', id }];
    }
    case 'annotations': {
      const annotation = record as AnnotationRecord | null;
      return annotation
        ? [{ put: docOf('annotation', annotation, annotation.conversation, annotation.text) }]
        : [{ remove: 'annotation', id }];
    }
    default:
      return [];
  }
}

function docOf(
  field: Field,
  record: { id: string; created?: { value: string }; updated?: { value: string } },
  conversation: string | undefined,
  text: string,
): IndexedDoc {
  // Records written by a store of your own may lack times: such a document has none (0) and passes no time filter with a `from`.
  const time = (stamp: { value: string } | undefined) => (stamp ? Date.parse(stamp.value) : 0);
  return { field, id: record.id, conversation, text, created: time(record.created), updated: time(record.updated) };
}
