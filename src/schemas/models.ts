import { z } from 'zod';
import { ignoredField, jsonObjectSchema, nameSchema, openEnumSchema, timestampSchema } from './common.js';

export const modelUsageSchema = z.enum([
  'UNKNOWN',
  'OCR',
  'CODE_CLASSIFICATION',
  'TEXT_VS_CODE',
  'TAGIFY_CODE',
  'TLP_TAG_SEARCH',
  'TLP_NEURAL_CODE_SEARCH',
  'TAGIFY_COLOR_FROM_CODE',
  'CODE_DESCRIPTION',
  'CODE_TITLE',
  'CODE_SEARCH_QUERIES',
  'CODE_EXTRACTIVE_TAGS',
  'CODE_EXTRACTIVE_LINKS',
  'CODE_CONVERSATION',
  'CODE_GENERATION',
  'CODE_SEARCH',
  'CODE_DISCOVERY',
  'CODE_RELATED_PEOPLE',
  'CODE_FRAMEWORK',
  'VIDEO_OCR',
  'TEXT_VS_CODE_SEGMENTATION',
  'TEXT_EMBEDDING',
  'TECHNICAL_ERROR',
]);

export const modelTypeSchema = z.enum(['UNKNOWN', 'BALANCED', 'SPEED', 'ACCURACY']);

const byteDescriptorSchema = z.strictObject({ schema: ignoredField, value: z.number().nonnegative(), readable: z.string() });

/**
 * Body of `POST /models/create`: a SeededModel, exactly the keys the official client's
 * SeededModel can send. A Model's `id`, `loaded`, `downloading` and `score` are the service's to
 * say: the client never sends them in a seed, so they are refused like any unknown field.
 */
export const seededModelSchema = z.strictObject({
  schema: ignoredField,
  version: z.string().min(1).max(128),
  created: timestampSchema,
  name: nameSchema.min(1),
  cloud: z.boolean(),
  type: modelTypeSchema,
  usage: modelUsageSchema,
  description: z.string().max(10_000).optional(),
  bytes: byteDescriptorSchema.optional(),
  ram: byteDescriptorSchema.optional(),
  quantization: z.string().max(128).optional(),
  foundation: openEnumSchema.optional(),
  downloaded: z.boolean().optional(),
  unique: z.string().min(1).max(512).optional(),
  parameters: z.number().nonnegative().optional(),
  provider: openEnumSchema.optional(),
  cpu: z.boolean().optional(),
  maxTokens: jsonObjectSchema.optional(),
  custom: z.boolean().optional(),
  capabilities: jsonObjectSchema.optional(),
});

/**
 * Body of `POST /model/update`: a Model, as the official client sends it. Its `id` names the model;
 * the SeededModel fields it carries replace the stored ones; `loaded`, `downloaded`, `downloading`,
 * `custom` and `score` are the service's to say, and ignored.
 */
export const modelUpdateSchema = seededModelSchema.partial().extend({
  id: z.string().min(1).max(512),
  downloaded: ignoredField,
  custom: ignoredField,
  loaded: ignoredField,
  downloading: ignoredField,
  score: ignoredField,
});

/**
 * Body of models/{m}/delete/cache: `{}` or nothing. The client's ModelDeleteCacheInput has only
 * `schema`, which the service does not use; any other key is refused.
 */
export const modelDeleteCacheInputSchema = z.strictObject({ schema: ignoredField });

export type SeededModel = z.infer<typeof seededModelSchema>;
