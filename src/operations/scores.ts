import type { Score } from '../records.js';
import { type SeededScore, seededScoreIncrementSchema } from '../schemas/conversation-inputs.js';
import { parseInput } from '../validate.js';
import { mustGet, type OperationContext, parseId } from './context.js';

/**
 * Adds one to each score field set to true in `increment.conversation` (an absent score starts at
 * zero). Other keys of the SeededScoreIncrement are validated and ignored. A score is usage, not an
 * edit, so `updated` does not change.
 */
export async function incrementConversationScores(ctx: OperationContext, conversationId: string, increment?: unknown): Promise<void> {
  const id = parseId(conversationId, 'conversation id');
  const input = parseInput(seededScoreIncrementSchema.optional(), increment, 'SeededScoreIncrement');
  await ctx.repository.transact(async (tx) => {
    const conversation = await mustGet(tx, 'conversations', id, 'conversation');
    const seeded = input?.conversation;
    if (!seeded) return;
    tx.put('conversations', { ...conversation, score: addScore(conversation.score, seeded) });
  });
}

function addScore(score: Score | undefined, seeded: SeededScore): Score {
  const next: Record<string, number> = { manual: 0, automatic: 0, ...score };
  for (const [field, increment] of Object.entries(seeded)) {
    if (increment === true) next[field] = (next[field] ?? 0) + 1;
  }
  return next as unknown as Score;
}
