import type { CollectionName, Score } from '../records.js';
import { type SeededScore, type SeededScoreIncrement, seededScoreIncrementSchema } from '../schemas/conversation-inputs.js';
import { parseInput } from '../validate.js';
import { mustGet, type OperationContext, parseId } from './context.js';
import { findModel } from './model-lifecycle.js';

/**
 * Adds one to each score field set to true in `increment.conversation` (an absent score starts at
 * zero). Other keys of the SeededScoreIncrement are validated and ignored. A score is usage, not an
 * edit, so `updated` does not change.
 */
export async function incrementConversationScores(ctx: OperationContext, conversationId: string, increment?: unknown): Promise<void> {
  await incrementScores(ctx, SCORED.conversation, conversationId, increment);
}

/** What a scores/increment route counts on: the record's collection, its name, and the key of the increment that acts on it. */
export interface ScoredKind {
  readonly collection: Extract<CollectionName, 'conversations' | 'messages' | 'annotations' | 'models'>;
  readonly resource: string;
  readonly key: keyof SeededScoreIncrement;
}

/** The records that keep a score, each with the SeededScoreIncrement key the official client sends for it. */
export const SCORED = {
  conversation: { collection: 'conversations', resource: 'conversation', key: 'conversation' },
  message: { collection: 'messages', resource: 'message', key: 'conversationMessage' },
  annotation: { collection: 'annotations', resource: 'annotation', key: 'annotation' },
  model: { collection: 'models', resource: 'model', key: 'model' },
} as const satisfies Record<string, ScoredKind>;

/**
 * Adds one to each field set to true in `increment[kind.key]` of the record's score, in one
 * transaction (concurrent increments add up). The other keys are validated and ignored, as the
 * route names no record of theirs. NOT_FOUND for an unknown record; `updated` does not change.
 */
export async function incrementScores(ctx: OperationContext, kind: ScoredKind, recordId: string, increment?: unknown): Promise<void> {
  const id = parseId(recordId, `${kind.resource} id`);
  const input = parseInput(seededScoreIncrementSchema.optional(), increment, 'SeededScoreIncrement');
  await ctx.repository.transact(async (tx) => {
    const record = await mustGet(tx, kind.collection, id, kind.resource);
    const seeded = input?.[kind.key];
    if (!seeded) return;
    tx.put(kind.collection, { ...record, score: addScore(record.score, seeded) } as never);
  });
}

/**
 * Adds to a model's score as {@link incrementScores} does. Scores are kept for custom models, the
 * models stored in the repository; a built-in model or one a runtime offers is not stored, so its
 * increment is checked (NOT_FOUND for an unknown id, INVALID_INPUT for a bad body) and not counted.
 */
export async function incrementModelScores(ctx: OperationContext, modelId: string, increment?: unknown): Promise<void> {
  const id = parseId(modelId, 'model id');
  parseInput(seededScoreIncrementSchema.optional(), increment, 'SeededScoreIncrement');
  const { origin } = await findModel(ctx, id);
  if (origin === 'custom') await incrementScores(ctx, SCORED.model, id, increment);
}

function addScore(score: Score | undefined, seeded: SeededScore): Score {
  const next: Record<string, number> = { manual: 0, automatic: 0, ...score };
  for (const [field, increment] of Object.entries(seeded)) {
    if (increment === true) next[field] = (next[field] ?? 0) + 1;
  }
  return next as unknown as Score;
}
