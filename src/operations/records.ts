import type { z } from 'zod';
import { ServiceError } from '../errors.js';
import { LIMITS } from '../limits.js';
import { LINK, type LinkName } from '../links.js';
import type { CollectionName } from '../records.js';
import { conversationsNamedBy, deleteRecord, link } from '../relations.js';
import { parseInput } from '../validate.js';
import type { ListOf } from '../wire.js';
import {
  type ListOptions,
  mustGet,
  type OperationContext,
  pageOf,
  pageOptions,
  parseId,
  type ReadOptions,
  renderOptions,
} from './context.js';
import { RECORD_KINDS, type RecordKind, type RecordKindName } from './record-kinds.js';

// The kinds differ in their record and seed types; these functions treat them alike.
type AnyRecordKind = RecordKind<CollectionName, z.ZodType>;
const kindOf = (name: RecordKindName) => RECORD_KINDS[name] as unknown as AnyRecordKind;

/**
 * Creates a record of `kind` from its seed. When the seed names a conversation, the record is
 * linked to it (a message is appended to it); that conversation must exist.
 */
export async function createRecord(ctx: OperationContext, name: RecordKindName, seed: unknown, options?: ReadOptions): Promise<unknown> {
  const kind = kindOf(name);
  const input = parseInput(kind.seed, seed, kind.seedName);
  const render = renderOptions(options);
  const now = ctx.now();
  const record = kind.build(input, { id: ctx.newId(), now, newId: () => ctx.newId() });
  return ctx.repository.transact(async (tx) => {
    const conversationId = kind.conversationOf?.(input);
    if (conversationId) {
      const conversation = await mustGet(tx, 'conversations', conversationId, 'conversation');
      if (kind.collection === 'messages' && conversation.messages.length >= LIMITS.messagesPerConversation) {
        throw new ServiceError(
          'UNPROCESSABLE',
          `Conversation "${conversationId}" holds ${LIMITS.messagesPerConversation} messages, the most one conversation can hold.`,
          {
            resource: 'conversation',
            id: conversationId,
            limit: LIMITS.messagesPerConversation,
          },
        );
      }
    }
    tx.put(kind.collection, record);
    const relation = kind.conversationLink ? LINK[kind.conversationLink as LinkName] : undefined;
    if (conversationId && relation) await link(tx, relation, conversationId, record.id, now);
    // Read back: linking may have changed the record.
    return kind.render(await mustGet(tx, kind.collection, record.id, kind.resource), render);
  });
}

/** One record of `kind`; NOT_FOUND when there is none. */
export async function getRecord(ctx: OperationContext, name: RecordKindName, recordId: string, options?: ReadOptions): Promise<unknown> {
  const kind = kindOf(name);
  const id = parseId(recordId, `${kind.resource} id`);
  const render = renderOptions(options);
  return ctx.repository.read(async (view) => kind.render(await mustGet(view, kind.collection, id, kind.resource), render));
}

/** The records of `kind`, oldest first, a page at a time. */
export async function listRecords(ctx: OperationContext, name: RecordKindName, options?: ListOptions): Promise<ListOf<unknown>> {
  const kind = kindOf(name);
  const page = pageOptions(options);
  return ctx.repository.read((view) => pageOf(view, kind.collection, page, (record) => kind.render(record, page)));
}

/** Deletes a record of `kind` and removes it from every record linked to it. */
export async function deleteRecordOfKind(ctx: OperationContext, name: RecordKindName, recordId: string): Promise<void> {
  const kind = kindOf(name);
  const id = parseId(recordId, `${kind.resource} id`);
  const now = ctx.now();
  // The conversations it names are read first in the transaction, before the record itself: the
  // order every other write takes (a link reads the conversation, then what it links). A store that
  // locks what a transaction reads (PostgreSQL) then meets no deadlock between deleting a record and
  // linking it, each of which would cost a wait and a second run. Which ones is read beforehand; one
  // linked meanwhile is still found by deleteRecord, in the transaction.
  const before = await ctx.repository.read((view) => view.get(kind.collection, id));
  await ctx.repository.transact(async (tx) => {
    if (before) await tx.getMany('conversations', conversationsNamedBy(kind.collection, before));
    await mustGet(tx, kind.collection, id, kind.resource);
    await deleteRecord(tx, kind.collection, id, now);
  });
}
