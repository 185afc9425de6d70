import { z } from 'zod';
import {
  conversationTypeSchema,
  idSchema,
  ignoredField,
  jsonObjectSchema,
  modelReferenceSchema,
  nameSchema,
  referenceListSchema,
  timestampSchema,
} from './common.js';

/**
 * Body of `POST /conversation/update`: a Conversation, as the official client sends it (the whole
 * record it read). Only `id` is required; of the rest, the mutable fields are applied and the
 * others (timestamps, messages, links, score) are accepted and ignored: links change through the
 * associate/disassociate operations, messages through `/messages/create`. Any other key is refused.
 */
export const conversationUpdateSchema = z.strictObject({
  schema: ignoredField,
  id: idSchema,
  name: nameSchema.nullable().optional(),
  favorited: z.boolean().optional(),
  type: conversationTypeSchema.optional(),
  model: modelReferenceSchema.nullable().optional(),
  application: jsonObjectSchema.optional(),
  pipeline: jsonObjectSchema.optional(),
  demo: z.boolean().optional(),
  deleted: timestampSchema.nullable().optional(),
  created: ignoredField,
  updated: ignoredField,
  annotations: ignoredField,
  messages: ignoredField,
  assets: ignoredField,
  websites: ignoredField,
  anchors: ignoredField,
  grounding: ignoredField,
  score: ignoredField,
  summaries: ignoredField,
});

/**
 * The API's SeededScore: each true field adds one to that field of the record's Score. `manual`
 * and `automatic` are the service's own (the official client sends the other five).
 */
export const seededScoreSchema = z.strictObject({
  schema: ignoredField,
  manual: z.boolean().optional(),
  automatic: z.boolean().optional(),
  priority: z.boolean().optional(),
  reuse: z.boolean().optional(),
  update: z.boolean().optional(),
  reference: z.boolean().optional(),
  searched: z.boolean().optional(),
});

/** The SeededScoreIncrement keys of the official client besides `conversation`: each a SeededScore. */
const OTHER_SCORE_KEYS = [
  'asset',
  'assets',
  'website',
  'websites',
  'anchor',
  'anchors',
  'anchorPoint',
  'anchorPoints',
  'annotation',
  'annotations',
  'conversations',
  'conversationMessage',
  'conversationMessages',
  'share',
  'shares',
  'sensitive',
  'sensitives',
  'hint',
  'hints',
  'person',
  'persons',
  'tag',
  'tags',
  'workstream_summary',
  'workstream_summaries',
  'workstream_events',
  'workstream_event',
  'ranges',
  'range',
  'workstream_pattern_engine_sources',
  'workstream_pattern_engine_source',
  'models',
  'model',
  'workstream_pattern_engine_source_windows',
  'workstream_pattern_engine_source_window',
] as const;

/**
 * Body of scores/increment. Only `conversation` acts; the client's other keys (asset, website, …)
 * are validated as SeededScores and ignored, because the route names no record of those kinds.
 */
export const seededScoreIncrementSchema = z.strictObject({
  schema: ignoredField,
  conversation: seededScoreSchema.optional(),
  ...(Object.fromEntries(OTHER_SCORE_KEYS.map((key) => [key, seededScoreSchema.optional()])) as Record<
    (typeof OTHER_SCORE_KEYS)[number],
    z.ZodOptional<typeof seededScoreSchema>
  >),
});

/** Body of summarize: which messages to summarize (default: all of them). */
export const conversationSummarizeInputSchema = z.strictObject({
  schema: ignoredField,
  messages: referenceListSchema.optional(),
});

export type ConversationUpdate = z.infer<typeof conversationUpdateSchema>;
export type SeededScore = z.infer<typeof seededScoreSchema>;
export type SeededScoreIncrement = z.infer<typeof seededScoreIncrementSchema>;
export type ConversationSummarizeInput = z.infer<typeof conversationSummarizeInputSchema>;
