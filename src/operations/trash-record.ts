import type { AnnotationRecord, CollectionName, ConversationRecord, MessageRecord, Timestamp, TrashRecord } from '../records.js';
import type { DeletedRecords } from '../relations.js';

/** Days the trash keeps a deleted conversation unless the service is told otherwise. */
export const DEFAULT_TRASH_DAYS = 30;

/** The longest keep the service takes: a century (more is a typo, say days given as seconds). */
export const MAX_TRASH_DAYS = 36_500;

const DAY_MS = 24 * 60 * 60 * 1000;

/** `keepDays` in milliseconds, checked: a number of days from 0 (no trash) to {@link MAX_TRASH_DAYS}. */
export function trashKeepMs(keepDays: number = DEFAULT_TRASH_DAYS): number {
  if (typeof keepDays !== 'number' || !Number.isFinite(keepDays) || keepDays < 0 || keepDays > MAX_TRASH_DAYS) {
    throw new RangeError(`trash.keepDays must be a number of days from 0 to ${MAX_TRASH_DAYS}, not ${String(keepDays)}.`);
  }
  return Math.round(keepDays * DAY_MS);
}

/**
 * The trash record of conversation `id` from what deleting it removed, or undefined when it was
 * not among them: the conversation as it was, its messages in its order and its annotations, each
 * whole with its link fields (a message damaged on disk, which could not be read, is left out; its
 * id in the conversation's list is dropped at restore).
 */
export function trashRecordOf(deleted: DeletedRecords, id: string, now: Timestamp, keepMs: number): TrashRecord | undefined {
  const conversation = deleted.get('conversations')?.get(id) as ConversationRecord | undefined;
  if (!conversation) return undefined;
  const pick = <T>(collection: CollectionName, ids: readonly string[]): T[] => {
    const records = deleted.get(collection);
    return ids.flatMap((recordId) => {
      const record = records?.get(recordId);
      return record ? [record as T] : [];
    });
  };
  return {
    id,
    created: now,
    updated: now,
    expires: { value: new Date(Date.parse(now.value) + keepMs).toISOString() },
    conversation,
    messages: pick<MessageRecord>('messages', conversation.messages),
    annotations: pick<AnnotationRecord>('annotations', conversation.annotations),
  };
}
