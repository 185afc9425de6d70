import { emptyConversation } from '../kinds/conversation.js';
import { link, RELATION, type Relation } from '../relations.js';
import type { ConversationCreatedOutput } from '../wire.js';
import { mustGet, type OperationContext, parseId } from './context.js';

/** What a conversation can be started from: the record's collection, its name in errors, and the link made. */
interface Ground {
  readonly collection: 'assets' | 'workstreamSummaries';
  readonly resource: string;
  readonly relation: Relation;
}

const GROUNDS = {
  asset: { collection: 'assets', resource: 'asset', relation: RELATION.conversationAssets },
  workstreamSummary: { collection: 'workstreamSummaries', resource: 'workstream summary', relation: RELATION.conversationSummaries },
} as const satisfies Record<string, Ground>;

/**
 * Starts a conversation grounded in an asset: a new COPILOT conversation, named as the asset is,
 * linked to it both ways (the conversation's `assets`, the asset's `conversations`), in one
 * transaction. No message is written: the first is the user's (the service has no model it must
 * ask for a summary of the asset). NOT_FOUND for an unknown asset, and nothing is created.
 */
export function createConversationFromAsset(ctx: OperationContext, assetId: string): Promise<ConversationCreatedOutput> {
  return createGrounded(ctx, GROUNDS.asset, assetId);
}

/**
 * Starts a conversation grounded in a workstream summary, named as it is and linked to it both
 * ways (the conversation's `summaries`, the summary's `conversations`); as
 * {@link createConversationFromAsset} otherwise.
 */
export function createConversationFromWorkstreamSummary(ctx: OperationContext, summaryId: string): Promise<ConversationCreatedOutput> {
  return createGrounded(ctx, GROUNDS.workstreamSummary, summaryId);
}

async function createGrounded(ctx: OperationContext, ground: Ground, groundId: string): Promise<ConversationCreatedOutput> {
  const target = parseId(groundId, `${ground.resource} id`);
  const now = ctx.now();
  const id = ctx.newId();
  await ctx.repository.transact(async (tx) => {
    const record = await mustGet(tx, ground.collection, target, ground.resource);
    const conversation = emptyConversation(id, now, { type: 'COPILOT', ...(record.name ? { name: record.name } : {}) });
    tx.put('conversations', conversation);
    await link(tx, ground.relation, id, target, now);
  });
  return { conversation: { id } };
}
