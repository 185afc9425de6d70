import { z } from 'zod';
import {
  conversationTypeSchema,
  idSchema,
  jsonObjectSchema,
  nameSchema,
  referenceListSchema,
  referenceSchema,
  timestampSchema,
} from './common.js';

/**
 * Body of `POST /conversation/update`: a Conversation. Only `id` is required; of the rest, the
 * mutable fields below are applied and everything else (timestamps, messages, links) is ignored:
 * links change through the associate/disassociate operations, messages through `/messages/create`.
 */
export const conversationUpdateSchema = z.object({
  id: idSchema,
  name: nameSchema.nullable().optional(),
  favorited: z.boolean().optional(),
  type: conversationTypeSchema.optional(),
  model: referenceSchema.nullable().optional(),
  application: jsonObjectSchema.optional(),
  pipeline: jsonObjectSchema.optional(),
  demo: z.boolean().optional(),
  deleted: timestampSchema.nullable().optional(),
});

/** The API's SeededScore: each true field adds one to that field of the record's Score. */
export const seededScoreSchema = z.object({
  manual: z.boolean().optional(),
  automatic: z.boolean().optional(),
  priority: z.boolean().optional(),
  reuse: z.boolean().optional(),
  update: z.boolean().optional(),
  reference: z.boolean().optional(),
  searched: z.boolean().optional(),
});

/**
 * Body of scores/increment. Only `conversation` acts; the client's other keys (asset, website, …)
 * are validated and ignored, because the route names no record of those kinds.
 */
export const seededScoreIncrementSchema = z.object({ conversation: seededScoreSchema.optional() }).catchall(seededScoreSchema);

/** Body of summarize: which messages to summarize (default: all of them). */
export const conversationSummarizeInputSchema = z.object({
  messages: referenceListSchema.optional(),
});

export type ConversationUpdate = z.infer<typeof conversationUpdateSchema>;
export type SeededScore = z.infer<typeof seededScoreSchema>;
export type SeededScoreIncrement = z.infer<typeof seededScoreIncrementSchema>;
export type ConversationSummarizeInput = z.infer<typeof conversationSummarizeInputSchema>;
