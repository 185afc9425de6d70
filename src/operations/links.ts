import { invalidInput } from '../errors.js';
import { LINK_KINDS, type LinkKind } from '../links.js';
import { link, unlink } from '../relations.js';
import { mustGet, type OperationContext, parseId } from './context.js';

/**
 * Links a conversation to a record of `kind`, updating both (and their `updated`). Linking what
 * is already linked changes nothing. Both records must exist.
 */
export async function associate(ctx: OperationContext, kind: LinkKind, conversationId: string, targetId: string): Promise<void> {
  await setLink(ctx, kind, conversationId, targetId, link);
}

/** Unlinks a conversation from a record of `kind`, updating both. Unlinking twice is harmless. */
export async function disassociate(ctx: OperationContext, kind: LinkKind, conversationId: string, targetId: string): Promise<void> {
  await setLink(ctx, kind, conversationId, targetId, unlink);
}

async function setLink(
  ctx: OperationContext,
  kind: LinkKind,
  conversationId: string,
  targetId: string,
  change: typeof link,
): Promise<void> {
  if (!Object.hasOwn(LINK_KINDS, kind)) {
    throw invalidInput(`Unknown link kind "${String(kind)}"; one of: ${Object.keys(LINK_KINDS).join(', ')}.`);
  }
  const spec = LINK_KINDS[kind];
  const conversation = parseId(conversationId, 'conversation id');
  const target = parseId(targetId, `${spec.resource} id`);
  const now = ctx.now();
  await ctx.repository.transact(async (tx) => {
    await mustGet(tx, 'conversations', conversation, 'conversation');
    await mustGet(tx, spec.collection, target, spec.resource);
    await change(tx, spec.relation, conversation, target, now);
  });
}
