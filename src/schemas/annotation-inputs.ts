import { z } from 'zod';
import { annotationTypeSchema, idSchema, ignoredField, mechanismSchema, modelReferenceSchema, textSchema } from './common.js';

/**
 * Body of `POST /annotation/update`: an Annotation, as the official client sends it (the whole
 * annotation it read). Only `id` is required; `text`, `type`, `mechanism`, `favorited` and `model`
 * are applied (`null` clears `model`); timestamps, the score and every link are accepted and
 * ignored (links change through the associate routes). Any other key is refused.
 */
export const annotationUpdateSchema = z.strictObject({
  schema: ignoredField,
  id: idSchema,
  text: textSchema.optional(),
  type: annotationTypeSchema.optional(),
  mechanism: mechanismSchema.optional(),
  favorited: z.boolean().optional(),
  model: modelReferenceSchema.nullable().optional(),
  created: ignoredField,
  updated: ignoredField,
  deleted: ignoredField,
  asset: ignoredField,
  person: ignoredField,
  pseudo: ignoredField,
  anchor: ignoredField,
  conversation: ignoredField,
  score: ignoredField,
  messages: ignoredField,
  summary: ignoredField,
  assets: ignoredField,
  persons: ignoredField,
  anchors: ignoredField,
  conversations: ignoredField,
  summaries: ignoredField,
  websites: ignoredField,
  tags: ignoredField,
  workstream_events: ignoredField,
});

export type AnnotationUpdate = z.infer<typeof annotationUpdateSchema>;
