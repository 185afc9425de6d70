import { ServiceError } from '../errors.js';
import type { Transaction } from '../ports.js';
import { putLinked } from '../put-linked.js';
import type { CollectionName, Timestamp, TrashRecord } from '../records.js';
import { recordProblem } from '../stores/record-checks.js';
import type { Conversation, TrashEmptied, TrashedConversation, TrashedConversations } from '../wire.js';
import { type OperationContext, parseId, type ReadOptions } from './context.js';
import { getConversation } from './conversations.js';

/** Trash records read per page while listing, and removed per transaction while emptying or purging. */
const PAGE = 32;

/** NOT_FOUND for an id the trash does not hold. */
const notInTrash = (id: string) =>
  new ServiceError('NOT_FOUND', `No conversation of the id "${id}" is in the trash.`, { resource: 'trashed conversation', id });

/** What is wrong with a trash record's parts (a file edited by hand), or undefined. */
function entryProblem(entry: TrashRecord): string | undefined {
  const problem =
    recordProblem('conversations', entry.conversation) ??
    entry.messages.map((message) => recordProblem('messages', message)).find(Boolean) ??
    entry.annotations.map((annotation) => recordProblem('annotations', annotation)).find(Boolean);
  if (problem) return problem;
  if (entry.conversation.id !== entry.id) return `its conversation has the id "${entry.conversation.id}"`;
  return undefined;
}

/** CONFLICT when a record of one of these ids exists now (a conversation, message or annotation restored would replace it). */
async function refuseExisting(tx: Transaction, collection: CollectionName, ids: readonly string[], resource: string): Promise<void> {
  if (ids.length === 0) return;
  // Version stamps only: no record is read.
  const versions = await tx.versions(collection, ids);
  const index = versions.findIndex((version) => version !== undefined);
  if (index === -1) return;
  const existingId = ids[index]!;
  throw new ServiceError('CONFLICT', `A ${resource} of the id "${existingId}" exists: restoring would replace it. Nothing was changed.`, {
    resource,
    existingId,
  });
}

/**
 * Brings a deleted conversation back from the trash, with its messages and annotations exactly as
 * they were (their own stamps), and its links to the records that still exist, on both sides (see
 * putLinked); links to records deleted meanwhile are dropped. One transaction, which also removes
 * it from the trash. NOT_FOUND when the trash does not hold it, CONFLICT when a conversation (or a
 * message or annotation) of its id exists now; either changes nothing.
 */
export async function restoreConversation(ctx: OperationContext, conversationId: string, options?: ReadOptions): Promise<Conversation> {
  const id = parseId(conversationId, 'conversation id');
  const now = ctx.now();
  await ctx.repository.transact(async (tx) => {
    const entry = await tx.get('trash', id);
    if (!entry) throw notInTrash(id);
    const problem = entryProblem(entry);
    if (problem) {
      throw new ServiceError('UNPROCESSABLE', `The trashed conversation "${id}" cannot be restored: ${problem}. Nothing was changed.`, {
        resource: 'trashed conversation',
        id,
      });
    }
    await refuseExisting(tx, 'conversations', [id], 'conversation');
    await refuseExisting(
      tx,
      'messages',
      entry.messages.map((message) => message.id),
      'message',
    );
    await refuseExisting(
      tx,
      'annotations',
      entry.annotations.map((annotation) => annotation.id),
      'annotation',
    );
    await putLinked(
      tx,
      new Map<CollectionName, readonly { id: string }[]>([
        ['conversations', [entry.conversation]],
        ['messages', entry.messages],
        ['annotations', entry.annotations],
      ]),
      now,
    );
    tx.delete('trash', id);
  });
  // Read after the write, as an update's answer is: the transaction holds nothing longer than it must.
  return getConversation(ctx, id, options);
}

/** A trash record as listed. */
function listed(entry: TrashRecord): TrashedConversation {
  const { name } = entry.conversation;
  return {
    id: entry.id,
    ...(typeof name === 'string' ? { name } : {}),
    deleted: entry.created,
    expires: entry.expires,
    messages: entry.messages.length,
  };
}

/**
 * Every conversation in the trash, the most recently deleted first. Read a page of records at a
 * time: a trash record holds its whole conversation, and only the few fields listed are kept.
 */
export async function listTrash(ctx: OperationContext): Promise<TrashedConversations> {
  const entries = await ctx.repository.read(async (view) => {
    const out: TrashedConversation[] = [];
    let after: string | undefined;
    do {
      const page = await view.list('trash', { ...(after === undefined ? {} : { after }), limit: PAGE });
      for (const entry of page.records) out.push(listed(entry));
      after = page.next;
    } while (after !== undefined);
    return out;
  });
  // The store lists them oldest first.
  return { iterable: entries.reverse() };
}

/** The ids of the trash records `wanted` accepts, a page of records at a time. */
async function trashIds(ctx: OperationContext, wanted: (entry: TrashRecord) => boolean): Promise<string[]> {
  const ids: string[] = [];
  let after: string | undefined;
  do {
    const page = await ctx.repository.read((view) => view.list('trash', { ...(after === undefined ? {} : { after }), limit: PAGE }));
    for (const entry of page.records) if (wanted(entry)) ids.push(entry.id);
    after = page.next;
  } while (after !== undefined);
  return ids;
}

/** Whether the trash record has expired at `now`. */
const expiredAt = (now: Timestamp) => {
  const time = Date.parse(now.value);
  return (entry: TrashRecord) => Date.parse(entry.expires.value) <= time;
};

/**
 * Removes these trash records for good, {@link PAGE} per transaction, yielding to other work
 * between transactions; `still` decides again, in each transaction, whether a record read there
 * goes (it may have been restored and deleted again meanwhile, with a later expiry). Two removals
 * of one record do no harm: the second finds it gone. Stops early when `stop` says so. Answers how
 * many it removed.
 */
async function removeFromTrash(
  ctx: OperationContext,
  ids: readonly string[],
  still: ((entry: TrashRecord) => boolean) | undefined,
  stop: () => boolean,
): Promise<number> {
  let removed = 0;
  for (let start = 0; start < ids.length && !stop(); start += PAGE) {
    const batch = ids.slice(start, start + PAGE);
    removed += await ctx.repository.transact(async (tx) => {
      let count = 0;
      if (still) {
        // Read (and, in a database, locked) here: another instance purging at once waits, then finds them gone.
        const entries = await tx.getMany('trash', batch);
        for (const entry of entries) {
          if (entry && still(entry)) {
            tx.delete('trash', entry.id);
            count++;
          }
        }
      } else {
        const versions = await tx.versions('trash', batch);
        batch.forEach((id, i) => {
          if (versions[i] === undefined) return;
          tx.delete('trash', id);
          count++;
        });
      }
      return count;
    });
    await new Promise((resolve) => setImmediate(resolve));
  }
  return removed;
}

/** Removes every conversation the trash holds, for good. Answers how many. */
export async function emptyTrash(ctx: OperationContext): Promise<TrashEmptied> {
  const ids = await trashIds(ctx, () => true);
  return { removed: await removeFromTrash(ctx, ids, undefined, () => false) };
}

/** Removes one conversation from the trash, for good; NOT_FOUND when the trash does not hold it. */
export async function purgeTrashed(ctx: OperationContext, conversationId: string): Promise<void> {
  const id = parseId(conversationId, 'conversation id');
  await ctx.repository.transact(async (tx) => {
    const [version] = await tx.versions('trash', [id]);
    if (version === undefined) throw notInTrash(id);
    tx.delete('trash', id);
  });
}

/**
 * Removes the conversations whose time in the trash is over (by the service's clock), in small
 * transactions; what the background purge runs. `stop` ends it between two transactions.
 */
export async function purgeExpiredTrash(ctx: OperationContext, stop: () => boolean = () => false): Promise<TrashEmptied> {
  const expired = expiredAt(ctx.now());
  const ids = await trashIds(ctx, expired);
  return { removed: await removeFromTrash(ctx, ids, expired, stop) };
}
