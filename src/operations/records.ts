import { link, deleteRecord } from '../relations.js';
import { parseInput } from '../validate.js';
import type { ListOf } from '../wire.js';
import { mustGet, parseId, renderOptions, type OperationContext, type ReadOptions } from './context.js';
import type { z } from 'zod';
import type { CollectionName } from '../records.js';
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
  return ctx.repository.transact((tx) => {
    const conversationId = kind.conversationOf?.(input);
    if (conversationId) mustGet(tx, 'conversations', conversationId, 'conversation');
    tx.put(kind.collection, record);
    if (conversationId && kind.relation) link(tx, kind.relation, conversationId, record.id, now);
    // Read back: linking may have changed the record.
    return kind.render(mustGet(tx, kind.collection, record.id, kind.resource), render);
  });
}

/** Every record of `kind`, oldest first. */
export async function listRecords(ctx: OperationContext, name: RecordKindName, options?: ReadOptions): Promise<ListOf<unknown>> {
  const kind = kindOf(name);
  const render = renderOptions(options);
  return ctx.repository.read((view) => ({ iterable: view.list(kind.collection).map((record) => kind.render(record, render)) }));
}

/** Deletes a record of `kind` and removes it from every record linked to it. */
export async function deleteRecordOfKind(ctx: OperationContext, name: RecordKindName, recordId: string): Promise<void> {
  const kind = kindOf(name);
  const id = parseId(recordId, `${kind.resource} id`);
  const now = ctx.now();
  await ctx.repository.transact((tx) => {
    mustGet(tx, kind.collection, id, kind.resource);
    deleteRecord(tx, kind.collection, id, now);
  });
}
